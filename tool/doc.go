// Package tool is the one door between agents and the outside world: a
// registry of tools, each described by a [Spec], and a [Gateway] through which
// every call passes, is judged, runs and is recorded.
//
// # A call, in order
//
// [Gateway.Call] takes the parent run the call is made in, the
// [policy.Principal] making it and a [Request], and returns a [Result] by
// value. It never panics and never returns a Go error: every outcome,
// including an unknown tool, is a Result with a code.
//
//  1. Resolve: a tool the [Registry] does not hold is TOOL_NOT_FOUND
//     (INV-TOOL-003).
//  2. Validate: the call id, the round, the justification and the input,
//     which must be a JSON object of bounded size matching the tool's input
//     JSON Schema. Anything else is INVALID_INPUT and the tool's code never
//     runs (INV-TOOL-001).
//  3. Authorize: [policy.Set.Decide] with the tool matrix, tenant and case
//     isolation, prohibitions and required scope fields. A denial is
//     POLICY_DENIED.
//  4. Abuse rules: [policy.Set.CheckAbuse] with the gateway's own counts of
//     the calls it has let through for the parent run, in the current round
//     and in the whole run. A new round resets the per-round counts; a round
//     lower than the current one is refused, so rounds cannot be replayed to
//     reset them. A call id is used at most once per parent run. A refusal is
//     TOOL_ABUSE_RULES (or CONFLICT for a reused call id).
//  5. Approval: a tool whose risk class needs approval (in tools.yaml, or in
//     its Spec: the stricter wins) first records a tool.intent signed by the
//     acting agent, with the normalized input hash, risk class and
//     justification. For a critic approval the [Approver] decides: approve
//     records tool.approved, block records tool.blocked and the tool never
//     runs (BLOCKED). For a human approval the [HumanApprover] decides (a
//     [GateApprover] opens a human gate in the call's run and waits for a
//     person with the required role); without one the call is refused with
//     APPROVAL_REQUIRED.
//  6. Execute in a tool_gateway child run of the parent: each attempt is
//     bounded by the tool's timeout (ERR_TIMEOUT), receives the idempotency
//     key (parent run id "/" call id) and its attempt number, and is retried
//     with exponential backoff only when its error is retryable
//     ([sanad.IsRetryable]) and the tool is idempotent or has no side effect.
//     An attempt that does not return within a grace period after its
//     deadline is abandoned and never retried, since it may still be running.
//  7. Store the canonical input and output as artifacts, check the output
//     against the tool's output schema, and record tool.completed with the
//     result hash, or tool.failed with the bounded error. The Result holds
//     the output as a read-only view: [Result.Output] returns a fresh copy
//     each time (INV-TOOL-002).
//
// # Every call leaves events
//
// A call that is let through is a tool_gateway child run: run.started (with
// the input artifact), its authz.decision (the policy's allow), then
// tool.intent and tool.approved or tool.blocked for risky tools, one
// tool.started per attempt, each followed by tool.completed or tool.failed,
// and the run's terminal event. A call refused after it was let through (no
// approval, or the caller's context ended before an attempt began) records a
// tool.refused in its own run before the run fails.
//
// A call refused before it is let through has no run of its own: there is
// nothing to execute, and a denied run would record every refusal, an unknown
// tool included, as POLICY_DENIED. It is recorded in the parent run instead:
// an authz.decision with allow false when policy refused it (the tool matrix,
// isolation, an abuse rule), then, for every refusal, a tool.refused event
// with the code, the stage that refused, and the reason. Only a call whose
// parent run is nil or has ended leaves no event: the run lifecycle allows
// none, so such a call is refused with INVALID_INPUT and nothing runs.
//
// Each tool.* body carries what seed 000 §6.1 asks of a tool call audit
// event: the acting agent and role, the tool, the normalized input hash, the
// status (SUCCESS or a code), the result hash, and the round and debate id
// when given. [Vocabulary] declares the bodies and an ordering rule: a
// tool.intent precedes any execution of its call, tool.started precedes
// tool.completed or tool.failed, and a blocked intent is never followed by
// tool.started.
package tool
