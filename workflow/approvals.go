package workflow

import (
	"context"
	"encoding/json"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// Approvals is the human approver of the gateway a workflow engine calls
// tools through ([tool.Config.Humans]). It never waits: it answers from the
// tool_approval gate that a person resolved in the workflow run, which
// [StepContext.CallTool] opened before making the call. A call with no
// decided gate in its workflow run is refused (APPROVAL_REQUIRED): only the
// signed record of a person's decision approves a call. It is safe for
// concurrent use.
type Approvals struct {
	Ledger *ledger.Ledger
}

var _ tool.HumanApprover = Approvals{}

// ApproveByHuman implements [tool.HumanApprover]. run is the call's
// tool_gateway run, a child of a step's agent run or of the workflow run.
func (a Approvals) ApproveByHuman(ctx context.Context, run *runs.Run, in tool.Intent) (tool.Verdict, error) {
	const op = "workflow.approval"
	evs, err := a.Ledger.Events(ctx, run.Record.Trace)
	if err != nil {
		return tool.Verdict{}, err
	}
	subject := approvalSubject(in.Key)
	var id string
	for _, ev := range evs {
		switch ev.Type {
		case gate.TypeCreated:
			// The gate is in the workflow run: the call's parent, or the
			// root above the step's agent run the call was made in.
			if ev.Run != run.Record.ParentID && ev.Run != run.Record.RootID {
				continue
			}
			var b gate.Created
			if err := json.Unmarshal(ev.Body, &b); err != nil {
				return tool.Verdict{}, sanad.Wrap(err, sanad.CodeIntegrity, op, "gate.created body")
			}
			if b.Kind == gate.KindToolApproval && b.Subject == subject {
				id = b.GateID
			}
		case gate.TypeResolved:
			var b gate.Resolved
			if err := json.Unmarshal(ev.Body, &b); err != nil {
				return tool.Verdict{}, sanad.Wrap(err, sanad.CodeIntegrity, op, "gate.resolved body")
			}
			if id != "" && b.GateID == id {
				return tool.Verdict{
					Approve: b.Decision == gate.StatusApproved,
					Critic:  b.By.Agent + " (" + b.By.Role + ", gate " + id + ")",
					Reason:  b.Note,
				}, nil
			}
		}
	}
	if id != "" {
		return tool.Verdict{}, sanad.Errorf(sanad.CodeApprovalRequired, op, "gate %s on the call %s is still open", id, in.Key)
	}
	return tool.Verdict{}, sanad.Errorf(sanad.CodeApprovalRequired, op, "no person has decided on the call %s: it needs a tool_approval gate in its workflow run", in.Key)
}
