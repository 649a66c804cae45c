package policy

import "github.com/sanadhq/sanad"

// RoleKind says who holds a role.
type RoleKind string

// The role kinds of roles.yaml.
const (
	KindAgent  RoleKind = "agent"  // an agent acting through the runtime
	KindHuman  RoleKind = "human"  // a person: reviewer, approver, administrator
	KindSystem RoleKind = "system" // the runtime itself, such as an orchestrator
)

// Role is what roles.yaml says about one role.
type Role struct {
	Name        string
	Kind        RoleKind
	Description string
	// Includes lists the roles this role stands in for when a role is
	// required, as by a human gate (see [Set.Satisfies]).
	Includes []string
}

func (r Role) clone() Role {
	r.Includes = clone(r.Includes)
	return r
}

// Approval says who must approve a call of a tool before it runs.
type Approval string

// The approvals a risk class may require.
const (
	ApprovalNone   Approval = "none"   // the call runs once authorized
	ApprovalCritic Approval = "critic" // a critic approves the signed tool intent first
	ApprovalHuman  Approval = "human"  // a person approves through a human gate first
)

// Tool is what tools.yaml says about one tool: who may call it, its risk
// class and the approval that class requires, and its abuse rules.
type Tool struct {
	Name        string
	Description string
	Roles       []string // the roles the matrix allows; every other role is denied
	Risk        string   // a risk class of tools.yaml
	Approval    Approval // the approval Risk requires
	// MaxCallsPerRound and MaxCallsPerRun limit how often one run may call
	// the tool; zero means no limit.
	MaxCallsPerRound int
	MaxCallsPerRun   int
	Requires         []FieldRule // what each call's input must carry
	RequiredScope    []string    // scope fields each call must provide
	Prohibitions     []string    // content tags refused for this tool
}

func (t Tool) clone() Tool {
	t.Roles = clone(t.Roles)
	t.Requires = clone(t.Requires)
	t.RequiredScope = clone(t.RequiredScope)
	t.Prohibitions = clone(t.Prohibitions)
	return t
}

// Lane is what lanes.yaml says about one lane: the kind of child run it
// mediates, who may act through it, which actions, which scope fields every
// request must provide, which content tags it refuses, and whether it may
// reach across cases.
type Lane struct {
	Name          string
	Description   string
	Kind          sanad.RunKind // tool_gateway, db_write, promotion or export
	Callers       []string
	Actions       []string
	RequiredScope []string
	Prohibitions  []string
	CrossCase     bool
}

func (l Lane) clone() Lane {
	l.Callers = clone(l.Callers)
	l.Actions = clone(l.Actions)
	l.RequiredScope = clone(l.RequiredScope)
	l.Prohibitions = clone(l.Prohibitions)
	return l
}

// FieldRule is one requirement on a field of a tool's input or of a
// challenge: a list with at least MinItems non-empty items, or a string with
// at least MinChars characters (Unicode code points, surrounding space not
// counted). Exactly one of MinItems and MinChars is set. Reason, when set, is
// the message a refused caller reads.
type FieldRule struct {
	Field    string
	MinItems int
	MinChars int
	Reason   string
}

func clone[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append([]T(nil), s...)
}
