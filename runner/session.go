package runner

import (
	"context"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/playbook/protocol"
)

// sessionBook returns the session playbook name.
func (r *Runner) sessionBook(name string) (*book, error) {
	b, err := r.book(name)
	if err != nil {
		return nil, err
	}
	if b.pb.Session == nil {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "runner.session", "playbook %s runs a workflow, not a session", name)
	}
	if err := b.wire(); err != nil {
		return nil, err
	}
	return b, nil
}

// StartSession records a protocol session of task under the session
// playbook name and runs it until it ends, or stops in a state only an
// operator can leave.
func (r *Runner) StartSession(ctx context.Context, name string, task *protocol.Task, opt Options) (protocol.Result, error) {
	b, err := r.sessionBook(name)
	if err != nil {
		return protocol.Result{}, err
	}
	return b.session.Start(ctx, task, protocol.Options{Scope: opt.Scope})
}

// ResumeSession goes on with a session of the playbook name that stopped
// before its end: its trace is checked, the tool calls a stopped process
// left open are settled, and it goes on from the next valid transition.
func (r *Runner) ResumeSession(ctx context.Context, name, id string) (protocol.Result, error) {
	b, err := r.sessionBook(name)
	if err != nil {
		return protocol.Result{}, err
	}
	return b.session.Resume(ctx, id)
}

// AbortSession moves a session no process is running to aborted, on an
// operator's word.
func (r *Runner) AbortSession(ctx context.Context, name, id string, by protocol.Operator, reason string) (protocol.Result, error) {
	b, err := r.sessionBook(name)
	if err != nil {
		return protocol.Result{}, err
	}
	return b.session.Abort(ctx, id, by, reason)
}

// SessionView is what the record says of a session: its projection, and
// each event of its trace with the state it left the session in and a line
// that says what it records.
type SessionView struct {
	*protocol.View
	Events []SessionEvent `json:"events"`
}

// SessionEvent is one event of a session's trace.
type SessionEvent struct {
	Seq     uint64         `json:"seq"`
	Type    string         `json:"type"`
	Run     string         `json:"run"`
	Agent   string         `json:"agent"`
	Role    string         `json:"role,omitempty"`
	State   protocol.State `json:"state,omitempty"`
	Summary string         `json:"summary,omitempty"`
	Hash    string         `json:"hash"`
}

// ShowSession reads the session id from its trace. An unknown id is
// NOT_FOUND; a run that is not a session INVALID_INPUT; a trace the
// protocol's rule refuses INTEGRITY.
func (r *Runner) ShowSession(ctx context.Context, id string) (*SessionView, error) {
	rec, err := r.home.DB.Run(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec.Kind != sanad.KindSession || rec.ID != rec.Trace {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "runner.session", "run %s is a %s run, not a session", id, rec.Kind)
	}
	evs, err := r.events(ctx, rec.Trace)
	if err != nil {
		return nil, err
	}
	v, err := protocol.Project(evs)
	if err != nil {
		return nil, err
	}
	out := &SessionView{View: v, Events: make([]SessionEvent, len(evs))}
	for i, e := range evs {
		out.Events[i] = SessionEvent{Seq: e.Seq, Type: e.Type, Run: e.Run, Agent: e.Actor.Agent, Role: e.Actor.Role,
			State: v.States[i], Summary: protocol.Summarize(e), Hash: e.Hash.String()}
	}
	return out, nil
}
