package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/claim"
	"github.com/sanadhq/sanad/diligence"
	"github.com/sanadhq/sanad/examples/deals"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ingest"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/parse"
	"github.com/sanadhq/sanad/playbook/deal"
	"github.com/sanadhq/sanad/playbook/debate"
	"github.com/sanadhq/sanad/runner"
)

func (a *app) evalDiligenceCommand() *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "diligence DIR",
		Short: "Recall, precision and stop-reason accuracy of the deal analysis on a deal set",
		Long: `Analyses every deal under DIR (a folder holding deal.yaml, or one holding such folders, as
examples/deals) with the offline rules of package diligence and scores the findings against each
deal's expected.json: recall and precision over the contradictions and defects, recall over the
risks (a reported risk counts as false only when not_expected lists it), and whether the debate
stopped for the expected reason.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dirs, err := dealDirs(args[0])
			if err != nil {
				return err
			}
			var scores []diligence.Scorecard
			for _, dir := range dirs {
				d, err := diligence.Load(cmd.Context(), dir)
				if err != nil {
					if errors.Is(err, diligence.ErrManifest) {
						return usageError{err}
					}
					return failure{err}
				}
				want, err := diligence.ReadExpected(dir)
				if err != nil {
					return usageError{err}
				}
				s := diligence.Score(diligence.Analyze(d), want)
				s.Deal = filepath.Base(dir)
				scores = append(scores, s)
			}
			tot := diligence.Sum(scores)
			return a.report(map[string]any{"deals": scores, "overall": tot}, func() {
				for _, s := range scores {
					fmt.Fprintf(a.stdout, "%-26s recall %d/%d  precision %d/%d  risks %d/%d  stop %s (want %s)\n",
						s.Deal, s.Found, s.Expected, s.Correct, s.Reported, s.FoundRisks, s.ExpectedRisks, s.StopReason, s.WantStopReason)
					for _, m := range s.Missed {
						fmt.Fprintf(a.stdout, "  missed: %s\n", strings.TrimSpace(m))
					}
					for _, m := range append(s.False, s.FalseRisks...) {
						fmt.Fprintf(a.stdout, "  false:  %s\n", strings.TrimSpace(m))
					}
					for _, m := range s.ExtraRisks {
						fmt.Fprintf(a.stdout, "  extra:  %s\n", strings.TrimSpace(m))
					}
				}
				fmt.Fprintf(a.stdout, "overall: recall %.3f (%d/%d), precision %.3f (%d/%d), risk recall %.3f, false risks %d, stop reason %d/%d\n",
					tot.Recall, tot.Found, tot.Expected, tot.Precision, tot.Correct, tot.Reported, tot.RiskRecall, tot.FalseRisks, tot.StopOK, tot.Deals)
			})
		},
	})
}

// dealDirs is dir when it holds a deal.yaml, else its subfolders that do.
func dealDirs(dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, diligence.ManifestFile)); err == nil {
		return []string{dir}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, usagef("%s: %v", dir, err)
	}
	var out []string
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(sub, diligence.ManifestFile)); e.IsDir() && err == nil {
			out = append(out, sub)
		}
	}
	if len(out) == 0 {
		return nil, usagef("%s holds no %s, nor any folder that does", dir, diligence.ManifestFile)
	}
	sort.Strings(out)
	return out, nil
}

func (a *app) diligenceCommand() *cobra.Command {
	var out, tenant, asOf string
	c := a.jsonFlag(&cobra.Command{
		Use:   "diligence DEAL_DIR",
		Short: "Analyse a deal's data room and write a decision memo whose every figure traces to its source",
		Long: `Reads DEAL_DIR (a deal.yaml naming each document and its kind, and the documents), extracts
every figure with its span, chains the sources that state the same fact and grades them, and runs
the offline roles: the contradiction finder, the sanad breaker, the risk officer and the arbiter,
round by round until a stop condition (CONSENSUS, STABLE_DISSENT, EVIDENCE_EXHAUSTED,
MAX_ROUNDS, CRITICAL_DEFECT). The memo (recommendation, key metrics, contradictions, defects,
risks, challenges, dissent, open questions, sources) is checked so that every figure in it is in
the span of a claim it cites or is a recorded calc. It all runs as the debate workflow (see
sanad debate run: resumable, every output through the Muḥāsabah gate, the claim registry written
through its lane), and the run's trace is exported and verified. -o writes the Markdown; --json
prints the memo's JSON. Exit 1 when the debate fails (a memo blocked by a figure that traces to
nothing, an output the gate rejects).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			r, memo, res, err := a.debate(ctx, args[0], asOf, tenant)
			if err != nil {
				return err
			}
			defer r.Close()
			x, err := exportVerified(cmd, r.Home(), sanad.Scope{Tenant: tenant, Case: diligence.CaseID(memo.Deal)}, res.Trace)
			if err != nil {
				return err
			}
			if out != "" {
				if err := os.WriteFile(out, []byte(memo.Markdown()), 0o644); err != nil {
					return usagef("-o %s: %v", out, err)
				}
			}
			if a.jsonOut {
				return a.printJSON(memo)
			}
			fmt.Fprint(a.stdout, memo.Markdown())
			fmt.Fprintf(a.stdout, "\nExported and verified the signed record: %s\n", x.Path)
			return nil
		},
	})
	c.Flags().StringVarP(&out, "output", "o", "", "write the memo's Markdown to this file")
	c.Flags().StringVar(&tenant, "tenant", "default", "tenant the deal belongs to")
	c.Flags().StringVar(&asOf, "as-of", "", "analyse the evidence known by this date (YYYY-MM-DD) instead of deal.yaml's as_of")
	return c
}

func (a *app) claimsCommand() *cobra.Command {
	return group("claims", "The claim registry of a deal, and checking claims against a case's documents",
		a.claimsListCommand(), a.claimsShowCommand(), a.claimsCheckCommand())
}

// registry reads the claim registry of a case: the records sanad diligence
// wrote through the claims lane, each read by its hash.
func registry(ctx context.Context, h *home.Home, scope sanad.Scope) ([]diligence.RegistryRecord, error) {
	rows, err := h.DB.Records(ctx, scope, diligence.Table)
	if err != nil {
		return nil, err
	}
	var out []diligence.RegistryRecord
	for _, r := range rows {
		data, err := h.Artifacts.Read(r.SHA256)
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, "claims", "the record of "+r.Key)
		}
		var rec diligence.RegistryRecord
		if err := json.Unmarshal(data, &rec); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, "claims", "the record of "+r.Key)
		}
		out = append(out, rec)
	}
	return out, nil
}

func (a *app) claimsListCommand() *cobra.Command {
	var sf scopeFlags
	var metric string
	c := a.jsonFlag(&cobra.Command{
		Use:   "list --case DEAL",
		Short: "List the claims sanad diligence recorded for a deal, with their grades and verdicts",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withHomeRead(cmd.Context(), func(h *home.Home) error {
				recs, err := registry(cmd.Context(), h, sanad.Scope{Tenant: sf.tenant, Case: sf.caseID})
				if err != nil {
					return err
				}
				var claims []claim.Claim
				for _, r := range recs {
					for _, c := range r.Claims {
						if metric == "" || c.Value.Metric == metric {
							claims = append(claims, c)
						}
					}
				}
				if len(recs) == 0 {
					return failure{sanad.Errorf(sanad.CodeNotFound, "claims", "no claim registry in case %s: run sanad diligence first", sf.caseID)}
				}
				return a.report(map[string]any{"claims": claims, "documents": len(recs)}, func() {
					for _, c := range claims {
						fmt.Fprintf(a.stdout, "%s  %-16s %-12s %12s  %s %-12s %s\n", c.ID[:8], c.Value.Metric, c.Value.Period, diligence.FormatValue(c.Value), c.Grade, c.Verdict, c.Span.Document)
					}
					fmt.Fprintf(a.stdout, "%d claims from %d documents\n", len(claims), len(recs))
				})
			})
		},
	})
	c.Flags().StringVar(&sf.tenant, "tenant", "default", "tenant of the deal")
	c.Flags().StringVar(&sf.caseID, "case", "", "the deal's case (its name in lower case words joined by hyphens)")
	c.Flags().StringVar(&metric, "metric", "", "only this metric (revenue, arr, ebitda, …)")
	_ = c.MarkFlagRequired("case")
	return c
}

func (a *app) claimsShowCommand() *cobra.Command {
	var sf scopeFlags
	c := a.jsonFlag(&cobra.Command{
		Use:   "show CLAIM_ID --case DEAL",
		Short: "Show one claim of a deal's registry: its value, grade, verdict, source span and sentence",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withHomeRead(cmd.Context(), func(h *home.Home) error {
				recs, err := registry(cmd.Context(), h, sanad.Scope{Tenant: sf.tenant, Case: sf.caseID})
				if err != nil {
					return err
				}
				for _, r := range recs {
					for _, c := range r.Claims {
						if c.ID == args[0] || len(args[0]) >= 8 && strings.HasPrefix(c.ID, args[0]) {
							return a.report(c, func() {
								fmt.Fprintf(a.stdout, "claim %s (%s)\n  %s %s: %s, grade %s, %s\n  source: %s (%s), page %d, bytes %d–%d\n  %q\n",
									c.ID, c.Class, c.Value.Metric, c.Value.Period, diligence.FormatValue(c.Value), c.Grade, c.Verdict,
									c.Span.Document, r.Kind, c.Span.Page, c.Span.Start, c.Span.End, c.Text)
							})
						}
					}
				}
				return failure{sanad.Errorf(sanad.CodeClaimNotFound, "claims", "no claim %s in case %s", args[0], sf.caseID)}
			})
		},
	})
	c.Flags().StringVar(&sf.tenant, "tenant", "default", "tenant of the deal")
	c.Flags().StringVar(&sf.caseID, "case", "", "the deal's case")
	_ = c.MarkFlagRequired("case")
	return c
}

func (a *app) claimsCheckCommand() *cobra.Command {
	var sf scopeFlags
	var k int
	c := a.jsonFlag(&cobra.Command{
		Use:   "check \"CLAIM TEXT\"",
		Short: "Say whether a case's documents support, contradict or do not address a claim, with evidence",
		Long: `Reads the figures of the claim ("Tessaro's revenue for 2024 was £49.6m": a metric, a value, a
period), searches the case's memory for passages about them, reads those passages' figures, and
compares: the same metric and period within the rounding the figures are written with supports
it, a different value contradicts it. Prints the verdict per figure with each passage's document
and the sentence that states it. A claim with no figure sanad can read is bad input (exit 2).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			wanted := claim.ReadText(args[0])
			if len(wanted) == 0 {
				return usagef("no figure sanad can check in %q: name a metric and a value (\"revenue in FY2024 was £48.2m\")", args[0])
			}
			return a.withHomeRead(ctx, func(h *home.Home) error {
				query := args[0]
				for _, w := range wanted {
					query += " " + strings.ReplaceAll(w.Value.Metric, "_", " ")
				}
				out, err := ingest.HomeIndex(h, nil).Search(ctx, sanad.Scope{Tenant: sf.tenant, Case: sf.caseID}, memory.Query{QueryText: query, TopK: k})
				if err != nil && sanad.ErrorCode(err) != sanad.CodeMemoryNoResults {
					return err
				}
				var passages []claim.Passage
				for _, r := range out.Results {
					p, err := parse.Bytes(ctx, "passage.md", []byte(r.Content), parse.Options{FileType: "md"})
					if err != nil {
						continue
					}
					doc, _ := r.Metadata["source"].(string)
					passages = append(passages, claim.Passage{Document: filepath.Base(doc), ChunkID: r.ChunkID, Text: r.Content,
						Claims: claim.Extract(p.Document, r.SourceID, r.ChunkID)})
				}
				res, err := claim.Check(ctx, args[0], passages)
				if err != nil {
					return usageError{err}
				}
				return a.report(res, func() {
					fmt.Fprintf(a.stdout, "%s: %s\n", res.Verdict, args[0])
					for _, f := range res.Figures {
						fmt.Fprintf(a.stdout, "  %s %s: %s\n", strings.ReplaceAll(f.Value.Metric, "_", " "), f.Value.Period, f.Verdict)
						for _, e := range f.Findings {
							mark := "≠"
							if e.Agrees {
								mark = "="
							}
							fmt.Fprintf(a.stdout, "    %s %s (%s): %q\n", mark, diligence.FormatValue(e.Stated), e.Document, e.Quote)
						}
					}
				})
			})
		},
	})
	c.Flags().StringVar(&sf.tenant, "tenant", "default", "tenant of the case")
	c.Flags().StringVar(&sf.caseID, "case", "default", "the case whose documents are searched")
	c.Flags().IntVarP(&k, "k", "k", 10, "passages searched")
	return c
}

func (a *app) benchDiligenceCommand() *cobra.Command {
	var rounds int
	c := a.jsonFlag(&cobra.Command{
		Use:   "diligence [DEAL_DIR]",
		Short: "Time an offline diligence end to end, and the shares of ingestion, extraction, debate and the ledger",
		Long: `Runs the diligence of DEAL_DIR (default: the deal built into the binary) in a temporary home,
--rounds times, and reports the median seconds from reading the documents to the verified bundle,
and the shares of: ingestion (parsing the documents), extraction (claims and their chains), the
debate (the roles' analysis, the memo and the Muḥāsabah gate), each timed on its own, and the
ledger: what the recorded debate run, its export and the bundle's verification take beyond them.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			tmp, err := os.MkdirTemp("", "sanad-bench-diligence-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			dir := filepath.Join(tmp, "09-orrery-health")
			if len(args) == 1 {
				dir = args[0]
			} else if err := os.CopyFS(tmp, deals.Orrery); err != nil {
				return err
			}
			type phases struct{ total, ingest, extract, debate, ledger float64 }
			var runs []phases
			for i := 0; i < max(rounds, 1); i++ {
				var p phases
				t0 := time.Now()
				m, err := diligence.ReadManifest(dir)
				if err != nil {
					return usageError{err}
				}
				for _, doc := range m.Documents {
					data, err := os.ReadFile(filepath.Join(dir, doc.File))
					if err != nil {
						return err
					}
					if _, err := parse.Bytes(ctx, doc.File, data, parse.Options{DocumentID: doc.File}); err != nil {
						return err
					}
				}
				p.ingest = time.Since(t0).Seconds()
				t1 := time.Now()
				d, err := diligence.Load(ctx, dir)
				if err != nil {
					return err
				}
				// Load parses again: what it takes beyond the parse is extraction.
				p.extract = max(time.Since(t1).Seconds()-p.ingest, 0)
				t2 := time.Now()
				f := diligence.Analyze(d)
				if _, err := diligence.BuildMemo(d, f); err != nil {
					return err
				}
				ev := diligence.Evidence(d, f)
				for _, o := range diligence.Outputs(d, f) {
					_ = debate.Check(o, ev)
				}
				p.debate = time.Since(t2).Seconds()
				// The recorded run does all of that again inside its
				// steps: what it takes beyond is the ledger's.
				t3 := time.Now()
				r, err := runner.Open(ctx, runner.Config{Dir: filepath.Join(tmp, fmt.Sprintf("home-%d", i))})
				if err != nil {
					return err
				}
				pb, err := deal.New()
				if err == nil {
					err = r.Register(pb)
				}
				var res runner.Result
				if err == nil {
					_, res, err = runDebate(ctx, r, dir, "", "bench")
				}
				if err == nil {
					_, err = exportVerified(cmd, r.Home(), sanad.Scope{Tenant: "bench", Case: "deal"}, res.Trace)
				}
				r.Close()
				if err != nil {
					return err
				}
				recorded := time.Since(t3).Seconds()
				p.ledger = max(recorded-p.ingest-p.extract-p.debate, 0)
				p.total = recorded
				runs = append(runs, p)
			}
			sort.Slice(runs, func(i, j int) bool { return runs[i].total < runs[j].total })
			med := runs[len(runs)/2]
			res := map[string]any{"seconds": med.total, "ingestion_share": med.ingest / med.total, "extraction_share": med.extract / med.total,
				"debate_share": med.debate / med.total, "ledger_share": med.ledger / med.total, "rounds": len(runs)}
			return a.report(res, func() {
				fmt.Fprintf(a.stdout, "diligence of %s: %.2f s end to end (median of %d)\n", filepath.Base(dir), med.total, len(runs))
				fmt.Fprintf(a.stdout, "  ingestion %.0f%%, extraction %.0f%%, debate and memo %.0f%%, ledger and bundle %.0f%%\n",
					100*med.ingest/med.total, 100*med.extract/med.total, 100*med.debate/med.total, 100*med.ledger/med.total)
			})
		},
	})
	c.Flags().IntVar(&rounds, "rounds", 3, "how many times the diligence runs")
	return c
}

func (a *app) debateCommand() *cobra.Command {
	show := a.runsShowCommand()
	show.Short = "Show a debate run: each round's steps, the outputs heard and the memo"
	resume := a.runsResumeCommand()
	resume.Short = "Resume a debate that stopped before its end, at the step after its last checkpoint"
	return group("debate", "The due-diligence debate as a resumable workflow", a.debateRunCommand(), show, resume)
}

func (a *app) debateRunCommand() *cobra.Command {
	var tenant, asOf string
	c := a.jsonFlag(&cobra.Command{
		Use:   "run DEAL_DIR",
		Short: "Run the due-diligence debate of a deal as a workflow: analysis, rounds, memo",
		Long: `Runs the debate playbook over DEAL_DIR: the arbiter reads the data room once (a recorded tool
call, so a resume or a replay reads it back), each round is one step per role (advocate, sanad
breaker, contradiction finder, risk officer, arbiter), every output passes the Muḥāsabah gate as
a recorded call (a rejection fails the run), rounds after the stop are not heard, and the last
step writes the memo. A crashed run resumes with sanad debate resume RUN, re-running no round.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			r, memo, res, err := a.debate(ctx, args[0], asOf, tenant)
			if err != nil {
				return err
			}
			defer r.Close()
			if a.jsonOut {
				return a.printJSON(memo)
			}
			fmt.Fprint(a.stdout, memo.Markdown())
			fmt.Fprintf(a.stdout, "\nDebate run %s: %d steps; sanad debate show %s\n", res.Run, len(res.Outputs), res.Run)
			return nil
		},
	})
	c.Flags().StringVar(&tenant, "tenant", "default", "tenant the deal belongs to")
	c.Flags().StringVar(&asOf, "as-of", "", "analyse the evidence known by this date (YYYY-MM-DD)")
	return c
}

// debate opens a runner over the home with the debate playbook and runs it
// over the deal in dir; the caller closes the runner. With a reasoning model
// configured (the home's sanad.yaml), the roles speak through it, every
// output still through the gate; without one they are the offline roles.
func (a *app) debate(ctx context.Context, dir, asOf, tenant string) (*runner.Runner, diligence.Memo, runner.Result, error) {
	r, err := a.openRunner(ctx, runnerOptions{}, deal.Name)
	if err != nil {
		return nil, diligence.Memo{}, runner.Result{}, err
	}
	memo, res, err := runDebate(ctx, r, dir, asOf, tenant)
	if err != nil {
		r.Close()
		return nil, memo, res, err
	}
	return r, memo, res, nil
}

// runDebate runs the debate playbook over the deal in dir on r and returns
// its memo (with the run and trace) and the run's result. A folder without
// a valid deal.yaml is bad input; a run that does not complete (a memo
// blocked by a free figure, an output the gate rejected) is a failure.
func runDebate(ctx context.Context, r *runner.Runner, dir, asOf, tenant string) (diligence.Memo, runner.Result, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return diligence.Memo{}, runner.Result{}, usageError{err}
	}
	m, err := diligence.ReadManifest(abs)
	if err != nil {
		return diligence.Memo{}, runner.Result{}, usageError{err}
	}
	if asOf != "" {
		if _, err := time.Parse(time.DateOnly, asOf); err != nil {
			return diligence.Memo{}, runner.Result{}, usagef("--as-of %q is not a date (YYYY-MM-DD)", asOf)
		}
	}
	res, err := r.Run(ctx, deal.Name, deal.Input{Dir: abs, AsOf: asOf}, runner.Options{Scope: sanad.Scope{Tenant: tenant, Case: diligence.CaseID(m.Name)},
		Caller: "cli", Reason: "the diligence of " + m.Name})
	if err != nil {
		return diligence.Memo{}, res, err
	}
	if err := res.Err(); err != nil {
		return diligence.Memo{}, res, failure{err}
	}
	var memo diligence.Memo
	if err := json.Unmarshal(res.Outputs["memo"], &memo); err != nil {
		return memo, res, failure{sanad.Wrap(err, sanad.CodeInternal, "diligence", "the memo of run "+res.Run)}
	}
	memo.Run, memo.Trace = res.Run, res.Trace
	return memo, res, nil
}
