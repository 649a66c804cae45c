package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad/guard"
	"github.com/sanadhq/sanad/guard/injection"
	"github.com/sanadhq/sanad/guard/injection/eval"
)

func (a *app) guardCommand() *cobra.Command {
	return group("guard", "Screen text for prompt injection and jailbreaks", a.guardCheckCommand())
}

func (a *app) guardCheckCommand() *cobra.Command {
	var jsonl bool
	var checkType string
	var threshold float64
	c := a.jsonFlag(&cobra.Command{
		Use:   "check [--jsonl] [--type input_validation|output_safety]",
		Short: "Check text on standard input; exit 1 if any is unsafe",
		Long: `Reads text on standard input (the whole of it is one text, or with --jsonl one JSON
object {"text": ...} a line) and prints a verdict for each: a line of text, or with --json
the GuardrailsOutput (is_safe, sanitized_content, risk_category, reasoning, findings with
byte offsets, injection_score) as one JSON line. Exit code 0 when every text is safe, 1 when
any is not, 2 for bad usage or input.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if checkType != guard.InputValidation && checkType != guard.OutputSafety {
				return usagef("--type %q: want %s or %s", checkType, guard.InputValidation, guard.OutputSafety)
			}
			g, err := guard.New(guard.Config{InjectionThreshold: threshold})
			if err != nil {
				return err
			}
			var texts []string
			if jsonl {
				sc := bufio.NewScanner(a.stdin)
				sc.Buffer(make([]byte, 0, 64<<10), guard.DefaultMaxContentBytes+1<<10)
				for n := 1; sc.Scan(); n++ {
					if strings.TrimSpace(sc.Text()) == "" {
						continue
					}
					var row struct {
						Text *string `json:"text"`
					}
					if err := json.Unmarshal(sc.Bytes(), &row); err != nil || row.Text == nil {
						return usagef("line %d: want a JSON object {\"text\": \"...\"}", n)
					}
					texts = append(texts, *row.Text)
				}
				if err := sc.Err(); err != nil {
					return usagef("reading standard input: %v", err)
				}
			} else {
				b, err := io.ReadAll(io.LimitReader(a.stdin, guard.DefaultMaxContentBytes+1))
				if err != nil {
					return usagef("reading standard input: %v", err)
				}
				texts = []string{string(b)}
			}
			unsafe := 0
			for _, s := range texts {
				out, err := g.Check(guard.Input{Content: s, CheckType: checkType})
				if err != nil {
					return err
				}
				if !out.IsSafe {
					unsafe++
				}
				if a.jsonOut {
					if err := a.printJSON(out); err != nil {
						return err
					}
					continue
				}
				verdict := "safe"
				if !out.IsSafe {
					verdict = "unsafe"
				}
				fmt.Fprintf(a.stdout, "%s %s %.3f: %s\n", verdict, out.RiskCategory, out.InjectionScore, out.Reasoning)
			}
			if unsafe > 0 {
				return failure{fmt.Errorf("%d of %d texts unsafe", unsafe, len(texts))}
			}
			return nil
		},
	})
	c.Flags().BoolVar(&jsonl, "jsonl", false, `read JSON lines {"text": ...}, one text each`)
	c.Flags().StringVar(&checkType, "type", guard.InputValidation, "input_validation or output_safety")
	c.Flags().Float64Var(&threshold, "threshold", 0, fmt.Sprintf("classifier probability that makes a text an injection (default %.2f)", guard.DefaultInjectionThreshold))
	return c
}

func (a *app) benchGuardCommand() *cobra.Command {
	var checks int
	c := a.jsonFlag(&cobra.Command{
		Use:   "guard",
		Short: "Time of a guard check of a 1 KB chunk: median and 99th percentile",
		Long: `Checks 1,024-byte chunks of sample text (prose, a table, German, and one injection, so
that the rules, the decoders and the classifier all run) one after the other and prints the
median, 99th percentile and largest time in milliseconds.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := guard.New(guard.Config{})
			if err != nil {
				return err
			}
			res, err := g.Bench(guard.BenchConfig{Checks: checks})
			if err != nil {
				return err
			}
			return a.report(res, func() {
				fmt.Fprintf(a.stdout, "guard check of %d-byte chunks: p50 %.3f ms, p99 %.3f ms, max %.3f ms (%d checks, %d unsafe)\n",
					res.ChunkBytes, res.P50MS, res.P99MS, res.MaxMS, res.Checks, res.Unsafe)
			})
		},
	})
	c.Flags().IntVar(&checks, "checks", 2000, "checks to time")
	return c
}

func (a *app) evalGuardCommand() *cobra.Command {
	var data string
	var threshold float64
	c := a.jsonFlag(&cobra.Command{
		Use:   "guard",
		Short: "Precision, recall and false positives of the injection detector",
		Long: `Runs the injection detector over the held-out fifth of deepset/prompt-injections and
jackhhao's jailbreak set (and of the TAT-QA and CUAD chunks the classifier learns as
ordinary documents), which training never sees, and prints precision, recall and
false-positive rate for the rules alone, the classifier alone and the two combined; then
how many of the Cranfield abstracts and docling's Markdown ground truth, whole and in
1,024-byte chunks, it flags.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := eval.Load(data)
			if err != nil {
				return usagef("--data %s: %v", data, message(err))
			}
			m, err := injection.Embedded()
			if err != nil {
				return err
			}
			r := eval.Evaluate(&injection.Detector{Model: m, Threshold: threshold}, d)
			return a.report(r, func() {
				fmt.Fprintf(a.stdout, "held-out examples (threshold %.2f)\n", r.Threshold)
				sets := make([]string, 0, len(r.Held))
				for s := range r.Held {
					sets = append(sets, s)
				}
				sort.Strings(sets)
				for _, s := range sets {
					for _, k := range []string{eval.Rules, eval.Classifier, eval.Combined} {
						c := r.Held[s][k]
						fmt.Fprintf(a.stdout, "  %-10s %-10s n=%-4d precision %.3f  recall %.3f  FPR %.4f\n", s, k, c.N, c.Precision, c.Recall, c.FPR)
					}
				}
				fmt.Fprintln(a.stdout, "benign documents flagged (combined)")
				for _, s := range []string{"cranfield", "docling", "all"} {
					b, c := r.Benign[s], r.BenignChunks[s]
					fmt.Fprintf(a.stdout, "  %-10s documents %d/%d (%.4f)  %d-byte chunks %d/%d (%.4f)\n", s, b.Flagged, b.Docs, b.Rate, r.ChunkBytes, c.Flagged, c.Docs, c.Rate)
				}
			})
		},
	})
	c.Flags().StringVar(&data, "data", filepath.Join("..", "shared", "testdata"), "shared test data folder")
	c.Flags().Float64Var(&threshold, "threshold", 0, fmt.Sprintf("classifier threshold (default %.2f)", injection.DefaultThreshold))
	return c
}
