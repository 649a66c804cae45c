package pii_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sanadhq/sanad/guard/pii"
)

// FuzzFind: whatever the text, Find does not panic, its entities are in
// bounds, sorted and disjoint, and redacting them then restoring gives the
// text back exactly.
func FuzzFind(f *testing.F) {
	for _, s := range []string{
		"", "[", "]", "[EMAIL_ADDRESS_1]", "[[PHONE_NUMBER_1]]", "a@b.io [EMAIL_ADDRESS_1] a@b.io",
		"call +1 415 555 0132 or (415) 555-0199", "::", ":::", "::ffff:192.0.2.1/96", "fe80::1%eth0",
		"4111 1111 1111 1111", "DE89 3704 0044 0532 0130 00", "536-22-1234", "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
		"https://u:p@h.example.com/?token=x", "-----BEGIN PRIVATE KEY-----\nAAAA", "Dr. Jane Doe", "Name: José Álvarez",
		"api_key = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", "\xff\xfe@\x00.com",
	} {
		f.Add(s)
	}
	// Presidio's recognizer cases, when the shared test data is there.
	if file, err := os.Open(filepath.Join("..", "..", "..", "shared", "testdata", "pii", "presidio-recognizers", "recognizer_cases.jsonl")); err == nil {
		sc := bufio.NewScanner(file)
		for n := 0; sc.Scan(); n++ {
			var c struct{ Text string }
			if n%5 == 0 && json.Unmarshal(sc.Bytes(), &c) == nil {
				f.Add(c.Text)
			}
		}
		file.Close()
	}
	d, err := pii.New(pii.Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ents := d.Find(text)
		checkEntities(t, text, ents)
		red, m := pii.Redact(text, ents)
		if got := m.Restore(red); got != text {
			t.Fatalf("Restore(Redact(%q)) = %q", text, got)
		}
		if len(ents) > 0 && len(m) == 0 {
			t.Fatalf("%d entities but an empty mapping", len(ents))
		}
	})
}
