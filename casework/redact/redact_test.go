package redact_test

import (
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/redact"
)

const letter = `Maria Delgado
1420 W. Maple Ave, Apt 3B, Springfield, IL 62704
maria.delgado@example.com, (415) 555-0132

To Harbor View Properties LLC, attn. Mr. Jonas Whitfield:
My social security number is 536-22-1234 and the deposit was paid by card 4111 1111 1111 1111.
The heater has been broken since March. James O'Connor in 2A saw the notice on my door.
Rent: $1,450.00 a month. Call me at +1 212 555 0199 or write to maria.d@example.org.
Sincerely, M. Delgado`

var parties = []string{"Maria Delgado", "James O'Connor", "Jonas Whitfield"}
var organisations = []string{"Harbor View Properties LLC"}

// identifying are the values of letter that the discovery profile must
// remove.
var identifying = []string{
	"Maria", "Delgado", "1420 W. Maple Ave", "maria.delgado@example.com", "555-0132", "Harbor View",
	"Whitfield", "536-22-1234", "4111 1111 1111 1111", "O'Connor", "212 555 0199", "maria.d@example.org",
}

func redactor(tb testing.TB, profile string) *redact.Redactor {
	tb.Helper()
	p, ok := redact.Profiles()[profile]
	if !ok {
		tb.Fatalf("no profile %s", profile)
	}
	return &redact.Redactor{Profile: p, Parties: parties, Organisations: organisations}
}

func TestC12_DiscoveryRedactsIdentity(t *testing.T) {
	out, counts := redactor(t, redact.ProfileDiscovery).Redact(letter)
	for _, v := range identifying {
		if strings.Contains(out, v) {
			t.Errorf("output holds %q:\n%s", v, out)
		}
	}
	for _, keep := range []string{"$1,450.00", "The heater has been broken since March", "Rent:"} {
		if !strings.Contains(out, keep) {
			t.Errorf("output lost %q:\n%s", keep, out)
		}
	}
	want := map[string]int{"EMAIL_ADDRESS": 2, "PHONE_NUMBER": 2, "US_SSN": 1, "CREDIT_CARD": 1, "LOCATION": 1}
	for typ, n := range want {
		if counts[typ] != n {
			t.Errorf("counts[%s] = %d, want %d (counts %v)", typ, counts[typ], n, counts)
		}
	}
	// Maria Delgado, Harbor View Properties LLC, Jonas Whitfield (after Mr.,
	// also a PERSON: counted once), O'Connor, M. Delgado.
	if got := counts["PARTY"] + counts["PERSON"]; got != 5 {
		t.Errorf("names replaced %d times, want 5 (counts %v)", got, counts)
	}
	if !strings.Contains(out, "[REDACTED:EMAIL_ADDRESS]") {
		t.Errorf("no typed placeholder in:\n%s", out)
	}
}

func TestC12_AttorneyReviewKeepsNames(t *testing.T) {
	text := letter + "\napi_key = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'"
	out, counts := redactor(t, redact.ProfileAttorneyReview).Redact(text)
	for _, v := range []string{"Maria Delgado", "maria.delgado@example.com", "536-22-1234", "O'Connor"} {
		if !strings.Contains(out, v) {
			t.Errorf("attorney_review removed %q", v)
		}
	}
	if strings.Contains(out, "wJalrXUtnFEMI") || counts["API_KEY"] != 1 {
		t.Errorf("attorney_review kept the API key (counts %v):\n%s", counts, out)
	}
}

func TestC12_PublicRedactsLinksKeepsAmounts(t *testing.T) {
	out, counts := redactor(t, redact.ProfilePublic).Redact(letter + "\nSee https://social.example.com/maria.d for photos.")
	if strings.Contains(out, "social.example.com") || counts["URL"] != 1 {
		t.Errorf("public kept the link (counts %v):\n%s", counts, out)
	}
	if !strings.Contains(out, "$1,450.00") || strings.Contains(out, "REDACTED:") {
		t.Errorf("public: want amounts kept and untyped placeholders:\n%s", out)
	}
}

func TestRedactDeterministicAndEveryOccurrence(t *testing.T) {
	r := redactor(t, redact.ProfileDiscovery)
	// The second address is not after a recognizable prefix the detector
	// needs; it is replaced because the same value was found before.
	text := "Write to a@b.io. Again: a@b.io and xa@b.io."
	a, ca := r.Redact(text)
	b, cb := r.Redact(text)
	if a != b || ca["EMAIL_ADDRESS"] != cb["EMAIL_ADDRESS"] {
		t.Fatalf("two runs differ: %q %v, %q %v", a, ca, b, cb)
	}
	if strings.Contains(a, " a@b.io") {
		t.Errorf("an occurrence survived: %q", a)
	}
}

func TestLoadProfiles(t *testing.T) {
	ps := redact.Profiles()
	for _, name := range []string{redact.ProfileDiscovery, redact.ProfileAttorneyReview, redact.ProfilePublic} {
		p, ok := ps[name]
		if !ok || p.Version == "" || p.Description == "" || !p.ExcludePrivileged {
			t.Errorf("profile %s: %+v, want a versioned, described profile excluding privileged items", name, p)
		}
	}
	good := "version: \"2\"\nprofiles:\n  x:\n    types: [EMAIL_ADDRESS]\n"
	p, err := redact.LoadProfiles([]byte(good))
	if err != nil || !p["x"].ExcludePrivileged || p["x"].Placeholder != redact.DefaultPlaceholder {
		t.Errorf("good_minimal: %+v, %v; want privileged excluded and the default placeholder", p, err)
	}
	for name, raw := range map[string]string{
		"bad_no_version":   "profiles:\n  x:\n    types: [EMAIL_ADDRESS]\n",
		"bad_unknown_type": "version: \"1\"\nprofiles:\n  x:\n    types: [SHOE_SIZE]\n",
		"bad_field":        "version: \"1\"\nprofiles:\n  x:\n    colour: red\n",
		"bad_placeholder":  "version: \"1\"\nprofiles:\n  x:\n    placeholder: \"%d\"\n",
		"bad_name":         "version: \"1\"\nprofiles:\n  X-1:\n    types: []\n",
		"bad_empty":        "version: \"1\"\n",
	} {
		if _, err := redact.LoadProfiles([]byte(raw)); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("%s: got %v, want INVALID_INPUT", name, err)
		}
	}
}

func request() redact.Request {
	return redact.Request{ID: "er-0001", CaseID: "case-42", Profile: redact.ProfileDiscovery,
		Scope: []string{redact.ScopeDocuments, redact.ScopeTranscripts}, Reason: "first production, RFP set one"}
}

func TestC12_RequestValidate(t *testing.T) {
	ps := redact.Profiles()
	if err := request().Validate(ps); err != nil {
		t.Fatalf("good request: %v", err)
	}
	for _, tc := range []struct {
		name, field string
		edit        func(*redact.Request)
	}{
		{"no id", "id", func(r *redact.Request) { r.ID = "" }},
		{"bad case", "case_id", func(r *redact.Request) { r.CaseID = "a b" }},
		{"unknown profile", "profile", func(r *redact.Request) { r.Profile = "everything" }},
		{"no profile", "profile", func(r *redact.Request) { r.Profile = "" }},
		{"empty scope", "scope", func(r *redact.Request) { r.Scope = nil }},
		{"unknown scope", "scope[1]", func(r *redact.Request) { r.Scope = []string{"documents", "emails"} }},
		{"repeated scope", "scope", func(r *redact.Request) { r.Scope = []string{"maps", "maps"} }},
		{"escaping include", "include[0]", func(r *redact.Request) { r.Include = []string{"../secret.md"} }},
		{"no reason", "reason", func(r *redact.Request) { r.Reason = "  " }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := request()
			tc.edit(&r)
			err := r.Validate(ps)
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput || !strings.Contains(err.Error(), tc.field) {
				t.Errorf("got %v, want INVALID_INPUT naming %s", err, tc.field)
			}
		})
	}
}
