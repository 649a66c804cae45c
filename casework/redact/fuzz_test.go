package redact_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/sanadhq/sanad/casework/identity"
	"github.com/sanadhq/sanad/casework/redact"
)

// FuzzRedact: whatever the text, Redact does not panic, and its output holds
// no value the profile's detector finds in the input, standing as a word of
// its own, and no party name.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		letter, "", "a@b.io a@b.io xa@b.io", "Delgado's Delgado’s DELGADO", "Mr. Al Also Al",
		"call 212-555-0123 or 212-555-01234", "\xff\xfe@\x00.com", "[REDACTED:PARTY] Maria [REDACTED:PERSON] Delgado",
		"P.O. Box 12, 9 Elm St", "4111 1111 1111 1111 41111111111111111",
	} {
		f.Add(s)
	}
	ps := redact.Profiles()
	d, err := identity.NewDetector(ps[redact.ProfileDiscovery].Types)
	if err != nil {
		f.Fatal(err)
	}
	names := identity.NewNames(parties, organisations)
	f.Fuzz(func(t *testing.T, text string) {
		r := &redact.Redactor{Profile: ps[redact.ProfileDiscovery], Parties: parties, Organisations: organisations}
		out, counts := r.Redact(text)
		for typ, n := range counts {
			if n <= 0 {
				t.Fatalf("counts[%s] = %d", typ, n)
			}
		}
		for _, e := range d.Find(text) {
			if containsWord(out, e.Text) {
				t.Fatalf("output %q holds %s %q of input %q", out, e.Type, e.Text, text)
			}
		}
		if ms := names.Find(out); len(ms) > 0 {
			t.Fatalf("output %q names a party at %+v", out, ms[0])
		}
	})
}

// containsWord reports whether v occurs in s not inside a longer word.
func containsWord(s, v string) bool {
	isAlnum := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	for i := 0; ; {
		j := strings.Index(s[i:], v)
		if j < 0 || v == "" {
			return false
		}
		a, b := i+j, i+j+len(v)
		first, _ := utf8.DecodeRuneInString(v)
		last, _ := utf8.DecodeLastRuneInString(v)
		before, _ := utf8.DecodeLastRuneInString(s[:a])
		after, _ := utf8.DecodeRuneInString(s[b:])
		if !(a > 0 && isAlnum(first) && isAlnum(before)) && !(b < len(s) && isAlnum(last) && isAlnum(after)) {
			return true
		}
		i = a + 1
	}
}

func BenchmarkRedact1MB(b *testing.B) {
	text := strings.Repeat(letter+"\n", (1<<20)/len(letter))
	r := &redact.Redactor{Profile: redact.Profiles()[redact.ProfileDiscovery], Parties: parties, Organisations: organisations}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.Redact(text)
	}
}
