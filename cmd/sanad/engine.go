package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/delegation"
	"github.com/sanadhq/sanad/examples"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

// abilityBudget is the token budget of the ability block of an agent step's
// system prompt.
const abilityBudget = 1024

// engineOptions say where the workflow engine's policy and agents come from.
type engineOptions struct {
	// PolicyDir is a policy folder; empty means the built-in policy (see
	// defaultPolicy).
	PolicyDir string
	// AgentsDir is a folder of agent profiles, with their abilities in its
	// abilities/ sub-folder; empty means the example agents built into the
	// binary.
	AgentsDir string
	// ModelConfig is a file with a models: section; empty means the home's
	// sanad.yaml, if it has one (see loadModels).
	ModelConfig string
	// Environ is the environment the model overrides and API keys are read
	// from, as os.Environ returns it; nil means the process's.
	Environ []string
	// NoModels wires no model, whatever is configured: for commands that
	// run no step (cancel), which must work when a key is missing.
	NoModels bool
}

// engine wires workflow engines over a home: the agents and abilities steps
// run, the built-in tools, the policy that governs them, and the gateway and
// gates between them. It is safe for concurrent use.
type engine struct {
	home    *home.Home
	agents  *agent.Registry
	library *agent.Library
	tools   *tool.Registry
	policy  *policy.Set
	gateway *tool.Gateway
	gates   *gate.Service
	// models are the configured model classes (none in deterministic
	// mode); calls records the calls made to them.
	models *model.Registry
	calls  *model.Recorder
	// crash is passed to workflow engines as their Config.Crash, so that a
	// test can stop a run at a named point; nil does nothing.
	crash func(point string)
}

// newEngine wires the engine over the open home h.
func newEngine(h *home.Home, opt engineOptions) (*engine, error) {
	reg, lib, err := loadAgents(opt.AgentsDir)
	if err != nil {
		return nil, err
	}
	e := &engine{home: h, agents: reg, library: lib}
	if e.tools, err = builtinTools(h); err != nil {
		return nil, err
	}
	if !opt.NoModels {
		environ := opt.Environ
		if environ == nil {
			environ = os.Environ()
		}
		models, err := loadModels(h.Dir, opt.ModelConfig, environ)
		if err != nil {
			return nil, err
		}
		if e.models, err = models.open(); err != nil {
			return nil, err
		}
	}
	e.calls = &model.Recorder{Runs: h.Runs, Artifacts: h.Artifacts, Registry: e.models}
	if opt.PolicyDir != "" {
		e.policy, err = policy.Load(opt.PolicyDir)
	} else {
		e.policy, err = defaultPolicy(reg.List(), e.tools.List())
	}
	if err != nil {
		return nil, usageError{err}
	}
	e.gateway, err = tool.New(tool.Config{Registry: e.tools, Policy: e.policy, Runs: h.Runs, Artifacts: h.Artifacts})
	if err != nil {
		return nil, err
	}
	e.gates = &gate.Service{Runs: h.Runs, Store: h.DB, Roles: e.policy}
	return e, nil
}

// workflow returns the workflow engine. Step agents act in the policy role
// of their profile; a tool call is judged by the policy; an interrupted
// effect that cannot be retried opens a gate for the operator role, which
// the run does not wait on: a later resume goes on once it is resolved.
//
// Besides the built-in actions it has "agent", the default of a step (see
// runAgent), and "delegate", which hands the task in the step's "with"
// ({"to": AGENT, "task": TEXT}) to another agent along the delegation chain.
func (e *engine) workflow() (*workflow.Engine, error) {
	actions := workflow.NewActions()
	actions.Register("agent", e.runAgent)
	actions.Register("delegate", func(ctx context.Context, s *workflow.StepContext) (json.RawMessage, error) {
		var with struct {
			To   string `json:"to"`
			Task string `json:"task"`
		}
		if err := json.Unmarshal(s.Step.With, &with); err != nil || with.To == "" {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, "agent.delegate", "step %s: delegate needs with: {to: AGENT, task: TEXT}", s.Step.ID)
		}
		return s.Delegate(ctx, with.To, with.Task, nil)
	})
	return workflow.New(workflow.Config{
		Runs: e.home.Runs, Store: e.home.DB, Actions: actions,
		Gateway: e.gateway, Tools: e.tools, Artifacts: e.home.Artifacts,
		Gates:        e.gates,
		GateRole:     workflow.DefaultGateRole,
		WaitForGates: false,
		Roles:        e.role,
		Crash:        e.crash,
		Delegate:     e.delegated,
	})
}

// start records a run of d and runs it (see workflow.Engine.Start), as the
// command line's caller, pinning the policy in its decision.
func (e *engine) start(ctx context.Context, d *workflow.Definition, input json.RawMessage, scope sanad.Scope) (workflow.Result, error) {
	wf, err := e.workflow()
	if err != nil {
		return workflow.Result{}, err
	}
	return wf.Start(ctx, d, input, workflow.Options{
		Scope: scope,
		Decision: runs.Decision{Allow: true, Rule: "cli", Reason: "workflow " + d.Name + " started from the command line",
			PolicyVersions: e.policy.Versions()},
	})
}

// resume goes on with the workflow run id (see workflow.Engine.Resume).
func (e *engine) resume(ctx context.Context, id string) (workflow.Result, error) {
	wf, err := e.workflow()
	if err != nil {
		return workflow.Result{}, err
	}
	return wf.Resume(ctx, id)
}

// cancel ends the workflow run id as cancelled (see workflow.Engine.Cancel).
func (e *engine) cancel(ctx context.Context, id, reason string) error {
	wf, err := e.workflow()
	if err != nil {
		return err
	}
	return wf.Cancel(ctx, id, reason)
}

// loadAgents reads the agent profiles and their abilities: those of dir
// (abilities in dir/abilities, if it exists), or the examples built into the
// binary when dir is empty. Every ability a profile names must be in the
// library.
func loadAgents(dir string) (*agent.Registry, *agent.Library, error) {
	var fsys fs.FS = examples.FS
	profiles, abilities := "agents", "agents/abilities"
	if dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, nil, usagef("--agents %s: not a folder of agent profiles", dir)
		}
		fsys, profiles, abilities = os.DirFS(dir), ".", "abilities"
		if st, err := os.Stat(filepath.Join(dir, "abilities")); err != nil || !st.IsDir() {
			abilities = ""
		}
	}
	ps, err := agent.LoadDir(fsys, profiles)
	if err != nil {
		return nil, nil, usageError{err}
	}
	lib := (*agent.Library)(nil)
	if abilities != "" {
		if lib, err = agent.LoadLibrary(fsys, abilities); err != nil {
			return nil, nil, usageError{err}
		}
	}
	reg := agent.NewRegistry()
	if err := reg.CreateAll(ps...); err != nil {
		return nil, nil, usageError{err}
	}
	for _, p := range reg.List() {
		if err := lib.Check(p); err != nil {
			return nil, nil, usageError{err}
		}
	}
	return reg, lib, nil
}

// role is the policy role an agent acts in: its profile's. An agent the
// registry does not hold gets no role, so the engine names it after the
// agent, and policy denies what it asks for.
func (e *engine) role(id string) string {
	if p, err := e.agents.Get(id); err == nil {
		return p.Role
	}
	return ""
}

// check reports, as a usage error, a step whose agent is not known or whose
// tool (or compensation's tool) is not built in, before anything is
// recorded.
func (e *engine) check(file string, d *workflow.Definition) error {
	for _, s := range d.Steps {
		if _, err := e.agents.Get(s.Agent); err != nil {
			return usagef("%s: step %q: no agent %q (known: %s)", file, s.ID, s.Agent, strings.Join(e.agentIDs(), ", "))
		}
		tools := []string{s.Tool}
		if s.Compensate != nil {
			tools = append(tools, s.Compensate.Tool)
		}
		for _, t := range tools {
			if _, ok := e.tools.Lookup(t); t != "" && !ok {
				return usagef("%s: step %q: no tool %q (built in: %s)", file, s.ID, t, strings.Join(toolNames(e.tools.List()), ", "))
			}
		}
	}
	return nil
}

func (e *engine) agentIDs() []string {
	var ids []string
	for _, p := range e.agents.List() {
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

// runAgent is the "agent" action, the default of a step: the step's agent
// performs the step's task on the outputs it depends on, with its abilities
// injected into its system prompt. The step's tools must be among those the
// agent's profile permits or the built-in ones. When a model is configured
// for the agent's model class, the agent asks it, through the step's effect
// journal (see modelNode); otherwise it runs on the offline node, whose
// output is a deterministic record of what it was given.
func (e *engine) runAgent(ctx context.Context, s *workflow.StepContext) (json.RawMessage, error) {
	const op = "agent.step"
	p, err := e.agents.Get(s.Step.Agent)
	if err != nil {
		return nil, err
	}
	for _, t := range s.Step.Tools {
		if _, builtin := e.tools.Lookup(t); !builtin && !slices.Contains(p.PermittedTools, t) {
			return nil, sanad.Errorf(sanad.CodePolicyDenied, op, "step %s lists tool %q, which agent %s is not permitted (its tools: %v)", s.Step.ID, t, p.ID, p.PermittedTools)
		}
	}
	task := s.Step.Task
	if task == "" {
		task = s.Step.Description
	}
	var generate generateFunc
	if class, ok := e.modelClass(p); ok {
		generate = func(ctx context.Context, req model.Request) (model.Response, error) {
			return s.Generate(ctx, e.calls, class, req)
		}
	}
	return e.perform(ctx, p, task, stepInputs(s), s.Chain(), generate)
}

// delegated performs a task delegated to d.To() (see workflow.Delegator),
// on the model of the agent's class when one is configured (the call a
// model_call child of the delegation's agent run), else on the offline
// node.
func (e *engine) delegated(ctx context.Context, d workflow.Delegation) (json.RawMessage, error) {
	p, err := e.agents.Get(d.To())
	if err != nil {
		return nil, err
	}
	var generate generateFunc
	if class, ok := e.modelClass(p); ok && d.Run != nil {
		generate = func(ctx context.Context, req model.Request) (model.Response, error) {
			return e.calls.Generate(ctx, d.Run, p.ID, class, req)
		}
	}
	return e.perform(ctx, p, d.Task, map[string]json.RawMessage{"delegated": d.Input}, d.Chain, generate)
}

// modelClass returns the model class of p's profile when a model is
// configured for it.
func (e *engine) modelClass(p agent.Profile) (string, bool) {
	if p.ModelClass == "" {
		return "", false
	}
	if _, ok := e.models.Model(p.ModelClass); !ok {
		return "", false
	}
	return p.ModelClass, true
}

// mode is the mode of the engine's runs: model when a model is configured
// for the class of at least one agent, else deterministic. Each agent
// step's output says the mode it was produced in.
func (e *engine) mode() string {
	for _, p := range e.agents.List() {
		if _, ok := e.modelClass(p); ok {
			return modeModel
		}
	}
	return modeDeterministic
}

// perform has agent p do task on inputs: through generate, when the agent
// has a model, else on the offline node, whose output is a deterministic
// record of what it was given.
func (e *engine) perform(ctx context.Context, p agent.Profile, task string, inputs map[string]json.RawMessage, chain delegation.Chain, generate generateFunc) (json.RawMessage, error) {
	system := "You are " + p.Name + ": " + p.Description
	var node agent.Node = &offlineNode{profile: p, library: e.library, budget: abilityBudget, system: system}
	if generate != nil {
		cc, _ := e.models.Class(p.ModelClass)
		node = &modelNode{profile: p, library: e.library, budget: abilityBudget, system: system, class: p.ModelClass, provider: cc.Provider, generate: generate}
	}
	in := agent.Input{Task: task, Inputs: inputs, SystemPrompt: system, Chain: chain}
	out, _, err := agent.Run(ctx, node, e.library, in, abilityBudget)
	if err != nil {
		return nil, err
	}
	return out.Content, nil
}

// stepInputs returns the outputs an agent step works on: those of the steps
// it depends on. A step that names none gets every output completed before
// it when its workflow runs one step at a time, and none when it runs steps
// in parallel: which of its siblings had finished when it started would
// depend on timing, and a step's output must depend only on the record, so
// that a replay finds the same.
func stepInputs(s *workflow.StepContext) map[string]json.RawMessage {
	parallel := s.Workflow().MaxConcurrency > 1
	inputs := map[string]json.RawMessage{}
	switch {
	case len(s.Step.DependsOn) > 0:
		for _, dep := range s.Step.DependsOn {
			if out, ok := s.Outputs[dep]; ok {
				inputs[dep] = out
			}
		}
	case !parallel:
		for k, v := range s.Outputs {
			inputs[k] = v
		}
	}
	return inputs
}

// defaultPolicy is the policy of a run given no --policy: every role of the
// agents may call every built-in tool, with no approval, and the operator, a
// person, resolves gates. Tools declare their risk class; read-only tools
// are "read", the others "write".
func defaultPolicy(agents []agent.Profile, tools []tool.Spec) (*policy.Set, error) {
	var roleNames []string
	for _, p := range agents {
		if !slices.Contains(roleNames, p.Role) {
			roleNames = append(roleNames, p.Role)
		}
	}
	slices.Sort(roleNames)
	var r strings.Builder
	r.WriteString("version: \"builtin-1\"\ndescription: The roles of the agents, and the operator who resolves gates.\nroles:\n")
	for _, name := range roleNames {
		fmt.Fprintf(&r, "  %s:\n    kind: agent\n", name)
	}
	if !slices.Contains(roleNames, workflow.DefaultGateRole) {
		fmt.Fprintf(&r, "  %s:\n    kind: human\n    description: Resolves the gates of workflow runs.\n", workflow.DefaultGateRole)
	}
	var t strings.Builder
	t.WriteString("version: \"builtin-1\"\ndescription: The built-in tools, open to every agent role.\nrisk_classes:\n")
	t.WriteString("  read:\n    approval: none\n  write:\n    approval: none\ntools:\n")
	for _, s := range tools {
		fmt.Fprintf(&t, "  %s:\n    roles: [%s]\n    risk: %s\n", s.Name, strings.Join(roleNames, ", "), s.Risk)
	}
	return policy.LoadFS(fstest.MapFS{
		"roles.yaml": {Data: []byte(r.String())},
		"tools.yaml": {Data: []byte(t.String())},
	})
}
