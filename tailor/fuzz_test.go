package tailor_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/tailor"
)

// FuzzCompose: whatever the question and the passage, Compose does not
// panic, and an answer it gives passes the check: every sentence cites a
// passage that supports it.
func FuzzCompose(f *testing.F) {
	for _, tp := range testSet {
		for _, q := range tp.questions {
			f.Add(q.q, tp.chunks[0].Content, "")
		}
	}
	for _, s := range []string{"", "|", "| a |\n|---|\n| 1 |", "<table><tr><td>x</td></tr>", "# h\n\n- a\n- b", "```\ncode\n```", "1. 2. 3.", "$5.2M 5,200,000 4%", "not no never n't", "**x**", "[1][2]", "\x00\xff", "é́ İ ﬁ"} {
		f.Add("What is x?", s, "a")
		f.Add(s, "The rent is $5. Not allowed.", "b|c")
	}
	// Real Markdown from the parser's ground truth, when shared/ is there.
	if files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "testdata", "docparse", "docling", "tests", "data", "*", "groundtruth", "*.md")); len(files) > 0 {
		for _, name := range files[:min(len(files), 12)] {
			if b, err := os.ReadFile(name); err == nil && len(b) < 4000 {
				f.Add("What does the table show?", string(b), "")
			}
		}
	}
	f.Fuzz(func(t *testing.T, q, content, sub string) {
		chunks := []memory.Result{
			{ChunkID: "c1", SourceID: "d1", Content: content, RelevanceScore: 0.5},
			{ChunkID: "c2", SourceID: "d2", Content: testSet[1].chunks[0].Content, RelevanceScore: 0.3},
		}
		for _, p := range []string{tailor.General, tailor.Executive, tailor.Technical} {
			in := tailor.Input{UserQuery: q, ContextChunks: chunks, Persona: p}
			if sub != "" {
				in.SubQueries = []string{q, sub}
			}
			out, err := tailor.Compose(in)
			if err != nil {
				if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
					t.Fatalf("Compose: %v", err)
				}
				continue
			}
			checkAnswer(t, out, chunks)
		}
		tailor.Supported(q, content)
		tailor.Parse(content, tailor.Input{UserQuery: q, ContextChunks: chunks})
	})
}
