package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/workflow"
)

func (a *app) runsCommand() *cobra.Command {
	return group("runs", "List, show, resume and cancel runs",
		a.runsListCommand(), a.runsShowCommand(), a.runsResumeCommand(), a.runsCancelCommand())
}

func (a *app) runsListCommand() *cobra.Command {
	var limit int
	c := a.jsonFlag(&cobra.Command{
		Use:   "list",
		Short: "List the root runs of the home (one per trace), newest first",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return usagef("--limit is 0 (no limit) or more")
			}
			return a.withHomeRead(cmd.Context(), func(h *home.Home) error {
				rs, err := h.DB.RecentRuns(cmd.Context(), limit)
				if err != nil {
					return err
				}
				if rs == nil {
					rs = []sanad.Run{}
				}
				return a.report(rs, func() {
					for _, r := range rs {
						fmt.Fprintf(a.stdout, "%s  %-12s %-10s %s  trace %s\n", r.ID, r.Kind, r.Status, r.StartedAt.Format(time.RFC3339), r.Trace)
					}
				})
			})
		},
	})
	c.Flags().IntVar(&limit, "limit", 20, "how many runs to list (0: all)")
	return c
}

// stepOutcome is one step event of a workflow run, as runs show prints it.
type stepOutcome struct {
	Step       string          `json:"step"`
	Event      string          `json:"event"`
	Status     string          `json:"status"`
	Agent      string          `json:"agent,omitempty"`
	OutputHash string          `json:"output_hash,omitempty"`
	Error      *sanad.RunError `json:"error,omitempty"`
}

// stepStatus is the status each step event records.
var stepStatus = map[string]string{
	workflow.TypeStepCompleted:   "completed",
	workflow.TypeStepFailed:      "failed",
	workflow.TypeStepSkipped:     "skipped",
	workflow.TypeStepCompensated: "compensated",
}

// runView is what runs show prints with --json.
type runView struct {
	Run      sanad.Run     `json:"run"`
	Steps    []stepOutcome `json:"steps,omitempty"`
	Children []sanad.Run   `json:"children"`
}

func (a *app) runsShowCommand() *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "show RUN",
		Short: "Show a run: its record, the outcome of each step of a workflow, and its child runs",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var v runView
			err := a.withHomeRead(cmd.Context(), func(h *home.Home) (err error) {
				v, err = showRun(cmd.Context(), h, args[0])
				return err
			})
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(v)
			}
			r := v.Run
			fmt.Fprintf(a.stdout, "run %s: %s run by %s, %s\n", r.ID, r.Kind, r.Agent, r.Status)
			fmt.Fprintf(a.stdout, "trace %s, scope %s, started %s", r.Trace, r.Scope, r.StartedAt.Format(time.RFC3339))
			if !r.EndedAt.IsZero() {
				fmt.Fprintf(a.stdout, ", ended %s", r.EndedAt.Format(time.RFC3339))
			}
			fmt.Fprintln(a.stdout)
			if r.Error != nil {
				fmt.Fprintf(a.stdout, "error %s: %s\n", r.Error.Code, r.Error.Message)
			}
			if len(v.Steps) > 0 {
				fmt.Fprintln(a.stdout, "steps:")
			}
			for _, s := range v.Steps {
				fmt.Fprintf(a.stdout, "  %-20s %-17s → %-11s", s.Step, s.Event, s.Status)
				switch {
				case s.OutputHash != "":
					fmt.Fprintf(a.stdout, " output %s", s.OutputHash)
				case s.Error != nil:
					fmt.Fprintf(a.stdout, " %s: %s", s.Error.Code, s.Error.Message)
				}
				fmt.Fprintln(a.stdout)
			}
			if len(v.Children) > 0 {
				fmt.Fprintln(a.stdout, "child runs:")
			}
			for _, c := range v.Children {
				fmt.Fprintf(a.stdout, "  %s  %-12s %-10s %s\n", c.ID, c.Kind, c.Status, c.Agent)
			}
			return nil
		},
	})
}

// showRun reads a run's record, its step events and the runs started under
// it. An unknown run is a NOT_FOUND failure.
func showRun(ctx context.Context, h *home.Home, id string) (runView, error) {
	rec, err := findRun(ctx, h, id)
	if err != nil {
		return runView{}, err
	}
	v := runView{Run: rec, Children: []sanad.Run{}}
	if rec.Kind == sanad.KindWorkflow {
		err := h.DB.ReadTrace(ctx, rec.Trace, 0, func(s ledger.Stored) error {
			ev, err := ledger.Decode(s.Raw)
			if err != nil {
				return err
			}
			status, ok := stepStatus[ev.Type]
			if !ok || ev.Run != rec.ID {
				return nil
			}
			var b workflow.StepBody
			if err := json.Unmarshal(ev.Body, &b); err != nil {
				return sanad.Wrap(err, sanad.CodeIntegrity, "runs.show", ev.Type+" body")
			}
			v.Steps = append(v.Steps, stepOutcome{Step: b.StepID, Event: ev.Type, Status: status, Agent: b.Agent, OutputHash: b.OutputHash, Error: b.Error})
			return nil
		})
		if err != nil {
			return runView{}, err
		}
	}
	all, err := h.DB.Runs(ctx, rec.Trace)
	if err != nil {
		return runView{}, err
	}
	// Runs are listed in the order they started, so a run's parent comes
	// before it: one pass finds every run under rec.
	under := map[string]bool{rec.ID: true}
	for _, r := range all {
		if r.ID != rec.ID && under[r.ParentID] {
			under[r.ID] = true
			v.Children = append(v.Children, r)
		}
	}
	return v, nil
}

// findRun returns the record of run id; an unknown id is a failure (exit
// 1) with code NOT_FOUND.
func findRun(ctx context.Context, h *home.Home, id string) (sanad.Run, error) {
	rec, err := h.DB.Run(ctx, id)
	if sanad.ErrorCode(err) == sanad.CodeNotFound {
		return rec, failure{sanad.Errorf(sanad.CodeNotFound, "runs", "no run %q in this home (sanad runs list shows its runs)", id)}
	}
	return rec, err
}

func (a *app) runsResumeCommand() *cobra.Command {
	var opt engineOptions
	c := a.jsonFlag(&cobra.Command{
		Use:   "resume RUN",
		Short: "Resume a workflow run that stopped before its end (a crash, an interrupt, a gate)",
		Long: `Resume goes on with a workflow run from its latest checkpoint, never running a completed step
again. Give it the --policy, --agents and --model-config the run was started with; model
calls already answered are read from the record, not made again. Exit codes are those of
sanad run; a run that has ended cannot be resumed (exit 1).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withRun(cmd.Context(), args[0], func(h *home.Home) error {
				e, err := newEngine(h, opt)
				if err != nil {
					return err
				}
				res, err := e.resume(cmd.Context(), args[0])
				if err != nil {
					return conflictFailure(err)
				}
				return a.reportRun(res, nil, e.mode())
			})
		},
	})
	engineFlags(c, &opt)
	return c
}

func (a *app) runsCancelCommand() *cobra.Command {
	var reason string
	c := a.jsonFlag(&cobra.Command{
		Use:   "cancel RUN",
		Short: "Cancel a workflow run that no process is running (stopped by a crash, or waiting on a gate)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return a.withRun(ctx, args[0], func(h *home.Home) error {
				e, err := newEngine(h, engineOptions{NoModels: true})
				if err != nil {
					return err
				}
				if err := e.cancel(ctx, args[0], reason); err != nil {
					return err
				}
				rec, err := h.DB.Run(ctx, args[0])
				if err != nil {
					return err
				}
				return a.report(map[string]any{"run": rec.ID, "trace": rec.Trace, "status": rec.Status}, func() {
					fmt.Fprintf(a.stdout, "run %s %s\n", rec.ID, rec.Status)
				})
			})
		},
	})
	c.Flags().StringVar(&reason, "reason", "", "why the run is cancelled, recorded with it")
	return c
}
