package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/examples"
	"github.com/sanadhq/sanad/playbook/protocol"
	"github.com/sanadhq/sanad/runner"
)

func (a *app) sessionCommand() *cobra.Command {
	c := group("session", "Run, resume, abort and show protocol sessions (Planner, Executor, Critic, Auditor)",
		a.sessionRunCommand(), a.sessionResumeCommand(), a.sessionAbortCommand(), a.sessionShowCommand())
	c.Long = `A protocol session works on a task file: the planner turns its objectives into proposals,
the critic reviews them, the executor signs a tool intent for each approved one and runs it
through the tool gateway, claims what the outputs show, the critic challenges weak or
contradicted claims, and the auditor verifies the trace (signatures, chain, ordering rules,
evidence) before the planner signs the final statement. Every step is a signed event.

The roles run in deterministic mode: offline and rule-based, so a session can be resumed
after a crash and decide exactly as it would have. Examples are in examples/sessions.`
	return c
}

// sessionModes are the flags that choose a session's roles.
type sessionModes struct {
	modelConfig   string
	deterministic bool
}

func (m *sessionModes) flags(c *cobra.Command) {
	c.Flags().StringVar(&m.modelConfig, "model-config", "", "file with the models: section (default: the home's sanad.yaml)")
	c.Flags().BoolVar(&m.deterministic, "deterministic", false, "use the deterministic planner and critic even when a model is configured")
}

// sessionRunner opens a runner with the built-in session playbook. When a
// reasoning model is configured (and not refused with --deterministic), the
// planner and the critic ask it, each call recorded as a model_call run of
// the session; the critic's model can only be stricter than the policy.
func (a *app) sessionRunner(ctx context.Context, m sessionModes) (*runner.Runner, error) {
	return a.openRunner(ctx, runnerOptions{ModelConfig: m.modelConfig, NoModels: m.deterministic}, examples.SessionPlaybook)
}

func (a *app) sessionRunCommand() *cobra.Command {
	var tenant, caseID string
	var modes sessionModes
	c := a.jsonFlag(&cobra.Command{
		Use:   "run TASK",
		Short: "Run a session of a task file until it ends",
		Long: `Run records a session of the task file (YAML or JSON) in the home and runs it until it ends.

Exit 0 when the session completed (its verification passed, with or without warnings); 1 when
it failed, or stopped in a state it cannot leave without an operator (abort it with sanad
session abort); 2 for a task file that is not valid.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			task, err := readTask(args[0])
			if err != nil {
				return err
			}
			if caseID == "" {
				caseID = task.Name
			}
			r, err := a.sessionRunner(ctx, modes)
			if err != nil {
				return err
			}
			defer r.Close()
			return a.reportSession(r.StartSession(ctx, examples.SessionPlaybook, task, runner.Options{Scope: sanad.Scope{Tenant: tenant, Case: caseID}}))
		},
	})
	modes.flags(c)
	f := c.Flags()
	f.StringVar(&tenant, "tenant", "default", "tenant the session acts for")
	f.StringVar(&caseID, "case", "", "case the session acts on (default: the task's name)")
	return c
}

// readTask reads and validates a task file.
func readTask(file string) (*protocol.Task, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, usagef("%s: no such task file", file)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, protocol.MaxTaskBytes+1))
	if err != nil {
		return nil, err
	}
	task, err := protocol.ParseTask(file, data)
	if err != nil {
		return nil, usageError{err}
	}
	return task, nil
}

func (a *app) sessionResumeCommand() *cobra.Command {
	var modes sessionModes
	c := a.jsonFlag(&cobra.Command{
		Use:   "resume SESSION",
		Short: "Resume a session that stopped before its end",
		Long: `Resume reloads the session's trace, checks it (signatures, chain, ordering rules), settles
the tool calls a stopped process left open, and goes on from the next valid transition. A
trace that fails the check fails the session. Exit codes are those of sanad session run; a
session that has ended cannot be resumed (exit 1).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.sessionRunner(cmd.Context(), modes)
			if err != nil {
				return err
			}
			defer r.Close()
			res, err := r.ResumeSession(cmd.Context(), examples.SessionPlaybook, args[0])
			if err != nil && res.Session == "" {
				return conflictFailure(notFound(err, args[0]))
			}
			if sanad.ErrorCode(err) == sanad.CodeConflict {
				return failure{err}
			}
			return a.reportSession(res, err)
		},
	})
	modes.flags(c)
	return c
}

func (a *app) sessionAbortCommand() *cobra.Command {
	var reason, as string
	c := a.jsonFlag(&cobra.Command{
		Use:   "abort SESSION",
		Short: "Abort a session no process is running, on an operator's word",
		Long: `Abort moves a session that is not running (stopped by a crash, or waiting for an operator)
to aborted, recording who asked and why, and ends its run as cancelled. Exit 0 when the
abort is recorded; 1 when the session has already ended.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.sessionRunner(cmd.Context(), sessionModes{deterministic: true})
			if err != nil {
				return err
			}
			defer r.Close()
			res, err := r.AbortSession(cmd.Context(), examples.SessionPlaybook, args[0], protocol.Operator{Agent: as, Role: "operator"}, reason)
			if err != nil {
				return conflictFailure(notFound(err, args[0]))
			}
			return a.report(sessionReportOf(res), func() {
				fmt.Fprintf(a.stdout, "session %s aborted by %s (trace %s)\n", res.Session, as, res.Trace)
			})
		},
	})
	c.Flags().StringVar(&reason, "reason", "", "why the session is aborted, recorded with it")
	c.Flags().StringVar(&as, "as", "operator", "the identity of the operator who aborts it")
	return c
}

// sessionReport is what session run, resume and abort print with --json.
type sessionReport struct {
	Session      string              `json:"session"`
	State        protocol.State      `json:"state"`
	Trace        string              `json:"trace"`
	Mode         string              `json:"mode"`
	Verification *verificationReport `json:"verification,omitempty"`
	Stopped      string              `json:"stopped,omitempty"`
}

type verificationReport struct {
	Status string `json:"status"`
	Report string `json:"report"`
}

func sessionReportOf(res protocol.Result) sessionReport {
	r := sessionReport{Session: res.Session, State: res.State, Trace: res.Trace, Mode: res.Mode, Stopped: res.Stopped}
	if v := res.Verification; v != nil {
		r.Verification = &verificationReport{Status: v.Status, Report: v.Report}
	}
	return r
}

// reportSession prints where a session stands and returns nil if it
// completed, else a failure that says why: err when the engine gave one,
// else the session's own. When the engine recorded no session, it returns
// err as it is and prints nothing.
func (a *app) reportSession(res protocol.Result, err error) error {
	if err != nil && res.Session == "" {
		return err
	}
	if a.jsonOut {
		if perr := a.printJSON(sessionReportOf(res)); perr != nil {
			return perr
		}
	} else {
		fmt.Fprintf(a.stdout, "session %s %s in %s mode (trace %s)\n", res.Session, res.State, res.Mode, res.Trace)
		if v := res.Verification; v != nil {
			id := v.ID
			if id == "" {
				id = "(not recorded: the trace takes no more events)"
			}
			fmt.Fprintf(a.stdout, "verification %s: %s, report %s\n", id, v.Status, v.Report)
			for _, e := range v.Errors {
				fmt.Fprintf(a.stdout, "  error: %s\n", e)
			}
			for _, w := range v.Warnings {
				fmt.Fprintf(a.stdout, "  warning: %s\n", w)
			}
		}
		if res.Stopped != "" {
			fmt.Fprintf(a.stdout, "  stopped: %s\n", res.Stopped)
		}
		fmt.Fprintf(a.stdout, "Show its events with: sanad session show %s\n", res.Session)
	}
	switch {
	case err != nil:
		return failure{err}
	case res.State == protocol.StateCompleted:
		return nil
	case res.Stopped != "":
		return failure{fmt.Errorf("session %s stopped in %s: %s; abort it with `sanad session abort %s`", res.Session, res.State, res.Stopped, res.Session)}
	}
	return failure{res.Err()}
}

func (a *app) sessionShowCommand() *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "show SESSION",
		Short: "Show a session: its state, its verification, and every event of its trace in order",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var v *runner.SessionView
			err := a.withRunnerRead(cmd.Context(), func(r *runner.Runner) (err error) {
				v, err = r.ShowSession(cmd.Context(), args[0])
				return err
			})
			if err != nil {
				return failure{notFound(err, args[0])}
			}
			if a.jsonOut {
				return a.printJSON(v)
			}
			fmt.Fprintf(a.stdout, "session %s: %s (task %s, %s mode)\n", v.Session, v.State, v.Task, v.Mode)
			fmt.Fprintf(a.stdout, "trace %s, scope %s\n", v.Trace, v.Scope)
			if r := v.Verification; r != nil {
				fmt.Fprintf(a.stdout, "verification %s: %s, report %s\n", r.ID, r.Status, r.Report)
			}
			fmt.Fprintln(a.stdout, "events:")
			for _, e := range v.Events {
				state, role := cmp.Or(string(e.State), "-"), cmp.Or(e.Role, "-")
				fmt.Fprintf(a.stdout, "  %4d  %-11s  %-37s  %-8s  %s\n", e.Seq, state, e.Type, role, e.Summary)
			}
			return nil
		},
	})
}
