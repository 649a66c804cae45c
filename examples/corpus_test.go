package examples

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/parse"
)

// parsedCorpus parses every document of Corpus and returns its Markdown
// with whitespace folded, by file name.
func parsedCorpus(tb testing.TB) map[string]string {
	tb.Helper()
	files, err := fs.ReadDir(Corpus, "corpus")
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		if f.IsDir() {
			continue
		}
		data, err := fs.ReadFile(Corpus, path.Join("corpus", f.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		res, err := parse.Bytes(context.Background(), f.Name(), data, parse.Options{})
		if err != nil {
			tb.Errorf("parse %s: %v", f.Name(), err)
			continue
		}
		if len(res.Document.Notes) > 0 {
			for _, n := range res.Document.Notes {
				tb.Logf("%s: note: %s", f.Name(), n.Text)
			}
		}
		out[f.Name()] = fold(res.Markdown)
	}
	return out
}

func fold(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestCorpusEmbedded checks that every document in corpus/ is built into
// the binary, and nothing of its generator.
func TestCorpusEmbedded(t *testing.T) {
	entries, err := os.ReadDir("corpus")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if _, err := fs.Stat(Corpus, path.Join("corpus", e.Name())); err != nil {
			t.Errorf("%s is in corpus/ but not in Corpus", e.Name())
		}
	}
	if _, err := fs.Stat(Corpus, "corpus/internal"); err == nil {
		t.Error("Corpus holds corpus/internal, the generator")
	}
	for _, ext := range []string{".pdf", ".docx", ".html"} {
		if m, _ := filepath.Glob(filepath.Join("corpus", "*"+ext)); len(m) == 0 {
			t.Errorf("no %s document in corpus/", ext)
		}
	}
}

func TestAnswers(t *testing.T) {
	docs := parsedCorpus(t)
	answers, err := Answers()
	if err != nil {
		t.Fatal(err)
	}
	if len(answers) < 48 {
		t.Errorf("got %d questions, want at least 48", len(answers))
	}
	kinds := []string{"fact", "number", "date", "who", "comparison", "multi", "followup"}
	seen := map[string]bool{}
	var unanswerable, samples, refusals, cross int
	for i, a := range answers {
		if a.ID == "" || seen[a.ID] {
			t.Errorf("question %d: id %q is empty or not unique", i+1, a.ID)
		}
		seen[a.ID] = true
		if strings.TrimSpace(a.Question) == "" || strings.TrimSpace(a.Answer) == "" {
			t.Errorf("%s: empty question or answer", a.ID)
		}
		if !slices.Contains(kinds, a.Kind) {
			t.Errorf("%s: kind %q, want one of %v", a.ID, a.Kind, kinds)
		}
		if a.Follows != "" && (i == 0 || answers[i-1].ID != a.Follows) {
			t.Errorf("%s: follows %s, which is not the question just before it", a.ID, a.Follows)
		}
		if a.Sample {
			samples++
		}
		if a.SampleRefusal {
			refusals++
			if a.Answerable {
				t.Errorf("%s: a sample refusal is answerable", a.ID)
			}
		}
		if !a.Answerable {
			unanswerable++
			if len(a.Support) > 0 || a.Document != "" {
				t.Errorf("%s: unanswerable but has a document or support", a.ID)
			}
			continue
		}
		srcs := a.Sources()
		if len(srcs) == 0 || len(a.Support) == 0 {
			t.Errorf("%s: answerable with no document or no support", a.ID)
			continue
		}
		if len(a.Documents) > 0 && a.Documents[0] != a.Document {
			t.Errorf("%s: document %q is not the first of documents %v", a.ID, a.Document, a.Documents)
		}
		if len(srcs) > 1 {
			cross++
		}
		used := map[string]bool{}
		for _, q := range a.Support {
			found := false
			for _, d := range srcs {
				md, ok := docs[d]
				if !ok {
					t.Errorf("%s: no document %s in the corpus", a.ID, d)
					continue
				}
				if strings.Contains(md, fold(q)) {
					found, used[d] = true, true
				}
			}
			if !found {
				t.Errorf("%s: support %q is not in the Markdown of %v", a.ID, q, srcs)
			}
		}
		for _, d := range srcs {
			if _, ok := docs[d]; ok && !used[d] {
				t.Errorf("%s: no support quotes %s", a.ID, d)
			}
		}
	}
	if unanswerable*4 < len(answers) {
		t.Errorf("got %d unanswerable questions of %d, want at least a quarter", unanswerable, len(answers))
	}
	if samples != 3 || refusals != 1 {
		t.Errorf("got %d sample questions and %d sample refusals, want 3 and 1", samples, refusals)
	}
	if cross < 5 {
		t.Errorf("got %d questions across documents, want at least 5", cross)
	}
}

// override is the shape of an instruction that tries to replace the
// reader's own.
var override = regexp.MustCompile(`(?i)\b(ignore|disregard|forget)\s+(all\s+)?(previous|prior|earlier|above)\s+instructions\b`)

func TestInjectedDocument(t *testing.T) {
	data, err := fs.ReadFile(Corpus, "corpus/"+InjectedDocument)
	if err != nil {
		t.Fatal(err)
	}
	res, err := parse.Bytes(context.Background(), InjectedDocument, data, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !override.MatchString(res.Markdown) {
		t.Errorf("%s carries no instruction override", InjectedDocument)
	}
	// The rest of the corpus carries none.
	files, _ := fs.ReadDir(Corpus, "corpus")
	for _, f := range files {
		if f.Name() == InjectedDocument || f.IsDir() {
			continue
		}
		data, _ := fs.ReadFile(Corpus, "corpus/"+f.Name())
		if override.Match(data) {
			t.Errorf("%s carries an instruction override too", f.Name())
		}
	}
}

func ExampleAnswers() {
	answers, err := Answers()
	if err != nil {
		panic(err)
	}
	for _, a := range answers {
		if a.Sample {
			fmt.Printf("%s %s %v\n", a.ID, a.Question, a.Sources())
		}
	}
	// Output:
	// q01 How many customers did Tessaro have at 31 December 2022? [annual-report-2024.pdf]
	// q03 How does the FY2024 revenue in the management accounts compare with the audited figure? [board-minutes-2025-03-18.docx annual-report-2024.pdf]
	// q05 Who signed the Brightwater master services agreement for Brightwater, and when? [brightwater-msa.md]
}
