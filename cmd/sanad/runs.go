package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/examples"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/runner"
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

// defaultShowBytes is how much of a step's output runs show prints unless
// told --full.
const defaultShowBytes = 1200

func (a *app) runsShowCommand() *cobra.Command {
	var full bool
	c := a.jsonFlag(&cobra.Command{
		Use:   "show RUN",
		Short: "Show a run: its record, each step's output, the gates it waits on, and its child runs",
		Long: `Show prints a run's record; for a workflow run, its playbook and workflow, then each step's
outcome and output (its text, or its JSON pretty-printed; cut at 1200 bytes unless --full),
the gates it waits on and its child runs. A run whose status is running is said to be live
(a process runs it now), waiting (on a gate a person must resolve) or interrupted (stopped:
sanad runs resume RUN goes on with it). With --json, the whole record as JSON.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var v runner.RunView
			err := a.withRunnerRead(cmd.Context(), func(r *runner.Runner) (err error) {
				v, err = r.Show(cmd.Context(), args[0])
				return err
			})
			if err != nil {
				return notFound(err, args[0])
			}
			if a.jsonOut {
				return a.printJSON(v)
			}
			a.printRun(v, full)
			return nil
		},
	})
	c.Flags().BoolVar(&full, "full", false, "print each step's whole output")
	return c
}

// printRun prints a run's view for people.
func (a *app) printRun(v runner.RunView, full bool) {
	r, w := v.Run, a.stdout
	fmt.Fprintf(w, "run %s: %s run by %s, %s", r.ID, r.Kind, r.Agent, r.Status)
	if v.State != "" {
		fmt.Fprintf(w, " (%s)", v.State)
	}
	fmt.Fprintln(w)
	if v.Workflow != "" {
		fmt.Fprintf(w, "workflow %s", v.Workflow)
		if v.Playbook != "" {
			fmt.Fprintf(w, " of playbook %s", v.Playbook)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "trace %s, scope %s, started %s", r.Trace, r.Scope, r.StartedAt.Format(time.RFC3339))
	if !r.EndedAt.IsZero() {
		fmt.Fprintf(w, ", ended %s", r.EndedAt.Format(time.RFC3339))
	}
	fmt.Fprintln(w)
	if r.Error != nil {
		fmt.Fprintf(w, "error %s: %s\n", r.Error.Code, r.Error.Message)
	}
	if r.Kind == sanad.KindSession {
		fmt.Fprintf(w, "Its proposals, claims and verification: sanad session show %s\n", r.ID)
	}
	switch v.State {
	case runner.StateInterrupted:
		fmt.Fprintf(w, "It was interrupted before its end: resume it with `sanad runs resume %s`.\n", r.ID)
	case runner.StateWaiting:
		fmt.Fprintf(w, "It waits on a person: resolve its gate with `sanad gates approve GATE --as NAME --role ROLE` (or reject), which resumes it.\n")
	case runner.StateLive:
		fmt.Fprintf(w, "A process is running it now.\n")
	}
	if len(v.Steps) > 0 {
		fmt.Fprintln(w, "\nsteps:")
	}
	for _, s := range v.Steps {
		fmt.Fprintf(w, "\n● %s (%s) %s", s.Step, s.Agent, s.Status)
		if s.OutputHash != "" {
			fmt.Fprintf(w, ", output %s", s.OutputHash)
		}
		fmt.Fprintln(w)
		if s.Error != nil {
			fmt.Fprintf(w, "  %s: %s\n", s.Error.Code, s.Error.Message)
		}
		if len(s.Output) > 0 {
			fmt.Fprintln(w, indent(readable(s.Output, full), "  "))
		}
	}
	if len(v.Gates) > 0 {
		fmt.Fprintln(w, "\nwaits on:")
	}
	for _, g := range v.Gates {
		fmt.Fprintf(w, "  gate %s (%s, needs role %s): %s\n", g.GateID, g.Kind, g.RequiredRole, g.Reason)
	}
	if len(v.Children) > 0 {
		fmt.Fprintln(w, "\nchild runs:")
	}
	for _, c := range v.Children {
		fmt.Fprintf(w, "  %s  %-12s %-10s %s\n", c.ID, c.Kind, c.Status, c.Agent)
	}
}

// readable returns a step's output for people: the text it holds (its
// "text" member), or the JSON pretty-printed; cut to defaultShowBytes unless
// full.
func readable(out json.RawMessage, full bool) string {
	var s string
	var m map[string]json.RawMessage
	var text string
	if json.Unmarshal(out, &m) == nil && json.Unmarshal(m["text"], &text) == nil && strings.TrimSpace(text) != "" {
		s = strings.TrimRight(text, "\n")
	} else {
		var b bytes.Buffer
		if json.Indent(&b, out, "", "  ") == nil {
			s = b.String()
		} else {
			s = string(out)
		}
	}
	if !full && len(s) > defaultShowBytes {
		cut := defaultShowBytes
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + fmt.Sprintf("\n… (%d more bytes: --full prints all)", len(s)-cut)
	}
	return s
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func (a *app) runsResumeCommand() *cobra.Command {
	var opt runnerOptions
	c := a.jsonFlag(&cobra.Command{
		Use:   "resume RUN",
		Short: "Resume a workflow run that stopped before its end (a crash, an interrupt, a gate)",
		Long: `Resume goes on with a workflow run from its latest checkpoint, never running a completed step
again. Give it the --policy, --agents and --model-config the run was started with; model
and tool calls already answered are read from the record, not made again. Exit codes are
those of sanad run; a run that has ended cannot be resumed (exit 1).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			r, err := a.runnerFor(ctx, args[0], opt)
			if err != nil {
				return err
			}
			defer r.Close()
			res, err := r.Resume(ctx, args[0])
			if err != nil {
				return conflictFailure(err)
			}
			return a.reportRun(res, nil)
		},
	})
	runnerFlags(c, &opt)
	return c
}

// runnerFor opens a runner able to go on with the workflow run id: the
// built-in playbooks, and, for a run of a workflow file, a playbook made of
// the definition its record holds with opt's agents and policy.
func (a *app) runnerFor(ctx context.Context, id string, opt runnerOptions) (*runner.Runner, error) {
	r, err := a.openRunner(ctx, opt)
	if err != nil {
		return nil, err
	}
	d, err := r.Describe(ctx, id)
	if err != nil {
		r.Close()
		return nil, notFound(err, id)
	}
	name := d.Playbook
	if name == "" {
		name = d.Name
	}
	if contains(builtinNames(), name) {
		pbs, err := examples.Playbooks()
		if err == nil {
			err = a.registerAll(r, opt, pbs, []string{name})
		}
		if err != nil {
			r.Close()
			return nil, err
		}
		return r, nil
	}
	def, err := workflow.Parse("the recorded definition of run "+id, d.Definition)
	var pb *playbook.Playbook
	if err == nil {
		pb, err = definitionPlaybook(def, opt)
	}
	if err == nil {
		pb.Name = name
		err = r.Register(pb)
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (a *app) runsCancelCommand() *cobra.Command {
	var reason string
	c := a.jsonFlag(&cobra.Command{
		Use:   "cancel RUN",
		Short: "Cancel a workflow run that no process is running (stopped by a crash, or waiting on a gate)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			r, err := a.runnerFor(ctx, args[0], runnerOptions{NoModels: true})
			if err != nil {
				return err
			}
			defer r.Close()
			if err := r.Cancel(ctx, args[0], reason); err != nil {
				return conflictFailure(err)
			}
			v, err := r.Show(ctx, args[0])
			if err != nil {
				return err
			}
			return a.report(map[string]any{"run": v.Run.ID, "trace": v.Run.Trace, "status": v.Run.Status}, func() {
				fmt.Fprintf(a.stdout, "run %s %s\n", v.Run.ID, v.Run.Status)
			})
		},
	})
	c.Flags().StringVar(&reason, "reason", "", "why the run is cancelled, recorded with it")
	return c
}
