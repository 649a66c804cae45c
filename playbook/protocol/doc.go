// Package protocol runs Planner / Executor / Critic / Auditor sessions
// (seed 002): a session is a run of kind session whose trace records every
// step as an event signed by the role that takes it.
//
// # Lifecycle
//
// A session moves through nine states, only by the seed's transitions:
// initialized → planning → reviewing → executing → claiming → auditing →
// completed, and from any active state to failed (on the auditor's failed
// verification) or aborted (on an operator's word). The planner proposes
// one unit per objective (objective, assumptions, tools, expected
// evidence); the critic approves, approves on conditions, or rejects; the
// executor signs a tool intent (normalized input hash, risk class,
// justification), which the critic must approve from the policy's
// review_from risk on and blocks above max_risk, and runs it through the
// tool gateway in the session run; the executor claims what the output
// shows, citing artifacts; the critic challenges weak or contradicted
// claims, and the executor revises them with new events. The auditor then
// verifies the trace — signatures, chain, Merkle inclusion, the ordering
// rules, the evidence behind every claim — and only if that passes does
// the planner sign the final statement, the bundle of claims that stand.
// The session completes on pass or pass-with-warnings, and fails otherwise.
//
// # The rule
//
// [Vocabulary] declares the protocol.* event types, each with a JSON Schema
// and the role that alone may emit it, and one ordering rule that replays a
// session's trace: the transitions and what each requires, the role guard,
// the action guard (approval of risky intents, nothing above max_risk), the
// evidence guard, the finalization guard, and the seed's ordering rules
// (an intent before any execution, the gateway's included; an execution's
// outcome before the claim that relies on it; the final statement the last
// role event before the verification completes). The ledger applies it at
// every append, so a violation is never written, and at every verification,
// so a violation written around the ledger is found.
//
// # Failure and recovery
//
// A trace found damaged (a bad signature) fails the session through a
// failed integrity verification; one the ledger can no longer extend (a
// broken chain) fails it in a stored report. Evidence missing when a claim
// is issued lets the session go on to an audit that fails. A tool failure
// is recorded and answered by a retry (a new intent) when it may pass and
// the tool is safe to repeat, or by a fallback proposal when policy permits.
// After a crash, [Engine.Resume] reloads the trace, checks it, settles the
// tool calls left open from what the gateway recorded, and goes on at the
// next valid transition: the roles decide from the trace alone, so a
// resumed session records what the stopped one would have.
//
// # Roles and modes
//
// Each role is an interface ([Planner], [Executor], [Critic], [Auditor]).
// The built-in roles are deterministic and offline, and sessions run them
// unless the engine is given a model ([Config.Generate]): then the planner
// ([ModelPlanner]) and the critic ([ModelCritic]) ask it, and the mode the
// session records when it starts is [ModeModel]. The policy is a floor the
// model cannot go below: the critic's model can reject, block and challenge
// more than the thresholds do, never less, and the planner's model proposes
// only tools the task plans, at the risk the policy gives them. A model's
// failure stops the session where it stands, never to go on in the other
// mode; Resume refuses an engine whose mode is not the session's.
package protocol
