package protocol

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// rule is the session ordering rule of [Vocabulary], over one trace. Its
// tracker is made on the trace's first protocol event: until then there is
// nothing to check, and a trace that holds no session (most do not) keeps
// no session state while its head is cached.
type rule struct{ t *tracker }

func (r *rule) Check(e *ledger.Event) error {
	if r.t == nil {
		if !strings.HasPrefix(e.Type, typePrefix) {
			return nil
		}
		r.t = &tracker{}
	}
	return r.t.apply(e)
}

// Finish accepts a session that has not ended: a trace is verified while it
// is written, and a crashed session is resumed later.
func (r *rule) Finish() error { return nil }

// Execution states of an intent.
const (
	execNone = iota
	execStarted
	execCompleted
	execFailed
)

type proposal struct {
	ProposalBody
	status  string // the critic's review; "" until reviewed
	revised bool   // a later proposal replaces it
	intents []string
}

type intent struct {
	IntentBody
	input   sanad.ArtifactRef // the stored input the intent cites
	review  IntentReviewBody  // Decision "" until reviewed
	exec    int
	result  ExecutionBody // of the completed or failed execution
	refs    []sanad.ArtifactRef
	retried bool // a later intent retries it
}

type claim struct {
	ClaimBody
	refs       []sanad.ArtifactRef
	event      canon.Digest
	challenge  *ChallengeBody
	superseded bool // a revision replaces it
}

type verification struct {
	VerificationStartedBody
	statement     bool         // a final statement was signed in this run
	statementHash canon.Digest // the hash of its event
	done          *VerificationCompletedBody
	report        sanad.ArtifactRef
}

// tracker follows one session through its trace, event by event: the state
// machine, the role, action, evidence and finalization guards and the seed's
// ordering rules. The ordering rule and the engine share it, so what the
// engine does next is decided on exactly what the rule accepted.
type tracker struct {
	run       string // the session run (the trace's root run)
	state     State
	init      InitializedBody
	proposals map[string]*proposal
	intents   map[string]*intent
	calls     map[string]*intent // by call id
	claims    map[string]*claim
	order     []string      // proposal ids in order
	intentSeq []string      // intent ids in order
	claimSeq  []string      // claim ids in order
	verif     *verification // the open verification run
	last      *verification // the last completed one
	runEnded  bool
	// verifications and statements count the runs and statements so far.
	verifications, statements int
	// await is the hash to fill in from the next event's prev link: an
	// ordering rule sees an event before the ledger hashes it.
	await *canon.Digest
}

// hashOf records the hash of e into *dst: now if e is sealed, else from the
// next event's prev link.
func (t *tracker) hashOf(e *ledger.Event, dst *canon.Digest) {
	if e.Hash.IsZero() {
		t.await = dst
		return
	}
	*dst = e.Hash
}

func (t *tracker) apply(e *ledger.Event) error {
	if t.await != nil {
		*t.await, t.await = e.Prev, nil
	}
	protocolEvent := strings.HasPrefix(e.Type, typePrefix)
	if t.run == "" {
		switch {
		case !protocolEvent:
			return nil
		case e.Type != TypeSessionInitialized:
			return fmt.Errorf("%s before protocol.session_initialized", e.Type)
		}
		return t.initialize(e)
	}
	if !protocolEvent {
		return t.observe(e)
	}
	switch {
	case handlers[e.Type] == nil:
		return fmt.Errorf("the trace already holds session %s", t.run)
	case e.Run != t.run:
		return fmt.Errorf("%s in run %s, which is not the session's run %s", e.Type, e.Run, t.run)
	case t.state.Terminal() || t.runEnded:
		return fmt.Errorf("%s after the session ended (%s)", e.Type, t.state)
	}
	if role, ok := roleOf[e.Type]; ok {
		if err := t.guardRole(e, role); err != nil {
			return err
		}
		if t.verif != nil && t.verif.statement && e.Type != TypeVerificationRunCompleted {
			return fmt.Errorf("%s after protocol.final_statement_signed: the final statement must be the last role event before the verification completes", e.Type)
		}
	}
	if states := allowedIn[e.Type]; states != nil && !slices.Contains(states, t.state) {
		return fmt.Errorf("%s is not allowed in state %s (only in %v)", e.Type, t.state, states)
	}
	return handlers[e.Type](t, e)
}

// handlers apply each protocol event type once the checks common to all
// have passed.
var handlers = map[string]func(*tracker, *ledger.Event) error{
	TypeStateTransition: (*tracker).transition, TypeProposalCreated: (*tracker).propose,
	TypeProposalReviewed: (*tracker).reviewProposal, TypeToolIntentSigned: (*tracker).intend,
	TypeToolIntentReviewed: (*tracker).reviewIntent, TypeToolExecutionStarted: (*tracker).execute,
	TypeToolExecutionCompleted: (*tracker).execute, TypeToolExecutionFailed: (*tracker).execute,
	TypeClaimIssued: (*tracker).claim, TypeClaimChallenged: (*tracker).challenge,
	TypeFinalStatementSigned: (*tracker).finalize, TypeVerificationRunStarted: (*tracker).verify,
	TypeVerificationRunCompleted: (*tracker).verify,
}

// nextID returns the id that must follow n ids with prefix p: ids of each
// kind are numbered from 1 in the order they are recorded.
func nextID(p string, n int) string { return p + strconv.Itoa(n+1) }

func wantID(kind, got, p string, n int) error {
	if want := nextID(p, n); got != want {
		return fmt.Errorf("%s id %s is out of sequence: want %s", kind, got, want)
	}
	return nil
}

// allowedIn lists the states each type may be recorded in (nil: any active
// state).
var allowedIn = map[string][]State{
	TypeProposalCreated:        {StatePlanning, StateReviewing, StateExecuting},
	TypeProposalReviewed:       {StateReviewing, StateExecuting},
	TypeToolIntentSigned:       {StateExecuting},
	TypeToolIntentReviewed:     {StateExecuting},
	TypeToolExecutionStarted:   {StateExecuting},
	TypeToolExecutionCompleted: {StateExecuting},
	TypeToolExecutionFailed:    {StateExecuting},
	TypeClaimIssued:            {StateClaiming},
	TypeClaimChallenged:        {StateClaiming},
	TypeFinalStatementSigned:   {StateAuditing},
}

func decode(e *ledger.Event, v any) error {
	if err := json.Unmarshal(e.Body, v); err != nil {
		return fmt.Errorf("%s body: %w", e.Type, err)
	}
	return nil
}

func (t *tracker) initialize(e *ledger.Event) error {
	if e.Run != e.Trace {
		return fmt.Errorf("a session is the root run of its trace; run %s is not", e.Run)
	}
	if err := decode(e, &t.init); err != nil {
		return err
	}
	if err := t.init.Thresholds.Validate(); err != nil {
		return fmt.Errorf("thresholds: %w", err)
	}
	t.run, t.state = e.Run, StateInitialized
	t.proposals, t.intents, t.calls, t.claims = map[string]*proposal{}, map[string]*intent{}, map[string]*intent{}, map[string]*claim{}
	return nil
}

// guardRole is the role guard: only the designated role, acting as the
// identity the roster gives it, may emit the type.
func (t *tracker) guardRole(e *ledger.Event, role Role) error {
	want := t.init.Roster[role]
	if e.Actor.Role != string(role) {
		return fmt.Errorf("role guard: %s is the %s's to emit, not role %q's (agent %s)", e.Type, role, e.Actor.Role, e.Actor.Agent)
	}
	if e.Actor.Agent != want {
		return fmt.Errorf("role guard: %s must be signed by the session's %s %s, not by %s", e.Type, role, want, e.Actor.Agent)
	}
	return nil
}

// observe checks the events of the trace outside the protocol that it
// constrains: the gateway's tool.started of a session call must follow the
// executor's protocol.tool_execution_started, on the input the intent
// signed; the session run's terminal event must match its terminal state.
func (t *tracker) observe(e *ledger.Event) error {
	switch e.Type {
	case tool.TypeStarted:
		call, ok := strings.CutPrefix(e.BodyString("idempotency_key"), t.run+"/")
		if !ok {
			return nil
		}
		in := t.calls[call]
		switch {
		case in == nil:
			return fmt.Errorf("tool.started for session call %s, which has no protocol.tool_intent_signed", call)
		case in.exec != execStarted:
			return fmt.Errorf("tool.started for session call %s outside its protocol.tool_execution_started", call)
		case e.BodyString("input_hash") != in.InputHash || e.BodyString("tool") != in.Tool || e.BodyString("risk") != in.RiskClass:
			return fmt.Errorf("tool.started for session call %s runs %s input %s (risk %s), but intent %s signed %s input %s (risk %s)",
				call, e.BodyString("tool"), e.BodyString("input_hash"), e.BodyString("risk"), in.IntentID, in.Tool, in.InputHash, in.RiskClass)
		}
	case runs.TypeCompleted, runs.TypeFailed, runs.TypeCancelled, runs.TypeDenied:
		if e.Run != t.run {
			return nil
		}
		want := map[State]string{StateCompleted: runs.TypeCompleted, StateFailed: runs.TypeFailed, StateAborted: runs.TypeCancelled}[t.state]
		if e.Type != want {
			return fmt.Errorf("%s ends session %s in state %s: a session run ends only as its protocol state says (completed, failed or aborted)", e.Type, t.run, t.state)
		}
		t.runEnded = true
	}
	return nil
}

func (t *tracker) transition(e *ledger.Event) error {
	var b TransitionBody
	if err := decode(e, &b); err != nil {
		return err
	}
	if b.From != t.state {
		return fmt.Errorf("transition from %s, but the session is in %s", b.From, t.state)
	}
	if !CanTransition(b.From, b.To) {
		return fmt.Errorf("transition %s → %s is not a protocol transition (from %s: %s)", b.From, b.To, b.From, next(b.From))
	}
	if err := t.canEnter(b); err != nil {
		return fmt.Errorf("transition %s → %s: %w", b.From, b.To, err)
	}
	t.state = b.To
	return nil
}

// canEnter checks what the seed requires before each transition.
func (t *tracker) canEnter(b TransitionBody) error {
	switch b.To {
	case StateReviewing:
		if len(t.proposals) == 0 {
			return fmt.Errorf("needs at least one protocol.proposal_created")
		}
	case StateExecuting:
		if !slices.ContainsFunc(t.order, func(id string) bool { return t.proposals[id].approved() }) {
			return fmt.Errorf("needs a protocol.proposal_reviewed with approved status")
		}
	case StateClaiming:
		settled, open := 0, ""
		for _, id := range t.intentSeq {
			in := t.intents[id]
			switch {
			case in.review.Decision == IntentBlocked || in.exec == execCompleted || in.exec == execFailed:
				settled++
			case open == "":
				open = id
			}
		}
		if open != "" {
			return fmt.Errorf("intent %s is neither blocked nor executed to an outcome", open)
		}
		if settled == 0 {
			return fmt.Errorf("needs an executed (or blocked) tool intent")
		}
	case StateAuditing:
		if len(t.claims) == 0 {
			return fmt.Errorf("needs at least one protocol.claim_issued")
		}
	case StateCompleted:
		if t.verif != nil || t.last == nil || !passed(t.last.done.Status) {
			return fmt.Errorf("needs a protocol.verification_run_completed with status pass or pass-with-warnings")
		}
	case StateFailed:
		if t.verif != nil || t.last == nil || t.last.done.Status != VerificationFail {
			return fmt.Errorf("a session fails only on the auditor's protocol.verification_run_completed with status fail")
		}
	case StateAborted:
		if b.By == nil {
			return fmt.Errorf("an abort names the operator who asked for it")
		}
	}
	return nil
}

func passed(status string) bool {
	return status == VerificationPass || status == VerificationPassWithWarnings
}

func (p *proposal) approved() bool {
	return !p.revised && (p.status == ReviewApproved || p.status == ReviewConditional)
}

func (t *tracker) propose(e *ledger.Event) error {
	var b ProposalBody
	if err := decode(e, &b); err != nil {
		return err
	}
	if err := wantID("proposal", b.ProposalID, "P", len(t.order)); err != nil {
		return err
	}
	if b.Revises != "" {
		old := t.proposals[b.Revises]
		if old == nil {
			return fmt.Errorf("proposal %s revises %s, which does not exist", b.ProposalID, b.Revises)
		}
		if old.revised {
			return fmt.Errorf("proposal %s revises %s, which was already revised", b.ProposalID, b.Revises)
		}
		switch cause := t.revisable(old); {
		case cause == "":
			return fmt.Errorf("proposal %s revises %s, which was not rejected, blocked or failed", b.ProposalID, b.Revises)
		case cause != b.Cause:
			return fmt.Errorf("proposal %s gives cause %q for revising %s, but it was %s", b.ProposalID, b.Cause, b.Revises, cause)
		case cause == "failed" && !t.init.Thresholds.AllowFallback:
			return fmt.Errorf("policy does not permit a fallback proposal after a tool failure")
		}
		old.revised = true
	} else if b.Cause != "" {
		return fmt.Errorf("proposal %s gives a cause but revises nothing", b.ProposalID)
	}
	t.proposals[b.ProposalID] = &proposal{ProposalBody: b}
	t.order = append(t.order, b.ProposalID)
	return nil
}

// latest returns the last intent of p, or nil.
func (t *tracker) latest(p *proposal) *intent {
	if len(p.intents) == 0 {
		return nil
	}
	return t.intents[p.intents[len(p.intents)-1]]
}

// revisable says why proposal p may be revised: "rejected", "blocked" (its
// last intent was), "failed" (its last execution failed, with no retry),
// or "" when it may not.
func (t *tracker) revisable(p *proposal) string {
	if p.status == ReviewRejected {
		return "rejected"
	}
	switch in := t.latest(p); {
	case in == nil:
		return ""
	case in.review.Decision == IntentBlocked:
		return "blocked"
	case in.exec == execFailed && !in.retried:
		return "failed"
	}
	return ""
}

func (t *tracker) reviewProposal(e *ledger.Event) error {
	var b ProposalReviewBody
	if err := decode(e, &b); err != nil {
		return err
	}
	p := t.proposals[b.ProposalID]
	switch {
	case p == nil:
		return fmt.Errorf("review of proposal %s, which does not exist", b.ProposalID)
	case p.status != "":
		return fmt.Errorf("proposal %s is already reviewed (%s)", b.ProposalID, p.status)
	}
	p.status = b.Status
	return nil
}

func (t *tracker) intend(e *ledger.Event) error {
	var b IntentBody
	if err := decode(e, &b); err != nil {
		return err
	}
	p := t.proposals[b.ProposalID]
	switch {
	case wantID("intent", b.IntentID, "I", len(t.intentSeq)) != nil:
		return wantID("intent", b.IntentID, "I", len(t.intentSeq))
	case t.calls[b.CallID] != nil:
		return fmt.Errorf("call id %s is already used by intent %s", b.CallID, t.calls[b.CallID].IntentID)
	case p == nil:
		return fmt.Errorf("intent %s names proposal %s, which does not exist", b.IntentID, b.ProposalID)
	case p.status == ReviewRejected:
		return fmt.Errorf("proposal %s was rejected: a rejected proposal never executes", b.ProposalID)
	case !p.approved():
		return fmt.Errorf("proposal %s is not approved (review %q%s)", b.ProposalID, p.status, map[bool]string{true: ", revised"}[p.revised])
	case len(e.Refs) != 1:
		return fmt.Errorf("intent %s cites its stored input as its one artifact, not %d", b.IntentID, len(e.Refs))
	case !slices.Contains(p.RequiredTools, b.Tool):
		return fmt.Errorf("intent %s calls %s, which proposal %s does not require (%s)", b.IntentID, b.Tool, b.ProposalID, strings.Join(p.RequiredTools, ", "))
	}
	if b.RetryOf == "" {
		if len(p.intents) > 0 {
			return fmt.Errorf("proposal %s already has intent %s: a new intent for it is a retry (retry_of)", b.ProposalID, p.intents[0])
		}
		if b.Attempt != 1 {
			return fmt.Errorf("intent %s is attempt %d but retries nothing", b.IntentID, b.Attempt)
		}
	} else {
		old := t.intents[b.RetryOf]
		switch {
		case old == nil || old.ProposalID != b.ProposalID:
			return fmt.Errorf("intent %s retries %s, which is not an intent of proposal %s", b.IntentID, b.RetryOf, b.ProposalID)
		case old.exec != execFailed || old.retried:
			return fmt.Errorf("intent %s retries %s, which did not fail or was already retried", b.IntentID, b.RetryOf)
		case b.Attempt != old.Attempt+1:
			return fmt.Errorf("intent %s is attempt %d, want %d", b.IntentID, b.Attempt, old.Attempt+1)
		case b.Attempt > t.init.Thresholds.MaxRetries+1:
			return fmt.Errorf("intent %s is attempt %d: policy allows %d retries", b.IntentID, b.Attempt, t.init.Thresholds.MaxRetries)
		}
		old.retried = true
	}
	in := &intent{IntentBody: b, input: e.Refs[0]}
	t.intents[b.IntentID], t.calls[b.CallID] = in, in
	t.intentSeq = append(t.intentSeq, b.IntentID)
	p.intents = append(p.intents, b.IntentID)
	return nil
}

func (t *tracker) reviewIntent(e *ledger.Event) error {
	var b IntentReviewBody
	if err := decode(e, &b); err != nil {
		return err
	}
	in := t.intents[b.IntentID]
	switch {
	case in == nil:
		return fmt.Errorf("review of intent %s, which does not exist", b.IntentID)
	case in.review.Decision != "":
		return fmt.Errorf("intent %s is already reviewed (%s)", b.IntentID, in.review.Decision)
	case in.exec != execNone:
		return fmt.Errorf("intent %s is reviewed after its execution started", b.IntentID)
	case b.Decision == IntentApproved && riskRank(in.RiskClass) > riskRank(t.init.Thresholds.MaxRisk):
		return fmt.Errorf("action guard: the critic may not approve intent %s of risk %s, above the policy's max_risk %s", b.IntentID, in.RiskClass, t.init.Thresholds.MaxRisk)
	}
	in.review = b
	return nil
}

// needsApproval is the action guard: a tool intent at or above the policy's
// review_from risk executes only with the critic's approval.
func (t *tracker) needsApproval(in *intent) bool {
	return riskRank(in.RiskClass) >= riskRank(t.init.Thresholds.ReviewFrom)
}

func (t *tracker) execute(e *ledger.Event) error {
	var b ExecutionBody
	if err := decode(e, &b); err != nil {
		return err
	}
	in := t.intents[b.IntentID]
	if in == nil {
		return fmt.Errorf("%s for intent %s, which does not exist: protocol.tool_intent_signed must precede any tool execution event", e.Type, b.IntentID)
	}
	if b.CallID != in.CallID || b.Tool != in.Tool {
		return fmt.Errorf("%s for intent %s names call %s of %s, but the intent signed call %s of %s", e.Type, b.IntentID, b.CallID, b.Tool, in.CallID, in.Tool)
	}
	switch e.Type {
	case TypeToolExecutionStarted:
		switch {
		case in.exec != execNone:
			return fmt.Errorf("intent %s has already started executing", b.IntentID)
		case in.review.Decision == IntentBlocked:
			return fmt.Errorf("intent %s was blocked by the critic: execution is prohibited until a revision", b.IntentID)
		case t.needsApproval(in) && in.review.Decision != IntentApproved:
			return fmt.Errorf("action guard: intent %s (risk %s) needs the critic's approval before it executes", b.IntentID, in.RiskClass)
		case !t.proposals[in.ProposalID].approved():
			return fmt.Errorf("intent %s belongs to proposal %s, which is no longer approved", b.IntentID, in.ProposalID)
		}
		in.exec = execStarted
	default:
		if in.exec != execStarted {
			return fmt.Errorf("%s for intent %s, whose execution is not open", e.Type, b.IntentID)
		}
		if e.Type == TypeToolExecutionCompleted {
			if len(e.Refs) == 0 {
				return fmt.Errorf("a completed tool execution cites at least one stored input or output artifact")
			}
			in.exec = execCompleted
		} else {
			in.exec = execFailed
		}
		in.result, in.refs = b, e.Refs
	}
	return nil
}

func (t *tracker) claim(e *ledger.Event) error {
	var b ClaimBody
	if err := decode(e, &b); err != nil {
		return err
	}
	p := t.proposals[b.ProposalID]
	switch {
	case wantID("claim", b.ClaimID, "C", len(t.claimSeq)) != nil:
		return wantID("claim", b.ClaimID, "C", len(t.claimSeq))
	case p == nil:
		return fmt.Errorf("claim %s names proposal %s, which does not exist", b.ClaimID, b.ProposalID)
	case len(e.Refs) == 0:
		return fmt.Errorf("evidence guard: claim %s cites no artifact", b.ClaimID)
	case len(e.Refs) != len(b.Evidence):
		return fmt.Errorf("claim %s lists %d evidence ids but cites %d artifacts", b.ClaimID, len(b.Evidence), len(e.Refs))
	}
	for i, r := range e.Refs {
		if r.ID != b.Evidence[i] {
			return fmt.Errorf("claim %s lists evidence %s where it cites artifact %s", b.ClaimID, b.Evidence[i], r.ID)
		}
	}
	for _, id := range b.Intents {
		in := t.intents[id]
		switch {
		case in == nil || in.ProposalID != b.ProposalID:
			return fmt.Errorf("claim %s relies on intent %s, which is not an intent of proposal %s", b.ClaimID, id, b.ProposalID)
		case in.exec != execCompleted && in.exec != execFailed:
			return fmt.Errorf("claim %s relies on intent %s before its tool_execution_completed or tool_execution_failed", b.ClaimID, id)
		}
	}
	if b.Revises != "" {
		old := t.claims[b.Revises]
		switch {
		case old == nil || old.ProposalID != b.ProposalID:
			return fmt.Errorf("claim %s revises %s, which is not a claim of proposal %s", b.ClaimID, b.Revises, b.ProposalID)
		case old.superseded:
			return fmt.Errorf("claim %s revises %s, which was already revised", b.ClaimID, b.Revises)
		}
		old.superseded = true
	}
	c := &claim{ClaimBody: b, refs: e.Refs}
	t.claims[b.ClaimID] = c
	t.hashOf(e, &c.event)
	t.claimSeq = append(t.claimSeq, b.ClaimID)
	return nil
}

func (t *tracker) challenge(e *ledger.Event) error {
	var b ChallengeBody
	if err := decode(e, &b); err != nil {
		return err
	}
	c := t.claims[b.ClaimID]
	switch {
	case c == nil:
		return fmt.Errorf("challenge of claim %s, which does not exist", b.ClaimID)
	case c.superseded:
		return fmt.Errorf("challenge of claim %s, which was revised", b.ClaimID)
	case c.challenge != nil:
		return fmt.Errorf("claim %s is already challenged", b.ClaimID)
	}
	c.challenge = &b
	return nil
}

// finalize is the finalization guard at the ledger: the final statement
// comes within a verification run, once, and bundles only current claims
// with no open challenge.
func (t *tracker) finalize(e *ledger.Event) error {
	var b StatementBody
	if err := decode(e, &b); err != nil {
		return err
	}
	v := t.verif
	switch {
	case wantID("statement", b.StatementID, "S", t.statements) != nil:
		return wantID("statement", b.StatementID, "S", t.statements)
	case v == nil:
		return fmt.Errorf("finalization guard: the final statement needs a verification run in progress")
	case b.VerificationID != v.VerificationID:
		return fmt.Errorf("finalization guard: the statement names verification %s, but %s is in progress", b.VerificationID, v.VerificationID)
	case v.Reason != ReasonAudit:
		return fmt.Errorf("finalization guard: verification %s is an integrity check, not an audit", v.VerificationID)
	}
	for _, bc := range b.Claims {
		c := t.claims[bc.ClaimID]
		switch {
		case c == nil:
			return fmt.Errorf("finalization guard: claim %s does not exist", bc.ClaimID)
		case c.superseded:
			return fmt.Errorf("finalization guard: claim %s was revised; bundle its revision", bc.ClaimID)
		case c.challenge != nil:
			return fmt.Errorf("finalization guard: claim %s has an open challenge", bc.ClaimID)
		case bc.Event != c.event.String():
			return fmt.Errorf("finalization guard: claim %s is event %s, not %s", bc.ClaimID, c.event, bc.Event)
		}
	}
	v.statement = true
	t.hashOf(e, &v.statementHash)
	t.statements++
	return nil
}

func (t *tracker) verify(e *ledger.Event) error {
	if e.Type == TypeVerificationRunStarted {
		var b VerificationStartedBody
		if err := decode(e, &b); err != nil {
			return err
		}
		switch {
		case t.verif != nil:
			return fmt.Errorf("verification %s is already in progress", t.verif.VerificationID)
		case wantID("verification", b.VerificationID, "V", t.verifications) != nil:
			return wantID("verification", b.VerificationID, "V", t.verifications)
		case b.HeadSeq >= e.Seq:
			return fmt.Errorf("verification %s covers head %d, which is not before it", b.VerificationID, b.HeadSeq)
		case b.Reason == ReasonAudit && t.state != StateAuditing:
			return fmt.Errorf("an audit runs in state auditing; an integrity check may run in any state")
		}
		t.verif = &verification{VerificationStartedBody: b}
		t.verifications++
		return nil
	}
	var b VerificationCompletedBody
	if err := decode(e, &b); err != nil {
		return err
	}
	v := t.verif
	switch {
	case v == nil || v.VerificationID != b.VerificationID:
		return fmt.Errorf("verification %s completes without its protocol.verification_run_started", b.VerificationID)
	case len(e.Refs) != 1 || e.Refs[0].ID != b.Report:
		return fmt.Errorf("verification %s cites its report %s as its one artifact", b.VerificationID, b.Report)
	case passed(b.Status) && !v.statement:
		return fmt.Errorf("finalization guard: verification %s passes only with a protocol.final_statement_signed", b.VerificationID)
	case passed(b.Status) && b.FinalStatement != v.statementHash.String():
		return fmt.Errorf("verification %s names final statement %s, not %s", b.VerificationID, b.FinalStatement, v.statementHash)
	}
	v.done, v.report = &b, e.Refs[0]
	t.last, t.verif = v, nil
	return nil
}
