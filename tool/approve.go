package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
)

// Approver is the critic that approves or blocks the signed intent of a risky
// tool call before it runs (seed 002, action guard). The gateway calls it
// after the intent is recorded and before anything executes. An error means
// no decision: the call is refused with the error's code and never runs.
// Implementations must be safe for concurrent use.
type Approver interface {
	Approve(ctx context.Context, intent Intent) (Verdict, error)
}

// ApproverFunc adapts a function to an [Approver].
type ApproverFunc func(ctx context.Context, intent Intent) (Verdict, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, intent Intent) (Verdict, error) {
	return f(ctx, intent)
}

var _ Approver = ApproverFunc(nil)

// Intent is what a critic judges: the call as its tool.intent event records
// it, with the input itself.
type Intent struct {
	Tool      string
	CallID    string
	Key       string // the idempotency key
	Principal policy.Principal
	// InputHash is the normalized hash of the input ("sha256:…").
	InputHash string
	// Input is the validated input in canonical JSON; a copy.
	Input         json.RawMessage
	Risk          string
	Approval      policy.Approval
	Justification string
	Round         int
	DebateID      string
}

// Verdict is a critic's answer. Critic names who decided; Reason says why and
// is recorded (bounded) in tool.approved or tool.blocked.
type Verdict struct {
	Approve bool
	Critic  string
	Reason  string
}

// HumanApprover gets a person's verdict on a call whose tool needs human
// approval. run is the call's own tool_gateway run, still open, in which the
// request is recorded. An error means no decision.
type HumanApprover interface {
	ApproveByHuman(ctx context.Context, run *runs.Run, intent Intent) (Verdict, error)
}

// GateApprover asks for a person's approval through a human gate: it opens a
// gate in the call's run, requiring RequiredRole, and waits (polling every
// Every, 200 ms by default) until someone resolves it or ctx ends.
type GateApprover struct {
	Gates        *gate.Service
	RequiredRole string
	Every        time.Duration
}

var _ HumanApprover = (*GateApprover)(nil)

// ApproveByHuman implements [HumanApprover].
func (a *GateApprover) ApproveByHuman(ctx context.Context, run *runs.Run, in Intent) (Verdict, error) {
	reason := fmt.Sprintf("%s (%s) asks to call %s (risk %s): %s", in.Principal.Agent, in.Principal.Role, in.Tool, in.Risk, in.Justification)
	id, err := a.Gates.Open(ctx, run, gate.Spec{Kind: gate.KindBlockedIntent, Reason: clip(reason, 2000), RequiredRole: a.RequiredRole})
	if err != nil {
		return Verdict{}, err
	}
	every := a.Every
	if every <= 0 {
		every = 200 * time.Millisecond
	}
	g, err := a.Gates.Wait(ctx, id, every)
	if err != nil {
		return Verdict{}, err
	}
	v := Verdict{Approve: g.Status == gate.StatusApproved, Critic: "gate " + id}
	if g.Resolved != nil {
		v.Critic = g.Resolved.By.Agent + " (gate " + id + ")"
		v.Reason = g.Resolved.Note
	}
	return v, nil
}
