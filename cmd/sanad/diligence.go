package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad/diligence"
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
