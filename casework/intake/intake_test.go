package intake_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/intake"
	"github.com/sanadhq/sanad/casework/issues"
)

// asOf is the day the golden assessments are made on.
var asOf = time.Date(2025, 10, 6, 0, 0, 0, 0, time.UTC)

func readForm(tb testing.TB, name string) intake.Form {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	f, err := intake.ParseForm(data)
	if err != nil {
		tb.Fatalf("ParseForm(%s): got error %v, want nil", name, err)
	}
	return f
}

func primaryAreas(s intake.Summary) (primary, possible []string) {
	for _, a := range s.Areas {
		if a.Primary {
			primary = append(primary, a.ID)
		} else {
			possible = append(possible, a.ID)
		}
	}
	return primary, possible
}

func riskLevels(rs []intake.LimitationRisk) map[string]string {
	out := map[string]string{}
	for _, r := range rs {
		out[r.Cause] = r.Level
	}
	return out
}

func itemCodes(cl intake.Checklist) []string {
	var out []string
	for _, it := range cl.Items {
		out = append(out, it.Code+"@"+it.Field)
	}
	return out
}

// TestC08_AssessRealisticForms checks the intake_summary, intake_checklist
// and triage of realistic forms against what an attorney would expect.
func TestC08_AssessRealisticForms(t *testing.T) {
	tests := []struct {
		file      string
		primary   []string
		possible  []string
		risks     map[string]string
		items     []string
		urgency   string
		triage    string
		triageRul string
	}{
		{
			file:     "good_tenant_eviction.json",
			primary:  []string{"housing", "courts"},
			possible: []string{"employment", "estates"}, // "quit", "paid", "manager"; "will" read as "wills"
			risks: map[string]string{
				"return of a security deposit (written lease)":      intake.LevelOK,
				"answer to an eviction (unlawful detainer) summons": intake.LevelUrgent,
				"answer to a civil summons":                         intake.LevelUrgent,
			},
			items:     nil,
			urgency:   intake.UrgencyHigh,
			triage:    intake.Accept,
			triageRul: "issue_spotted",
		},
		{
			file:    "good_employee_overtime.json",
			primary: []string{"employment"},
			risks: map[string]string{
				"unpaid wages or overtime (federal FLSA)":                   intake.LevelOK,
				"retaliation for a wage complaint (Cal. Labor Code § 98.7)": intake.LevelSoon,
			},
			// "Pay stubs" is listed; an offer letter too.
			items:     nil,
			urgency:   intake.UrgencyNormal,
			triage:    intake.Accept,
			triageRul: "issue_spotted",
		},
		{
			file:     "good_contractor_fraud.json",
			primary:  []string{"consumer"},
			possible: []string{"employment", "traffic"}, // "paid", "work"; "hot plate"
			risks: map[string]string{
				"fraud":                        intake.LevelExpired,
				"breach of a written contract": intake.LevelSoon,
			},
			items:     nil,
			urgency:   intake.UrgencyHigh,
			triage:    intake.Accept,
			triageRul: "issue_spotted",
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			a := intake.Assess(readForm(t, tt.file), intake.Options{AsOf: asOf})
			primary, possible := primaryAreas(a.Summary)
			if !slices.Equal(primary, tt.primary) || !slices.Equal(possible, tt.possible) {
				t.Errorf("areas: got primary %v possible %v, want %v and %v", primary, possible, tt.primary, tt.possible)
			}
			if got := riskLevels(a.Summary.LimitationRisks); !mapsEqual(got, tt.risks) {
				t.Errorf("limitation risks: got %v, want %v", got, tt.risks)
			}
			if got := itemCodes(a.Checklist); !slices.Equal(got, tt.items) {
				t.Errorf("checklist: got %v, want %v", got, tt.items)
			}
			if a.Summary.Urgency.Level != tt.urgency || len(a.Summary.Urgency.Reasons) == 0 {
				t.Errorf("urgency: got %+v, want %s with reasons", a.Summary.Urgency, tt.urgency)
			}
			if a.Triage.Recommendation != tt.triage || a.Triage.Rule != tt.triageRul {
				t.Errorf("triage: got %s by %s, want %s by %s (%v)", a.Triage.Recommendation, a.Triage.Rule, tt.triage, tt.triageRul, a.Triage.Reasons)
			}
			checkInvariants(t, a)
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// checkInvariants holds for every assessment: a person confirms, every
// recommendation and urgency has reasons, the narrative is bounded, every
// risk names its rule and caveat.
func checkInvariants(tb testing.TB, a intake.Assessment) {
	tb.Helper()
	if !a.Triage.RequiresHumanConfirmation {
		tb.Error("triage: requires_human_confirmation is false, want true")
	}
	if len(a.Triage.Reasons) == 0 || a.Triage.Rule == "" {
		tb.Errorf("triage %s: no reasons or rule", a.Triage.Recommendation)
	}
	if len(a.Summary.Urgency.Reasons) == 0 {
		tb.Errorf("urgency %s: no reasons", a.Summary.Urgency.Level)
	}
	if n := utf8.RuneCountInString(a.Summary.Narrative); n > intake.MaxSummaryChars {
		tb.Errorf("summary narrative: %d characters, want at most %d", n, intake.MaxSummaryChars)
	}
	for _, r := range a.Summary.LimitationRisks {
		if r.Rule == "" || !strings.Contains(r.Caveat, "indicative") || r.TriggerBasis == "" {
			tb.Errorf("risk %q: rule %q, caveat %q, basis %q; want all, the caveat saying indicative", r.Cause, r.Rule, r.Caveat, r.TriggerBasis)
		}
	}
	for _, it := range a.Checklist.Items {
		if it.Code == "" || it.Field == "" || it.Reason == "" {
			tb.Errorf("checklist item %+v: want a code, a field and a reason", it)
		}
	}
}

// TestC08_MissingContactAndDatesNeedsMoreInfo: a form with no way to reach
// the client, no dates and a two-line story is sent back for more.
func TestC08_MissingContactAndDatesNeedsMoreInfo(t *testing.T) {
	a := intake.Assess(readForm(t, "bad_missing_contact_and_dates.json"), intake.Options{AsOf: asOf})
	want := []intake.ChecklistItem{
		{Code: intake.ItemContactMissing, Field: "client.contact", Blocking: true},
		{Code: intake.ItemOpposingMissing, Field: "parties"},
		{Code: intake.ItemKeyDatesMissing, Field: "key_dates"},
		{Code: intake.ItemNarrativeShort, Field: "narrative", Blocking: true},
		{Code: intake.ItemDocumentExpected, Field: "documents"}, // the lease
		{Code: intake.ItemDocumentExpected, Field: "documents"}, // the eviction notice
		{Code: intake.ItemAmountMissing, Field: "amounts"},
	}
	got := a.Checklist.Items
	if len(got) != len(want) {
		t.Fatalf("checklist: got %v, want %d items", itemCodes(a.Checklist), len(want))
	}
	for i := range want {
		if got[i].Code != want[i].Code || got[i].Field != want[i].Field || got[i].Blocking != want[i].Blocking {
			t.Errorf("item %d: got %s@%s blocking %v, want %s@%s blocking %v", i, got[i].Code, got[i].Field, got[i].Blocking, want[i].Code, want[i].Field, want[i].Blocking)
		}
	}
	if !a.Checklist.Blocking {
		t.Error("checklist: blocking false, want true")
	}
	if a.Triage.Recommendation != intake.NeedsMoreInfo || len(a.Triage.Reasons) != 2 {
		t.Errorf("triage: got %s %v, want needs_more_info for the two blocking items", a.Triage.Recommendation, a.Triage.Reasons)
	}
	if r := a.Summary.LimitationRisks; len(r) != 1 || r[0].Level != intake.LevelUnknown {
		t.Errorf("limitation risks: got %+v, want one of level unknown (no date to count from)", r)
	}
	checkInvariants(t, a)
}

// TestC08_AllLimitationsExpiredRejects: a slip and fall four years ago is
// rejected, subject to attorney review, with the rule that ran out.
func TestC08_AllLimitationsExpiredRejects(t *testing.T) {
	a := intake.Assess(readForm(t, "good_expired_injury.json"), intake.Options{AsOf: asOf})
	if got := riskLevels(a.Summary.LimitationRisks); !mapsEqual(got, map[string]string{"personal injury": intake.LevelExpired}) {
		t.Fatalf("limitation risks: got %v, want personal injury expired", got)
	}
	r := a.Summary.LimitationRisks[0]
	if r.TriggerDate != "2021-02-14" || r.Deadline != "2023-02-14" || !strings.Contains(r.Rule, "335.1") {
		t.Errorf("risk: got trigger %s deadline %s rule %q, want 2021-02-14, 2023-02-14, § 335.1", r.TriggerDate, r.Deadline, r.Rule)
	}
	if a.Triage.Recommendation != intake.Reject || a.Triage.Rule != "all_limitations_expired" ||
		!strings.Contains(strings.Join(a.Triage.Reasons, " "), "subject to attorney review") {
		t.Errorf("triage: got %s by %s %v, want reject by all_limitations_expired, subject to attorney review", a.Triage.Recommendation, a.Triage.Rule, a.Triage.Reasons)
	}
	checkInvariants(t, a)
}

// TestC08_NoLegalIssueRejects: a substantive story that raises no area of
// law is rejected, subject to review; a short one asks for more.
func TestC08_NoLegalIssueRejects(t *testing.T) {
	f := intake.Form{
		SchemaVersion: intake.FormSchemaVersion,
		Client:        intake.Party{Name: "Ottoline Brisbane", Contact: intake.Contact{Email: "ottoline@example.com"}},
		Narrative: strings.Repeat("I would like to know which colour to paint the garden shed this spring, and whether blue goes with the roses along the path. ", 3) +
			"My sister prefers green but I am not sure about it at all.",
	}
	a := intake.Assess(f, intake.Options{AsOf: asOf})
	if a.Triage.Recommendation != intake.Reject || a.Triage.Rule != "no_legal_issue" {
		t.Errorf("triage: got %s by %s %v, want reject by no_legal_issue", a.Triage.Recommendation, a.Triage.Rule, a.Triage.Reasons)
	}
	checkInvariants(t, a)

	f.Narrative = "Which colour for the shed?"
	if a := intake.Assess(f, intake.Options{AsOf: asOf}); a.Triage.Recommendation != intake.NeedsMoreInfo {
		t.Errorf("short story: got %s, want needs_more_info", a.Triage.Recommendation)
	}
}

// TestC08_ParseFormRejectsMalformed: every malformed form is INVALID_INPUT
// and the message names the field at fault.
func TestC08_ParseFormRejectsMalformed(t *testing.T) {
	good, err := os.ReadFile("testdata/good_employee_overtime.json")
	if err != nil {
		t.Fatal(err)
	}
	with := func(edit func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	tests := []struct {
		name, data, want string
	}{
		{"not JSON", "schema_version: 1.0.0\n", "not valid JSON"},
		{"truncated", string(good[:len(good)/2]), "not valid JSON"},
		{"an array", "[]", "want object"},
		{"wrong type", with(func(m map[string]any) { m["narrative"] = 42 }), "narrative"},
		{"unknown field", with(func(m map[string]any) { m["narative"] = "x" }), `"narative"`},
		{"unknown nested field", with(func(m map[string]any) { m["client"].(map[string]any)["mobile"] = "1" }), `client: unknown key "mobile"`},
		{"missing narrative", with(func(m map[string]any) { delete(m, "narrative") }), `"narrative"`},
		{"wrong version", with(func(m map[string]any) { m["schema_version"] = "2.0.0" }), "schema_version"},
		{"bad date format", with(func(m map[string]any) { m["key_dates"].([]any)[1].(map[string]any)["date"] = "03/03/2025" }), "key_dates[1].date"},
		{"not a calendar date", with(func(m map[string]any) { m["key_dates"].([]any)[2].(map[string]any)["date"] = "2025-02-30" }), "key_dates[2].date"},
		{"bad submitted_at", with(func(m map[string]any) { m["submitted_at"] = "2025-13-01" }), "submitted_at"},
		{"bad role", with(func(m map[string]any) { m["parties"].([]any)[0].(map[string]any)["role"] = "enemy" }), "parties[0].role"},
		{"nameless party", with(func(m map[string]any) { m["parties"] = []any{map[string]any{"role": "witness"}} }), "parties[0]"},
		{"negative amount", with(func(m map[string]any) { m["amounts"].([]any)[0].(map[string]any)["value"] = -5 }), "amounts[0].value"},
		{"duplicate key", `{"schema_version":"1.0.0","narrative":"a","narrative":"b"}`, "narrative"},
		{"oversize", `{"narrative":"` + strings.Repeat("a", intake.MaxFormBytes) + `"}`, "bytes"},
		{"empty", "", "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := intake.ParseForm([]byte(tt.data))
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
				t.Fatalf("got %v, want %s", err, sanad.CodeInvalidInput)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q, want it to name %s", err, tt.want)
			}
		})
	}
}

// TestFormSchemaIsVersioned: the embedded schema is JSON whose $id ends with
// FormSchemaVersion, and every testdata good_ form passes it.
func TestFormSchemaIsVersioned(t *testing.T) {
	var s struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(intake.FormSchema(), &s); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(s.ID, "/"+intake.FormSchemaVersion) {
		t.Errorf("$id %q, want it to end with /%s", s.ID, intake.FormSchemaVersion)
	}
	files, _ := filepath.Glob("testdata/good_*.json")
	if len(files) < 4 {
		t.Fatalf("got %d good forms, want at least 4", len(files))
	}
	for _, f := range files {
		readForm(t, filepath.Base(f))
	}
}

// TestDatesInFutureAndOutOfOrder: a past event dated in the future, dates
// listed out of order and a date after submission are flagged; a hearing
// ahead is not.
func TestDatesInFutureAndOutOfOrder(t *testing.T) {
	f := readForm(t, "good_employee_overtime.json")
	f.KeyDates = []intake.KeyDate{
		{Label: "fired", Date: "2025-03-17"},
		{Label: "emailed HR", Date: "2025-03-03"},
		{Label: "last pay cheque", Date: "2025-10-03"},
		{Label: "mediation scheduled", Date: "2025-11-20"},
		{Label: "told to clear my desk", Date: "2026-01-09"},
	}
	a := intake.Assess(f, intake.Options{AsOf: asOf})
	want := []string{
		"dates_out_of_order@key_dates[1].date",
		"date_after_submission@key_dates[2].date",
		"date_in_future@key_dates[4].date",
	}
	if got := itemCodes(a.Checklist); !slices.Equal(got, want) {
		t.Errorf("checklist: got %v, want %v", got, want)
	}
}

// TestContactIsCheckedAsEmailOrPhone: a contact that is neither an email
// address nor a phone number does not count; one in the narrative is
// pointed to.
func TestContactIsCheckedAsEmailOrPhone(t *testing.T) {
	f := readForm(t, "good_employee_overtime.json")
	f.Client.Contact = intake.Contact{Email: "desmond at home", Phone: "12"}
	a := intake.Assess(f, intake.Options{AsOf: asOf})
	want := []string{"client_contact_invalid@client.contact.email", "client_contact_invalid@client.contact.phone"}
	if got := itemCodes(a.Checklist); !slices.Equal(got, want) || a.Triage.Recommendation != intake.NeedsMoreInfo {
		t.Errorf("got %v %s, want %v and needs_more_info", got, a.Triage.Recommendation, want)
	}

	f.Client.Contact = intake.Contact{}
	f.Narrative += " You can call me on +1 510 555 0123."
	a = intake.Assess(f, intake.Options{AsOf: asOf})
	if len(a.Checklist.Items) != 1 || a.Checklist.Items[0].Blocking || !strings.Contains(a.Checklist.Items[0].Reason, "phone number") {
		t.Errorf("got %+v, want one non-blocking item pointing to the phone number in the narrative", a.Checklist.Items)
	}
}

// TestConflictRequestNormalisesAndDedupes: names meet across case, accents,
// punctuation and corporate suffixes; each keeps every role; the id
// depends on the names only.
func TestConflictRequestNormalisesAndDedupes(t *testing.T) {
	f := intake.Form{
		Client: intake.Party{Name: "José  O'Brien"},
		Parties: []intake.Party{
			{Name: "jose obrien", Role: intake.RoleWitness},
			{Name: "Priya Halvorsen", Role: intake.RoleOpposing, Organisation: "Northgate Logistics, Inc."},
			{Role: intake.RoleOpposing, Organisation: "NORTHGATE LOGISTICS"},
		},
	}
	c := intake.Assess(f, intake.Options{AsOf: asOf}).Conflicts
	type row struct{ norm, roles string }
	var got []row
	for _, n := range c.Names {
		got = append(got, row{n.Normalized, strings.Join(n.Roles, ",")})
	}
	want := []row{{"jose obrien", "client,witness"}, {"priya halvorsen", "opposing"}, {"northgate logistics", "organisation"}}
	if !slices.Equal(got, want) {
		t.Errorf("names: got %v, want %v", got, want)
	}
	if !strings.HasPrefix(c.RequestID, "ccr-") || len(c.RequestID) != 20 {
		t.Errorf("request id %q, want ccr- and 16 hex digits", c.RequestID)
	}
	f.Parties[0].Name = "JOSE O'BRIEN"
	if again := intake.Assess(f, intake.Options{}).Conflicts; again.RequestID != c.RequestID {
		t.Errorf("request id changed with the spelling of a name: %s, then %s", c.RequestID, again.RequestID)
	}
}

// TestSummaryNarrativeIsCutAtSentence: a long story is cut to the bound at
// the end of a sentence.
func TestSummaryNarrativeIsCutAtSentence(t *testing.T) {
	f := readForm(t, "good_tenant_eviction.json")
	f.Narrative = strings.Repeat("The landlord kept the deposit and did not repair the heating. ", 60)
	s := intake.Assess(f, intake.Options{AsOf: asOf}).Summary.Narrative
	if n := utf8.RuneCountInString(s); n > intake.MaxSummaryChars || n < intake.MaxSummaryChars/2 {
		t.Errorf("narrative: %d characters, want at most %d and more than half", n, intake.MaxSummaryChars)
	}
	if !strings.HasSuffix(s, "heating.") {
		t.Errorf("narrative ends %q, want the end of a sentence", s[len(s)-20:])
	}
}

// TestDescriptionOnlyAreaIsSpotted: an area with a description and no
// signals is spotted on the description's words, and its limitation rule
// and expected documents apply.
func TestDescriptionOnlyAreaIsSpotted(t *testing.T) {
	tax, err := issues.Load([]byte(`version: 1
threshold: 0.1
areas:
  - id: housing
    name: Housing
    description: Renting a home, landlords, tenants, evictions and security deposits.
`))
	if err != nil {
		t.Fatal(err)
	}
	f := readForm(t, "good_tenant_eviction.json")
	f.Documents = nil
	a := intake.Assess(f, intake.Options{AsOf: asOf, Taxonomy: tax})
	if primary, _ := primaryAreas(a.Summary); !slices.Equal(primary, []string{"housing"}) {
		t.Fatalf("areas: got %v, want [housing]", primary)
	}
	if len(a.Summary.LimitationRisks) == 0 || a.Summary.LimitationRisks[0].Area != "housing" {
		t.Errorf("limitation risks: got %+v, want housing's", a.Summary.LimitationRisks)
	}
	if got := itemCodes(a.Checklist); !slices.Contains(got, "document_expected@documents") {
		t.Errorf("checklist: got %v, want the lease expected", got)
	}
}

// TestMatterTypeNamingAnAreaRaisesIt: a client who names the area gets it,
// marked as coming from the matter type.
func TestMatterTypeNamingAnAreaRaisesIt(t *testing.T) {
	f := readForm(t, "good_contractor_fraud.json")
	a := intake.Assess(f, intake.Options{AsOf: asOf})
	if !slices.Contains(a.Summary.Areas[0].Signals, "matter_type: consumer") {
		t.Errorf("signals %v, want matter_type: consumer", a.Summary.Areas[0].Signals)
	}
}

// TestSuppliedAreasWithUnknownIDsAreLeftOut: areas spotted elsewhere are
// used, and an id the taxonomy lacks is dropped with a checklist item.
func TestSuppliedAreasWithUnknownIDsAreLeftOut(t *testing.T) {
	f := readForm(t, "good_employee_overtime.json")
	a := intake.Assess(f, intake.Options{AsOf: asOf, Areas: []issues.Area{
		{ID: "employment", Name: "Employment and work", Score: 0.9, Likely: true},
		{ID: "maritime", Name: "Maritime", Score: 0.8, Likely: true},
	}})
	if a.Summary.Spotter != "supplied" || len(a.Summary.Areas) != 1 || a.Summary.Areas[0].ID != "employment" {
		t.Errorf("areas: got %s %+v, want supplied [employment]", a.Summary.Spotter, a.Summary.Areas)
	}
	if got := itemCodes(a.Checklist); !slices.Contains(got, "area_unknown@matter_type") {
		t.Errorf("checklist: got %v, want area_unknown", got)
	}
}

// TestEmbeddedRules: the embedded limitations, expectations and taxonomy
// load, every limitation rule and expectation names an area of the
// taxonomy, and broken files are INVALID_INPUT.
func TestEmbeddedRules(t *testing.T) {
	tax := issues.Default()
	ids := map[string]bool{}
	for _, s := range tax.Areas {
		ids[s.ID] = true
	}
	if !ids["housing"] || !ids["employment"] {
		t.Errorf("taxonomy areas %v, want housing and employment among them", ids)
	}
	for _, r := range intake.DefaultLimitations().Rules {
		if !ids[r.Area] {
			t.Errorf("limitation rule %q: area %q is not in the taxonomy", r.Cause, r.Area)
		}
	}
	for area := range intake.DefaultExpectations().Areas {
		if !ids[area] {
			t.Errorf("expectations: area %q is not in the taxonomy", area)
		}
	}
	for name, y := range map[string]string{
		"no note":    "version: 1\nid: x\nrules: []\n",
		"bad period": "version: 1\nid: x\nnote: n\nrules: [{area: a, cause: c, rule: r, period: 2w}]\n",
		"unknown":    "version: 1\nid: x\nnote: n\nbogus: 1\n",
	} {
		if _, err := intake.LoadLimitations([]byte(y)); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("LoadLimitations(%s): got %v, want %s", name, err, sanad.CodeInvalidInput)
		}
	}
	if _, err := intake.LoadExpectations([]byte("version: 1\nmin_narrative_words: 10\nprimary_ratio: 2\n")); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("LoadExpectations(primary_ratio 2): got %v, want %s", err, sanad.CodeInvalidInput)
	}
}
