package tailor_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/tailor"
)

var markers = regexp.MustCompile(` ?\[\d+\]`)

var personas = []string{tailor.General, tailor.Executive, tailor.Technical}

// checkAnswer fails unless every sentence of out cites passages of chunks
// that support it: a quoted sentence each of its passages on its own, a
// computed one its passages together (tailor.Check).
func checkAnswer(tb testing.TB, out tailor.Output, chunks []memory.Result) {
	tb.Helper()
	if err := tailor.Check(out, chunks); err != nil {
		tb.Fatalf("Check: %v\n%s", err, out.Content)
	}
	if out.ConfidenceScore < 0 || out.ConfidenceScore > 1 {
		tb.Fatalf("confidence %v, want in [0, 1]", out.ConfidenceScore)
	}
	plain := strings.ReplaceAll(markers.ReplaceAllString(out.Content, ""), " .", ".")
	for _, s := range out.Sentences {
		if !strings.Contains(plain, strings.TrimSpace(s.Text)) {
			tb.Fatalf("sentence %q is not in the content %q", s.Text, out.Content)
		}
		if s.Derivation != "" {
			continue
		}
		for _, n := range s.Citations {
			ct := out.Citations[n-1]
			for _, r := range chunks {
				if r.ChunkID != ct.ChunkID {
					continue
				}
				if ok, why := tailor.Supported(s.Text, r.Content); !ok {
					tb.Fatalf("sentence %q is not supported by %s: %s", s.Text, r.ChunkID, why)
				}
			}
		}
	}
}

// TestR05_AnswersOrRefusesTheTestSet: every question the passages answer is
// answered with the fact asked for, and every question about something they
// do not hold is refused.
func TestR05_AnswersOrRefusesTheTestSet(t *testing.T) {
	var answerable, answered, unanswerable, refused int
	for _, tp := range testSet {
		for _, q := range tp.questions {
			t.Run(tp.name+"/"+q.q, func(t *testing.T) {
				out, err := tailor.Compose(tailor.Input{UserQuery: q.q, ContextChunks: tp.chunks})
				if err != nil {
					t.Fatal(err)
				}
				if q.want == "" {
					unanswerable++
					if !out.Refused {
						t.Errorf("got an answer %q, want a refusal", out.Content)
						return
					}
					refused++
					t.Logf("refused: %s", out.Reason)
					return
				}
				answerable++
				if out.Refused {
					t.Errorf("got a refusal (%s), want an answer with %q", out.Reason, q.want)
					return
				}
				if !strings.Contains(out.Content, q.want) {
					t.Errorf("got %q, want it to contain %q", out.Content, q.want)
					return
				}
				answered++
			})
		}
	}
	t.Logf("answered %d of %d answerable questions, refused %d of %d unanswerable ones", answered, answerable, refused, unanswerable)
}

// TestR05_EverySentenceCitesItsSupport: whatever the persona, each sentence
// of an answer ends with markers and its cited passages support it.
func TestR05_EverySentenceCitesItsSupport(t *testing.T) {
	for _, tp := range testSet {
		for _, q := range tp.questions {
			for _, p := range personas {
				out, err := tailor.Compose(tailor.Input{UserQuery: q.q, ContextChunks: tp.chunks, Persona: p})
				if err != nil {
					t.Fatal(err)
				}
				checkAnswer(t, out, tp.chunks)
				if !out.Refused && len(out.Sentences) == 0 {
					t.Fatalf("%s: an answer without sentences", q.q)
				}
			}
		}
	}
}

// TestR05_RefusalNamesWhatWasSearched: a refusal says plainly that the
// documents do not answer, names what was searched, cites nothing and has a
// low confidence.
func TestR05_RefusalNamesWhatWasSearched(t *testing.T) {
	for _, in := range []tailor.Input{
		{UserQuery: "What is the capital of Mars?"},
		{UserQuery: "What is the capital of Mars?", ContextChunks: testSet[0].chunks, Searched: []string{"plant biology notes", "scope team-a"}},
		{UserQuery: "???", ContextChunks: testSet[0].chunks},
	} {
		out, err := tailor.Compose(in)
		if err != nil {
			t.Fatal(err)
		}
		if !out.Refused || len(out.Citations) != 0 || len(out.Sentences) != 0 || out.ConfidenceScore > 0.2 {
			t.Fatalf("got %+v, want a refusal without citations", out)
		}
		if !strings.Contains(out.Content, "do not answer") || out.Reason == "" {
			t.Errorf("content %q, reason %q: want a plain refusal with a reason", out.Content, out.Reason)
		}
		for _, s := range in.Searched {
			if !strings.Contains(out.Content, s) {
				t.Errorf("content %q does not name %q", out.Content, s)
			}
		}
		if len(in.Searched) == 0 && !strings.Contains(out.Content, in.UserQuery) {
			t.Errorf("content %q does not name the query", out.Content)
		}
	}
}

// TestR05_TableRowAnswersTheQuestion: a figure asked for by row and column
// is answered from the Markdown table, as "label — column: value", cited.
func TestR05_TableRowAnswersTheQuestion(t *testing.T) {
	chunks := []memory.Result{passage("t1", "acme", "Acme results", 0.5, `# Results

| Metric | 2022 | 2023 |
|---|---|---|
| Revenue | $4.1M | $5.2M |
| Net income | $0.6M | $0.9M |
| Headcount | 41 | 48 |`)}
	out, err := tailor.Compose(tailor.Input{UserQuery: "What was revenue in 2023?", ContextChunks: chunks, Persona: tailor.Executive})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Revenue — 2023: $5.2M. [1]"; out.Content != want {
		t.Fatalf("got %q, want %q", out.Content, want)
	}
	checkAnswer(t, out, chunks)
	out, err = tailor.Compose(tailor.Input{UserQuery: "What was revenue in 2023?", ContextChunks: chunks, Persona: tailor.Technical})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Revenue — 2022: $4.1M; 2023: $5.2M."; !strings.Contains(out.Content, want) {
		t.Fatalf("technical: got %q, want the whole row %q", out.Content, want)
	}
}

// TestR05_ComparisonCitesBothSources: each part of a comparison is answered
// under its label, and the computed comparison cites both passages whose
// figures it uses.
func TestR05_ComparisonCitesBothSources(t *testing.T) {
	chunks := []memory.Result{
		passage("a", "acme-2023", "Acme annual report", 0.6, "Acme's gross margin was 42.5% in 2023, up from 40.1% a year earlier."),
		passage("g", "globex-2023", "Globex annual report", 0.5, "Globex reported a gross margin of 38.5% for 2023 as input costs rose."),
	}
	out, err := tailor.Compose(tailor.Input{
		UserQuery:     "Compare the gross margins of Acme and Globex in 2023",
		SubQueries:    []string{"What was Acme's gross margin in 2023?", "What was Globex's gross margin in 2023?"},
		ContextChunks: chunks,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, out, chunks)
	for _, want := range []string{"**Acme's gross margin in 2023**", "**Globex's gross margin in 2023**", "42.5%", "38.5%"} {
		if !strings.Contains(out.Content, want) {
			t.Errorf("content %q does not contain %q", out.Content, want)
		}
	}
	last := out.Sentences[len(out.Sentences)-1]
	if last.Derivation == "" || len(last.Citations) != 2 {
		t.Fatalf("last sentence %+v, want a computed comparison citing two passages", last)
	}
	if want := "Acme's gross margin in 2023 (42.5%) is 4.0 percentage points higher than Globex's gross margin in 2023 (38.5%)."; last.Text != want {
		t.Errorf("comparison %q, want %q", last.Text, want)
	}
	sources := map[string]bool{}
	for _, n := range last.Citations {
		sources[out.Citations[n-1].SourceID] = true
	}
	if !sources["acme-2023"] || !sources["globex-2023"] {
		t.Errorf("comparison cites %v, want both reports", sources)
	}
}

// TestR05_ComparisonOfAmountsIsRelative: two amounts of money compare as a
// percentage of the second.
func TestR05_ComparisonOfAmountsIsRelative(t *testing.T) {
	chunks := []memory.Result{
		passage("a", "acme", "Acme", 0.6, "Acme's revenue in 2023 was $5.2 million."),
		passage("b", "globex", "Globex", 0.6, "Globex's revenue in 2023 was $5.0 million."),
	}
	out, err := tailor.Compose(tailor.Input{SubQueries: []string{"What was Acme's revenue in 2023?", "What was Globex's revenue in 2023?"}, ContextChunks: chunks})
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, out, chunks)
	if want := "is 4.0% higher than"; !strings.Contains(out.Content, want) {
		t.Fatalf("got %q, want %q", out.Content, want)
	}
}

// TestR05_PartWithoutAnswerIsSaidSo: a part the passages do not answer is
// marked as such; the answered part stands.
func TestR05_PartWithoutAnswerIsSaidSo(t *testing.T) {
	chunks := testSet[2].chunks
	out, err := tailor.Compose(tailor.Input{SubQueries: []string{"What is the monthly rent?", "Who pays for the internet connection?"}, ContextChunks: chunks})
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, out, chunks)
	if out.Refused || !strings.Contains(out.Content, "$1,850") || !strings.Contains(out.Content, "do not answer this part") || out.Reason == "" {
		t.Fatalf("got %q (reason %q), want the rent and a note on the other part", out.Content, out.Reason)
	}
}

// TestR05_PersonasDiffer: the executive answer is the shortest, the
// technical the longest, and each says which tone it used.
func TestR05_PersonasDiffer(t *testing.T) {
	chunks := testSet[1].chunks
	length := map[string]int{}
	for _, p := range personas {
		out, err := tailor.Compose(tailor.Input{UserQuery: "How did Northwind's revenue change in 2023?", ContextChunks: chunks, Persona: p})
		if err != nil {
			t.Fatal(err)
		}
		checkAnswer(t, out, chunks)
		if out.ToneUsed != p {
			t.Errorf("tone %q, want %q", out.ToneUsed, p)
		}
		length[p] = len(out.Content)
		if p == tailor.Executive && len(out.Sentences) > 2 {
			t.Errorf("executive answer has %d sentences, want at most 2", len(out.Sentences))
		}
	}
	if !(length[tailor.Executive] < length[tailor.General] && length[tailor.General] < length[tailor.Technical]) {
		t.Errorf("lengths %v, want Executive < General < Technical", length)
	}
	if _, err := tailor.Compose(tailor.Input{UserQuery: "x", Persona: "Pirate"}); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("unknown persona: got %v, want INVALID_INPUT", err)
	}
}

// TestR05_TwoSourcesStatingOneFactAreBothCited: a fact stated by two
// sources is one sentence citing both.
func TestR05_TwoSourcesStatingOneFactAreBothCited(t *testing.T) {
	chunks := testSet[1].chunks
	out, err := tailor.Compose(tailor.Input{UserQuery: "What was revenue in 2023?", ContextChunks: chunks, Persona: tailor.Executive})
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, out, chunks)
	if len(out.Sentences) != 1 || len(out.Sentences[0].Citations) != 2 {
		t.Fatalf("got %q, want one sentence citing two sources", out.Content)
	}
}

// TestR05_FollowUpsComeFromTheContext: the suggestions are questions about
// what the passages hold and the question did not ask.
func TestR05_FollowUpsComeFromTheContext(t *testing.T) {
	for _, tp := range testSet {
		q := tp.questions[0].q
		out, err := tailor.Compose(tailor.Input{UserQuery: q, ContextChunks: tp.chunks})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.FollowUpSuggestions) < 2 || len(out.FollowUpSuggestions) > 3 {
			t.Errorf("%s: %d suggestions %q, want 2 or 3", tp.name, len(out.FollowUpSuggestions), out.FollowUpSuggestions)
		}
		var all strings.Builder
		for _, r := range tp.chunks {
			all.WriteString(strings.ToLower(r.Content + " " + r.Metadata["title"].(string)))
		}
		for _, f := range out.FollowUpSuggestions {
			if !strings.HasSuffix(f, "?") || f == q {
				t.Errorf("%s: suggestion %q is not a new question", tp.name, f)
			}
			// The subject of each suggestion is in the passages.
			found := false
			for _, w := range strings.Fields(strings.ToLower(strings.Trim(f, "?"))) {
				found = found || len(w) > 4 && strings.Contains(all.String(), w)
			}
			if !found {
				t.Errorf("%s: suggestion %q names nothing of the passages", tp.name, f)
			}
		}
	}
}

// TestR05_ConfidenceFollowsEvidence: an answer from passages retrieval
// scored well is more confident than the same answer from passages it
// scored low, and both more than a refusal.
func TestR05_ConfidenceFollowsEvidence(t *testing.T) {
	var weak []memory.Result
	for _, r := range testSet[2].chunks {
		r.RelevanceScore = 0.05
		weak = append(weak, r)
	}
	full, _ := tailor.Compose(tailor.Input{UserQuery: "What is the monthly rent?", ContextChunks: testSet[2].chunks})
	thin, _ := tailor.Compose(tailor.Input{UserQuery: "What is the monthly rent?", ContextChunks: weak})
	none, _ := tailor.Compose(tailor.Input{UserQuery: "Who pays for the internet connection?", ContextChunks: testSet[2].chunks})
	if !(full.ConfidenceScore > thin.ConfidenceScore && thin.ConfidenceScore > none.ConfidenceScore) {
		t.Errorf("confidence full %v, weak %v, refused %v: want decreasing", full.ConfidenceScore, thin.ConfidenceScore, none.ConfidenceScore)
	}
}

// TestOutputSpeaksTheSeedSchema: the JSON of an output has the seed's
// TailorOutput and SourceCitation fields.
func TestOutputSpeaksTheSeedSchema(t *testing.T) {
	out, err := tailor.Compose(tailor.Input{UserQuery: "What is the monthly rent?", ContextChunks: testSet[2].chunks})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"content", "citations", "tone_used", "follow_up_suggestions", "confidence_score"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	c := m["citations"].([]any)[0].(map[string]any)
	for _, k := range []string{"source_id", "chunk_id", "text_snippet", "url"} {
		if _, ok := c[k]; !ok {
			t.Errorf("no %q in citation %v", k, c)
		}
	}
}

// TestSupported: the support check's verdicts, good and bad.
func TestSupported(t *testing.T) {
	chunk := "The monthly rent is $1,850, due on the first day of each month. Pets are not allowed without the landlord's written consent."
	for _, c := range []struct {
		name, sentence string
		want           bool
	}{
		{"good_verbatim", "The monthly rent is $1,850, due on the first day of each month. [1]", true},
		{"good_trim", "Pets are not allowed without the landlord's written consent.", true},
		{"good_inflection", "Rents are due on the first day of the month.", true},
		{"bad_word_added", "The monthly rent is 1850 dollars.", false},
		{"bad_number", "The monthly rent is $1,950.", false},
		{"bad_negation_flip", "Pets are allowed without the landlord's written consent.", false},
		{"good_double_negation", "Pets are allowed with the landlord's written consent.", true},
		{"bad_words", "The monthly rent includes electricity, water and heating.", false},
		{"bad_empty", "It is.", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, why := tailor.Supported(c.sentence, chunk)
			if got != c.want {
				t.Errorf("got %v (%s), want %v", got, why, c.want)
			}
			if !got && why == "" {
				t.Error("no reason given")
			}
		})
	}
	if ok, why := tailor.Supported("Revenue was $5,200,000 in 2023.", "| Revenue | 2023 |\n|---|---|\n| x | $5.2 million |"); !ok {
		t.Errorf("a scaled figure: %s", why)
	}
}
