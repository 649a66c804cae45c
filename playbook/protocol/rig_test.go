package protocol_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/playbook/protocol"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// rig writes a session trace event by event, straight to the ledger, so
// that a test can try every transition and ordering the protocol refuses.
type rig struct {
	tb    testing.TB
	h     *home.Home
	run   *runs.Run
	ref   sanad.ArtifactRef // an artifact events may cite
	th    protocol.Thresholds
	state protocol.State
}

func newRig(tb testing.TB) *rig { return newRigWith(tb, protocol.DefaultThresholds) }

func newRigWith(tb testing.TB, th protocol.Thresholds) *rig {
	tb.Helper()
	ctx := context.Background()
	h := openHome(tb)
	ref, err := h.Artifacts.Put(ctx, scope, "", "application/json", []byte(`{"rig":true}`))
	if err != nil {
		tb.Fatalf("Put: %v", err)
	}
	init := protocol.InitializedBody{Mode: protocol.ModeDeterministic, Roster: protocol.DefaultRoster, Thresholds: th,
		Task: protocol.TaskInfo{Name: "rig", Artifact: ref.ID, Objectives: 1}}
	run, err := h.Runs.Start(ctx, runs.Spec{
		Kind: sanad.KindSession, Scope: scope, Agent: h.Ledger.RuntimeIdentity(), Role: "session",
		Decision: runs.Decision{Allow: true, Reason: "test"},
		Also:     []runs.Event{{Type: protocol.TypeSessionInitialized, Body: init}},
	})
	if err != nil {
		tb.Fatalf("Start: %v", err)
	}
	return &rig{tb: tb, h: h, run: run, ref: ref, th: th, state: protocol.StateInitialized}
}

// as is a draft of the session run signed by agent acting in role.
func (r *rig) as(agent, role, typ string, body any, refs ...sanad.ArtifactRef) ledger.Draft {
	rec := r.run.Record
	return ledger.Draft{Trace: rec.Trace, Type: typ, Run: rec.ID, Root: rec.RootID, Agent: agent, Role: role, Scope: rec.Scope, Body: body, Refs: refs}
}

// by is a draft signed by role's identity in the default roster ("" for
// the runtime).
func (r *rig) by(role protocol.Role, typ string, body any, refs ...sanad.ArtifactRef) ledger.Draft {
	return r.as(protocol.DefaultRoster[role], string(role), typ, body, refs...)
}

func (r *rig) head() uint64 {
	r.tb.Helper()
	seq, _, err := r.h.DB.TraceHead(context.Background(), r.run.Record.Trace)
	if err != nil {
		r.tb.Fatalf("TraceHead: %v", err)
	}
	return seq
}

func (r *rig) must(d ledger.Draft) {
	r.tb.Helper()
	if _, err := r.h.Ledger.Append(context.Background(), d); err != nil {
		r.tb.Fatalf("append %s: %v", d.Type, err)
	}
	if d.Type == protocol.TypeStateTransition {
		r.state = d.Body.(protocol.TransitionBody).To
	}
}

// refuse requires the ledger to refuse d with INVALID_INPUT, an error
// containing want, and to write nothing.
func (r *rig) refuse(d ledger.Draft, want string) {
	r.tb.Helper()
	before := r.head()
	_, err := r.h.Ledger.Append(context.Background(), d)
	if after := r.head(); after != before {
		r.tb.Errorf("%s: the trace grew from %d to %d events, want nothing written", d.Type, before, after)
	}
	switch {
	case err == nil:
		r.tb.Errorf("%s: appended, want a refusal containing %q", d.Type, want)
	case sanad.ErrorCode(err) != sanad.CodeInvalidInput:
		r.tb.Errorf("%s: got code %s (%v), want %s", d.Type, sanad.ErrorCode(err), err, sanad.CodeInvalidInput)
	case !strings.Contains(err.Error(), want):
		r.tb.Errorf("%s: got %q, want it to contain %q", d.Type, sanad.ErrorMessage(err), want)
	}
}

func (r *rig) move(to protocol.State) ledger.Draft {
	return r.by("", protocol.TypeStateTransition, protocol.TransitionBody{From: r.state, To: to, Reason: "test"})
}

func proposal(id, risk string, tools ...string) protocol.ProposalBody {
	if len(tools) == 0 {
		tools = []string{protocol.ToolLookup}
	}
	return protocol.ProposalBody{ProposalID: id, ObjectiveID: "o-" + id, Objective: "objective " + id, Assumptions: []string{},
		RequiredTools: tools, ExpectedEvidence: []string{"a tool output"}, MinEvidence: 1, Risk: risk}
}

func review(id, status string) protocol.ProposalReviewBody {
	return protocol.ProposalReviewBody{ProposalID: id, Status: status, Reason: "test"}
}

const testHash = "sha256:1111111111111111111111111111111111111111111111111111111111111111"

func intentFor(id, pid, risk string) protocol.IntentBody {
	return protocol.IntentBody{IntentID: id, ProposalID: pid, Tool: protocol.ToolLookup, CallID: id, InputHash: testHash,
		RiskClass: risk, Justification: "test", Attempt: 1}
}

func execution(id string) protocol.ExecutionBody {
	return protocol.ExecutionBody{IntentID: id, CallID: id, Tool: protocol.ToolLookup}
}

func (r *rig) completed(id string) ledger.Draft {
	x := execution(id)
	x.Run, x.ResultHash, x.Attempts = "r1", testHash, 1
	return r.by(protocol.RoleExecutor, protocol.TypeToolExecutionCompleted, x, r.ref)
}

func (r *rig) claim(id, pid string, intents ...string) ledger.Draft {
	return r.by(protocol.RoleExecutor, protocol.TypeClaimIssued, protocol.ClaimBody{ClaimID: id, ProposalID: pid, Intents: intents,
		Text: "claim " + id, Confidence: 0.9, Evidence: []string{r.ref.ID}}, r.ref)
}

func (r *rig) verificationStarted(id, reason string) ledger.Draft {
	_, head, _ := r.h.DB.TraceHead(context.Background(), r.run.Record.Trace)
	return r.by(protocol.RoleAuditor, protocol.TypeVerificationRunStarted, protocol.VerificationStartedBody{VerificationID: id, Reason: reason, HeadSeq: r.head(), HeadHash: head.String()})
}

func (r *rig) verificationCompleted(id, status, statement string) ledger.Draft {
	_, head, _ := r.h.DB.TraceHead(context.Background(), r.run.Record.Trace)
	return r.by(protocol.RoleAuditor, protocol.TypeVerificationRunCompleted, protocol.VerificationCompletedBody{VerificationID: id, Status: status,
		Report: r.ref.ID, HeadSeq: r.head(), HeadHash: head.String(), FinalStatement: statement}, r.ref)
}

// lastHash returns the hash of the trace's last event.
func (r *rig) lastHash() string {
	_, head, _ := r.h.DB.TraceHead(context.Background(), r.run.Record.Trace)
	return head.String()
}

// to writes the fewest events that take the session from where it is to
// state, along the forward transitions: one proposal P1 (approved), its
// intent I1 executed, a claim C1, a verification V1 with statement S1.
// Failed goes through a failed integrity verification.
func (r *rig) to(state protocol.State) {
	r.tb.Helper()
	for r.state != state {
		switch {
		case state == protocol.StateFailed:
			r.must(r.verificationStarted("V1", protocol.ReasonIntegrity))
			r.must(r.verificationCompleted("V1", protocol.VerificationFail, ""))
			r.must(r.move(protocol.StateFailed))
			continue
		case state == protocol.StateAborted:
			d := r.move(protocol.StateAborted)
			b := d.Body.(protocol.TransitionBody)
			b.By = &protocol.Operator{Agent: "ops", Role: "operator"}
			d.Body = b
			r.must(d)
			continue
		}
		switch r.state {
		case protocol.StatePlanning:
			r.must(r.by(protocol.RolePlanner, protocol.TypeProposalCreated, proposal("P1", "low")))
		case protocol.StateReviewing:
			r.must(r.by(protocol.RoleCritic, protocol.TypeProposalReviewed, review("P1", protocol.ReviewApproved)))
		case protocol.StateExecuting:
			r.must(r.by(protocol.RoleExecutor, protocol.TypeToolIntentSigned, intentFor("I1", "P1", "low"), r.ref))
			r.must(r.by(protocol.RoleExecutor, protocol.TypeToolExecutionStarted, execution("I1")))
			r.must(r.completed("I1"))
		case protocol.StateClaiming:
			r.must(r.claim("C1", "P1", "I1"))
		case protocol.StateAuditing:
			r.must(r.verificationStarted("V1", protocol.ReasonAudit))
			r.must(r.statement("S1", "V1", "C1"))
			r.must(r.verificationCompleted("V1", protocol.VerificationPass, r.lastHash()))
		}
		next := map[protocol.State]protocol.State{
			protocol.StateInitialized: protocol.StatePlanning, protocol.StatePlanning: protocol.StateReviewing,
			protocol.StateReviewing: protocol.StateExecuting, protocol.StateExecuting: protocol.StateClaiming,
			protocol.StateClaiming: protocol.StateAuditing, protocol.StateAuditing: protocol.StateCompleted,
		}[r.state]
		r.must(r.move(next))
	}
}

// statement bundles claims; it reads each claim's event hash from the trace.
func (r *rig) statement(id, verification string, claims ...string) ledger.Draft {
	r.tb.Helper()
	b := protocol.StatementBody{StatementID: id, VerificationID: verification}
	for _, ev := range events(r.tb, r.h, r.run.Record.Trace) {
		if ev.Type == protocol.TypeClaimIssued {
			for _, c := range claims {
				if ev.BodyString("claim_id") == c {
					b.Claims = append(b.Claims, protocol.BundledClaim{ClaimID: c, Event: ev.Hash.String(), Text: "claim " + c, Confidence: 0.9})
				}
			}
		}
	}
	return r.by(protocol.RolePlanner, protocol.TypeFinalStatementSigned, b)
}

// gatewayRun starts a tool_gateway child run of the session, as the gateway
// does for a call.
func (r *rig) gatewayRun() *runs.Run {
	r.tb.Helper()
	child, err := r.h.Runs.Start(context.Background(), runs.Spec{Kind: sanad.KindToolGateway, Parent: r.run, Scope: scope,
		Agent: protocol.DefaultRoster[protocol.RoleExecutor], Role: string(protocol.RoleExecutor), Decision: runs.Decision{Allow: true, Reason: "test"}})
	if err != nil {
		r.tb.Fatalf("Start tool_gateway: %v", err)
	}
	return child
}

// toolStarted is the gateway's tool.started of call in run child.
func (r *rig) toolStarted(child *runs.Run, call, inputHash string) ledger.Draft {
	rec := child.Record
	b := tool.StartedBody{
		CallInfo: tool.CallInfo{CallID: call, Key: r.run.Record.ID + "/" + call, Tool: protocol.ToolLookup, Agent: protocol.DefaultRoster[protocol.RoleExecutor], InputHash: inputHash},
		Attempt:  1, MaxAttempts: 1, Risk: protocol.RiskLow, Approval: "none", SideEffect: tool.SideEffectNone, Idempotent: true, TimeoutMS: 1000,
	}
	return ledger.Draft{Trace: rec.Trace, Type: tool.TypeStarted, Run: rec.ID, Parent: rec.ParentID, Root: rec.RootID, Scope: rec.Scope, Body: b}
}

func sanadRunError() sanad.RunError {
	return sanad.RunError{Code: sanad.CodeToolFailed, Message: "failed", Retryable: false}
}
