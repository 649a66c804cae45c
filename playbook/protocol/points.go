package protocol

// Crash points: the places Config.Crash is called, where a test can stop
// the process to prove that a resume goes on from the last recorded event
// to the next valid transition, repeating nothing recorded. The ledger and
// the store name their own points for the inside of a commit.
const (
	PointInitialized              = "session.initialized"                     // the start and session_initialized are durable
	PointAfterProposals           = "session.after_proposals"                 // the planner's proposals are durable; still planning
	PointAfterProposalReview      = "session.after_proposal_review"           // a proposal_reviewed is durable
	PointAfterIntent              = "session.after_intent"                    // a tool_intent_signed is durable, not yet reviewed or executed
	PointAfterIntentReview        = "session.after_intent_review"             // a tool_intent_reviewed is durable
	PointAfterExecutionStarted    = "session.after_execution_started"         // tool_execution_started is durable; the gateway is not called
	PointAfterToolCall            = "session.after_tool_call"                 // the gateway returned; the outcome is not recorded
	PointAfterExecution           = "session.after_execution"                 // tool_execution_completed or _failed is durable
	PointAfterClaim               = "session.after_claim"                     // a claim_issued is durable, not yet reviewed
	PointAfterChallenge           = "session.after_challenge"                 // a claim_challenged is durable
	PointAfterVerificationStarted = "session.after_verification_started"      // verification_run_started is durable; no check has run
	PointAfterFinalStatement      = "session.after_final_statement"           // final_statement_signed is durable; no report yet
	PointAfterVerification        = "session.after_verification"              // verification_run_completed is durable; the state has not moved
	PointBeforeEnd                = "session.before_end"                      // the terminal state is durable; the run has not ended
	PointResumeLoaded             = "session.resume_after_load"               // a resume read and checked the trace
	PointEnterPlanning            = "session.enter_" + string(StatePlanning)  // the transition is durable
	PointEnterReviewing           = "session.enter_" + string(StateReviewing) //
	PointEnterExecuting           = "session.enter_" + string(StateExecuting) //
	PointEnterClaiming            = "session.enter_" + string(StateClaiming)  //
	PointEnterAuditing            = "session.enter_" + string(StateAuditing)  //
	PointEnterCompleted           = "session.enter_" + string(StateCompleted) //
	PointEnterFailed              = "session.enter_" + string(StateFailed)    //
)

// Points lists the crash points a session passes, in the order a session
// that completes passes them (PointEnterFailed is passed instead of
// PointEnterCompleted by one that fails).
var Points = []string{
	PointInitialized, PointEnterPlanning, PointAfterProposals, PointEnterReviewing,
	PointAfterProposalReview, PointEnterExecuting, PointAfterIntent, PointAfterIntentReview,
	PointAfterExecutionStarted, PointAfterToolCall, PointAfterExecution, PointEnterClaiming,
	PointAfterClaim, PointAfterChallenge, PointEnterAuditing, PointAfterVerificationStarted,
	PointAfterFinalStatement, PointAfterVerification, PointEnterCompleted, PointEnterFailed,
	PointBeforeEnd, PointResumeLoaded,
}
