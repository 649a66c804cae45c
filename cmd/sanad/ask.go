package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/examples"
	"github.com/sanadhq/sanad/internal/bench"
	"github.com/sanadhq/sanad/playbook/rag"
	"github.com/sanadhq/sanad/runner"
)

// askFlags are the flags of ask and chat.
type askFlags struct {
	scopeFlags
	session, persona, user, modelConfig string
	k                                   int
	filters                             []string
}

func (f *askFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.tenant, "tenant", "default", "tenant of the case")
	c.Flags().StringVar(&f.caseID, "case", "default", "the case whose documents answer")
	c.Flags().StringVar(&f.session, "session", "", "continue this session (default: a new one)")
	c.Flags().StringVar(&f.persona, "persona", "", "Technical, Executive or General (default: the session's, else General)")
	c.Flags().StringVar(&f.user, "user", "", "who is asking, recorded with the run")
	c.Flags().IntVarP(&f.k, "k", "k", 0, "passages retrieved per part of the question (default 6)")
	c.Flags().StringArrayVar(&f.filters, "filter", nil, "KEY=VALUE a document must match (repeatable)")
	c.Flags().StringVar(&f.modelConfig, "model-config", "", "file with a models: section (default: sanad.yaml in the home folder); without a model the answer is extractive")
}

func (f *askFlags) question(text string) (rag.Question, error) {
	q := rag.Question{Text: text, SessionID: f.session, UserID: f.user, Persona: f.persona, TopK: f.k,
		Scope: sanad.Scope{Tenant: f.tenant, Case: f.caseID}}
	switch strings.ToLower(f.persona) {
	case "", "technical", "executive", "general":
	default:
		return q, usagef("--persona %q: want Technical, Executive or General", f.persona)
	}
	if len(f.filters) > 0 {
		q.Filters = map[string]any{}
		for _, kv := range f.filters {
			key, val, ok := strings.Cut(kv, "=")
			if !ok || key == "" {
				return q, usagef("--filter %q: want KEY=VALUE", kv)
			}
			q.Filters[key] = val
		}
	}
	return q, nil
}

// openRAG opens a runner with the rag playbook registered.
func (a *app) openRAG(ctx context.Context, modelConfig string) (*runner.Runner, *rag.Service, error) {
	r, err := a.openRunner(ctx, runnerOptions{ModelConfig: modelConfig})
	if err != nil {
		return nil, nil, err
	}
	emb, err := a.embedder(modelConfig)
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	svc, err := rag.Register(r, rag.Config{Embedder: emb})
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	return r, svc, nil
}

func (a *app) askCommand() *cobra.Command {
	var f askFlags
	c := a.jsonFlag(&cobra.Command{
		Use:   "ask QUESTION",
		Short: "Answer a question from a case's documents, every sentence cited",
		Long: `Runs the rag playbook: the guardrails screen the question, the orchestrator plans one
search per part of it (resolving a follow-up against the session), the memory agent searches
the case's index and sets aside passages that carry instructions, the tailor writes an answer
in which every sentence cites the passage that supports it, or says the documents do not say,
and the guardrails check the answer. Each step is a signed event; export the trace printed at
the end to show the question, the passages, the answer and its citations.
Exits 1 when the answer is a refusal (blocked, or not in the documents).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q, err := f.question(args[0])
			if err != nil {
				return err
			}
			r, svc, err := a.openRAG(cmd.Context(), f.modelConfig)
			if err != nil {
				return err
			}
			defer r.Close()
			rep, err := svc.Ask(cmd.Context(), q)
			if err != nil {
				return err
			}
			if a.jsonOut {
				if err := a.printJSON(rep); err != nil {
					return err
				}
			} else {
				printReply(a.stdout, rep, true)
			}
			if rep.Refused {
				return failure{sanad.Errorf(cmpCode(rep.Code), "ask", "no answer: %s", refusalWhy(rep))}
			}
			return nil
		},
	})
	f.add(c)
	return c
}

// refusalWhy says in a few words why an answer was refused.
func refusalWhy(rep rag.Reply) string {
	switch {
	case rep.Code == sanad.CodeGuardrailInjection:
		return "the question was blocked as a prompt injection"
	case rep.Code == sanad.CodeGuardrailUnsafe:
		return "the answer failed its safety check twice"
	case len(rep.Passages) == 0:
		return "nothing in the case's documents matched (sanad docs list shows what is ingested)"
	}
	return "the passages found do not answer it"
}

func cmpCode(c sanad.Code) sanad.Code {
	if c == "" {
		return sanad.CodeMemoryNoResults
	}
	return c
}

func (a *app) chatCommand() *cobra.Command {
	var f askFlags
	c := &cobra.Command{
		Use:   "chat",
		Short: "A conversation with a case's documents, one session",
		Long: `Reads questions line by line and answers each as sanad ask does, on one session, so a
follow-up ("and in 2023?") is understood against what was asked before. An empty line or
end of input ends the conversation; the session id is printed so that it can be continued
with --session or sanad ask --session.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := f.question("x"); err != nil {
				return err
			}
			r, svc, err := a.openRAG(cmd.Context(), f.modelConfig)
			if err != nil {
				return err
			}
			defer r.Close()
			if f.session == "" {
				f.session = rag.NewSessionID()
			}
			fmt.Fprintf(a.stdout, "Session %s. Ask a question about the documents of case %s; an empty line ends.\n", f.session, f.caseID)
			in := bufio.NewScanner(a.stdin)
			in.Buffer(make([]byte, 64<<10), 64<<10)
			for {
				fmt.Fprint(a.stdout, "> ")
				if !in.Scan() {
					fmt.Fprintln(a.stdout)
					break
				}
				line := strings.TrimSpace(in.Text())
				if line == "" {
					break
				}
				q, _ := f.question(line)
				rep, err := svc.Ask(cmd.Context(), q)
				if err != nil {
					fmt.Fprintf(a.stdout, "error: %v\n", err)
					continue
				}
				printReply(a.stdout, rep, false)
			}
			if err := in.Err(); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Continue with: sanad chat --session %s\n", f.session)
			return nil
		},
	}
	f.add(c)
	return c
}

// printReply prints an answer for a person: the answer with its numbered
// citations, what was set aside, and the trace.
func printReply(w io.Writer, rep rag.Reply, trace bool) {
	fmt.Fprintln(w, rep.Answer)
	if len(rep.Citations) > 0 {
		fmt.Fprintln(w)
		for i, c := range rep.Citations {
			where := c.Title
			if where == "" {
				where = c.SourceID
			}
			if c.Page > 0 {
				where += fmt.Sprintf(", page %d", c.Page)
			}
			fmt.Fprintf(w, "[%d] %s: \"%s\"\n", i+1, where, oneLine(c.TextSnippet, 160))
		}
	}
	if len(rep.FollowUps) > 0 {
		fmt.Fprintf(w, "\nYou could also ask: %s\n", strings.Join(rep.FollowUps, " · "))
	}
	if trace {
		fmt.Fprintf(w, "\nSession %s · %s mode · confidence %.2f · trace %s\n", rep.SessionID, rep.Mode, rep.Confidence, rep.Trace)
	}
}

func (a *app) evalAnswersCommand() *cobra.Command {
	var set, corpus, modelConfig string
	var all bool
	c := a.jsonFlag(&cobra.Command{
		Use:   "answers [--set answers.jsonl] [--corpus DIR]",
		Short: "Answer recall, citation precision and refusal accuracy of sanad ask on an answer set",
		Long: `Ingests a folder of documents (default: the sample data room built into the binary) into a
temporary home, asks every question of an answer set (default: the one built in; JSON lines of
{id, question, answerable, support: [quotes], follows}) through the rag playbook, and prints:
answer recall (the share of support quotes found in a cited passage), citation precision (the
share of citations whose passage holds a support quote), sentence support (the share of answer
sentences their cited passages support), and refusal accuracy (refused exactly when the
documents do not answer). Without a model the answers are extractive.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			var cases []rag.Case
			var err error
			if set == "" {
				cases, err = answerSet()
			} else {
				f, ferr := os.Open(set)
				if ferr != nil {
					return usagef("--set: %v", ferr)
				}
				defer f.Close()
				cases, err = rag.ReadCases(f)
			}
			if err != nil {
				return usageError{err}
			}
			dir := corpus
			if dir == "" {
				tmp, err := os.MkdirTemp("", "sanad-corpus-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				if err := writeCorpus(tmp); err != nil {
					return err
				}
				dir = tmp
			}
			cfg := rag.EvalConfig{}
			if modelConfig != "" {
				s, err := loadModels(a.home(), modelConfig, os.Environ())
				if err != nil {
					return err
				}
				if cfg.Models, err = s.open(); err != nil {
					return err
				}
				if cfg.Embedder, err = a.embedder(modelConfig); err != nil {
					return err
				}
			}
			sc, err := rag.EvaluateFolder(cmd.Context(), dir, cases, cfg)
			if err != nil {
				return err
			}
			if !all {
				sc.Results = nil
			}
			return a.report(sc, func() {
				fmt.Fprintf(a.stdout, "%d questions (%d answerable): answer recall %.3f, citation precision %.3f, sentence support %.3f, refusal accuracy %.3f (precision %.3f, recall %.3f); p50 %.1f ms\n",
					sc.Questions, sc.Answerable, sc.AnswerRecall, sc.CitationPrecision, sc.SentenceSupport, sc.RefusalAccuracy, sc.RefusalPrecision, sc.RefusalRecall, sc.P50MS)
			})
		},
	})
	c.Flags().StringVar(&set, "set", "", "answer set, JSON lines (default: the built-in one over the sample data room)")
	c.Flags().StringVar(&corpus, "corpus", "", "folder of documents (default: the sample data room)")
	c.Flags().StringVar(&modelConfig, "model-config", "", "file with a models: section: the tailor writes with its reasoning model")
	c.Flags().BoolVar(&all, "results", false, "also print each question's outcome")
	return c
}

// answerSet returns the answer set built in over the sample data room.
func answerSet() ([]rag.Case, error) {
	set, err := examples.Answers()
	if err != nil {
		return nil, err
	}
	out := make([]rag.Case, len(set))
	for i, c := range set {
		out[i] = rag.Case{ID: c.ID, Question: c.Question, Answerable: c.Answerable, Document: c.Document, Documents: c.Documents,
			Support: c.Support, Answer: c.Answer, Kind: c.Kind, Follows: c.Follows, Sample: c.Sample, SampleRefusal: c.SampleRefusal}
	}
	return out, nil
}

func (a *app) benchAskCommand() *cobra.Command {
	var rounds int
	c := a.jsonFlag(&cobra.Command{
		Use:   "ask",
		Short: "Time an offline question end to end on the sample data room, and the share recording takes",
		Long: `Ingests the sample data room into a temporary home and asks every question of the built-in
answer set through the rag playbook (each step and tool call a signed event), then does the
same work unrecorded (guard checks, plan, searches, composition), alternating, and prints the
p50 of both, the share of an answer's time that recording takes, the events per answer, and
the p50 against the 200 ms limit.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			cases, err := answerSet()
			if err != nil {
				return err
			}
			var qs []string
			for _, c := range cases {
				if c.Follows == "" {
					qs = append(qs, c.Question)
				}
			}
			return runBench(a, func(dir string) (bench.AskResult, error) {
				corpus := filepath.Join(dir, "corpus")
				if err := writeCorpus(corpus); err != nil {
					return bench.AskResult{}, err
				}
				return bench.Ask(cmd.Context(), bench.AskConfig{Dir: dir, Corpus: corpus, Questions: qs, Rounds: rounds})
			}, func(res bench.AskResult) {
				fmt.Fprintf(a.stdout, "ask:    p50 %.1f ms, p90 %.1f ms over %d questions (%d events each on average)\n", res.P50MS, res.P90MS, res.Questions, int(res.EventsPerAsk+0.5))
				fmt.Fprintf(a.stdout, "work:   p50 %.1f ms unrecorded   recording's share %.0f%%\n", res.WorkP50MS, 100*res.RecordShare)
				fmt.Fprintf(a.stdout, "limit:  %.0f ms   ratio %.2f\n", res.LimitMS, res.Ratio)
			})
		},
	})
	c.Flags().IntVar(&rounds, "rounds", 3, "how many times each question is asked")
	return c
}
