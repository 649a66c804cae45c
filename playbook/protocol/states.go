package protocol

import (
	"slices"
	"strings"
)

// State is where a session stands in its lifecycle (seed 002, Session
// Lifecycle): a projection of its trace, named by the last
// protocol.state_transition.
type State string

// The nine states of a session.
const (
	StateInitialized State = "initialized"
	StatePlanning    State = "planning"
	StateReviewing   State = "reviewing"
	StateExecuting   State = "executing"
	StateClaiming    State = "claiming"
	StateAuditing    State = "auditing"
	StateCompleted   State = "completed"
	StateFailed      State = "failed"
	StateAborted     State = "aborted"
)

// States lists the states in lifecycle order.
var States = []State{StateInitialized, StatePlanning, StateReviewing, StateExecuting, StateClaiming,
	StateAuditing, StateCompleted, StateFailed, StateAborted}

// Valid reports whether s is one of the nine states.
func (s State) Valid() bool { return slices.Contains(States, s) }

// Terminal reports whether s ends the session: completed, failed or aborted.
func (s State) Terminal() bool {
	return s == StateCompleted || s == StateFailed || s == StateAborted
}

// forward is the move each active state makes when its work is done
// (transitions 1 to 6 of the seed).
var forward = map[State]State{
	StateInitialized: StatePlanning, StatePlanning: StateReviewing, StateReviewing: StateExecuting,
	StateExecuting: StateClaiming, StateClaiming: StateAuditing, StateAuditing: StateCompleted,
}

// CanTransition reports whether from → to is one of the seed's transitions:
// the forward move of an active state, or any active state to failed
// (transition 7) or aborted (transition 8). A terminal state goes nowhere.
// Whether a move is allowed now also depends on what the trace holds, which
// the ordering rule of [Vocabulary] checks.
func CanTransition(from, to State) bool {
	if !from.Valid() || from.Terminal() || !to.Valid() {
		return false
	}
	return to == StateFailed || to == StateAborted || forward[from] == to
}

// next lists the states from can move to, for error messages.
func next(from State) string {
	if !from.Valid() || from.Terminal() {
		return "none"
	}
	return strings.Join([]string{string(forward[from]), string(StateFailed), string(StateAborted)}, ", ")
}

// Role is one of the four protocol roles (seed 002, Protocol Roles).
type Role string

// The protocol roles.
const (
	RolePlanner  Role = "planner"
	RoleExecutor Role = "executor"
	RoleCritic   Role = "critic"
	RoleAuditor  Role = "auditor"
)

// Roles lists the roles.
var Roles = []Role{RolePlanner, RoleExecutor, RoleCritic, RoleAuditor}

// Roster names the identity that acts, and signs, in each role: each role
// has its own identity, so its own signing key.
type Roster map[Role]string

// DefaultRoster names each role's identity after the role.
var DefaultRoster = Roster{RolePlanner: "planner", RoleExecutor: "executor", RoleCritic: "critic", RoleAuditor: "auditor"}

// Risk levels, lowest first. The risk classes of the session policy's
// tools.yaml carry these names.
const (
	RiskLow      = "low"
	RiskMedium   = "medium"
	RiskHigh     = "high"
	RiskCritical = "critical"
)

// RiskLevels lists the risk levels, lowest first.
var RiskLevels = []string{RiskLow, RiskMedium, RiskHigh, RiskCritical}

// riskRank returns the position of level in RiskLevels, or -1.
func riskRank(level string) int { return slices.Index(RiskLevels, level) }
