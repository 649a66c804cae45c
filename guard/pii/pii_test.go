package pii_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/guard/pii"
)

func newDetector(tb testing.TB, cfg pii.Config) *pii.Detector {
	tb.Helper()
	d, err := pii.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// found renders entities as "TYPE=text" for comparison.
func found(ents []pii.Entity) string {
	var parts []string
	for _, e := range ents {
		parts = append(parts, e.Type+"="+e.Text)
	}
	return strings.Join(parts, " | ")
}

func TestFindRecognisesEachType(t *testing.T) {
	d := newDetector(t, pii.Config{})
	tests := []struct {
		name, text, want string
	}{
		{"email", "write to jane.doe+tag@example.co.uk today", "EMAIL_ADDRESS=jane.doe+tag@example.co.uk"},
		{"phone international", "call +44 20 7946 0958 now", "PHONE_NUMBER=+44 20 7946 0958"},
		{"phone national", "office: (212) 555-0187.", "PHONE_NUMBER=(212) 555-0187"},
		{"two phones side by side", "415-555-0132 415-555-0199", "PHONE_NUMBER=415-555-0132 | PHONE_NUMBER=415-555-0199"},
		{"card grouped", "card 4111 1111 1111 1111 exp 12/29", "CREDIT_CARD=4111 1111 1111 1111"},
		{"iban", "pay DE89 3704 0044 0532 0130 00 by Friday", "IBAN_CODE=DE89 3704 0044 0532 0130 00"},
		{"ssn", "SSN 536-22-1234 on file", "US_SSN=536-22-1234"},
		{"itin", "ITIN 912-70-1234", "US_ITIN=912-70-1234"},
		{"ipv4 and ipv6", "from 203.0.113.9 via 2001:db8::1", "IP_ADDRESS=203.0.113.9 | IP_ADDRESS=2001:db8::1"},
		{"mac", "hw 3c:22:fb:1a:2b:3c", "MAC_ADDRESS=3c:22:fb:1a:2b:3c"},
		{"url", "see https://example.com/docs?x=1.", "URL=https://example.com/docs?x=1"},
		{"url with password", "DSN postgres://app:s3cr3t@db.internal:5432/prod", "URL_CREDENTIALS=postgres://app:s3cr3t@db.internal:5432/prod"},
		{"url with token parameter", "GET https://api.example.com/v1?api_key=abc123", "URL_CREDENTIALS=https://api.example.com/v1?api_key=abc123"},
		{"aws access key", "AKIAIOSFODNN7EXAMPLE", "API_KEY=AKIAIOSFODNN7EXAMPLE"},
		{"github token", "token ghp_16C7e42F292c6912E7710c838347Ae178B4a", "API_KEY=ghp_16C7e42F292c6912E7710c838347Ae178B4a"},
		{"slack token", "xoxb-263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1", "API_KEY=xoxb-263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1"},
		{"stripe key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "API_KEY=sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
		{"openai key", "OPENAI sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5", "API_KEY=sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"},
		{"jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
			"JWT=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
		{"pem block", "k:\n-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----\nbye",
			"PRIVATE_KEY=-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----"},
		{"pem block cut before its end", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAA",
			"PRIVATE_KEY=-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAA"},
		{"assigned secret", `aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"`, "API_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
		{"bearer token", "Authorization: Bearer 8f3a9c2e71b44d0e9a6f5c3b2d1e0f9a", "API_KEY=8f3a9c2e71b44d0e9a6f5c3b2d1e0f9a"},
		{"bitcoin", "send to bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", "CRYPTO=bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"},
		{"person after title", "Please ask Dr. Amina Yusuf about it.", "PERSON=Amina Yusuf"},
		{"person after Miss", "Letters from Miss Jane Austen arrived.", "PERSON=Jane Austen"},
		{"zoned ipv6", "via fe80::1%eth0 today", "IP_ADDRESS=fe80::1%eth0"},
		{"person in a name field", "Ticket\nName: José Álvarez\nPlan: gold", "PERSON=José Álvarez"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := found(d.Find(tt.text)); got != tt.want {
				t.Errorf("Find(%q):\n got %s\nwant %s", tt.text, got, tt.want)
			}
		})
	}
}

func TestFindLeavesOrdinaryTextAlone(t *testing.T) {
	d := newDetector(t, pii.Config{})
	for _, text := range []string{
		"The build took 12.5 seconds on 2024-03-15 at 10:30:00.",
		"commit 3f9a2b7c1d4e5f60718293a4b5c6d7e8f9012345 fixed the parser",
		"sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 of the empty string",
		"Open README.md and main.py, then run make; see section 4.2.1.",
		"std::vector<int> v; MyClass::toString();",
		"The ratio was 3:2:1 and the version 1.2.3.",
		"pi is 3.14159265358979 and e is 2.718281828",
		"Invoice 2024-0012 totals 1,234,567.89 EUR.",
		"the primary key: user_account_identifier_field",
		"password: hunter2",
		"Call me in 5 minutes, my friend Jane.",
	} {
		if got := d.Find(text); len(got) > 0 {
			t.Errorf("Find(%q) = %s, want nothing", text, found(got))
		}
	}
}

func TestFindRejectsChecksumFailures(t *testing.T) {
	tests := []struct{ typ, valid, invalid string }{
		{pii.TypeCreditCard, "4111 1111 1111 1111", "4111 1111 1111 1112"},           // Luhn
		{pii.TypeIBAN, "DE89 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 01"}, // mod 97
		{pii.TypeNHS, "943 476 5919", "943 476 5918"},                                // mod 11
		{pii.TypeCrypto, "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3"},
		{pii.TypeSSN, "536-22-1234", "666-22-1234"},
		{pii.TypeSSN, "536-22-1234", "536-00-1234"},
		{pii.TypeMAC, "3c:22:fb:1a:2b:3c", "FF:FF:FF:FF:FF:FF"},
		{pii.TypeIP, "203.0.113.9", "300.0.113.9"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.invalid, func(t *testing.T) {
			d := newDetector(t, pii.Config{Types: []string{tt.typ}})
			if got := found(d.Find(tt.valid)); got != tt.typ+"="+tt.valid {
				t.Errorf("Find(%q) = %s, want %s=%s", tt.valid, got, tt.typ, tt.valid)
			}
			if got := d.Find(tt.invalid); len(got) > 0 {
				t.Errorf("Find(%q) = %s, want nothing", tt.invalid, found(got))
			}
		})
	}
}

func TestFindResolvesOverlapsByScoreThenLength(t *testing.T) {
	d := newDetector(t, pii.Config{})
	// The password URL (0.95) covers the e-mail-like "pw@db.example.com"
	// (0.9) and the bare domain (0.5).
	ents := d.Find("use ftp://me:pw@db.example.com/x")
	if got, want := found(ents), "URL_CREDENTIALS=ftp://me:pw@db.example.com/x"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// An IPv4 address inside an IPv6 one is part of the longer match.
	ents = d.Find("::ffff:192.0.2.1")
	if got, want := found(ents), "IP_ADDRESS=::ffff:192.0.2.1"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestFindOnlyEnabledTypes(t *testing.T) {
	d := newDetector(t, pii.Config{Types: []string{pii.TypeEmail}})
	got := found(d.Find("a@b.io 203.0.113.9 +44 20 7946 0958"))
	if want := "EMAIL_ADDRESS=a@b.io"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestFindConfiguredPatterns(t *testing.T) {
	d := newDetector(t, pii.Config{Patterns: []pii.Pattern{
		{Type: "EMPLOYEE_ID", Regex: `\bEMP-\d{6}\b`, Score: 0.8},
		{Type: "CASE_REF", Regex: `case #(\d{5})`},
	}})
	ents := d.Find("EMP-123456 opened case #54321")
	if got, want := found(ents), "EMPLOYEE_ID=EMP-123456 | CASE_REF=54321"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if ents[1].Score != pii.DefaultPatternScore {
		t.Errorf("score: got %v, want %v", ents[1].Score, pii.DefaultPatternScore)
	}
}

func TestFindPhoneRegions(t *testing.T) {
	// 030 1234567 is a Berlin number, written the German way.
	text := "Tel. 030 1234567"
	if got := d(t, pii.Config{Regions: []string{"US"}}).Find(text); len(got) != 0 {
		t.Errorf("region US: got %s, want nothing", found(got))
	}
	if got := found(d(t, pii.Config{Regions: []string{"DE"}}).Find(text)); got != "PHONE_NUMBER=030 1234567" {
		t.Errorf("region DE: got %s, want PHONE_NUMBER=030 1234567", got)
	}
}

func d(tb testing.TB, cfg pii.Config) *pii.Detector { return newDetector(tb, cfg) }

func TestNewRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]pii.Config{
		"unknown type":       {Types: []string{"EMAIL"}},
		"bad regex":          {Patterns: []pii.Pattern{{Type: "X", Regex: `(`}}},
		"lower-case type":    {Patterns: []pii.Pattern{{Type: "emp", Regex: `x`}}},
		"bracket in type":    {Patterns: []pii.Pattern{{Type: "A]B", Regex: `x`}}},
		"score out of range": {Patterns: []pii.Pattern{{Type: "X", Regex: `x`, Score: 2}}},
		"unknown region":     {Regions: []string{"XX"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := pii.New(cfg)
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
				t.Errorf("got %v, want a %s error", err, sanad.CodeInvalidInput)
			}
			if cfg.Validate() == nil {
				t.Error("Validate: got nil, want an error")
			}
		})
	}
}

func TestScanReportsTheCandidateBound(t *testing.T) {
	d := newDetector(t, pii.Config{MaxCandidates: 10, Types: []string{pii.TypeEmail}})
	text := strings.Repeat("x@example.com ", 50)
	ents, err := d.Scan(text)
	var e *sanad.Error
	if !errors.As(err, &e) || e.Code != sanad.CodeInvalidInput {
		t.Fatalf("got %v, want a %s error", err, sanad.CodeInvalidInput)
	}
	if len(ents) != 10 {
		t.Errorf("got %d entities, want the 10 examined", len(ents))
	}
	if _, err := d.Scan("x@example.com"); err != nil {
		t.Errorf("under the bound: got %v, want nil", err)
	}
}

func TestRedactNumbersByTypeAndFirstAppearance(t *testing.T) {
	d := newDetector(t, pii.Config{})
	text := "a@x.io wrote to b@y.io; a@x.io called +1 415 555 0132."
	red, m := pii.Redact(text, d.Find(text))
	want := "[EMAIL_ADDRESS_1] wrote to [EMAIL_ADDRESS_2]; [EMAIL_ADDRESS_1] called [PHONE_NUMBER_1]."
	if red != want {
		t.Errorf("got %q, want %q", red, want)
	}
	if len(m) != 3 || m["[EMAIL_ADDRESS_2]"] != "b@y.io" {
		t.Errorf("mapping: got %v", m)
	}
	if got := m.Restore(red); got != text {
		t.Errorf("Restore: got %q, want %q", got, text)
	}
}

func TestRedactSkipsPlaceholdersAlreadyInTheText(t *testing.T) {
	text := "[EMAIL_ADDRESS_1] is a placeholder; a@x.io is not"
	d := newDetector(t, pii.Config{})
	red, m := pii.Redact(text, d.Find(text))
	if want := "[EMAIL_ADDRESS_1] is a placeholder; [EMAIL_ADDRESS_2] is not"; red != want {
		t.Errorf("got %q, want %q", red, want)
	}
	if got := m.Restore(red); got != text {
		t.Errorf("Restore: got %q, want %q", got, text)
	}
}

func TestRedactIgnoresEntitiesThatDoNotFit(t *testing.T) {
	text := "hello world"
	red, m := pii.Redact(text, []pii.Entity{
		{Type: "X", Start: 6, End: 11},
		{Type: "X", Start: 8, End: 9},  // overlaps the one before
		{Type: "X", Start: 9, End: 40}, // out of bounds
		{Type: "X", Start: -1, End: 2}, // out of bounds
		{Type: "x]", Start: 0, End: 2}, // not a type name
	})
	if red != "hello [X_1]" || m["[X_1]"] != "world" {
		t.Errorf("got %q %v", red, m)
	}
}

func TestRestoreLeavesUnknownPlaceholders(t *testing.T) {
	m := pii.Mapping{"[PERSON_1]": "Jane"}
	if got, want := m.Restore("[[PERSON_1]] and [PERSON_2] [PERSON_1"), "[Jane] and [PERSON_2] [PERSON_1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFindIsBoundedOnHostileInput(t *testing.T) {
	d := newDetector(t, pii.Config{})
	for name, text := range map[string]string{
		"digits and spaces": strings.Repeat("1 2 3 4 5 6 7 8 9 0 ", 5000),
		"colons":            strings.Repeat("a:", 50000),
		"at signs":          strings.Repeat("a@b.", 25000),
		"dots":              strings.Repeat("ab.", 30000),
		"keys":              strings.Repeat("key=", 25000),
		"brackets":          strings.Repeat("[", 100000),
		"honorifics":        strings.Repeat("Mr. ", 25000),
	} {
		t.Run(name, func(t *testing.T) {
			ents := d.Find(text)
			checkEntities(t, text, ents)
		})
	}
}

// checkEntities fails unless ents are in bounds, sorted and disjoint, and
// their Text is the text they cover.
func checkEntities(tb testing.TB, text string, ents []pii.Entity) {
	tb.Helper()
	end := 0
	for _, e := range ents {
		if e.Start < end || e.End > len(text) || e.Start >= e.End {
			tb.Fatalf("entity %s [%d,%d) is out of order, out of bounds or overlaps (text length %d)", e.Type, e.Start, e.End, len(text))
		}
		if e.Text != text[e.Start:e.End] {
			tb.Fatalf("entity %s [%d,%d): Text %q, want %q", e.Type, e.Start, e.End, e.Text, text[e.Start:e.End])
		}
		if e.Score <= 0 || e.Score > 1 {
			tb.Fatalf("entity %s: score %v out of (0, 1]", e.Type, e.Score)
		}
		end = e.End
	}
}

func ExampleRedact() {
	d, err := pii.New(pii.Config{})
	if err != nil {
		panic(err)
	}
	text := "Mail jane@example.com or call +1 415 555 0132; jane@example.com is best."
	red, m := pii.Redact(text, d.Find(text))
	fmt.Println(red)
	fmt.Println(m.Restore(red) == text)
	// Output:
	// Mail [EMAIL_ADDRESS_1] or call [PHONE_NUMBER_1]; [EMAIL_ADDRESS_1] is best.
	// true
}

func TestR01_LabelledNumbersAreNotPhones(t *testing.T) {
	d, err := pii.New(pii.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]bool{
		"a company registered in England with company number 04812233": false,
		"please pay invoice 2024-001234 by Friday":                     false,
		"Account No: 2025550143 at the bank":                           false,
		"Call me on +44 20 7946 0958 or 020 7946 0958 before noon":     true,
		"Our switchboard: (415) 555-0132":                              true,
	} {
		got := false
		for _, e := range d.Find(text) {
			got = got || e.Type == pii.TypePhone
		}
		if got != want {
			t.Errorf("%q: phone found %v, want %v", text, got, want)
		}
	}
}
