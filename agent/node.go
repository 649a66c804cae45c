package agent

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/sanadhq/sanad/delegation"

	"github.com/sanadhq/sanad"
)

// Node is what every role implements.
type Node interface {
	Profile() Profile
	// Execute performs one task and returns its output. It must honour ctx.
	Execute(ctx context.Context, in Input) (Output, error)
	// ValidateOutput checks an output before anything downstream uses it.
	ValidateOutput(out Output) error
}

// Input is one task for a [Node].
type Input struct {
	Task string
	// Inputs are the outputs of earlier steps the task depends on, by name.
	Inputs map[string]json.RawMessage
	// SystemPrompt is the prompt the node sends its model; [Prepare] puts
	// the agent's abilities in front of it.
	SystemPrompt string
	// Chain is the delegation path that led to this task.
	Chain delegation.Chain
}

// Output is what a [Node] produced for a task.
type Output struct {
	Content json.RawMessage
	Summary string
}

const opRun = "agent.run"

// Prepare injects the abilities of p for in.Task into in.SystemPrompt (see
// [Library.Inject]) and returns the input to execute with. It is the
// prompt preparation phase: nothing is injected once a node executes.
func Prepare(lib *Library, p Profile, in Input, budget int) (Input, Injection, error) {
	inj, err := lib.Inject(p, in.Task, in.SystemPrompt, budget)
	if err != nil {
		return Input{}, Injection{}, err
	}
	in.SystemPrompt = inj.Prompt
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
