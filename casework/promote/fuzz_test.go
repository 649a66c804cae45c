package promote_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/casework/promote"
)

// FuzzCheck: whatever the candidate and the case, Check does not panic,
// Allowed is true exactly when there are no findings, every location is
// inside the candidate, and a candidate that is a case text of eight words
// or more is refused.
func FuzzCheck(f *testing.F) {
	for _, s := range [][2]string{
		{generic, transcript},
		{"he never fixed the heater not once in", transcript},
		{"Delgado's landlord", "Maria Delgado"},
		{"", ""},
		{"a a a a a a a a a a a a", "a a a a a a a a a a a a a a a a"},
		{"don't don’t dont DON'T don t", "dont dont dont dont dont dont dont dont"},
		{"\xff\xfe privileged & confidential", "\x00\x00"},
		{"Maria T. Delgado, O'Connor, 1420 W. Maple Ave", "privileged"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, caseText string) {
		cc := promote.CaseContext{
			Texts:   []promote.SourceText{{ID: "t-1", Text: caseText}, {ID: "n-1", Text: caseText[len(caseText)/2:], Privileged: true}},
			Parties: []string{"Maria Delgado", strings.TrimSpace(caseText[:min(len(caseText), 12)])},
		}
		c := candidate(text)
		r := promote.Check(c, cc, promote.Options{})
		if r.Allowed != (len(r.Findings) == 0) {
			t.Fatalf("Allowed = %v with %d findings", r.Allowed, len(r.Findings))
		}
		checkWhere(t, c, r)
		for _, fd := range r.Findings {
			if len(fd.Quote) > promote.MaxQuoteBytes {
				t.Fatalf("quote of %d bytes", len(fd.Quote))
			}
		}
		if isASCII(caseText) && strings.Join(strings.Fields(caseText), " ") == caseText {
			if r := promote.Check(candidate(caseText), cc, promote.Options{}); r.Allowed && countWords(caseText) >= promote.DefaultMaxSharedWords {
				t.Fatalf("a candidate that is the case text (%d words) was allowed", countWords(caseText))
			}
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// countWords counts the words of an ASCII text as Check does: runs of
// letters and digits, an apostrophe inside a word dropped.
func countWords(s string) int {
	return len(strings.FieldsFunc(strings.NewReplacer("'", "", "’", "", "ʼ", "").Replace(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}))
}

// caseOfSize returns a case of about n bytes: QMSum meeting transcripts when
// the shared test data is there, otherwise generated sentences.
func caseOfSize(tb testing.TB, n int) promote.CaseContext {
	tb.Helper()
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "testdata", "transcripts", "qmsum", "test", "*.json"))
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		var m struct {
			Turns []struct{ Speaker, Content string } `json:"meeting_transcripts"`
		}
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		for _, turn := range m.Turns {
			b.WriteString(turn.Speaker + ": " + turn.Content + "\n")
			if b.Len() >= n {
				break
			}
		}
		if b.Len() >= n {
			break
		}
	}
	words := strings.Fields("the tenant wrote to the landlord about the heater in march and again in april before the notice came")
	for i := 0; b.Len() < n; i++ {
		b.WriteString(words[i%len(words)] + " " + words[(i*7)%len(words)] + " ")
		if i%13 == 0 {
			b.WriteString(".\n")
		}
	}
	return promote.CaseContext{
		Texts:   []promote.SourceText{{ID: "t-1", Text: b.String()[:n]}},
		Parties: []string{"Maria Delgado", "Harbor View Properties LLC"},
	}
}

func BenchmarkCheck1MB(b *testing.B) {
	cc := caseOfSize(b, 1<<20)
	c := candidate(generic + " " + cc.Texts[0].Text[500000:500400])
	b.Run("Check", func(b *testing.B) {
		b.SetBytes(int64(len(cc.Texts[0].Text)))
		for b.Loop() {
			promote.Check(c, cc, promote.Options{})
		}
	})
	x := promote.NewIndex(cc)
	b.Run("Index.Check", func(b *testing.B) {
		for b.Loop() {
			if x.Check(c, promote.Options{}).Allowed {
				b.Fatal("a candidate quoting the case was allowed")
			}
		}
	})
}
