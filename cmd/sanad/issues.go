package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad/casework/issues"
)

func (a *app) evalIssuesCommand() *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "issues DIR",
		Short: "Accuracy, precision and recall of issue spotting per area of law",
		Long: `Scores the embedded taxonomy of areas of law on a folder laid out like LegalBench's
learned_hands: one folder per area id holding test.tsv, with a text column and a label
column of Yes or No. Prints accuracy, precision and recall per area and overall; folders
without test.tsv, or not named after an area, are skipped and listed.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if st, err := os.Stat(args[0]); err != nil || !st.IsDir() {
				return usagef("%s is not a folder", args[0])
			}
			r, err := issues.Evaluate(os.DirFS(args[0]), issues.Default())
			if err != nil {
				return err
			}
			return a.report(r, func() {
				fmt.Fprintf(a.stdout, "taxonomy version %d\n", r.Version)
				fmt.Fprintf(a.stdout, "  %-18s %5s  %8s  %9s  %6s\n", "area", "n", "accuracy", "precision", "recall")
				for _, x := range r.Areas {
					fmt.Fprintf(a.stdout, "  %-18s %5d  %8.3f  %9.3f  %6.3f\n", x.ID, x.N, x.Accuracy, x.Precision, x.Recall)
				}
				o := r.Overall
				fmt.Fprintf(a.stdout, "  %-18s %5d  %8.3f  %9.3f  %6.3f\n", "overall", o.N, o.Accuracy, o.Precision, o.Recall)
				fmt.Fprintf(a.stdout, "mean accuracy over %d areas %.3f\n", len(r.Areas), r.MeanAccuracy)
				for _, s := range r.Skipped {
					fmt.Fprintf(a.stdout, "skipped %s: %s\n", s.ID, s.Reason)
				}
			})
		},
	})
}
