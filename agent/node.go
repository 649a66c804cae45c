package agent

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/delegation"
	"github.com/sanadhq/sanad/model"
)

// Node is what every role implements.
type Node interface {
	Profile() Profile
	// Execute performs one task and returns its output. It must honour ctx.
	Execute(ctx context.Context, in Input) (Output, error)
	// ValidateOutput checks an output before anything downstream uses it.
	ValidateOutput(out Output) error
}

// Input is one task for a [Node], and what the runtime gives the node to
// perform it with.
type Input struct {
	Task string
	// Input is the input of the work the task is part of: the workflow's
	// input, or what a delegating agent handed over. A JSON object, or
	// empty.
	Input json.RawMessage
	// Inputs are the outputs of earlier steps the task depends on, by step.
	Inputs map[string]json.RawMessage
	// SystemPrompt is the prompt the node sends its model; [Prepare] puts
	// the agent's abilities in front of it.
	SystemPrompt string
	// Prompt is the task as the agent's prompt template renders it with
	// the inputs (see [Render]); [Prepare] renders it when it is empty.
	Prompt string
	// Abilities are the ids of the abilities [Prepare] injected into
	// SystemPrompt, in the order it put them there.
	Abilities []string
	// Chain is the delegation path that led to this task.
	Chain delegation.Chain
	// Tools are the tools the agent may call for the task, and the
	// governed, recorded way to call them; nil when it may call none.
	Tools Toolbox
	// Model is the agent's model, its calls recorded; nil when no model is
	// configured for the agent (deterministic mode).
	Model Model
	// Delegate hands a sub-task, with its input, to another agent along
	// Chain and returns that agent's output; nil when the task cannot
	// delegate.
	Delegate func(ctx context.Context, to, task string, input json.RawMessage) (json.RawMessage, error)
}

// Toolbox is the tools an agent may call for one task. Every call goes
// through the governed tool gateway (validated, authorized, limited,
// approved where policy says, recorded), and within a workflow it is an
// effect made once: a resume or a replay reads the recorded result.
type Toolbox interface {
	// Tools lists the tools offered to the agent, sorted by name.
	Tools() []ToolInfo
	// Call calls the tool name with input, a JSON object, and returns its
	// output. A refusal or a failure of the call is a *[ToolError] with the
	// gateway's code (TOOL_NOT_FOUND, POLICY_DENIED, INVALID_INPUT, ...): a
	// name that was not offered is still asked of the gateway, which
	// records the refusal. Any other error means the task cannot go on
	// here: the run was stopped, waits on a person's approval, or could not
	// be recorded.
	Call(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, error)
}

// ToolError is a tool call that the gateway refused or that failed, as it
// was recorded: an answer to give back to whoever asked for the call, not a
// failure of the agent.
type ToolError struct {
	Tool    string
	Code    sanad.Code
	Message string
}

func (e *ToolError) Error() string {
	return "tool " + e.Tool + ": " + string(e.Code) + ": " + e.Message
}

// Unwrap gives the refusal or failure as a *sanad.Error, so that a step
// that fails on it fails with the gateway's code (INVALID_INPUT,
// POLICY_DENIED, …) rather than as an internal error.
func (e *ToolError) Unwrap() error {
	return &sanad.Error{Code: e.Code, Op: "tool " + e.Tool, Message: e.Message}
}

// ToolInfo describes a tool offered to an agent.
type ToolInfo struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the tool's arguments.
	InputSchema json.RawMessage
}

// Model is an agent's model. Its calls are audited model_call runs and,
// within a workflow, effects made once.
type Model interface {
	Generate(ctx context.Context, req model.Request) (model.Response, error)
	// Class is the model class the agent's profile names; Provider the
	// provider configured for it.
	Class() string
	Provider() string
}

// Output is what a [Node] produced for a task. Content is a JSON value;
// Summary says in a line what it holds.
type Output struct {
	Content json.RawMessage
	Summary string
}

const opRun = "agent.run"

// Prepare injects the abilities of p for in.Task into in.SystemPrompt (see
// [Library.Inject]), renders in.Prompt from p's prompt template when it is
// empty (see [Render]), and returns the input to execute with. It is the
// prompt preparation phase: nothing is injected once a node executes.
func Prepare(lib *Library, p Profile, in Input, budget int) (Input, Injection, error) {
	inj, err := lib.Inject(p, in.Task, in.SystemPrompt, budget)
	if err != nil {
		return Input{}, Injection{}, err
	}
	in.SystemPrompt = inj.Prompt
	in.Abilities = append([]string{}, inj.Included...)
	if in.Prompt == "" {
		if in.Prompt, err = Render(p, in); err != nil {
			return Input{}, Injection{}, err
		}
	}
	return in, inj, nil
}

// Run performs one task on node: [Prepare], then Execute, then
// ValidateOutput. It refuses a disabled agent (INVALID_INPUT) and a ctx
// already done (CANCELLED or ERR_TIMEOUT) before executing. An error of
// Execute is returned as it is; an output that fails ValidateOutput is
// MODEL_OUTPUT_INVALID, unless the node says otherwise with a *sanad.Error.
func Run(ctx context.Context, node Node, lib *Library, in Input, budget int) (Output, Injection, error) {
	p := node.Profile()
	if !p.Enabled {
		return Output{}, Injection{}, sanad.Errorf(sanad.CodeInvalidInput, opRun, "agent %s is disabled", p.ID)
	}
	in, inj, err := Prepare(lib, p, in, budget)
	if err != nil {
		return Output{}, Injection{}, err
	}
	if err := ctx.Err(); err != nil {
		code := sanad.CodeCancelled
		if errors.Is(err, context.DeadlineExceeded) {
			code = sanad.CodeTimeout
		}
		return Output{}, inj, sanad.Wrap(err, code, opRun, "agent "+p.ID+" did not start: "+err.Error())
	}
	out, err := node.Execute(ctx, in)
	if err != nil {
		return Output{}, inj, err
	}
	if err := node.ValidateOutput(out); err != nil {
		var se *sanad.Error
		if errors.As(err, &se) {
			return Output{}, inj, err
		}
		return Output{}, inj, sanad.Wrap(err, sanad.CodeModelOutput, opRun, "agent "+p.ID+" produced an invalid output: "+err.Error())
	}
	return out, inj, nil
}

// Func returns the [Node] of profile p whose Execute is fn, for an agent
// written as one function. Its ValidateOutput accepts an output whose
// Content is one JSON value.
func Func(p Profile, fn func(ctx context.Context, in Input) (Output, error)) Node {
	return funcNode{p: p, fn: fn}
}

type funcNode struct {
	p  Profile
	fn func(ctx context.Context, in Input) (Output, error)
}

func (n funcNode) Profile() Profile { return n.p }

func (n funcNode) Execute(ctx context.Context, in Input) (Output, error) { return n.fn(ctx, in) }

func (n funcNode) ValidateOutput(out Output) error {
	if !json.Valid(out.Content) {
		return errors.New("the content is not one JSON value")
	}
	return nil
}
