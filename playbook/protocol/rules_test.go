package protocol_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/playbook/protocol"
)

// TestP02_TransitionTable: exactly the seed's transitions — the six forward
// moves, any active state to failed or aborted — and none from a terminal
// state.
func TestP02_TransitionTable(t *testing.T) {
	forward := map[protocol.State]protocol.State{
		protocol.StateInitialized: protocol.StatePlanning, protocol.StatePlanning: protocol.StateReviewing,
		protocol.StateReviewing: protocol.StateExecuting, protocol.StateExecuting: protocol.StateClaiming,
		protocol.StateClaiming: protocol.StateAuditing, protocol.StateAuditing: protocol.StateCompleted,
	}
	if len(protocol.States) != 9 {
		t.Fatalf("states: got %d, want 9", len(protocol.States))
	}
	n := 0
	for _, from := range protocol.States {
		for _, to := range protocol.States {
			want := !from.Terminal() && (forward[from] == to || to == protocol.StateFailed || to == protocol.StateAborted)
			if got := protocol.CanTransition(from, to); got != want {
				t.Errorf("CanTransition(%s, %s): got %v, want %v", from, to, got, want)
			}
			if want {
				n++
			}
		}
	}
	if n != 6+6*2 {
		t.Errorf("allowed transitions: got %d, want 18", n)
	}
	if protocol.CanTransition("nowhere", protocol.StatePlanning) || protocol.CanTransition(protocol.StatePlanning, "nowhere") {
		t.Error("CanTransition accepts a state that does not exist")
	}
}

// TestP02_ValidTransitions: each of the seed's transitions is accepted when
// what it requires is in the trace.
func TestP02_ValidTransitions(t *testing.T) {
	active := []protocol.State{protocol.StateInitialized, protocol.StatePlanning, protocol.StateReviewing,
		protocol.StateExecuting, protocol.StateClaiming, protocol.StateAuditing}
	t.Run("forward to completed", func(t *testing.T) {
		r := newRig(t)
		r.to(protocol.StateCompleted)
		verify(t, r.h, r.run.Record.Trace)
	})
	for _, from := range active {
		for _, to := range []protocol.State{protocol.StateFailed, protocol.StateAborted} {
			t.Run(fmt.Sprintf("%s to %s", from, to), func(t *testing.T) {
				r := newRig(t)
				r.to(from)
				r.to(to)
				if err := r.run.Fail(context.Background(), fmt.Errorf("x")); to == protocol.StateFailed && err != nil {
					t.Fatalf("ending the run of a failed session: %v", err)
				}
				verify(t, r.h, r.run.Record.Trace)
			})
		}
	}
}

// TestP02_InvalidTransitions: every other transition is refused with an
// error that says so, and nothing is written.
func TestP02_InvalidTransitions(t *testing.T) {
	for _, from := range protocol.States {
		t.Run(string(from), func(t *testing.T) {
			r := newRig(t)
			r.to(from)
			for _, to := range protocol.States {
				if protocol.CanTransition(from, to) {
					continue
				}
				want := "is not a protocol transition"
				if from.Terminal() {
					want = "after the session ended"
				}
				r.refuse(r.move(to), want)
			}
			if !from.Terminal() {
				d := r.move(protocol.StateAborted)
				b := d.Body.(protocol.TransitionBody)
				b.From, b.By = protocol.StatePlanning, &protocol.Operator{Agent: "ops"}
				if from == protocol.StatePlanning {
					b.From = protocol.StateReviewing
				}
				d.Body = b
				r.refuse(d, "but the session is in "+string(from))
			}
		})
	}
}

// TestP02_TransitionPreconditions: a transition the seed allows is refused
// while what it requires is missing from the trace.
func TestP02_TransitionPreconditions(t *testing.T) {
	t.Run("planning to reviewing needs a proposal", func(t *testing.T) {
		r := newRig(t)
		r.to(protocol.StatePlanning)
		r.refuse(r.move(protocol.StateReviewing), "needs at least one protocol.proposal_created")
	})
	t.Run("reviewing to executing needs an approval", func(t *testing.T) {
		r := newRig(t)
		r.to(protocol.StatePlanning)
		r.must(r.by(protocol.RolePlanner, protocol.TypeProposalCreated, proposal("P1", "low")))
		r.must(r.move(protocol.StateReviewing))
		r.refuse(r.move(protocol.StateExecuting), "needs a protocol.proposal_reviewed with approved status")
		r.must(r.by(protocol.RoleCritic, protocol.TypeProposalReviewed, review("P1", protocol.ReviewRejected)))
		r.refuse(r.move(protocol.StateExecuting), "needs a protocol.proposal_reviewed with approved status")
	})
	t.Run("executing to claiming needs settled intents", func(t *testing.T) {
		r := newRig(t)
		r.to(protocol.StateExecuting)
		r.refuse(r.move(protocol.StateClaiming), "needs an executed (or blocked) tool intent")
		r.must(r.by(protocol.RoleExecutor, protocol.TypeToolIntentSigned, intentFor("I1", "P1", "low"), r.ref))
		r.refuse(r.move(protocol.StateClaiming), "intent I1 is neither blocked nor executed")
		r.must(r.by(protocol.RoleExecutor, protocol.TypeToolExecutionStarted, execution("I1")))
		r.refuse(r.move(protocol.StateClaiming), "intent I1 is neither blocked nor executed")
	})
	t.Run("claiming to auditing needs a claim", func(t *testing.T) {
		r := newRig(t)
		r.to(protocol.StateClaiming)
		r.refuse(r.move(protocol.StateAuditing), "needs at least one protocol.claim_issued")
	})
	t.Run("auditing to completed needs a passed verification", func(t *testing.T) {
		r := newRig(t)
		r.to(protocol.StateAuditing)
		r.refuse(r.move(protocol.StateCompleted), "needs a protocol.verification_run_completed with status pass")
		r.must(r.verificationStarted("V1", protocol.ReasonAudit))
		r.refuse(r.move(protocol.StateCompleted), "needs a protocol.verification_run_completed with status pass")
		r.must(r.verificationCompleted("V1", protocol.VerificationFail, ""))
		r.refuse(r.move(protocol.StateCompleted), "needs a protocol.verification_run_completed with status pass")
		r.must(r.move(protocol.StateFailed))
	})
	t.Run("failed needs a failed verification", func(t *testing.T) {
		r := newRig(t)
		r.to(protocol.StateExecuting)
		r.refuse(r.move(protocol.StateFailed), "a session fails only on the auditor's")
	})
	t.Run("aborted needs an operator", func(t *testing.T) {
		r := newRig(t)
		r.to(protocol.StateReviewing)
		r.refuse(r.move(protocol.StateAborted), "an abort names the operator")
	})
	t.Run("the session run ends as its state says", func(t *testing.T) {
		r := newRig(t)
		r.to(protocol.StateAuditing)
		before := r.head()
		if err := r.run.Complete(context.Background(), nil, nil); err == nil || !strings.Contains(err.Error(), "ends session") {
			t.Errorf("run.completed of a session in auditing: got %v, want a refusal", err)
		}
		if r.head() != before {
			t.Errorf("the refused run.completed was written")
		}
	})
}

// TestP04_IntentPrecedesExecution: no execution event, the executor's or the
// gateway's, comes before the signed intent of its call.
func TestP04_IntentPrecedesExecution(t *testing.T) {
	r := newRig(t)
	r.to(protocol.StateExecuting)
	r.refuse(r.by(protocol.RoleExecutor, protocol.TypeToolExecutionStarted, execution("I1")), "tool_intent_signed must precede any tool execution event")
	r.refuse(r.completed("I1"), "tool_intent_signed must precede any tool execution event")
	child := r.gatewayRun()
	r.refuse(r.toolStarted(child, "I1", testHash), "has no protocol.tool_intent_signed")
	r.must(r.by(protocol.RoleExecutor, protocol.TypeToolIntentSigned, intentFor("I1", "P1", "low"), r.ref))
	r.refuse(r.completed("I1"), "whose execution is not open")
	r.refuse(r.toolStarted(child, "I1", testHash), "outside its protocol.tool_execution_started")
	r.must(r.by(protocol.RoleExecutor, protocol.TypeToolExecutionStarted, execution("I1")))
	r.refuse(r.toolStarted(child, "I1", "sha256:2222222222222222222222222222222222222222222222222222222222222222"), "but intent I1 signed")
	r.must(r.toolStarted(child, "I1", testHash))
}

// TestP04_ExecutionOutcomePrecedesClaim: a claim relies only on intents whose
// execution completed or failed.
func TestP04_ExecutionOutcomePrecedesClaim(t *testing.T) {
	r := newRig(t)
	r.to(protocol.StatePlanning)
	r.must(r.by(protocol.RolePlanner, protocol.TypeProposalCreated, proposal("P1", "low")))
	r.must(r.by(protocol.RolePlanner, protocol.TypeProposalCreated, proposal("P2", "high", protocol.ToolSendExternal)))
	r.must(r.move(protocol.StateReviewing))
	r.must(r.by(protocol.RoleCritic, protocol.TypeProposalReviewed, review("P1", protocol.ReviewApproved)))
	r.must(r.by(protocol.RoleCritic, protocol.TypeProposalReviewed, review("P2", protocol.ReviewConditional)))
	r.must(r.move(protocol.StateExecuting))
	r.must(r.by(protocol.RoleExecutor, protocol.TypeToolIntentSigned, intentFor("I1", "P1", "low"), r.ref))
	r.must(r.by(protocol.RoleExecutor, protocol.TypeToolExecutionStarted, execution("I1")))
	r.must(r.completed("I1"))
	i2 := intentFor("I2", "P2", "high")
	i2.Tool = protocol.ToolSendExternal
	r.must(r.by(protocol.RoleExecutor, protocol.TypeToolIntentSigned, i2, r.ref))
	r.must(r.by(protocol.RoleCritic, protocol.TypeToolIntentReviewed, protocol.IntentReviewBody{IntentID: "I2", Decision: protocol.IntentBlocked, Reason: "too risky"}))
	r.must(r.move(protocol.StateClaiming))
	r.refuse(r.claim("C1", "P2", "I2"), "before its tool_execution_completed or tool_execution_failed")
	r.refuse(r.claim("C1", "P2", "I1"), "which is not an intent of proposal P2")
	r.must(r.claim("C1", "P1", "I1"))
}

// TestP04_FinalStatementIsLastRoleEvent: after the final statement, no role
// event but the verification's completion.
func TestP04_FinalStatementIsLastRoleEvent(t *testing.T) {
	r := newRig(t)
	r.to(protocol.StateAuditing)
	r.refuse(r.statement("S1", "V1", "C1"), "needs a verification run in progress")
	r.must(r.verificationStarted("V1", protocol.ReasonAudit))
	r.refuse(r.verificationCompleted("V1", protocol.VerificationPass, ""), "passes only with a protocol.final_statement_signed")
	r.must(r.statement("S1", "V1", "C1"))
	r.refuse(r.statement("S2", "V1", "C1"), "the final statement must be the last role event")
	r.refuse(r.verificationStarted("V2", protocol.ReasonAudit), "the final statement must be the last role event")
	r.refuse(r.verificationCompleted("V1", protocol.VerificationPass, testHash), "names final statement")
	r.must(r.verificationCompleted("V1", protocol.VerificationPass, r.lastHash()))
	r.must(r.move(protocol.StateCompleted))
	verify(t, r.h, r.run.Record.Trace)
}

// TestP13_RoleGuard: each role event is refused from any other role, or
// from another identity in the right role, and nothing is written.
func TestP13_RoleGuard(t *testing.T) {
	r := newRig(t)
	r.to(protocol.StatePlanning)
	bodies := map[string]any{
		protocol.TypeProposalCreated:          proposal("P1", "low"),
		protocol.TypeProposalReviewed:         review("P1", protocol.ReviewApproved),
		protocol.TypeToolIntentSigned:         intentFor("I1", "P1", "low"),
		protocol.TypeToolIntentReviewed:       protocol.IntentReviewBody{IntentID: "I1", Decision: protocol.IntentApproved, Reason: "ok"},
		protocol.TypeToolExecutionStarted:     execution("I1"),
		protocol.TypeToolExecutionFailed:      protocol.ExecutionBody{IntentID: "I1", CallID: "I1", Tool: "lookup", Error: &sanadError},
		protocol.TypeClaimIssued:              protocol.ClaimBody{ClaimID: "C1", ProposalID: "P1", Intents: []string{}, Text: "x", Confidence: 1, Evidence: []string{r.ref.ID}},
		protocol.TypeClaimChallenged:          protocol.ChallengeBody{ClaimID: "C1", Kind: protocol.ChallengeWeak, Reasons: []string{"x"}},
		protocol.TypeFinalStatementSigned:     protocol.StatementBody{StatementID: "S1", VerificationID: "V1", Claims: []protocol.BundledClaim{{ClaimID: "C1", Event: testHash, Text: "x", Confidence: 1}}},
		protocol.TypeVerificationRunStarted:   protocol.VerificationStartedBody{VerificationID: "V1", Reason: "audit", HeadSeq: 1, HeadHash: testHash},
		protocol.TypeVerificationRunCompleted: protocol.VerificationCompletedBody{VerificationID: "V1", Status: "fail", Report: r.ref.ID, HeadSeq: 1, HeadHash: testHash},
	}
	for typ, body := range bodies {
		role, ok := protocol.RoleOf(typ)
		if !ok {
			t.Fatalf("RoleOf(%s): no role", typ)
		}
		for _, other := range protocol.Roles {
			if other == role {
				continue
			}
			r.refuse(r.by(other, typ, body, r.ref), "role guard: "+typ+" is the "+string(role)+"'s to emit")
		}
		// The right role, claimed by another role's identity.
		r.refuse(r.as(protocol.DefaultRoster[otherRole(role)], string(role), typ, body, r.ref), "must be signed by the session's "+string(role))
		// The runtime never asserts a role event.
		r.refuse(r.by("", typ, body, r.ref), "must be signed by the acting agent")
	}
	// And the runtime's own events are not an agent's.
	r.refuse(r.by(protocol.RolePlanner, protocol.TypeStateTransition, protocol.TransitionBody{From: "planning", To: "reviewing", Reason: "x"}), "is recorded by the runtime")
}

var sanadError = sanadRunError()

func otherRole(r protocol.Role) protocol.Role {
	if r == protocol.RolePlanner {
		return protocol.RoleCritic
	}
	return protocol.RolePlanner
}

// TestP13_RoleGuardDetectedAtVerify: a trace in which a role event carries
// another role (as an attacker who rewrote it would leave it) breaks the
// ordering rule that every verification runs.
func TestP13_RoleGuardDetectedAtVerify(t *testing.T) {
	h := openHome(t)
	res := start(t, newEngine(t, h), exampleTask(t, "vendor-check"))
	evs := events(t, h, res.Trace)
	check := func(evs []*ledger.Event) error {
		rule := protocol.Vocabulary().Rules[0]()
		for _, ev := range evs {
			if err := rule.Check(ev); err != nil {
				return fmt.Errorf("seq %d: %w", ev.Seq, err)
			}
		}
		return rule.Finish()
	}
	if err := check(evs); err != nil {
		t.Fatalf("the recorded trace: %v", err)
	}
	for i, ev := range evs {
		if ev.Type != protocol.TypeClaimIssued {
			continue
		}
		forged := *ev
		forged.Actor.Agent, forged.Actor.Role = protocol.DefaultRoster[protocol.RolePlanner], string(protocol.RolePlanner)
		tampered := append(append(append([]*ledger.Event{}, evs[:i]...), &forged), evs[i+1:]...)
		if err := check(tampered); err == nil || !strings.Contains(err.Error(), "role guard") {
			t.Errorf("a claim signed by the planner: got %v, want a role guard failure", err)
		}
		break
	}
}

// TestP13_ActionGuard: an intent from review_from up executes only with the
// critic's approval, the critic cannot approve above max_risk, and a blocked
// intent never executes.
func TestP13_ActionGuard(t *testing.T) {
	setup := func(th protocol.Thresholds, risk string) *rig {
		r := newRigWith(t, th)
		r.to(protocol.StatePlanning)
		r.must(r.by(protocol.RolePlanner, protocol.TypeProposalCreated, proposal("P1", risk)))
		r.must(r.move(protocol.StateReviewing))
		r.must(r.by(protocol.RoleCritic, protocol.TypeProposalReviewed, review("P1", protocol.ReviewConditional)))
		r.must(r.move(protocol.StateExecuting))
		r.must(r.by(protocol.RoleExecutor, protocol.TypeToolIntentSigned, intentFor("I1", "P1", risk), r.ref))
		return r
	}
	approve := protocol.IntentReviewBody{IntentID: "I1", Decision: protocol.IntentApproved, Reason: "ok"}
	block := protocol.IntentReviewBody{IntentID: "I1", Decision: protocol.IntentBlocked, Reason: "no"}
	start := execution("I1")

	r := setup(protocol.DefaultThresholds, protocol.RiskHigh)
	r.refuse(r.by(protocol.RoleExecutor, protocol.TypeToolExecutionStarted, start), "action guard: intent I1 (risk high) needs the critic's approval")
	r.refuse(r.by(protocol.RoleCritic, protocol.TypeToolIntentReviewed, approve), "action guard: the critic may not approve intent I1 of risk high, above the policy's max_risk medium")
	r.must(r.by(protocol.RoleCritic, protocol.TypeToolIntentReviewed, block))
	r.refuse(r.by(protocol.RoleExecutor, protocol.TypeToolExecutionStarted, start), "was blocked by the critic: execution is prohibited until a revision")

	high := protocol.DefaultThresholds
	high.MaxRisk = protocol.RiskHigh
	r = setup(high, protocol.RiskHigh)
	r.must(r.by(protocol.RoleCritic, protocol.TypeToolIntentReviewed, approve))
	r.must(r.by(protocol.RoleExecutor, protocol.TypeToolExecutionStarted, start))

	r = setup(protocol.DefaultThresholds, protocol.RiskLow)
	r.must(r.by(protocol.RoleExecutor, protocol.TypeToolExecutionStarted, start))
	r.refuse(r.by(protocol.RoleCritic, protocol.TypeToolIntentReviewed, approve), "reviewed after its execution started")
}

// TestP13_EvidenceGuard: a claim cites artifacts, and lists exactly the
// ones it cites.
func TestP13_EvidenceGuard(t *testing.T) {
	r := newRig(t)
	r.to(protocol.StateClaiming)
	d := r.claim("C1", "P1", "I1")
	d.Refs = nil
	r.refuse(d, "evidence guard: claim C1 cites no artifact")
	d = r.claim("C1", "P1", "I1")
	b := d.Body.(protocol.ClaimBody)
	b.Evidence = []string{testHash}
	d.Body = b
	r.refuse(d, "lists evidence "+testHash+" where it cites artifact "+r.ref.ID)
	r.must(r.claim("C1", "P1", "I1"))
}

// TestP13_FinalizationGuard: the final statement bundles only current,
// unchallenged claims, within an audit.
func TestP13_FinalizationGuard(t *testing.T) {
	r := newRig(t)
	r.to(protocol.StateClaiming)
	r.must(r.claim("C1", "P1", "I1"))
	r.must(r.by(protocol.RoleCritic, protocol.TypeClaimChallenged, protocol.ChallengeBody{ClaimID: "C1", Kind: protocol.ChallengeWeak, Reasons: []string{"thin"}}))
	r.refuse(r.by(protocol.RoleCritic, protocol.TypeClaimChallenged, protocol.ChallengeBody{ClaimID: "C1", Kind: protocol.ChallengeWeak, Reasons: []string{"again"}}), "already challenged")
	rev := r.claim("C2", "P1", "I1")
	b := rev.Body.(protocol.ClaimBody)
	b.Revises = "C1"
	rev.Body = b
	r.must(rev)
	r.refuse(r.by(protocol.RoleCritic, protocol.TypeClaimChallenged, protocol.ChallengeBody{ClaimID: "C1", Kind: protocol.ChallengeWeak, Reasons: []string{"x"}}), "which was revised")
	r.must(r.claim("C3", "P1", "I1"))
	r.must(r.by(protocol.RoleCritic, protocol.TypeClaimChallenged, protocol.ChallengeBody{ClaimID: "C3", Kind: protocol.ChallengeContradictory, Reasons: []string{"no"}}))
	r.must(r.move(protocol.StateAuditing))
	r.must(r.verificationStarted("V1", protocol.ReasonAudit))
	r.refuse(r.statement("S1", "V1", "C1"), "finalization guard: claim C1 was revised")
	r.refuse(r.statement("S1", "V1", "C3"), "finalization guard: claim C3 has an open challenge")
	r.refuse(r.statement("S1", "V2", "C2"), "finalization guard: the statement names verification V2")
	r.must(r.statement("S1", "V1", "C2"))
}
