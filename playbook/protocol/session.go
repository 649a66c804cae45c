package protocol

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// session is one execution of a session, by Start or Resume. The roles
// decide on the tracker's view of the trace, so a resumed session decides as
// the stopped one would have.
type session struct {
	e   *Engine
	run *runs.Run
	env *Env

	mu       sync.Mutex // guards t, outcomes, declined, reviewed and the order of appends
	t        *tracker
	outcomes map[string]outcome // by call id: what the gateway recorded, read on resume
	declined map[string]bool    // proposals and claims whose revision a role declined
	reviewed map[string]bool    // claims the critic let stand
	cause    error              // the integrity failure found on resume
}

// outcome is the final outcome the gateway recorded of a call, as the
// protocol event that reports it.
type outcome struct {
	typ  string
	body ExecutionBody
	refs []sanad.ArtifactRef
}

// observe notes an outcome the gateway recorded of one of the session's
// calls.
func (s *session) observe(ev *ledger.Event) {
	call, ok := strings.CutPrefix(ev.BodyString("idempotency_key"), s.t.run+"/")
	if !ok || s.t.run == "" {
		return
	}
	o := outcome{typ: TypeToolExecutionFailed, body: ExecutionBody{Run: ev.Run}}
	switch ev.Type {
	case tool.TypeCompleted:
		var b tool.CompletedBody
		if json.Unmarshal(ev.Body, &b) != nil {
			return
		}
		o.typ, o.refs = TypeToolExecutionCompleted, []sanad.ArtifactRef{b.Input, b.Output}
		o.body.ResultHash, o.body.Input, o.body.Output, o.body.Attempts = b.ResultHash, b.Input.ID, b.Output.ID, b.Attempt
	case tool.TypeFailed:
		var b tool.FailedBody
		if json.Unmarshal(ev.Body, &b) != nil || b.Retry {
			return
		}
		o.body.Error, o.body.Attempts = &b.Error, b.Attempt
	case tool.TypeRefused:
		o.body.Run = ""
		o.body.Error = sanad.NewRunError(sanad.Errorf(sanad.Code(ev.BodyString("status")), "tool.refused", "%s", ev.BodyString("reason")))
	default:
		return
	}
	s.outcomes[call] = o
}

// attach takes the session run over from a stopped process, and ends the
// child runs it left running: an interrupted tool attempt gets its
// tool.failed (see tool.Interrupt); any other child run fails.
func (s *session) attach(ctx context.Context, rec sanad.Run, evs []*ledger.Event) error {
	e := s.e
	run, err := e.cfg.Runs.Attach(rec, "session")
	if err != nil {
		return err
	}
	s.run = run
	all, err := e.cfg.Store.Runs(ctx, rec.Trace)
	if err != nil {
		return err
	}
	open, err := tool.Interrupted(evs)
	if err != nil {
		return err
	}
	byRun := map[string]tool.Open{}
	for _, o := range open {
		byRun[o.Run] = o
	}
	for _, r := range all {
		if r.ID == rec.ID || r.Status != sanad.StatusRunning {
			continue
		}
		child, err := e.cfg.Runs.Attach(r, "")
		if err != nil {
			return err
		}
		if o, ok := byRun[r.ID]; ok {
			err = tool.Interrupt(ctx, child, o)
		} else {
			err = child.Fail(ctx, sanad.Errorf(sanad.CodeCancelled, "protocol.resume", "run %s was interrupted: the process running it stopped", r.ID))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// draft is an event of the session run, signed by role's identity, or by
// the runtime when role is "".
func (s *session) draft(typ string, role Role, body any, refs []sanad.ArtifactRef) ledger.Draft {
	r := s.run.Record
	d := ledger.Draft{Trace: r.Trace, Type: typ, Run: r.ID, Parent: r.ParentID, Root: r.RootID, Scope: r.Scope, Body: body, Refs: refs}
	if role != "" {
		d.Agent, d.Role = s.t.init.Roster[role], string(role)
	}
	return d
}

// record appends the drafts build returns, built and appended under the
// session's lock so that ids follow the recorded order, and applies the
// events to the session's tracker.
func (s *session) record(ctx context.Context, build func() ([]ledger.Draft, error)) ([]*ledger.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	drafts, err := build()
	if err != nil || len(drafts) == 0 {
		return nil, err
	}
	evs, err := s.e.cfg.Runs.Ledger.AppendAll(ctx, drafts...)
	if err != nil {
		return nil, err
	}
	for _, ev := range evs {
		if err := s.t.apply(ev); err != nil {
			return evs, sanad.Wrap(err, sanad.CodeInternal, "protocol.record", fmt.Sprintf("the ledger accepted %s but the session does not follow it: %v", ev.Type, err))
		}
	}
	return evs, nil
}

// mark sets m[id] under the session's lock.
func (s *session) mark(m map[string]bool, id string) {
	s.mu.Lock()
	m[id] = true
	s.mu.Unlock()
}

// append records one event.
func (s *session) append(ctx context.Context, typ string, role Role, body any, refs []sanad.ArtifactRef) error {
	_, err := s.record(ctx, func() ([]ledger.Draft, error) { return []ledger.Draft{s.draft(typ, role, body, refs)}, nil })
	return err
}

func (s *session) transition(ctx context.Context, to State, reason string) error {
	_, err := s.record(ctx, func() ([]ledger.Draft, error) {
		return []ledger.Draft{s.draft(TypeStateTransition, "", TransitionBody{From: s.t.state, To: to, Reason: reason}, nil)}, nil
	})
	if err == nil {
		s.e.crash("session.enter_" + string(to))
	}
	return err
}

// result reports where the session stands.
func (s *session) result() Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := Result{Session: s.t.run, Trace: s.run.Record.Trace, State: s.t.state, Mode: s.t.init.Mode}
	if v := s.t.last; v != nil {
		r.Verification = &Outcome{ID: v.VerificationID, Status: v.done.Status, Report: v.done.Report, Recorded: true}
	}
	return r
}

// drive runs the session from its state to its end, or to a stop: each
// turn takes the next valid step the trace allows.
func (e *Engine) drive(ctx context.Context, s *session) (Result, error) {
	id := s.run.Record.ID
	e.mu.Lock()
	if e.active[id] != nil {
		e.mu.Unlock()
		return s.result(), sanad.Errorf(sanad.CodeConflict, "protocol.session", "session %s is already running", id)
	}
	e.active[id] = s
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.active, id)
		e.mu.Unlock()
	}()
	var report *Report
	for {
		if err := ctx.Err(); err != nil {
			return s.result(), sanad.Wrap(err, sanad.CodeCancelled, "protocol.session", "session stopped before its end: resume it")
		}
		s.mu.Lock()
		st, open, last := s.t.state, s.t.verif, s.t.last
		s.mu.Unlock()
		var err error
		stopped := ""
		switch {
		case st.Terminal():
			res := s.result()
			if report != nil && res.Verification != nil {
				res.Verification.Errors, res.Verification.Warnings = report.Errors, report.Warnings
			}
			return res, s.end(ctx, report)
		case open == nil && last != nil && last.done.Status == VerificationFail:
			err = s.transition(ctx, StateFailed, "verification "+last.VerificationID+" failed")
		case s.cause != nil || open != nil && open.Reason == ReasonIntegrity:
			if report, err = s.verify(ctx, ReasonIntegrity); err == nil {
				s.cause = nil
			}
		case open == nil && last != nil && st == StateAuditing:
			err = s.transition(ctx, StateCompleted, "verification "+last.VerificationID+" status "+last.done.Status)
		case st == StateInitialized:
			err = s.transition(ctx, StatePlanning, "the session is initialized")
		case st == StatePlanning:
			stopped, err = s.plan(ctx)
		case st == StateReviewing:
			stopped, err = s.review(ctx)
		case st == StateExecuting:
			stopped, err = s.execute(ctx)
		case st == StateClaiming:
			stopped, err = s.claiming(ctx)
		case st == StateAuditing:
			report, err = s.verify(ctx, ReasonAudit)
		}
		if err != nil || stopped != "" {
			res := s.result()
			res.Stopped = stopped
			return res, err
		}
	}
}

// end ends the session run as its terminal state says.
func (s *session) end(ctx context.Context, report *Report) error {
	if s.run.Ended() || s.run.Record.Status != sanad.StatusRunning {
		return nil
	}
	s.e.crash(PointBeforeEnd)
	s.mu.Lock()
	st, last := s.t.state, s.t.last
	s.mu.Unlock()
	switch st {
	case StateCompleted:
		return s.run.Complete(ctx, []sanad.ArtifactRef{last.report}, map[string]string{"status": last.done.Status, "report": last.done.Report})
	case StateFailed:
		msg := "verification " + last.VerificationID + " failed"
		if report != nil && len(report.Errors) > 0 {
			msg += ": " + strings.Join(report.Errors, "; ")
		}
		return s.run.Fail(ctx, sanad.Errorf(sanad.CodeIntegrity, "protocol.session", "%s", msg))
	}
	return s.run.Cancel(ctx, "aborted by an operator")
}

// plan records the planner's proposals, all in one commit, and moves on to
// reviewing.
func (s *session) plan(ctx context.Context) (string, error) {
	s.mu.Lock()
	planned := len(s.t.order) > 0
	s.mu.Unlock()
	if !planned {
		ps, err := s.e.cfg.Planner.Propose(ctx, s.env)
		if err != nil || len(ps) == 0 {
			return "the planner made no proposal", err
		}
		if _, err = s.record(ctx, func() ([]ledger.Draft, error) {
			drafts := make([]ledger.Draft, len(ps))
			for i, p := range ps {
				p.ProposalID, p.Revises, p.Cause = nextID("P", len(s.t.order)+i), "", ""
				drafts[i] = s.draft(TypeProposalCreated, RolePlanner, p, nil)
			}
			return drafts, nil
		}); err != nil {
			return "", err
		}
		s.e.crash(PointAfterProposals)
	}
	return "", s.transition(ctx, StateReviewing, "proposals created")
}

// review has the critic review every proposal and the planner revise the
// rejected ones, and moves on to executing once one is approved.
func (s *session) review(ctx context.Context) (string, error) {
	for n := 1; n > 0; {
		if err := s.reviewProposals(ctx); err != nil {
			return "", err
		}
		var err error
		if n, err = s.revise(ctx, "rejected"); err != nil {
			return "", err
		}
	}
	s.mu.Lock()
	approved := slices.ContainsFunc(s.t.order, func(id string) bool { return s.t.proposals[id].approved() })
	s.mu.Unlock()
	if !approved {
		return "every proposal was rejected and none can be revised", nil
	}
	return "", s.transition(ctx, StateExecuting, "a proposal is approved")
}

// reviewProposals has the critic review the proposals not yet reviewed.
func (s *session) reviewProposals(ctx context.Context) error {
	for {
		s.mu.Lock()
		i := slices.IndexFunc(s.t.order, func(id string) bool { return s.t.proposals[id].status == "" })
		var p ProposalBody
		if i >= 0 {
			p = s.t.proposals[s.t.order[i]].ProposalBody
		}
		s.mu.Unlock()
		if i < 0 {
			return nil
		}
		r, err := s.e.cfg.Critic.ReviewProposal(ctx, s.env, p)
		if err != nil {
			return err
		}
		r.ProposalID = p.ProposalID
		if err := s.append(ctx, TypeProposalReviewed, RoleCritic, r, nil); err != nil {
			return err
		}
		s.e.crash(PointAfterProposalReview)
	}
}

// revise asks the planner to revise, once, each proposal that may be
// revised for one of causes, and records the revisions; it returns how many.
func (s *session) revise(ctx context.Context, causes ...string) (int, error) {
	s.mu.Lock()
	var todo []ProposalBody
	for _, id := range s.t.order {
		p := s.t.proposals[id]
		cause := s.t.revisable(p)
		if p.revised || s.declined[id] || !slices.Contains(causes, cause) ||
			cause == "failed" && (!s.t.init.Thresholds.AllowFallback || s.shouldRetry(s.t.latest(p))) {
			continue
		}
		b := p.ProposalBody
		b.Cause = cause
		todo = append(todo, b)
	}
	s.mu.Unlock()
	n := 0
	for _, p := range todo {
		rev, err := s.e.cfg.Planner.Revise(ctx, s.env, p, p.Cause)
		if err != nil {
			return n, err
		}
		if rev == nil {
			s.mark(s.declined, p.ProposalID)
			continue
		}
		b := *rev
		b.Revises, b.Cause, b.ObjectiveID = p.ProposalID, p.Cause, p.ObjectiveID
		if _, err := s.record(ctx, func() ([]ledger.Draft, error) {
			b.ProposalID = nextID("P", len(s.t.order))
			return []ledger.Draft{s.draft(TypeProposalCreated, RolePlanner, b, nil)}, nil
		}); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
