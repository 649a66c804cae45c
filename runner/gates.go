package runner

import (
	"context"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/runs"
)

// Resolution is what resolving a gate did: the gate as it now stands, and,
// when it held up a workflow run, where that run stands after it was resumed.
type Resolution struct {
	Gate gate.Gate `json:"gate"`
	// Resumed is the workflow run the gate held up, resumed; nil when the
	// gate belongs to no workflow run of a registered playbook, or when
	// resume was not asked for.
	Resumed *Result `json:"resumed,omitempty"`
}

// ResolveGate approves or rejects the open gate id as by, whose role must
// satisfy the gate's required role under the policy of the playbook whose
// run opened it. With resume, a workflow run waiting on the gate is then
// resumed: an approved tool call is made, a rejected one is blocked.
func (r *Runner) ResolveGate(ctx context.Context, id string, by runs.Principal, approve bool, note string, resume bool) (Resolution, error) {
	const op = "runner.gate"
	if err := r.writable(op); err != nil {
		return Resolution{}, err
	}
	g, err := r.home.DB.Gate(ctx, id)
	if err != nil {
		return Resolution{}, err
	}
	rec, err := r.home.DB.Run(ctx, g.Run)
	if err != nil {
		return Resolution{}, err
	}
	root := rec.ID
	if rec.RootID != "" {
		root = rec.RootID
	}
	b, err := r.bookOf(ctx, root)
	if err != nil {
		return Resolution{}, sanad.Wrap(err, sanad.ErrorCode(err), op, "gate "+id+": "+sanad.ErrorMessage(err))
	}
	if err := b.wire(); err != nil {
		return Resolution{}, err
	}
	out := Resolution{}
	if out.Gate, err = b.gates.Resolve(ctx, id, by, approve, note); err != nil {
		return out, err
	}
	if !resume {
		return out, nil
	}
	cur, err := r.home.DB.Run(ctx, root)
	if err != nil || cur.Status != sanad.StatusRunning || cur.Kind != sanad.KindWorkflow {
		return out, err
	}
	res, err := r.Resume(ctx, root)
	out.Resumed = &res
	return out, err
}
