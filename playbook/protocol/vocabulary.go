package protocol

import (
	"encoding/json"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
)

// Event types of a session. The seed names the role events; the ledger
// wants dotted names, so each carries the prefix "protocol." before the
// seed's own spelling.
const (
	TypeSessionInitialized       = "protocol.session_initialized"
	TypeStateTransition          = "protocol.state_transition"
	TypeProposalCreated          = "protocol.proposal_created"
	TypeProposalReviewed         = "protocol.proposal_reviewed"
	TypeToolIntentSigned         = "protocol.tool_intent_signed"
	TypeToolIntentReviewed       = "protocol.tool_intent_reviewed"
	TypeToolExecutionStarted     = "protocol.tool_execution_started"
	TypeToolExecutionCompleted   = "protocol.tool_execution_completed"
	TypeToolExecutionFailed      = "protocol.tool_execution_failed"
	TypeClaimIssued              = "protocol.claim_issued"
	TypeClaimChallenged          = "protocol.claim_challenged"
	TypeFinalStatementSigned     = "protocol.final_statement_signed"
	TypeVerificationRunStarted   = "protocol.verification_run_started"
	TypeVerificationRunCompleted = "protocol.verification_run_completed"
)

const typePrefix = "protocol."

// roleOf is the role guard: the one role that may emit each role event.
// The runtime records session_initialized and state_transition.
var roleOf = map[string]Role{
	TypeProposalCreated: RolePlanner, TypeFinalStatementSigned: RolePlanner,
	TypeProposalReviewed: RoleCritic, TypeToolIntentReviewed: RoleCritic, TypeClaimChallenged: RoleCritic,
	TypeToolIntentSigned: RoleExecutor, TypeToolExecutionStarted: RoleExecutor, TypeToolExecutionCompleted: RoleExecutor,
	TypeToolExecutionFailed: RoleExecutor, TypeClaimIssued: RoleExecutor,
	TypeVerificationRunStarted: RoleAuditor, TypeVerificationRunCompleted: RoleAuditor,
}

// RoleOf returns the role that alone may emit events of type typ, and
// false for the runtime's types and types outside the protocol.
func RoleOf(typ string) (Role, bool) {
	r, ok := roleOf[typ]
	return r, ok
}

// Values of body fields: the critic's review of a proposal (seed 002,
// Proposal Workflow) and of a tool intent, the kinds of challenge, the
// verification statuses as the seed spells them, and why a verification
// runs (the audit of auditing, or a check of a trace found damaged).
const (
	ReviewApproved               = "approved"
	ReviewConditional            = "conditional"
	ReviewRejected               = "rejected"
	IntentApproved               = "approved"
	IntentBlocked                = "blocked"
	ChallengeWeak                = "weak"
	ChallengeContradictory       = "contradictory"
	VerificationPass             = "pass"
	VerificationPassWithWarnings = "pass-with-warnings"
	VerificationFail             = "fail"
	ReasonAudit                  = "audit"
	ReasonIntegrity              = "integrity"
)

// ModeDeterministic is the mode of a session whose roles are the built-in
// offline ones.
const ModeDeterministic = "deterministic"

// InitializedBody is the body of protocol.session_initialized, recorded with
// the session run's start.
type InitializedBody struct {
	Mode       string     `json:"mode"`
	Task       TaskInfo   `json:"task"`
	Roster     Roster     `json:"roster"`
	Thresholds Thresholds `json:"thresholds"`
}

// TaskInfo identifies the task a session works on.
type TaskInfo struct {
	Name string `json:"name"`
	// Artifact is the artifact id of the task's canonical JSON.
	Artifact   string `json:"artifact"`
	Objectives int    `json:"objectives"`
	// Dataset is the artifact id of the task's fixtures, which the lookup
	// tool reads.
	Dataset string `json:"dataset,omitempty"`
}

// Operator is who aborted a session.
type Operator struct {
	Agent string `json:"agent"`
	Role  string `json:"role,omitempty"`
}

// TransitionBody is the body of protocol.state_transition.
type TransitionBody struct {
	From   State     `json:"from"`
	To     State     `json:"to"`
	Reason string    `json:"reason"`
	By     *Operator `json:"by,omitempty"`
}

// ProposalBody is the body of protocol.proposal_created: one proposal unit.
type ProposalBody struct {
	ProposalID       string   `json:"proposal_id"`
	ObjectiveID      string   `json:"objective_id"`
	Objective        string   `json:"objective"`
	Assumptions      []string `json:"assumptions"`
	RequiredTools    []string `json:"required_tools"`
	ExpectedEvidence []string `json:"expected_evidence"`
	MinEvidence      int      `json:"min_evidence"`
	Risk             string   `json:"risk"`
	// Revises names the proposal this one replaces, and Cause why: it was
	// rejected, its intent blocked, or its execution failed.
	Revises string `json:"revises,omitempty"`
	Cause   string `json:"cause,omitempty"`
	// Input is the tool input the planner proposes, a JSON object, for a
	// proposal whose planner chose it (a [ModelPlanner]); without it the
	// executor calls the tool with the input the task plans.
	Input json.RawMessage `json:"input,omitempty"`
}

// ProposalReviewBody is the body of protocol.proposal_reviewed.
type ProposalReviewBody struct {
	ProposalID string   `json:"proposal_id"`
	Status     string   `json:"status"`
	Reason     string   `json:"reason"`
	Conditions []string `json:"conditions,omitempty"`
}

// IntentBody is the body of protocol.tool_intent_signed.
type IntentBody struct {
	IntentID   string `json:"intent_id"`
	ProposalID string `json:"proposal_id"`
	Tool       string `json:"tool"`
	// CallID is the gateway call id; the gateway's idempotency key is the
	// session run id, "/", CallID.
	CallID string `json:"call_id"`
	// InputHash is the normalized hash of the input (canon.RequestHash).
	InputHash     string `json:"input_hash"`
	RiskClass     string `json:"risk_class"`
	Justification string `json:"justification"`
	// Attempt counts the intents of one proposal's execution, from 1;
	// RetryOf names the failed intent a retry replaces.
	Attempt int    `json:"attempt"`
	RetryOf string `json:"retry_of,omitempty"`
}

// IntentReviewBody is the body of protocol.tool_intent_reviewed.
type IntentReviewBody struct {
	IntentID string `json:"intent_id"`
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// ExecutionBody is the body of protocol.tool_execution_started, _completed
// and _failed.
type ExecutionBody struct {
	IntentID string `json:"intent_id"`
	CallID   string `json:"call_id"`
	Tool     string `json:"tool"`
	// Run is the tool_gateway run the call executed in.
	Run        string `json:"run,omitempty"`
	ResultHash string `json:"result_hash,omitempty"`
	// Input and Output are the artifact ids of the stored input and output.
	Input    string          `json:"input,omitempty"`
	Output   string          `json:"output,omitempty"`
	Attempts int             `json:"attempts,omitempty"`
	Error    *sanad.RunError `json:"error,omitempty"`
	// Interrupted says the process running the call stopped before its
	// outcome was recorded.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Assertion is what a claim says a tool output holds: the value at a
// dotted path.
type Assertion struct {
	Field  string          `json:"field"`
	Equals json.RawMessage `json:"equals"`
}

// ClaimBody is the body of protocol.claim_issued. The event's refs are the
// evidence; Evidence lists their artifact ids.
type ClaimBody struct {
	ClaimID    string     `json:"claim_id"`
	ProposalID string     `json:"proposal_id"`
	Intents    []string   `json:"intents"`
	Text       string     `json:"text"`
	Confidence float64    `json:"confidence"`
	Evidence   []string   `json:"evidence"`
	Assertion  *Assertion `json:"assertion,omitempty"`
	Revises    string     `json:"revises,omitempty"`
	// EvidenceMissing lists the evidence not in the artifact store when
	// the claim was issued: the session goes on to an audit that fails.
	EvidenceMissing []string `json:"evidence_missing,omitempty"`
}

// ChallengeBody is the body of protocol.claim_challenged.
type ChallengeBody struct {
	ClaimID string   `json:"claim_id"`
	Kind    string   `json:"kind"`
	Reasons []string `json:"reasons"`
}

// BundledClaim is one claim of a final statement, bound to its event.
type BundledClaim struct {
	ClaimID    string  `json:"claim_id"`
	Event      string  `json:"event"`
	Text       string  `json:"text"`
	Confidence float64 `json:"confidence"`
}

// StatementBody is the body of protocol.final_statement_signed: the final
// claim bundle.
type StatementBody struct {
	StatementID    string         `json:"statement_id"`
	VerificationID string         `json:"verification_id"`
	Claims         []BundledClaim `json:"claims"`
}

// VerificationStartedBody is the body of protocol.verification_run_started:
// the trace head the checks cover.
type VerificationStartedBody struct {
	VerificationID string `json:"verification_id"`
	Reason         string `json:"reason"`
	HeadSeq        uint64 `json:"head_seq"`
	HeadHash       string `json:"head_hash"`
}

// VerificationCompletedBody is the body of
// protocol.verification_run_completed. The event's ref is the report.
type VerificationCompletedBody struct {
	VerificationID string `json:"verification_id"`
	Status         string `json:"status"`
	Report         string `json:"report"`
	HeadSeq        uint64 `json:"head_seq"`
	HeadHash       string `json:"head_hash"`
	// FinalStatement is the hash of the final statement's event.
	FinalStatement string `json:"final_statement,omitempty"`
	Errors         int    `json:"errors"`
	Warnings       int    `json:"warnings"`
}

// Schema fragments.
const (
	hashSchema     = `{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}`
	textSchema     = `{"type":"string","minLength":1,"maxLength":4000}`
	nameSchema     = `{"type":"string","minLength":1,"maxLength":128}`
	textsSchema    = `{"type":"array","maxItems":64,"items":` + textSchema + `}`
	riskSchema     = `{"enum":["low","medium","high","critical"]}`
	errorSchema    = `{"type":"object","required":["code","message","retryable"],"additionalProperties":false,"properties":{"code":{"type":"string","minLength":1},"message":{"type":"string","maxLength":512},"retryable":{"type":"boolean"},"stack":{"type":"string","maxLength":8192}}}`
	stateSchema    = `{"enum":["initialized","planning","reviewing","executing","claiming","auditing","completed","failed","aborted"]}`
	identitySchema = `{"type":"string","minLength":1,"maxLength":128}`
)

func idSchema(prefix string) string {
	return `{"type":"string","pattern":"^` + prefix + `[1-9][0-9]{0,5}$"}`
}

// object returns the schema of an object with exactly the properties
// props (name → schema), those in required being required.
func object(required string, props ...string) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","additionalProperties":false,"required":[`)
	for i, r := range strings.Fields(required) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + r + `"`)
	}
	b.WriteString(`],"properties":{`)
	for i := 0; i+1 < len(props); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + props[i] + `":` + props[i+1])
	}
	b.WriteString(`}}`)
	return b.String()
}

var (
	initializedSchema = object("mode task roster thresholds",
		"mode", nameSchema,
		"task", object("name artifact objectives", "name", nameSchema, "artifact", hashSchema,
			"objectives", `{"type":"integer","minimum":1}`, "dataset", hashSchema),
		"roster", object("planner executor critic auditor", "planner", identitySchema, "executor", identitySchema,
			"critic", identitySchema, "auditor", identitySchema),
		"thresholds", object("max_risk review_from min_evidence min_confidence allow_fallback max_retries",
			"max_risk", riskSchema, "review_from", riskSchema, "min_evidence", `{"type":"integer","minimum":1,"maximum":100}`,
			"min_confidence", `{"type":"number","minimum":0,"maximum":1}`, "allow_fallback", `{"type":"boolean"}`,
			"max_retries", `{"type":"integer","minimum":0,"maximum":10}`))
	transitionSchema = object("from to reason", "from", stateSchema, "to", stateSchema, "reason", textSchema,
		"by", object("agent", "agent", identitySchema, "role", nameSchema))
	proposalSchema = object("proposal_id objective_id objective assumptions required_tools expected_evidence min_evidence risk",
		"proposal_id", idSchema("P"), "objective_id", nameSchema, "objective", textSchema, "assumptions", textsSchema,
		"required_tools", `{"type":"array","minItems":1,"maxItems":16,"items":`+nameSchema+`}`,
		"expected_evidence", `{"type":"array","minItems":1,"maxItems":64,"items":`+textSchema+`}`,
		"min_evidence", `{"type":"integer","minimum":1,"maximum":100}`, "risk", riskSchema,
		"revises", idSchema("P"), "cause", `{"enum":["rejected","blocked","failed"]}`, "input", `{"type":"object"}`)
	proposalReviewSchema = object("proposal_id status reason", "proposal_id", idSchema("P"),
		"status", `{"enum":["approved","conditional","rejected"]}`, "reason", textSchema, "conditions", textsSchema)
	intentSchema = object("intent_id proposal_id tool call_id input_hash risk_class justification attempt",
		"intent_id", idSchema("I"), "proposal_id", idSchema("P"), "tool", nameSchema, "call_id", idSchema("I"),
		"input_hash", hashSchema, "risk_class", riskSchema, "justification", textSchema,
		"attempt", `{"type":"integer","minimum":1,"maximum":11}`, "retry_of", idSchema("I"))
	intentReviewSchema = object("intent_id decision reason", "intent_id", idSchema("I"),
		"decision", `{"enum":["approved","blocked"]}`, "reason", textSchema)
	executionStartedSchema   = object("intent_id call_id tool", "intent_id", idSchema("I"), "call_id", idSchema("I"), "tool", nameSchema)
	executionCompletedSchema = object("intent_id call_id tool run result_hash attempts",
		"intent_id", idSchema("I"), "call_id", idSchema("I"), "tool", nameSchema, "run", nameSchema,
		"result_hash", hashSchema, "input", hashSchema, "output", hashSchema, "attempts", `{"type":"integer","minimum":1}`)
	executionFailedSchema = object("intent_id call_id tool error",
		"intent_id", idSchema("I"), "call_id", idSchema("I"), "tool", nameSchema, "run", nameSchema,
		"input", hashSchema, "attempts", `{"type":"integer","minimum":0}`, "error", errorSchema, "interrupted", `{"type":"boolean"}`)
	claimSchema = object("claim_id proposal_id intents text confidence evidence",
		"claim_id", idSchema("C"), "proposal_id", idSchema("P"),
		"intents", `{"type":"array","maxItems":16,"items":`+idSchema("I")+`}`,
		"text", textSchema, "confidence", `{"type":"number","minimum":0,"maximum":1}`,
		"evidence", `{"type":"array","minItems":1,"maxItems":64,"items":`+hashSchema+`}`,
		"assertion", object("field equals", "field", nameSchema, "equals", `true`),
		"revises", idSchema("C"), "evidence_missing", `{"type":"array","maxItems":64,"items":`+hashSchema+`}`)
	challengeSchema = object("claim_id kind reasons", "claim_id", idSchema("C"),
		"kind", `{"enum":["weak","contradictory"]}`, "reasons", `{"type":"array","minItems":1,"maxItems":16,"items":`+textSchema+`}`)
	statementSchema = object("statement_id verification_id claims", "statement_id", idSchema("S"), "verification_id", idSchema("V"),
		"claims", `{"type":"array","minItems":1,"maxItems":256,"items":`+object("claim_id event text confidence",
			"claim_id", idSchema("C"), "event", hashSchema, "text", textSchema, "confidence", `{"type":"number","minimum":0,"maximum":1}`)+`}`)
	verificationStartedSchema = object("verification_id reason head_seq head_hash", "verification_id", idSchema("V"),
		"reason", `{"enum":["audit","integrity"]}`, "head_seq", `{"type":"integer","minimum":1}`, "head_hash", hashSchema)
	verificationCompletedSchema = object("verification_id status report head_seq head_hash errors warnings",
		"verification_id", idSchema("V"), "status", `{"enum":["pass","pass-with-warnings","fail"]}`, "report", hashSchema,
		"head_seq", `{"type":"integer","minimum":1}`, "head_hash", hashSchema, "final_statement", hashSchema,
		"errors", `{"type":"integer","minimum":0}`, "warnings", `{"type":"integer","minimum":0}`)
)

// Vocabulary declares the session events and the ordering rule that keeps
// every session trace within the protocol: the transitions, the role guard,
// the action, evidence and finalization guards, and the seed's ordering
// rules. The rule runs at every append (a refused event is never written)
// and at every verification.
func Vocabulary() ledger.Vocabulary {
	agent := ledger.SignedByAgent
	return ledger.Vocabulary{
		Types: []ledger.TypeDef{
			{Name: TypeSessionInitialized, Schema: initializedSchema, Signer: ledger.SignedByRuntime, Doc: "a session starts: its task, roster, thresholds and mode"},
			{Name: TypeStateTransition, Schema: transitionSchema, Signer: ledger.SignedByRuntime, Doc: "a session moves from one state to another"},
			{Name: TypeProposalCreated, Schema: proposalSchema, Signer: agent, Doc: "the planner proposes an action: objective, assumptions, tools, expected evidence"},
			{Name: TypeProposalReviewed, Schema: proposalReviewSchema, Signer: agent, Doc: "the critic approves, conditionally approves or rejects a proposal"},
			{Name: TypeToolIntentSigned, Schema: intentSchema, Signer: agent, Doc: "the executor's signed intent to call a tool: input hash, risk class, justification"},
			{Name: TypeToolIntentReviewed, Schema: intentReviewSchema, Signer: agent, Doc: "the critic approves or blocks a tool intent"},
			{Name: TypeToolExecutionStarted, Schema: executionStartedSchema, Signer: agent, Doc: "the executor starts an approved tool call"},
			{Name: TypeToolExecutionCompleted, Schema: executionCompletedSchema, Signer: agent, Doc: "a tool call succeeded: its run, result hash and artifacts"},
			{Name: TypeToolExecutionFailed, Schema: executionFailedSchema, Signer: agent, Doc: "a tool call failed, with its failure context"},
			{Name: TypeClaimIssued, Schema: claimSchema, Signer: agent, Doc: "the executor claims something, with a confidence and evidence artifacts"},
			{Name: TypeClaimChallenged, Schema: challengeSchema, Signer: agent, Doc: "the critic challenges a weak or contradictory claim"},
			{Name: TypeFinalStatementSigned, Schema: statementSchema, Signer: agent, Doc: "the planner signs the final claim bundle, once the verifier's checks pass"},
			{Name: TypeVerificationRunStarted, Schema: verificationStartedSchema, Signer: agent, Doc: "the auditor starts a verification run over the trace head"},
			{Name: TypeVerificationRunCompleted, Schema: verificationCompletedSchema, Signer: agent, Doc: "the auditor records the verification status and its report"},
		},
		Rules: []ledger.RuleFunc{func() ledger.Rule { return &rule{} }},
	}
}
