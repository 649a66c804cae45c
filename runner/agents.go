package runner

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/agent/llmagent"
	"github.com/sanadhq/sanad/agent/offline"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/workflow"
)

// runAgent is the "agent" action, the default of a step: the step's agent
// performs the step's task with the work's input and the outputs of the
// steps it depends on, its abilities injected into its system prompt, its
// tools and model at hand through recorded effects of the step.
func (b *book) runAgent(ctx context.Context, s *workflow.StepContext) (json.RawMessage, error) {
	const op = "agent.step"
	p, err := b.agents.Get(s.Step.Agent)
	if err != nil {
		return nil, err
	}
	builtin := b.r.builtinNames()
	for _, t := range s.Step.Tools {
		if !slices.Contains(builtin, t) && !slices.Contains(p.PermittedTools, t) {
			return nil, sanad.Errorf(sanad.CodePolicyDenied, op, "step %s lists tool %q, which agent %s is not permitted (its tools: %v)", s.Step.ID, t, p.ID, p.PermittedTools)
		}
	}
	task := s.Step.Task
	if task == "" {
		task = s.Step.Description
	}
	in := agent.Input{
		Task: task, Input: s.Input, Inputs: stepInputs(s), Chain: s.Chain(),
		Tools: &toolbox{b: b, offered: b.offered(p, s.Step.Tools), call: func(ctx context.Context, c workflow.ToolCall) (json.RawMessage, error) {
			return s.CallTool(ctx, c)
		}},
		Delegate: func(ctx context.Context, to, task string, input json.RawMessage) (json.RawMessage, error) {
			return s.Delegate(ctx, to, task, input)
		},
	}
	if class, ok := b.modelClass(p); ok {
		in.Model = b.model(class, func(ctx context.Context, req model.Request) (model.Response, error) {
			return s.Generate(ctx, b.r.calls, class, req)
		})
	}
	return b.perform(ctx, p, in)
}

// delegate is the "delegate" action: the step's agent hands the task in the
// step's "with" ({"to": AGENT, "task": TEXT, "input": {...}}) to another
// agent along the delegation chain. Without an input of its own, the task
// carries the outputs of the steps the step depends on, by step, and the
// work's input as "input".
func (b *book) delegate(ctx context.Context, s *workflow.StepContext) (json.RawMessage, error) {
	var with struct {
		To    string          `json:"to"`
		Task  string          `json:"task"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(s.Step.With, &with); err != nil || with.To == "" || with.Task == "" {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "agent.delegate", "step %s: delegate needs with: {to: AGENT, task: TEXT, input: {...}}", s.Step.ID)
	}
	input := with.Input
	if len(input) == 0 {
		deps := stepInputs(s)
		if _, taken := deps["input"]; !taken && len(s.Input) > 0 {
			deps["input"] = s.Input
		}
		raw, err := json.Marshal(deps)
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInvalidInput, "agent.delegate", "step "+s.Step.ID+": the outputs it depends on")
		}
		input = raw
	}
	return s.Delegate(ctx, with.To, with.Task, input)
}

// delegated performs a task delegated to d.To() (see workflow.Delegator):
// the agent gets the task, what was handed over as its input, its tools and
// its model, each call recorded within the delegation.
func (b *book) delegated(ctx context.Context, d workflow.Delegation) (json.RawMessage, error) {
	p, err := b.agents.Get(d.To())
	if err != nil {
		return nil, err
	}
	in := agent.Input{
		Task: d.Task, Input: d.Input, Chain: d.Chain,
		Tools:    &toolbox{b: b, offered: b.offered(p, nil), call: d.CallTool},
		Delegate: d.Delegate,
	}
	if class, ok := b.modelClass(p); ok {
		in.Model = b.model(class, func(ctx context.Context, req model.Request) (model.Response, error) {
			return d.Generate(ctx, b.r.calls, class, req)
		})
	}
	return b.perform(ctx, p, in)
}

// perform has the agent of p do the task: its implementation in the
// playbook, else the model-backed agent when a model is configured for it,
// else the offline agent.
func (b *book) perform(ctx context.Context, p agent.Profile, in agent.Input) (json.RawMessage, error) {
	in.SystemPrompt = "You are " + p.Name + ": " + p.Description
	var node agent.Node
	switch fn, ok := b.pb.Nodes[p.ID]; {
	case ok:
		node = fn(p)
	case in.Model != nil:
		node = llmagent.New(p, llmagent.Config{MaxTurns: b.r.cfg.MaxTurns})
	default:
		node = offline.New(p)
	}
	out, _, err := agent.Run(ctx, node, b.library, in, b.r.cfg.AbilityBudget)
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

// offered returns the tools offered to the agent of p: those its profile
// permits and the step lists, that the playbook has.
func (b *book) offered(p agent.Profile, step []string) []agent.ToolInfo {
	var out []agent.ToolInfo
	seen := map[string]bool{}
	for _, name := range append(slices.Clone(p.PermittedTools), step...) {
		if seen[name] {
			continue
		}
		seen[name] = true
		if s, ok := b.tools.Lookup(name); ok {
			out = append(out, agent.ToolInfo{Name: s.Name, Description: s.Description, InputSchema: s.InputSchema})
		}
	}
	slices.SortFunc(out, func(a, b agent.ToolInfo) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}

// toolbox is an agent's [agent.Toolbox]: calls go through call, a step's
// or a delegation's recorded tool call.
type toolbox struct {
	b       *book
	offered []agent.ToolInfo
	call    func(ctx context.Context, c workflow.ToolCall) (json.RawMessage, error)
}

func (t *toolbox) Tools() []agent.ToolInfo { return slices.Clone(t.offered) }

// Call implements [agent.Toolbox]. What the gateway answered for the call
// (a refusal, the tool's failure) is a *agent.ToolError; errors of the run
// itself (stopped, waiting on a gate, not recordable) are returned as they
// are.
func (t *toolbox) Call(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, error) {
	name = t.resolve(name)
	out, err := t.call(ctx, workflow.ToolCall{Tool: name, Input: input})
	if err == nil || ctx.Err() != nil {
		return out, err
	}
	var se *sanad.Error
	if !errors.As(err, &se) || isCode(err, sanad.CodeInternal, sanad.CodeIntegrity, sanad.CodeUnavailable, sanad.CodeCancelled) {
		return nil, err
	}
	return nil, &agent.ToolError{Tool: name, Code: se.Code, Message: sanad.ErrorMessage(err)}
}

// resolve returns the tool name stands for: itself when a tool has that
// name, else the tool a model would know under it (its dots made '_', see
// llmagent.FunctionName), so that a call to a tool the agent was not offered
// still reaches the gateway by the tool's name, to be judged by policy.
func (t *toolbox) resolve(name string) string {
	if _, ok := t.b.tools.Lookup(name); ok {
		return name
	}
	for _, s := range t.b.tools.List() {
		if llmagent.FunctionName(s.Name) == name {
			return s.Name
		}
	}
	return name
}

// model returns the agent's model of class, its calls made through
// generate.
func (b *book) model(class string, generate func(ctx context.Context, req model.Request) (model.Response, error)) agent.Model {
	cc, _ := b.r.cfg.Models.Class(class)
	return &agentModel{class: class, provider: cc.Provider, generate: generate}
}

type agentModel struct {
	class, provider string
	generate        func(ctx context.Context, req model.Request) (model.Response, error)
}

func (m *agentModel) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	return m.generate(ctx, req)
}
func (m *agentModel) Class() string    { return m.class }
func (m *agentModel) Provider() string { return m.provider }
