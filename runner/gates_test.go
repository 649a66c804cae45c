package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

// Transfer is the input of the pay tool.
type Transfer struct {
	To     string `json:"to"`
	Amount int    `json:"amount"`
}

// payPlaybook is a workflow whose one step calls a tool a person must
// approve; paid counts the tool's executions.
func payPlaybook(t *testing.T, paid *int) *playbook.Playbook {
	t.Helper()
	pay := tool.MustDefine(tool.Spec{Name: "pay", Description: "Sends a payment.", Risk: "payment", Approval: policy.ApprovalHuman},
		func(_ context.Context, _ tool.Call, in Transfer) (map[string]string, error) {
			*paid++
			return map[string]string{"receipt": "paid " + in.To}, nil
		})
	def, err := workflow.Parse("pay.yaml", []byte("name: pay\nsteps:\n  - {id: send, agent: clerk, tool: pay, with: {to: acme, amount: 10}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	clerk := agent.Profile{ID: "clerk", Name: "Clerk", Description: "Pays invoices.", Role: "clerk", PermittedTools: []string{"pay"}, Enabled: true, Version: "1"}
	return &playbook.Playbook{Name: "pay", Agents: []agent.Profile{clerk}, Tools: []tool.Spec{pay}, Workflow: def}
}

// A workflow step whose tool needs a person's approval opens a gate and
// waits; approving it resumes the run, which makes the call with the
// approval in its record. Rejecting it blocks the call.
func TestToolApprovalGateInWorkflow(t *testing.T) {
	for _, approve := range []bool{true, false} {
		name := map[bool]string{true: "approved", false: "rejected"}[approve]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			r, err := runner.Open(ctx, runner.Config{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			paid := 0
			if err := r.Register(payPlaybook(t, &paid)); err != nil {
				t.Fatal(err)
			}
			res, err := r.Run(ctx, "pay", nil, runner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != sanad.StatusRunning || len(res.Gates) != 1 || paid != 0 {
				t.Fatalf("got status %s, gates %v, paid %d; want running, one gate, nothing paid", res.Status, res.Gates, paid)
			}
			v, err := r.Show(ctx, res.Run)
			if err != nil {
				t.Fatal(err)
			}
			if v.State != runner.StateWaiting || len(v.Gates) != 1 || v.Gates[0].Kind != gate.KindToolApproval {
				t.Fatalf("show: state %q, gates %+v; want waiting on a tool_approval gate", v.State, v.Gates)
			}
			// Resuming before anyone decides changes nothing.
			again, err := r.Resume(ctx, res.Run)
			if err != nil || again.Status != sanad.StatusRunning || paid != 0 {
				t.Fatalf("resume before the decision: %v, %s, paid %d", err, again.Status, paid)
			}
			// Someone without the operator's role may not decide.
			if _, err := r.ResolveGate(ctx, res.Gates[0], runs.Principal{Agent: "eve", Role: "clerk"}, true, "", true); sanad.ErrorCode(err) != sanad.CodePolicyDenied {
				t.Fatalf("a clerk resolving: got %v, want POLICY_DENIED", err)
			}
			out, err := r.ResolveGate(ctx, res.Gates[0], runs.Principal{Agent: "ann", Role: "operator"}, approve, "checked the invoice", true)
			if err != nil {
				t.Fatal(err)
			}
			if out.Resumed == nil {
				t.Fatal("the run was not resumed")
			}
			evs, err := r.Home().Ledger.Events(ctx, res.Trace)
			if err != nil {
				t.Fatal(err)
			}
			types := eventTypes(evs)
			if approve {
				if out.Resumed.Status != sanad.StatusCompleted || paid != 1 {
					t.Fatalf("approved: status %s, paid %d; want completed, paid once", out.Resumed.Status, paid)
				}
				if !strings.Contains(types, "tool.intent tool.approved tool.started tool.completed") {
					t.Errorf("approved: events %s, want the intent, the approval, the call", types)
				}
				if !strings.Contains(bodyOf(evs, tool.TypeApproved), "ann (operator, gate "+res.Gates[0]+")") {
					t.Errorf("tool.approved does not name the person and the gate: %s", bodyOf(evs, tool.TypeApproved))
				}
			} else {
				if out.Resumed.Status != sanad.StatusFailed || paid != 0 || sanad.Code(out.Resumed.Errors[0].Code) != sanad.CodeBlocked {
					t.Fatalf("rejected: status %s, errors %+v, paid %d; want failed with BLOCKED, nothing paid", out.Resumed.Status, out.Resumed.Errors, paid)
				}
				if !strings.Contains(types, "tool.intent tool.blocked") {
					t.Errorf("rejected: events %s, want the intent blocked", types)
				}
			}
			if _, err := r.Home().Ledger.Verify(ctx, res.Trace); err != nil {
				t.Fatalf("verify: %v", err)
			}
		})
	}
}

// A gateway asked to run a human-approval tool with no decided gate in the
// workflow run refuses it: only the signed record of a decision approves.
func TestApprovalsNeedARecordedDecision(t *testing.T) {
	ctx := context.Background()
	r, err := runner.Open(ctx, runner.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h := r.Home()
	paid := 0
	pb := payPlaybook(t, &paid)
	reg, err := tool.NewRegistry(pb.Tools...)
	if err != nil {
		t.Fatal(err)
	}
	pol, err := playbook.OpenPolicy(pb.Agents, pb.Tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := tool.New(tool.Config{Registry: reg, Policy: pol, Runs: h.Runs, Artifacts: h.Artifacts, Humans: workflow.Approvals{Ledger: h.Ledger}})
	if err != nil {
		t.Fatal(err)
	}
	parent, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Scope: sanad.Scope{Tenant: "t", Case: "c"}, Agent: "clerk", Role: "clerk",
		Decision: runs.Decision{Allow: true, Reason: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	res := gw.Call(ctx, parent, policy.Principal{Agent: "clerk", Role: "clerk", Scope: parent.Record.Scope},
		tool.Request{Tool: "pay", CallID: "c1", Input: []byte(`{"to":"acme","amount":10}`), Justification: "pay it"})
	if res.Code != sanad.CodeApprovalRequired || paid != 0 {
		t.Fatalf("got %s (%s), paid %d; want APPROVAL_REQUIRED, nothing paid", res.Code, res.Message, paid)
	}
}

func eventTypes(evs []*ledger.Event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(e.Type + " ")
	}
	return b.String()
}

func bodyOf(evs []*ledger.Event, typ string) string {
	for _, e := range evs {
		if e.Type == typ {
			return string(e.Body)
		}
	}
	return ""
}

// A tool that names its approver opens its approval gate for that role, not
// the runner's gate role.
func TestToolApprovalGateNamesTheToolsApprover(t *testing.T) {
	ctx := context.Background()
	r, err := runner.Open(ctx, runner.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	paid := 0
	pb := payPlaybook(t, &paid)
	pb.Tools[0].Approver = "treasurer"
	if err := r.Register(pb); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(ctx, "pay", nil, runner.Options{})
	if err != nil || len(res.Gates) != 1 {
		t.Fatalf("Run: got %v, gates %v; want one gate", err, res.Gates)
	}
	v, err := r.Show(ctx, res.Run)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Gates[0].RequiredRole; got != "treasurer" {
		t.Errorf("the gate needs %q, want treasurer", got)
	}
}
