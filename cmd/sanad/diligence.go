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
	"github.com/sanadhq/sanad/dbwrite"
	"github.com/sanadhq/sanad/diligence"
	"github.com/sanadhq/sanad/examples/deals"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ingest"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/parse"
	"github.com/sanadhq/sanad/playbook/deal"
	"github.com/sanadhq/sanad/playbook/debate"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/runs"
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
the span of a claim it cites or is a recorded calc, stored as artifacts of a signed run, and the
run's trace is exported and verified. -o writes the Markdown; --json prints the memo's JSON.
Exit 1 when the memo cannot be written (a figure that traces to nothing).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			d, err := diligence.LoadAsOf(ctx, args[0], asOf)
			if err != nil {
				if errors.Is(err, diligence.ErrManifest) {
					return usageError{err}
				}
				return failure{err}
			}
			f := diligence.Analyze(d)
			memo, err := diligence.BuildMemo(d, f)
			if err != nil {
				return failure{err}
			}
			scope := sanad.Scope{Tenant: tenant, Case: caseName(d.Manifest.Name)}
			var bundlePath string
			err = a.withHome(ctx, func(h *home.Home) (err error) {
				bundlePath, err = recordDiligence(cmd, h, scope, d, f, &memo)
				return err
			})
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
			fmt.Fprintf(a.stdout, "\nExported and verified the signed record: %s\n", bundlePath)
			return nil
		},
	})
	c.Flags().StringVarP(&out, "output", "o", "", "write the memo's Markdown to this file")
	c.Flags().StringVar(&tenant, "tenant", "default", "tenant the deal belongs to")
	c.Flags().StringVar(&asOf, "as-of", "", "analyse the evidence known by this date (YYYY-MM-DD) instead of deal.yaml's as_of")
	return c
}

// recordDiligence records a deal's analysis in home h as a signed run of
// the arbiter: each role's output through the Muḥāsabah gate, the findings,
// the transcript and the memo as artifacts; then exports the run's trace
// and verifies the bundle. It returns the bundle's path.
func recordDiligence(cmd *cobra.Command, h *home.Home, scope sanad.Scope, d diligence.Deal, f diligence.Findings, memo *diligence.Memo) (string, error) {
	ctx := cmd.Context()
	var bundlePath string
	run, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Scope: scope, Agent: debate.RoleArbiter, Role: debate.RoleArbiter,
		Request:  map[string]any{"deal": d.Manifest, "documents": len(d.Docs)},
		Decision: runs.Decision{Allow: true, Reason: "a diligence started from the command line"}})
	if err != nil {
		return bundlePath, err
	}
	memo.Run, memo.Trace = run.Record.ID, run.Record.Trace
	// The claim registry: one record per document, through its db_write
	// lane, so every claim a memo cites is a row with its audit trail.
	pol, err := diligence.Policy()
	if err != nil {
		return bundlePath, err
	}
	w := &dbwrite.Writer{Policy: pol, Runs: h.Runs, Artifacts: h.Artifacts}
	pr := policy.Principal{Agent: debate.RoleArbiter, Role: debate.RoleArbiter, Scope: scope}
	for _, rec := range diligence.Registry(d) {
		body, err := json.Marshal(rec)
		if err != nil {
			return bundlePath, err
		}
		if _, err := w.Write(ctx, run, pr, dbwrite.Request{Lane: diligence.Lane, Table: diligence.Table, Op: dbwrite.Upsert,
			Key: caseName(d.Manifest.Name) + "/" + rec.Document, Record: body}); err != nil {
			return bundlePath, err
		}
	}
	// Every role's output passes the Muḥāsabah gate; a rejected
	// one is a muhasabah.rejected event and stays out of the
	// transcript.
	ev := diligence.Evidence(d, f)
	var heard []debate.Output
	for _, o := range diligence.Outputs(d, f) {
		err := debate.Gate(o, ev, func(r debate.Rejection) error {
			r.DebateID = run.Record.ID
			_, err := run.Append(ctx, debate.TypeMuhasabahRejected, "", r, nil)
			return err
		})
		if err == nil {
			heard = append(heard, o)
		}
	}
	transcript, err := json.Marshal(heard)
	if err != nil {
		return bundlePath, err
	}
	fjson, err := json.Marshal(f)
	if err != nil {
		return bundlePath, err
	}
	mjson, err := json.Marshal(memo)
	if err != nil {
		return bundlePath, err
	}
	var refs []sanad.ArtifactRef
	for _, art := range []struct {
		media string
		data  []byte
	}{{"application/vnd.sanad.findings+json", fjson}, {"application/vnd.sanad.debate+json", transcript}, {"application/vnd.sanad.memo+json", mjson}, {"text/markdown; charset=utf-8", []byte(memo.Markdown())}} {
		ref, err := h.Artifacts.Put(ctx, scope, run.Record.ID, art.media, art.data)
		if err != nil {
			return bundlePath, err
		}
		refs = append(refs, ref)
	}
	if err := run.Complete(ctx, refs, map[string]any{"recommendation": memo.Recommendation, "stop_reason": memo.StopReason}); err != nil {
		return bundlePath, err
	}
	x, err := exportVerified(cmd, h, scope, run.Record.Trace)
	return x.Path, err
}

// caseName turns a deal's name into a case id: lower case words joined by
// hyphens.
func caseName(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
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
debate (the roles' analysis, the memo and the Muḥāsabah gate) and the ledger (the signed run, its
artifacts, the export and its verification).`,
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
				memo, err := diligence.BuildMemo(d, f)
				if err != nil {
					return err
				}
				ev := diligence.Evidence(d, f)
				for _, o := range diligence.Outputs(d, f) {
					_ = debate.Check(o, ev)
				}
				p.debate = time.Since(t2).Seconds()
				t3 := time.Now()
				h, err := home.Open(ctx, home.Config{Dir: filepath.Join(tmp, fmt.Sprintf("home-%d", i))})
				if err != nil {
					return err
				}
				_, err = recordDiligence(cmd, h, sanad.Scope{Tenant: "bench", Case: "deal"}, d, f, &memo)
				h.Close()
				if err != nil {
					return err
				}
				p.ledger = time.Since(t3).Seconds()
				p.total = p.ingest + p.extract + p.debate + p.ledger
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
			dir, err := filepath.Abs(args[0])
			if err != nil {
				return usageError{err}
			}
			m, err := diligence.ReadManifest(dir)
			if err != nil {
				return usageError{err}
			}
			r, err := a.openRunner(ctx, runnerOptions{NoModels: true}, deal.Name)
			if err != nil {
				return err
			}
			defer r.Close()
			res, err := r.Run(ctx, deal.Name, deal.Input{Dir: dir, AsOf: asOf}, runner.Options{Scope: sanad.Scope{Tenant: tenant, Case: caseName(m.Name)}, Caller: "cli", Reason: "sanad debate run"})
			if err != nil {
				return err
			}
			if err := res.Err(); err != nil {
				return failure{err}
			}
			var memo diligence.Memo
			if err := json.Unmarshal(res.Outputs["memo"], &memo); err != nil {
				return failure{sanad.Wrap(err, sanad.CodeInternal, "debate", "the memo of run "+res.Run)}
			}
			memo.Run, memo.Trace = res.Run, res.Trace
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
