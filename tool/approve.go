package tool

import (
	"context"
	"encoding/json"

	"github.com/sanadhq/sanad/policy"
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
