package rag

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ingest"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/tailor"
)

// Case is one question of an answer set: whether the documents answer it,
// and the passages (quoted) that support its answer.
type Case struct {
	ID         string   `json:"id"`
	Question   string   `json:"question"`
	Answerable bool     `json:"answerable"`
	Document   string   `json:"document,omitempty"`
	Support    []string `json:"support,omitempty"`
	Answer     string   `json:"answer,omitempty"`
	Kind       string   `json:"kind,omitempty"`
	// Follows is the id of a question asked before this one in the same
	// session: this one is a follow-up.
	Follows string `json:"follows,omitempty"`
	// Documents names every document the support comes from, when more
	// than one.
	Documents []string `json:"documents,omitempty"`
	// Sample and SampleRefusal mark the questions quickstart shows.
	Sample        bool `json:"sample,omitempty"`
	SampleRefusal bool `json:"sample_refusal,omitempty"`
}

// ReadCases reads an answer set: JSON lines, one Case each.
func ReadCases(r io.Reader) ([]Case, error) {
	var out []Case
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var c Case
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInvalidInput, "rag.read_cases", "line "+strconv.Itoa(n))
		}
		if c.ID == "" || c.Question == "" || c.Answerable && len(c.Support) == 0 {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, "rag.read_cases", "line %d: a case needs an id, a question and, when answerable, its support", n)
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// Scores are an answer set's figures.
type Scores struct {
	Questions  int `json:"questions"`
	Answerable int `json:"answerable"`
	// AnswerRecall is, over answerable questions, the share of their
	// support quotes found in a passage the answer cites.
	AnswerRecall float64 `json:"answer_recall"`
	// CitationPrecision is the share of the citations of answers to
	// answerable questions whose passage holds one of the question's
	// support quotes.
	CitationPrecision float64 `json:"citation_precision"`
	// SentenceSupport is the share of answer sentences that the passages
	// they cite support (tailor.Supported).
	SentenceSupport float64 `json:"sentence_support"`
	// RefusalAccuracy is the share of questions refused exactly when the
	// documents do not answer them; RefusalPrecision and RefusalRecall
	// split it.
	RefusalAccuracy  float64 `json:"refusal_accuracy"`
	RefusalPrecision float64 `json:"refusal_precision"`
	RefusalRecall    float64 `json:"refusal_recall"`
	// P50MS is the median time of a question, end to end.
	P50MS   float64       `json:"p50_ms"`
	Results []CaseOutcome `json:"results,omitempty"`
}

// CaseOutcome is how one question went.
type CaseOutcome struct {
	ID          string  `json:"id"`
	Refused     bool    `json:"refused"`
	WantRefusal bool    `json:"want_refusal"`
	Found       int     `json:"support_found"`
	Support     int     `json:"support"`
	Citations   int     `json:"citations"`
	Relevant    int     `json:"relevant_citations"`
	Unsupported int     `json:"unsupported_sentences"`
	TookMS      float64 `json:"took_ms"`
	Answer      string  `json:"answer"`
}

// SentenceSupported checks one sentence of the answer against the
// passages it cites, as tailor.Check does: nil when they support it.
func (r Reply) SentenceSupported(s tailor.Sentence) error {
	return tailor.Check(tailor.Output{Sentences: []tailor.Sentence{s}, Citations: r.Citations}, r.Passages)
}

// Asker answers a question: a Service.
type Asker interface {
	Ask(ctx context.Context, q Question) (Reply, error)
}

// Evaluate asks every case of set (follow-ups in the session of the case
// they follow) and scores the answers.
func Evaluate(ctx context.Context, s Asker, set []Case, base Question) (Scores, error) {
	var sc Scores
	sessions := map[string]string{}
	var times []float64
	var supportFound, supportAll, cited, relevant, sentences, supported int
	var refusedRight, refused, unanswerable, refusedUnanswerable int
	for _, c := range set {
		q := base
		q.Text = c.Question
		q.SessionID = sessions[c.Follows]
		rep, err := s.Ask(ctx, q)
		if err != nil {
			return sc, err
		}
		sessions[c.ID] = rep.SessionID
		o := CaseOutcome{ID: c.ID, Refused: rep.Refused, WantRefusal: !c.Answerable, Support: len(c.Support),
			Citations: len(rep.Citations), TookMS: rep.TookMS, Answer: rep.Answer}
		times = append(times, rep.TookMS)
		content := map[string]string{}
		for _, p := range rep.Passages {
			content[p.ChunkID] = p.Content
		}
		for _, s := range rep.Sentences {
			sentences++
			if rep.SentenceSupported(s) == nil {
				supported++
			} else {
				o.Unsupported++
			}
		}
		if c.Answerable {
			sc.Answerable++
			for _, want := range c.Support {
				for _, cit := range rep.Citations {
					if containsNormalized(content[cit.ChunkID], want) {
						o.Found++
						break
					}
				}
			}
			for _, cit := range rep.Citations {
				for _, want := range c.Support {
					if containsNormalized(content[cit.ChunkID], want) {
						o.Relevant++
						break
					}
				}
			}
			supportFound += o.Found
			supportAll += len(c.Support)
			cited += o.Citations
			relevant += o.Relevant
		} else {
			unanswerable++
			if rep.Refused {
				refusedUnanswerable++
			}
		}
		if rep.Refused {
			refused++
		}
		if rep.Refused == !c.Answerable {
			refusedRight++
		}
		sc.Questions++
		sc.Results = append(sc.Results, o)
	}
	sc.AnswerRecall = ratio(supportFound, supportAll)
	sc.CitationPrecision = ratio(relevant, cited)
	sc.SentenceSupport = ratio(supported, sentences)
	sc.RefusalAccuracy = ratio(refusedRight, sc.Questions)
	sc.RefusalPrecision = ratio(refusedUnanswerable, refused)
	sc.RefusalRecall = ratio(refusedUnanswerable, unanswerable)
	if len(times) > 0 {
		sort.Float64s(times)
		sc.P50MS = times[len(times)/2]
	}
	return sc, nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// containsNormalized says whether text holds quote, whitespace and
// Markdown emphasis and table bars set aside, case folded.
func containsNormalized(text, quote string) bool {
	n := func(s string) string {
		s = strings.NewReplacer("*", "", "_", " ", "|", " ", "`", "").Replace(strings.ToLower(s))
		return strings.Join(strings.Fields(s), " ")
	}
	q := n(quote)
	return q != "" && strings.Contains(n(text), q)
}

// EvalConfig is how EvaluateFolder runs.
type EvalConfig struct {
	// Models, when set, gives the tailor its model (mode "model").
	Models *model.Registry
	// Embedder, when set, adds vector search.
	Embedder memory.Embedder
	// Scope is the case the documents go to ({eval, answers} when zero).
	Scope sanad.Scope
}

// EvaluateFolder ingests the documents under dir into a new home in a
// temporary folder, evaluates set over them and removes the home.
func EvaluateFolder(ctx context.Context, dir string, set []Case, cfg EvalConfig) (Scores, error) {
	const op = "rag.evaluate"
	if cfg.Scope == (sanad.Scope{}) {
		cfg.Scope = sanad.Scope{Tenant: "eval", Case: "answers"}
	}
	tmp, err := os.MkdirTemp("", "sanad-eval-answers-")
	if err != nil {
		return Scores{}, sanad.Wrap(err, sanad.CodeInternal, op, "a temporary home")
	}
	defer os.RemoveAll(tmp)
	h, err := home.Open(ctx, home.Config{Dir: filepath.Join(tmp, "home")})
	if err != nil {
		return Scores{}, err
	}
	defer h.Close()
	p, err := ingest.ForHome(h, ingest.HomeOptions{Embedder: cfg.Embedder})
	if err != nil {
		return Scores{}, err
	}
	rep, err := p.Ingest(ctx, []connector.Input{ingest.Source(dir, true)}, ingest.Options{Scope: cfg.Scope})
	if err != nil {
		return Scores{}, err
	}
	if len(rep.Errors) > 0 {
		return Scores{}, sanad.Errorf(rep.Errors[0].Code, op, "%s: %s", rep.Errors[0].Source, rep.Errors[0].Message)
	}
	r, err := runner.Open(ctx, runner.Config{Home: h, Models: cfg.Models})
	if err != nil {
		return Scores{}, err
	}
	defer r.Close()
	svc, err := Register(r, Config{Embedder: cfg.Embedder})
	if err != nil {
		return Scores{}, err
	}
	return Evaluate(ctx, svc, set, Question{Scope: cfg.Scope})
}
