// Package playbook defines a playbook: one kind of work sanad runs, as one
// value. It holds who acts (agent profiles, their abilities and, where the
// built-in ones will not do, their implementations), under which rules (a
// policy), with what (tools), and how the work proceeds (a workflow, or a
// protocol session). Built-in playbooks and a user's own are registered with
// a runner the same way, and a playbook is also a folder ([Load]).
package playbook

import (
	"regexp"
	"slices"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/playbook/protocol"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

// Playbook is one kind of work. Its zero value is not valid: it needs a
// name, and a workflow or a session.
type Playbook struct {
	// Name identifies the playbook in a runner and in the record of its
	// runs: lower case letters and digits in words joined by '-' or '_'.
	Name        string
	Description string
	// Agents are the profiles of the agents that act in it, and Abilities
	// the knowledge their prompts may carry.
	Agents    []agent.Profile
	Abilities []agent.Ability
	// Nodes are agents' implementations, by agent id. An agent without one
	// is a built-in agent: backed by its model class's model when one is
	// configured, else the offline agent that analyses its evidence by
	// rules.
	Nodes map[string]NodeFunc
	// Tools are the playbook's own tools; Toolkit, when set, makes more of
	// them over the runtime's stores. A workflow also has the built-in
	// tools; a session without tools of its own has the protocol's.
	Tools   []tool.Spec
	Toolkit func(env Env) ([]tool.Spec, error)
	// Policy governs its tool calls; nil gives [OpenPolicy]'s.
	Policy *policy.Set
	// Workflow is how the work proceeds, with Actions the step actions it
	// uses beyond the built-in ones ("agent", "delegate", "tool", "echo").
	Workflow *workflow.Definition
	Actions  map[string]workflow.ActionFunc
	// Session, when set instead of Workflow, makes the playbook a protocol
	// session (Planner, Executor, Critic, Auditor) with these settings.
	Session *Session
}

// Session is the settings of a protocol session playbook.
type Session struct {
	Thresholds protocol.Thresholds
	Roster     protocol.Roster
}

// NodeFunc returns the implementation of the agent of profile p.
type NodeFunc func(p agent.Profile) agent.Node

// Env is what a playbook's toolkit may use of the runtime it is registered
// with.
type Env struct {
	Artifacts *artifact.Store
	// Home is the runtime's home: its store, recorder and artifacts.
	Home *home.Home
}

var nameRE = regexp.MustCompile(`^[a-z0-9]+([-_][a-z0-9]+)*$`)

// Validate checks that p can be registered: a valid name, a workflow or a
// session but not both, agents with valid and distinct ids, and an
// implementation only for agents it has. It does not check that the
// workflow's steps name its agents and tools: the runner does, knowing its
// built-in tools.
func (p *Playbook) Validate() error {
	const op = "playbook.validate"
	bad := func(format string, args ...any) error {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "playbook %q: "+format, append([]any{p.Name}, args...)...)
	}
	switch {
	case !nameRE.MatchString(p.Name) || len(p.Name) > 64:
		return bad("a playbook name is lower case letters and digits in words joined by '-' or '_', at most 64")
	case p.Workflow == nil && p.Session == nil:
		return bad("it needs a workflow or a session")
	case p.Workflow != nil && p.Session != nil:
		return bad("it has both a workflow and a session: a playbook runs one way")
	}
	if p.Workflow != nil {
		if err := p.Workflow.Validate(); err != nil {
			return err
		}
	}
	var ids []string
	for _, a := range p.Agents {
		if err := a.Validate(); err != nil {
			return err
		}
		if slices.Contains(ids, a.ID) {
			return bad("agent %s is given twice", a.ID)
		}
		ids = append(ids, a.ID)
	}
	for id, fn := range p.Nodes {
		if fn == nil {
			return bad("the implementation of agent %s is nil", id)
		}
		if !slices.Contains(ids, id) && id != agent.StandardID {
			return bad("it has an implementation for agent %s, which is not one of its agents", id)
		}
	}
	return nil
}
