package runner

import (
	"context"
	"fmt"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/workflow"
)

// The states [Runner.Show] reports of a run whose record says running.
const (
	// StateLive: a process is running it now.
	StateLive = "live"
	// StateWaiting: it waits on a gate, which a person must resolve
	// before a resume can go on.
	StateWaiting = "waiting"
	// StateInterrupted: no process runs it: it was stopped (a crash, an
	// interrupt) and a resume goes on with it.
	StateInterrupted = "interrupted"
)

// RunView is what the record says of a run: its projection, and for a
// workflow run its playbook, workflow, each step's outcome with its output,
// the gates it waits on, and its child runs.
type RunView struct {
	Run      sanad.Run              `json:"run"`
	Playbook string                 `json:"playbook,omitempty"`
	Workflow string                 `json:"workflow,omitempty"`
	Steps    []workflow.StepOutcome `json:"steps,omitempty"`
	Gates    []gate.Gate            `json:"gates,omitempty"`
	Children []sanad.Run            `json:"children"`
	// State says, of a run whose status is running, whether it is live,
	// waiting on a gate or interrupted (StateLive, StateWaiting,
	// StateInterrupted); it is empty for a run that has ended.
	State string `json:"state,omitempty"`
}

// Show reads run id from the record. An unknown id is NOT_FOUND.
func (r *Runner) Show(ctx context.Context, id string) (RunView, error) {
	rec, err := r.home.DB.Run(ctx, id)
	if err != nil {
		return RunView{}, err
	}
	v := RunView{Run: rec, Children: []sanad.Run{}}
	if rec.Kind == sanad.KindWorkflow {
		evs, err := r.events(ctx, rec.Trace)
		if err != nil {
			return RunView{}, err
		}
		if d, err := workflow.Defined(evs, rec.ID); err == nil {
			v.Playbook, v.Workflow = d.Playbook, d.Name
		}
		if v.Steps, err = workflow.Outcomes(evs, rec.ID); err != nil {
			return RunView{}, err
		}
	}
	all, err := r.home.DB.Runs(ctx, rec.Trace)
	if err != nil {
		return RunView{}, err
	}
	// Runs are listed in the order they started, so a run's parent comes
	// before it: one pass finds every run under rec.
	under := map[string]bool{rec.ID: true}
	for _, c := range all {
		if c.ID != rec.ID && under[c.ParentID] {
			under[c.ID] = true
			v.Children = append(v.Children, c)
		}
	}
	open, err := r.home.DB.Gates(ctx, gate.StatusOpen)
	if err != nil {
		return RunView{}, err
	}
	for _, g := range open {
		if under[g.Run] {
			v.Gates = append(v.Gates, g)
		}
	}
	if rec.Status == sanad.StatusRunning {
		v.State, err = r.state(rec, len(v.Gates) > 0)
		if err != nil {
			return RunView{}, err
		}
	}
	return v, nil
}

// events reads and decodes the events of trace, in order.
func (r *Runner) events(ctx context.Context, trace string) ([]*ledger.Event, error) {
	var evs []*ledger.Event
	err := r.home.DB.ReadTrace(ctx, trace, 0, func(s ledger.Stored) error {
		ev, err := ledger.Decode(s.Raw)
		if err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, "runner.events", fmt.Sprintf("trace %s: %v", trace, err))
		}
		evs = append(evs, ev)
		return nil
	})
	return evs, err
}
