// Package policy decides who may do what: the roles, tools and lanes of a
// playbook, loaded from data and judged by a pure function.
//
// # Policy is data
//
// A playbook's policy is a folder of up to three YAML files:
//
//   - roles.yaml declares the roles (agent, human or system). A role that is
//     not declared is denied everything.
//   - tools.yaml is the tool permission matrix (each tool lists the roles
//     that may call it), each tool's risk class and the approval that class
//     requires (none, a critic, a human), and the abuse rules: calls per round
//     and per run, and what a call's input must carry (flag_defect needs at
//     least one evidence ref and a description of 50 characters). Its
//     challenges section says what a challenge must carry not to be frivolous.
//   - lanes.yaml declares the lanes through which agents act on a case: for
//     each, the kind of child run it mediates, the roles that may call it, the
//     actions it allows ("transcription.run", "append:transcripts",
//     "upsert:entities"), the scope fields every request must provide, the
//     content tags it prohibits, and whether it may reach across cases.
//
// roles.yaml is required, and at least one of the other two. Each file is
// checked at load time against an embedded JSON Schema that rejects unknown
// keys, then against the others (a tool naming an undeclared role, a lane
// action that does not fit the lane's kind). Every failure names the file,
// line and column. Nothing that can be wrong with a policy is left to be
// found at decision time.
//
// Each file pins a version: the version it declares and the SHA-256 of its
// bytes ([Set.Versions]). A run records them, so it can be re-checked against
// exactly the rules it ran under.
//
// # Decisions
//
// [Set.Decide] takes a [Principal] (agent, role, scope), an [Action] (a tool
// call, or an action in a lane) and a [Resource] (scope, provided scope
// fields, content tags), and returns a [Decision]: allow or deny, the [Rule]
// that decided, a reason a person can read, and the file and line of the rule.
// It is pure (no I/O, no clock), allocates nothing on the allow path, and
// takes well under a microsecond. Deny wins: an action is allowed only when
// no rule denies it, and whatever the policy does not name is denied.
//
// Tenant isolation is absolute. Case isolation holds unless the action goes
// through a lane declared with cross_case: true. Lanes and tools may prohibit
// the tags of contract v1 (cross_case_lookup, external_export,
// shared_knowledge_write, raw_case_text, client_identity, privileged_notes):
// a resource carrying one is refused. A missing required scope field is
// refused by name.
//
// [Set.CheckAbuse] and [Set.CheckChallenge] apply the abuse and challenge
// rules; the tool gateway calls them with the counts and input it holds.
//
// The package never reads a file outside [Load] and [LoadFS], and never
// imports database/sql or net/http.
package policy
