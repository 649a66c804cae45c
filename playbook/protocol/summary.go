package protocol

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sanadhq/sanad/ledger"
)

// Summarize says in a line what an event of a session records.
func Summarize(e *ledger.Event) string {
	s := e.BodyString
	field := func(key string) any { v, _ := e.BodyField(key); return v }
	switch e.Type {
	case TypeSessionInitialized:
		var b InitializedBody
		_ = json.Unmarshal(e.Body, &b)
		return fmt.Sprintf("task %s, %d objective(s), %s mode", b.Task.Name, b.Task.Objectives, b.Mode)
	case TypeStateTransition:
		var b TransitionBody
		_ = json.Unmarshal(e.Body, &b)
		if b.By != nil {
			return fmt.Sprintf("%s → %s: %s (by %s)", b.From, b.To, b.Reason, b.By.Agent)
		}
		return fmt.Sprintf("%s → %s: %s", b.From, b.To, b.Reason)
	case TypeProposalCreated:
		out := fmt.Sprintf("%s for %s, risk %s: %s", s("proposal_id"), s("objective_id"), s("risk"), s("objective"))
		if r := s("revises"); r != "" {
			out += fmt.Sprintf(" (revises %s, %s)", r, s("cause"))
		}
		return out
	case TypeProposalReviewed:
		return fmt.Sprintf("%s %s: %s", s("proposal_id"), s("status"), s("reason"))
	case TypeToolIntentSigned:
		return fmt.Sprintf("%s %s (risk %s, attempt %v) input %s", s("intent_id"), s("tool"), s("risk_class"), field("attempt"), s("input_hash"))
	case TypeToolIntentReviewed:
		return fmt.Sprintf("%s %s: %s", s("intent_id"), s("decision"), s("reason"))
	case TypeToolExecutionStarted:
		return fmt.Sprintf("%s %s", s("intent_id"), s("tool"))
	case TypeToolExecutionCompleted:
		return fmt.Sprintf("%s %s in run %s, result %s", s("intent_id"), s("tool"), s("run"), s("result_hash"))
	case TypeToolExecutionFailed:
		var b ExecutionBody
		_ = json.Unmarshal(e.Body, &b)
		return fmt.Sprintf("%s %s: %s: %s", b.IntentID, b.Tool, b.Error.Code, b.Error.Message)
	case TypeClaimIssued:
		return fmt.Sprintf("%s (confidence %v, %d artifact(s)): %s", s("claim_id"), field("confidence"), len(e.Refs), s("text"))
	case TypeClaimChallenged:
		var b ChallengeBody
		_ = json.Unmarshal(e.Body, &b)
		return fmt.Sprintf("%s %s: %s", b.ClaimID, b.Kind, strings.Join(b.Reasons, "; "))
	case TypeFinalStatementSigned:
		var b StatementBody
		_ = json.Unmarshal(e.Body, &b)
		ids := make([]string, len(b.Claims))
		for i, c := range b.Claims {
			ids[i] = c.ClaimID
		}
		return fmt.Sprintf("%s bundles %s", b.StatementID, strings.Join(ids, ", "))
	case TypeVerificationRunStarted:
		return fmt.Sprintf("%s (%s) of head %v", s("verification_id"), s("reason"), field("head_seq"))
	case TypeVerificationRunCompleted:
		return fmt.Sprintf("%s %s, report %s", s("verification_id"), s("status"), s("report"))
	}
	if k := s("idempotency_key"); k != "" {
		return "call " + k
	}
	return s("status")
}
