package promote_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/promote"
)

const transcript = `ATTORNEY: Tell me what happened after you asked for the repairs.
CLIENT: I wrote to them in March about the heater. The landlord, he never fixed the heater; not once in three months did anybody come.
CLIENT: Then in May I got the notice that they would not renew the lease, right after I called the city inspector.
ATTORNEY: Do you still have the letter you wrote in March?
CLIENT: Yes, and the text messages with the building manager.`

const privilegedNote = `Strategy: the timing of the nonrenewal supports a presumption of retaliation under the statute; press for the inspector's report before mediation and do not disclose the rent ledger yet.`

func caseContext() promote.CaseContext {
	return promote.CaseContext{
		Texts: []promote.SourceText{
			{ID: "t-1", Name: "Delgado intake interview", Text: transcript},
			{ID: "n-1", Name: "attorney strategy note", Text: privilegedNote, Privileged: true},
		},
		Parties:       []string{"Maria Delgado", "James O'Connor"},
		Organisations: []string{"Harbor View Properties LLC"},
	}
}

const generic = "In retaliatory-eviction matters, ask for the repair request log first: a written request that predates the nonrenewal notice is the strongest evidence of timing."

func candidate(text string) promote.Candidate {
	return promote.Candidate{ID: "cand-1", Kind: promote.KindHeuristic, Title: "Repair log first", Text: text, Tags: []string{"housing", "retaliation"}, SourceCase: "case-42"}
}

// wantFailed checks that r fails exactly the checks in want.
func wantFailed(tb testing.TB, r promote.Result, want ...string) {
	tb.Helper()
	for _, c := range promote.Checks {
		wantFail := strings.Contains(strings.Join(want, ","), c)
		if got := r.Failed(c); got != wantFail {
			tb.Errorf("check %s failed = %v, want %v; findings %+v", c, got, wantFail, r.Findings)
		}
	}
	if r.Allowed != (len(want) == 0) {
		tb.Errorf("Allowed = %v, want %v", r.Allowed, len(want) == 0)
	}
}

func TestC11_GenericInsightIsAllowed(t *testing.T) {
	r := promote.Check(candidate(generic), caseContext(), promote.Options{})
	wantFailed(t, r)
	if len(r.CandidateSHA256) != 64 {
		t.Errorf("CandidateSHA256 = %q, want 64 hex digits", r.CandidateSHA256)
	}
}

func TestC11_RawCaseTextEightWordsRefused(t *testing.T) {
	quoted := "he never fixed the heater not once in" // 8 words of the transcript
	text := "Clients often say " + quoted + " a season; ask for the repair request log first."
	r := promote.Check(candidate(text), caseContext(), promote.Options{})
	wantFailed(t, r, promote.CheckRawCaseText)
	f := r.Findings[0]
	candStart := strings.Index(text, "he never")
	srcStart := utf8.RuneCountInString(transcript[:strings.Index(transcript, "he never")])
	// The transcript's run ends at "in", with its punctuation stripped.
	want := fmt.Sprintf("candidate text chars %d-%d quotes t-1 chars %d-%d",
		candStart, candStart+len(quoted), srcStart, srcStart+len("he never fixed the heater; not once in"))
	if f.Where != want {
		t.Errorf("Where = %q, want %q", f.Where, want)
	}
	if f.Quote != quoted {
		t.Errorf("Quote = %q, want %q", f.Quote, quoted)
	}
	if !strings.Contains(f.Detail, "8 consecutive words") {
		t.Errorf("Detail = %q, want it to say 8 consecutive words", f.Detail)
	}
}

func TestC11_RawCaseTextSevenWordsPasses(t *testing.T) {
	text := "Clients often say he never fixed the heater not once; ask for the repair request log first."
	r := promote.Check(candidate(text), caseContext(), promote.Options{})
	wantFailed(t, r)
}

func TestC11_RawCaseTextPunctuationAndCaseIgnored(t *testing.T) {
	for _, text := range []string{
		"THE LANDLORD -- HE NEVER FIXED THE HEATER, NOT ONCE!",
		"the landlord he never fixed the heater not once",
		"The   landlord...\nhe never (fixed) the \"heater\" — not once.",
	} {
		r := promote.Check(candidate(text), caseContext(), promote.Options{})
		if !r.Failed(promote.CheckRawCaseText) {
			t.Errorf("%q: raw_case_text passed, want refused", text)
		}
	}
}

func TestC11_RawCaseTextLongestRunReported(t *testing.T) {
	text := "I wrote to them in March about the heater. Then in May I got the notice that they would not renew the lease."
	r := promote.Check(candidate(text), caseContext(), promote.Options{})
	if !r.Failed(promote.CheckRawCaseText) {
		t.Fatalf("raw_case_text passed, want refused")
	}
	if got, want := r.Findings[0].Quote, "Then in May I got the notice that they would not renew the lease"; got != want {
		t.Errorf("Quote = %q, want the longest run %q", got, want)
	}
}

func TestC11_MaxSharedWordsOption(t *testing.T) {
	text := "he never fixed the heater not once" // 7 words
	if r := promote.Check(candidate(text), caseContext(), promote.Options{MaxSharedWords: 7}); !r.Failed(promote.CheckRawCaseText) {
		t.Errorf("MaxSharedWords 7: passed, want refused")
	}
	// Below PrivilegedSharedWords the limit is raised to it.
	if r := promote.Check(candidate("the heater not once"), caseContext(), promote.Options{MaxSharedWords: 2}); r.Failed(promote.CheckRawCaseText) {
		t.Errorf("MaxSharedWords 2, 4 shared words: refused, want passed")
	}
}

func TestC11_ClientIdentityRefused(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"client full name", "Maria Delgado asked for the repair log first."},
		{"client possessive", "Delgado's landlord ignored the repair request."},
		{"surname alone lower case", "in the delgado matter the log decided it"},
		{"surname, given", "Delgado, Maria: the log decided it"},
		{"given initial surname", "Maria T. Delgado kept the log"},
		{"accents", "María Délgado kept the log"},
		{"witness surname with apostrophe", "the neighbour O'Connor saw the notice"},
		{"organisation", "Harbor View Properties LLC never answers on time"},
		{"organisation without legal form", "Harbor View Properties never answers on time"},
		{"email", "write to tenant.help@example.org for the log"},
		{"phone", "call (415) 555-0132 to get the log"},
		{"ssn", "the form asks for 536-22-1234"},
		{"address", "inspect 1420 W. Maple Ave, Apt 3B first"},
		{"titled name", "ask Mrs. Alvarez for the log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := promote.Check(candidate(tc.text), caseContext(), promote.Options{})
			wantFailed(t, r, promote.CheckClientIdentity)
		})
	}
}

func TestC11_ClientIdentityInTagOrTitle(t *testing.T) {
	c := candidate(generic)
	c.Tags = append(c.Tags, "delgado_followup")
	if r := promote.Check(c, caseContext(), promote.Options{}); !r.Failed(promote.CheckClientIdentity) {
		t.Errorf("party name in a tag: passed, want refused")
	}
	c = candidate(generic)
	c.Title = "What Maria Delgado taught us"
	r := promote.Check(c, caseContext(), promote.Options{})
	if !r.Failed(promote.CheckClientIdentity) || !strings.HasPrefix(r.Findings[0].Where, "candidate title chars 5-18") {
		t.Errorf("party name in the title: findings %+v, want one at candidate title chars 5-18", r.Findings)
	}
}

func TestC11_PrivilegedNotesRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    promote.Candidate
	}{
		{"privileged tag", func() promote.Candidate { c := candidate(generic); c.Tags = []string{"Work-Product"}; return c }()},
		{"marker", candidate("PRIVILEGED & CONFIDENTIAL: " + generic)},
		{"attorney-client marker", candidate("Attorney–client advice: " + generic)},
		{"overlap with a privileged note", candidate("Press for the inspector's report before mediation in these matters.")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := promote.Check(tc.c, caseContext(), promote.Options{})
			wantFailed(t, r, promote.CheckPrivilegedNotes)
		})
	}
}

func TestC11_PrivilegedOverlapWhere(t *testing.T) {
	text := "Always press for the inspector's report before mediation."
	r := promote.Check(candidate(text), caseContext(), promote.Options{})
	if len(r.Findings) != 1 {
		t.Fatalf("findings %+v, want one", r.Findings)
	}
	if want := "candidate text chars 7-56 quotes n-1 chars"; !strings.HasPrefix(r.Findings[0].Where, want) {
		t.Errorf("Where = %q, want prefix %q", r.Findings[0].Where, want)
	}
}

func TestC11_CustomPrivilegedTags(t *testing.T) {
	cc := caseContext()
	cc.PrivilegedTags = []string{"litigation hold"}
	c := candidate(generic)
	c.Tags = []string{"Litigation_Hold"}
	if r := promote.Check(c, cc, promote.Options{}); !r.Failed(promote.CheckPrivilegedNotes) {
		t.Errorf("custom privileged tag: passed, want refused")
	}
}

func TestIndexReused(t *testing.T) {
	x := promote.NewIndex(caseContext())
	for i := range 3 {
		r := x.Check(candidate(generic), promote.Options{})
		if !r.Allowed {
			t.Fatalf("check %d: refused, want allowed: %+v", i, r.Findings)
		}
	}
}

func ticket() promote.Ticket {
	return promote.Ticket{ID: "pt-2025-0007", Approver: "a.rahman", ApproverRole: promote.RoleAttorneyAdmin,
		Scope: promote.ScopeHeuristics, CandidateIDs: []string{"cand-1"}, Reason: "useful across eviction matters",
		ApprovedAt: "2025-03-01T10:00:00Z"}
}

func TestC11_TicketValidate(t *testing.T) {
	if err := ticket().Validate(); err != nil {
		t.Fatalf("good ticket: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*promote.Ticket)
		want string
	}{
		{"no approver", func(t *promote.Ticket) { t.Approver = " " }, "approver"},
		{"wrong scope", func(t *promote.Ticket) { t.Scope = "case_notes" }, "scope"},
		{"agent as approver", func(t *promote.Ticket) { t.ApproverRole = "GOVERNANCE_AGENT" }, "approver_role"},
		{"bad id", func(t *promote.Ticket) { t.ID = "../x" }, "ticket id"},
		{"no candidates", func(t *promote.Ticket) { t.CandidateIDs = nil }, "candidate_ids"},
		{"duplicate candidate", func(t *promote.Ticket) { t.CandidateIDs = []string{"c", "c"} }, "twice"},
		{"bad time", func(t *promote.Ticket) { t.ApprovedAt = "yesterday" }, "approved_at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tk := ticket()
			tc.edit(&tk)
			err := tk.Validate()
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want INVALID_INPUT naming %s", err, tc.want)
			}
		})
	}
}

func TestC11_TicketCovers(t *testing.T) {
	c := candidate(generic)
	if err := ticket().Covers(c); err != nil {
		t.Fatalf("Covers: %v", err)
	}
	other := c
	other.ID = "cand-2"
	if err := ticket().Covers(other); sanad.ErrorCode(err) != sanad.CodePolicyDenied {
		t.Errorf("unlisted candidate: got %v, want POLICY_DENIED", err)
	}
	playbook := c
	playbook.Kind = promote.KindPlaybook
	if err := ticket().Covers(playbook); sanad.ErrorCode(err) != sanad.CodePolicyDenied {
		t.Errorf("playbook under a heuristics ticket: got %v, want POLICY_DENIED", err)
	}
	var e *sanad.Error
	if err := ticket().Covers(other); !errors.As(err, &e) {
		t.Errorf("error %T is not a *sanad.Error", err)
	}
}

func TestC11_ReceiptPromoted(t *testing.T) {
	c := candidate(generic)
	r := promote.Check(c, caseContext(), promote.Options{})
	rc := promote.NewReceipt(ticket(), c, r)
	if rc.Decision != promote.DecisionPromoted {
		t.Fatalf("Decision = %s, want promoted: %+v", rc.Decision, rc.Checks)
	}
	if rc.TicketID != "pt-2025-0007" || rc.CandidateID != "cand-1" || rc.SourceCase != "case-42" || rc.Approver != "a.rahman" || rc.ApprovedAt == "" {
		t.Errorf("receipt %+v lacks the ticket's and candidate's ids", rc)
	}
	if rc.CandidateSHA256 != r.CandidateSHA256 {
		t.Errorf("CandidateSHA256 = %s, want %s", rc.CandidateSHA256, r.CandidateSHA256)
	}
	var names []string
	for _, o := range rc.Checks {
		names = append(names, o.Check)
		if !o.Passed {
			t.Errorf("check %s did not pass: %s", o.Check, o.Detail)
		}
	}
	if got, want := strings.Join(names, ","), "ticket,raw_case_text,client_identity,privileged_notes"; got != want {
		t.Errorf("checks %s, want %s", got, want)
	}
}

func TestC11_ReceiptRefusedCarriesNoCaseText(t *testing.T) {
	c := candidate("Maria Delgado (maria.delgado@example.com) said he never fixed the heater not once in three months.")
	r := promote.Check(c, caseContext(), promote.Options{})
	rc := promote.NewReceipt(ticket(), c, r)
	if rc.Decision != promote.DecisionRefused {
		t.Fatalf("Decision = %s, want refused", rc.Decision)
	}
	raw, err := json.Marshal(rc)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"Delgado", "maria.delgado@example.com", "heater", "intake interview"} {
		if strings.Contains(string(raw), leak) {
			t.Errorf("receipt holds %q: %s", leak, raw)
		}
	}
	for _, o := range rc.Checks {
		if o.Check != promote.CheckTicket && o.Check != promote.CheckPrivilegedNotes && o.Passed {
			t.Errorf("check %s passed, want failed", o.Check)
		}
	}
}

func TestC11_ReceiptRefusedWithoutTicket(t *testing.T) {
	c := candidate(generic)
	r := promote.Check(c, caseContext(), promote.Options{})
	tk := ticket()
	tk.CandidateIDs = []string{"cand-9"}
	if rc := promote.NewReceipt(tk, c, r); rc.Decision != promote.DecisionRefused || rc.Checks[0].Passed {
		t.Errorf("receipt %+v, want refused on its ticket", rc)
	}
	// A result of another version of the candidate does not promote it.
	changed := c
	changed.Text += " Maria Delgado."
	if rc := promote.NewReceipt(ticket(), changed, r); rc.Decision != promote.DecisionRefused {
		t.Errorf("result of another candidate version: %s, want refused", rc.Decision)
	}
}

// TestFindingsWithinBounds: every Where of a refused candidate names
// character offsets inside the candidate's text.
func TestFindingsWithinBounds(t *testing.T) {
	c := candidate("Delgado's case: the landlord, he never fixed the heater; not once in three months did anybody come. Call 415-555-0132.")
	r := promote.Check(c, caseContext(), promote.Options{})
	checkWhere(t, c, r)
}

var charsRE = regexp.MustCompile(`^candidate (title|text) chars (\d+)-(\d+)`)

func checkWhere(tb testing.TB, c promote.Candidate, r promote.Result) {
	tb.Helper()
	for _, f := range r.Findings {
		m := charsRE.FindStringSubmatch(f.Where)
		if m == nil {
			continue
		}
		text := c.Text
		if m[1] == "title" {
			text = c.Title
		}
		a, _ := strconv.Atoi(m[2])
		b, _ := strconv.Atoi(m[3])
		if a > b || b > utf8.RuneCountInString(text) {
			tb.Errorf("finding %+v: chars %d-%d outside a text of %d characters", f, a, b, utf8.RuneCountInString(text))
		}
	}
}
