package runner

import (
	"slices"
	"strings"
	"sync"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/playbook/protocol"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

// book is a registered playbook and what it is run with: its agents, their
// abilities, its tools and policy, and, once the first run needs them, the
// gateway and engines over the home.
type book struct {
	r       *Runner
	pb      *playbook.Playbook
	agents  *agent.Registry
	library *agent.Library
	tools   *tool.Registry
	policy  *policy.Set

	once    sync.Once // makes the fields below
	err     error
	gateway *tool.Gateway
	gates   *gate.Service
	engine  *workflow.Engine
	session *protocol.Engine
}

// newBook checks p and makes its registries.
func (r *Runner) newBook(p *playbook.Playbook) (*book, error) {
	const op = "runner.register"
	if p == nil {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "no playbook given")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	b := &book{r: r, pb: p, agents: agent.NewRegistry()}
	var err error
	if err = b.agents.CreateAll(p.Agents...); err != nil {
		return nil, err
	}
	if b.library, err = agent.NewLibrary(p.Abilities...); err != nil {
		return nil, err
	}
	for _, a := range b.agents.List() {
		if err := b.library.Check(a); err != nil {
			return nil, err
		}
	}
	// A session has the protocol's own tools, under its own policy; a
	// workflow has the built-in ones besides its own.
	var specs []tool.Spec
	if p.Session == nil {
		specs = slices.Clone(r.builtin)
	}
	specs = append(specs, p.Tools...)
	if p.Toolkit != nil {
		more, err := p.Toolkit(playbook.Env{Artifacts: r.home.Artifacts, Home: r.home})
		if err != nil {
			return nil, err
		}
		specs = append(specs, more...)
	}
	if p.Session != nil && p.Toolkit == nil && len(p.Tools) == 0 {
		specs = append(specs, protocol.Tools(r.home.Artifacts)...)
	}
	if b.tools, err = tool.NewRegistry(specs...); err != nil {
		return nil, err
	}
	switch {
	case p.Policy != nil:
		b.policy = p.Policy
	case p.Session != nil:
		b.policy, err = protocol.DefaultPolicy()
	default:
		b.policy, err = playbook.OpenPolicy(b.agents.List(), b.tools.List(), r.builtinNames())
	}
	if err != nil {
		return nil, err
	}
	if p.Workflow != nil {
		if err := b.check(p.Workflow); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (r *Runner) builtinNames() []string {
	names := make([]string, len(r.builtin))
	for i, s := range r.builtin {
		names[i] = s.Name
	}
	return names
}

// check reports, as INVALID_INPUT, a step whose agent is not one of the
// playbook's, whose tool (or compensation's tool) it lacks, or whose action
// is unknown.
func (b *book) check(d *workflow.Definition) error {
	const op = "runner.check"
	actions := b.actions()
	for _, s := range d.Steps {
		if _, err := b.agents.Get(s.Agent); err != nil {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "playbook %s: step %s: no agent %q (its agents: %s)", b.pb.Name, s.ID, s.Agent, strings.Join(b.agentIDs(), ", "))
		}
		// The tools a step lists for its agent are judged when it runs (a
		// tool its agent may not use fails the step with POLICY_DENIED);
		// the tool a step or its compensation calls must exist.
		var tools []string
		if s.Tool != "" {
			tools = append(tools, s.Tool)
		}
		if s.Compensate != nil && s.Compensate.Tool != "" {
			tools = append(tools, s.Compensate.Tool)
		}
		for _, t := range tools {
			if _, ok := b.tools.Lookup(t); !ok {
				return sanad.Errorf(sanad.CodeInvalidInput, op, "playbook %s: step %s: no tool %q (its tools: %s)", b.pb.Name, s.ID, t, strings.Join(toolNames(b.tools.List()), ", "))
			}
		}
		uses := []string{s.Uses}
		if s.Compensate != nil {
			uses = append(uses, s.Compensate.Uses)
		}
		for _, u := range uses {
			if _, ok := actions[u]; !ok {
				return sanad.Errorf(sanad.CodeInvalidInput, op, "playbook %s: step %s uses %q, which is not an action (actions: %s)", b.pb.Name, s.ID, u, strings.Join(sortedKeys(actions), ", "))
			}
		}
	}
	return nil
}

func (b *book) agentIDs() []string {
	var ids []string
	for _, p := range b.agents.List() {
		ids = append(ids, p.ID)
	}
	return ids
}

func toolNames(specs []tool.Spec) []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return names
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// actions returns the step actions of the playbook: "agent" (a step's
// default), "delegate", the workflow engine's built-in "tool" and "echo",
// and the playbook's own.
func (b *book) actions() map[string]workflow.ActionFunc {
	m := map[string]workflow.ActionFunc{
		"agent":    b.runAgent,
		"delegate": b.delegate,
		"tool":     nil, // built into the engine
		"echo":     nil,
	}
	for name, fn := range b.pb.Actions {
		m[name] = fn
	}
	return m
}

// role is the policy role an agent acts in: its profile's. An agent the
// playbook does not have gets none, so the engine names it after the agent,
// and policy denies what it asks for.
func (b *book) role(id string) string {
	if p, err := b.agents.Get(id); err == nil {
		return p.Role
	}
	return ""
}

// wire makes the gateway, the gate service and the engine of the playbook,
// once.
func (b *book) wire() error {
	b.once.Do(func() {
		r := b.r
		if b.err = r.writable("runner.run"); b.err != nil {
			return
		}
		h := r.home
		b.gates = &gate.Service{Runs: h.Runs, Store: h.DB, Roles: b.policy}
		if b.pb.Session != nil {
			cfg := protocol.Config{Runs: h.Runs, Store: h.DB, Artifacts: h.Artifacts, Policy: b.policy, Tools: b.tools,
				Thresholds: b.pb.Session.Thresholds, Roster: b.pb.Session.Roster, Crash: r.cfg.Crash}
			if _, ok := r.cfg.Models.Model("reasoning"); ok {
				cfg.Generate = protocol.Recorded(r.calls, "reasoning")
			}
			b.session, b.err = protocol.New(cfg)
			return
		}
		b.gateway, b.err = tool.New(tool.Config{Registry: b.tools, Policy: b.policy, Runs: h.Runs, Artifacts: h.Artifacts,
			Humans: workflow.Approvals{Ledger: h.Ledger}})
		if b.err != nil {
			return
		}
		actions := workflow.NewActions()
		for name, fn := range b.actions() {
			if fn != nil {
				actions.Register(name, fn)
			}
		}
		b.engine, b.err = workflow.New(workflow.Config{
			Runs: h.Runs, Store: h.DB, Actions: actions,
			Gateway: b.gateway, Tools: b.tools, Artifacts: h.Artifacts,
			Gates: b.gates, GateRole: r.cfg.GateRole, WaitForGates: r.cfg.WaitForGates,
			Roles: b.role, Crash: r.cfg.Crash, Delegate: b.delegated, OnEvent: r.cfg.OnEvent,
		})
	})
	return b.err
}

// mode is the mode of the playbook's runs: model when the model class of at
// least one of its agents has a model.
func (b *book) mode() string {
	if b.pb.Session != nil {
		if _, ok := b.r.cfg.Models.Model("reasoning"); ok {
			return ModeModel
		}
		return ModeDeterministic
	}
	for _, p := range b.agents.List() {
		if _, ok := b.modelClass(p); ok {
			return ModeModel
		}
	}
	return ModeDeterministic
}

// modelClass returns p's model class when a model is configured for it.
func (b *book) modelClass(p agent.Profile) (string, bool) {
	if p.ModelClass == "" || p.ModelClass == "none" {
		return "", false
	}
	if _, ok := b.r.cfg.Models.Model(p.ModelClass); !ok {
		return "", false
	}
	return p.ModelClass, true
}
