// Package agent describes the agents of a playbook and how a task reaches
// one: their profiles, the registry that holds them, the selection of an
// agent for a task, the abilities injected into its prompt, and the limits
// on delegating a task from one agent to another.
//
// # Profiles
//
// A [Profile] is data, usually a YAML file (examples/agents holds some).
// [ParseProfile] checks it against an embedded JSON Schema before anything
// else reads it, so an unknown key, a bad id or a string where a list
// belongs is an error naming the file and line. A [Registry] validates
// again every profile it is given, including those built in Go, and keeps
// ids unique: [Registry.Create] refuses a taken id, [Registry.Update] an
// unknown one. Every registry holds the [StandardID] agent, which can be
// changed but never removed or disabled.
//
// # Selection
//
// [Registry.Select] ranks the enabled agents for a task from their example
// and not-for tasks. It is deterministic, keeps confidence in [0, 1], sorts
// best first and never returns nothing: when no agent matches, the answer
// is the standard agent at [FallbackConfidence].
//
// # Abilities
//
// An [Ability] is knowledge an agent is given through its system prompt. A
// [Library] holds them; [Library.Inject] puts an agent's core abilities,
// then those its task is about, in a block in front of the system prompt,
// within a budget counted in tokens of [Encoding]. [Prepare] does it
// before a [Node] executes, and [Run] chains preparation, execution and
// output validation in that order.
//
// Delegation chains are in package delegation.
package agent
