package memory_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/memory"
)

// FuzzQuery: whatever the query text, a search either finds chunks, finds
// none (ERR_MEMORY_NO_RESULTS) or refuses the text as empty or too long
// (INVALID_INPUT); the store never sees it as syntax, so it never fails.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{
		"", " ", `"`, `""`, `"lease`, `lease"`, "the of and", "???", "lease AND NOT rent", "NEAR(lease rent, 2)",
		"content:lease", "{content headings}: lease", "lease*", "^lease", "-rent", "(((", ")", "lease + rent",
		"\x00", "é", "ﬁ", "日本語", "İstanbul", "a\u0301", "\U0001E900", "ninety days' notice", "5%", "$lease",
		"NOT", "OR", "AND", "NEAR", "lease OR", "OR lease", "* *", ":", "{", "}",
	} {
		f.Add(s)
	}
	// Real queries of the retrieval collection, when it is there.
	if file, err := os.Open(filepath.Join("..", "..", "shared", "testdata", "retrieval", "cranfield", "queries.jsonl")); err == nil {
		sc := bufio.NewScanner(file)
		for n := 0; sc.Scan() && n < 20; n++ {
			var q struct{ Text string }
			if json.Unmarshal(sc.Bytes(), &q) == nil {
				f.Add(q.Text)
			}
		}
		file.Close()
	}
	x := newIndex(f)
	add(f, x, caseA, doc("lease", "v1", "Lease", nil), lease)
	add(f, x, caseA, doc("loan", "v1", "Loan", nil), loan)
	prox := memory.DefaultLexical()
	prox.Proximity = memory.Proximity{Weight: 0.5, Near: 3}
	prox.Feedback = memory.Feedback{Docs: 2, Terms: 5, OriginalWeight: 0.5}
	y := &memory.Index{Store: x.Store, Lexical: &prox}
	f.Fuzz(func(t *testing.T, text string) {
		for _, ix := range []*memory.Index{x, y} {
			out, err := ix.Search(t.Context(), caseA, memory.Query{QueryText: text, TopK: 3})
			switch sanad.ErrorCode(err) {
			case "":
				for _, r := range out.Results {
					if r.RelevanceScore <= 0 || r.RelevanceScore > 1 {
						t.Fatalf("query %q: relevance %v", text, r.RelevanceScore)
					}
				}
			case sanad.CodeMemoryNoResults, sanad.CodeInvalidInput:
			default:
				t.Fatalf("query %q: %v", text, err)
			}
		}
	})
}
