// Package delegation carries the chain of agents a task is handed along:
// at most MaxDepth deep, never back to an agent already in it (seed 003
// INV-DT-001, INV-DT-002). A refusal is an error value with code
// DELEGATION_REFUSED.
package delegation

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad"
)

// DefaultMaxDepth is how many delegations deep a chain may go when its
// MaxDepth is not set.
const DefaultMaxDepth = 5

// Sentinels of refused delegations, wrapped in a *sanad.Error with code
// DELEGATION_REFUSED; test for them with errors.Is.
var (
	ErrMaxDepth = errors.New("delegation depth limit reached")
	ErrCircular = errors.New("circular delegation")
)

const opDelegate = "delegation.delegate"

// Chain is the path of a delegation: the agent that received the task
// first, then each agent it was delegated to, the current one last. A
// Chain is a value: [Chain.Delegate] returns a new one and leaves its
// receiver as it was.
type Chain struct {
	Agents []string
	// MaxDepth bounds [Chain.Depth]; zero or less means DefaultMaxDepth.
	MaxDepth int
}

// NewChain returns the chain of a task given to root, at depth 0.
func NewChain(root string) Chain {
	return Chain{Agents: []string{root}, MaxDepth: DefaultMaxDepth}
}

// Depth is the number of delegations made: 0 for a chain of one agent (and
// for the empty chain).
func (c Chain) Depth() int { return max(0, len(c.Agents)-1) }

// Current returns the agent now holding the task, or "" for the empty chain.
func (c Chain) Current() string {
	if len(c.Agents) == 0 {
		return ""
	}
	return c.Agents[len(c.Agents)-1]
}

// IsInChain reports whether id is the current agent or one of its
// ancestors.
func (c Chain) IsInChain(id string) bool { return slices.Contains(c.Agents, id) }

func (c Chain) maxDepth() int {
	if c.MaxDepth <= 0 {
		return DefaultMaxDepth
	}
	return c.MaxDepth
}

// String returns the chain as "a → b → c".
func (c Chain) String() string { return strings.Join(c.Agents, " → ") }

// CanDelegate reports whether the current agent may delegate to the agent
// to. It returns nil, or a *sanad.Error with code DELEGATION_REFUSED
// wrapping [ErrCircular] when to is already in the chain, or [ErrMaxDepth]
// when the chain is MaxDepth delegations deep. An empty id is
// INVALID_INPUT. Delegating from the empty chain starts a chain at to.
func (c Chain) CanDelegate(to string) error {
	switch {
	case to == "":
		return sanad.Errorf(sanad.CodeInvalidInput, opDelegate, "delegation from %s names no agent", c.Current())
	case to == c.Current():
		return sanad.Wrap(ErrCircular, sanad.CodeDelegation, opDelegate,
			"agent "+to+" cannot delegate to itself (chain "+c.String()+"): circular delegation refused")
	case c.IsInChain(to):
		return sanad.Wrap(ErrCircular, sanad.CodeDelegation, opDelegate,
			"agent "+to+" is already in the chain "+c.String()+": circular delegation refused")
	case len(c.Agents) > 0 && c.Depth() >= c.maxDepth():
		return sanad.Wrap(ErrMaxDepth, sanad.CodeDelegation, opDelegate,
			"delegation from "+c.Current()+" to "+to+" would exceed max depth "+strconv.Itoa(c.maxDepth())+": "+c.String()+" → "+to)
	}
	return nil
}

// Delegate returns the chain with to appended, or the error of
// [Chain.CanDelegate]. The new chain keeps c's MaxDepth.
func (c Chain) Delegate(to string) (Chain, error) {
	if err := c.CanDelegate(to); err != nil {
		return Chain{}, err
	}
	next := make([]string, len(c.Agents), len(c.Agents)+1)
	copy(next, c.Agents)
	return Chain{Agents: append(next, to), MaxDepth: c.MaxDepth}, nil
}
