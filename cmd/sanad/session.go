package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/playbook/protocol"
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

// sessionEngine returns the session engine over h: the built-in session
// tools under the session policy. When a reasoning model is configured (and
// not refused with --deterministic), the planner and the critic ask it,
// each call recorded as a model_call run of the session; the critic's model
// can only be stricter than the policy.
func sessionEngine(h *home.Home, m sessionModes) (*protocol.Engine, error) {
	cfg := protocol.Config{Runs: h.Runs, Store: h.DB, Artifacts: h.Artifacts}
	if !m.deterministic {
		setup, err := loadModels(h.Dir, m.modelConfig, os.Environ())
		if err != nil {
			return nil, err
		}
		if _, ok := setup.cfg.Classes[model.ClassReasoning]; ok {
			reg, err := setup.open()
			if err != nil {
				return nil, err
			}
			rec := &model.Recorder{Runs: h.Runs, Artifacts: h.Artifacts, Registry: reg}
			cfg.Generate = protocol.Recorded(rec, model.ClassReasoning)
		}
	}
	return protocol.New(cfg)
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
			return a.withHome(ctx, func(h *home.Home) error {
				e, err := sessionEngine(h, modes)
				if err != nil {
					return err
				}
				return a.reportSession(e.Start(ctx, task, protocol.Options{Scope: sanad.Scope{Tenant: tenant, Case: caseID}}))
			})
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
			return a.withRun(cmd.Context(), args[0], func(h *home.Home) error {
				e, err := sessionEngine(h, modes)
				if err != nil {
					return err
				}
				res, err := e.Resume(cmd.Context(), args[0])
				if sanad.ErrorCode(err) == sanad.CodeConflict {
					return failure{err}
				}
				return a.reportSession(res, err)
			})
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
			return a.withRun(cmd.Context(), args[0], func(h *home.Home) error {
				e, err := sessionEngine(h, sessionModes{deterministic: true})
				if err != nil {
					return err
				}
				res, err := e.Abort(cmd.Context(), args[0], protocol.Operator{Agent: as, Role: "operator"}, reason)
				if err != nil {
					return conflictFailure(err)
				}
				return a.report(sessionReportOf(res), func() {
					fmt.Fprintf(a.stdout, "session %s aborted by %s (trace %s)\n", res.Session, as, res.Trace)
				})
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
			var v *sessionView
			err := a.withHomeRead(cmd.Context(), func(h *home.Home) (err error) {
				v, err = showSession(cmd.Context(), h, args[0])
				return err
			})
			if err != nil {
				return err
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

// sessionView is what session show prints with --json.
type sessionView struct {
	*protocol.View
	Events []eventView `json:"events"`
}

// eventView is one event of a session's trace, with the state it left the
// session in and a line that says what it records.
type eventView struct {
	Seq     uint64         `json:"seq"`
	Type    string         `json:"type"`
	Run     string         `json:"run"`
	Agent   string         `json:"agent"`
	Role    string         `json:"role,omitempty"`
	State   protocol.State `json:"state,omitempty"`
	Summary string         `json:"summary,omitempty"`
}

// showSession reads the session id from its trace. An unknown id, or a run
// that is not a session, is a failure (exit 1).
func showSession(ctx context.Context, h *home.Home, id string) (*sessionView, error) {
	rec, err := findRun(ctx, h, id)
	if err != nil {
		return nil, err
	}
	if rec.Kind != sanad.KindSession || rec.ID != rec.Trace {
		return nil, failure{sanad.Errorf(sanad.CodeInvalidInput, "session.show", "run %s is a %s run, not a session", id, rec.Kind)}
	}
	var evs []*ledger.Event
	err = h.DB.ReadTrace(ctx, rec.Trace, 0, func(s ledger.Stored) error {
		ev, err := ledger.Decode(s.Raw)
		if err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, "session.show", fmt.Sprintf("trace %s: %v", rec.Trace, err))
		}
		evs = append(evs, ev)
		return nil
	})
	if err != nil {
		return nil, failure{err}
	}
	v, err := protocol.Project(evs)
	if err != nil {
		return nil, failure{err}
	}
	out := &sessionView{View: v, Events: make([]eventView, len(evs))}
	for i, e := range evs {
		out.Events[i] = eventView{Seq: e.Seq, Type: e.Type, Run: e.Run, Agent: e.Actor.Agent, Role: e.Actor.Role, State: v.States[i], Summary: summarize(e)}
	}
	return out, nil
}

// summarize says in a line what an event of a session records.
func summarize(e *ledger.Event) string {
	s := e.BodyString
	field := func(key string) any { v, _ := e.BodyField(key); return v }
	switch e.Type {
	case protocol.TypeSessionInitialized:
		var b protocol.InitializedBody
		_ = json.Unmarshal(e.Body, &b)
		return fmt.Sprintf("task %s, %d objective(s), %s mode", b.Task.Name, b.Task.Objectives, b.Mode)
	case protocol.TypeStateTransition:
		var b protocol.TransitionBody
		_ = json.Unmarshal(e.Body, &b)
		if b.By != nil {
			return fmt.Sprintf("%s → %s: %s (by %s)", b.From, b.To, b.Reason, b.By.Agent)
		}
		return fmt.Sprintf("%s → %s: %s", b.From, b.To, b.Reason)
	case protocol.TypeProposalCreated:
		out := fmt.Sprintf("%s for %s, risk %s: %s", s("proposal_id"), s("objective_id"), s("risk"), s("objective"))
		if r := s("revises"); r != "" {
			out += fmt.Sprintf(" (revises %s, %s)", r, s("cause"))
		}
		return out
	case protocol.TypeProposalReviewed:
		return fmt.Sprintf("%s %s: %s", s("proposal_id"), s("status"), s("reason"))
	case protocol.TypeToolIntentSigned:
		return fmt.Sprintf("%s %s (risk %s, attempt %v) input %s", s("intent_id"), s("tool"), s("risk_class"), field("attempt"), s("input_hash"))
	case protocol.TypeToolIntentReviewed:
		return fmt.Sprintf("%s %s: %s", s("intent_id"), s("decision"), s("reason"))
	case protocol.TypeToolExecutionStarted:
		return fmt.Sprintf("%s %s", s("intent_id"), s("tool"))
	case protocol.TypeToolExecutionCompleted:
		return fmt.Sprintf("%s %s in run %s, result %s", s("intent_id"), s("tool"), s("run"), s("result_hash"))
	case protocol.TypeToolExecutionFailed:
		var b protocol.ExecutionBody
		_ = json.Unmarshal(e.Body, &b)
		return fmt.Sprintf("%s %s: %s: %s", b.IntentID, b.Tool, b.Error.Code, b.Error.Message)
	case protocol.TypeClaimIssued:
		return fmt.Sprintf("%s (confidence %v, %d artifact(s)): %s", s("claim_id"), field("confidence"), len(e.Refs), s("text"))
	case protocol.TypeClaimChallenged:
		var b protocol.ChallengeBody
		_ = json.Unmarshal(e.Body, &b)
		return fmt.Sprintf("%s %s: %s", b.ClaimID, b.Kind, strings.Join(b.Reasons, "; "))
	case protocol.TypeFinalStatementSigned:
		var b protocol.StatementBody
		_ = json.Unmarshal(e.Body, &b)
		ids := make([]string, len(b.Claims))
		for i, c := range b.Claims {
			ids[i] = c.ClaimID
		}
		return fmt.Sprintf("%s bundles %s", b.StatementID, strings.Join(ids, ", "))
	case protocol.TypeVerificationRunStarted:
		return fmt.Sprintf("%s (%s) of head %v", s("verification_id"), s("reason"), field("head_seq"))
	case protocol.TypeVerificationRunCompleted:
		return fmt.Sprintf("%s %s, report %s", s("verification_id"), s("status"), s("report"))
	}
	if k := s("idempotency_key"); k != "" {
		return "call " + k
	}
	return s("status")
}
