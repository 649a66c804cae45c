package protocol

import (
	"fmt"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
)

// View is a session as its trace tells it: where it stands, and the state
// each event of the trace left it in (States[i] after events[i]; "" before
// session_initialized).
type View struct {
	Session      string      `json:"session"`
	Trace        string      `json:"trace"`
	Task         string      `json:"task"`
	Mode         string      `json:"mode"`
	Scope        sanad.Scope `json:"scope"`
	State        State       `json:"state"`
	Verification *Outcome    `json:"verification,omitempty"`
	States       []State     `json:"-"`
}

// Project reads a session from the events of its trace, in order, applying
// the protocol's rule to each: an event the rule refuses is an INTEGRITY
// error (the trace was not written by a ledger, or was changed since).
func Project(evs []*ledger.Event) (*View, error) {
	t := &tracker{}
	v := &View{}
	for _, e := range evs {
		if err := t.apply(e); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, "protocol.project", fmt.Sprintf("trace %s seq %d: %v", e.Trace, e.Seq, err))
		}
		v.States = append(v.States, t.state)
	}
	if t.run == "" {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "protocol.project", "the trace holds no session")
	}
	v.Session, v.Trace, v.Task, v.Mode, v.Scope, v.State = t.run, evs[0].Trace, t.init.Task.Name, t.init.Mode, evs[0].Scope, t.state
	if l := t.last; l != nil {
		v.Verification = &Outcome{ID: l.VerificationID, Status: l.done.Status, Report: l.done.Report, Recorded: true}
	}
	return v, nil
}
