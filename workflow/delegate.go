package workflow

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/delegation"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/runs"
)

// Delegation is a task an agent hands to another agent from within a step.
type Delegation struct {
	Step *Step
	// Chain is the delegation chain including the agent delegated to, its
	// last element (seed 003 INV-DT).
	Chain delegation.Chain
	Task  string
	Input json.RawMessage
	// Run is the agent run the task is performed in: a model call made for
	// it is recorded as its child. The delegation's result is recorded as
	// an effect of the step, so a resume or a replay does not perform it
	// again once it has ended.
	Run *runs.Run
	// Delegate hands a further task on from the delegated agent, with the
	// chain carried.
	Delegate func(ctx context.Context, to, task string, input json.RawMessage) (json.RawMessage, error)
	// CallTool and Generate make the delegated agent's tool and model
	// calls, recorded as effects within the delegation: a delegation run
	// again after a crash reads the results its calls already have.
	CallTool func(ctx context.Context, c ToolCall) (json.RawMessage, error)
	Generate func(ctx context.Context, m ModelCaller, class string, req model.Request) (model.Response, error)
}

// To is the agent the task is delegated to.
func (d Delegation) To() string { return d.Chain.Current() }

// Delegator performs a delegated task as its agent and returns the output.
// It must be deterministic or cause its effects through recorded calls: a
// resumed run that lost a delegation's result runs it again.
type Delegator func(ctx context.Context, d Delegation) (json.RawMessage, error)

// Chain is the step's delegation chain: its agent alone, at the default
// maximum depth.
func (s *StepContext) Chain() delegation.Chain { return delegation.NewChain(s.Step.Agent) }

// Workflow is the definition of the running workflow.
func (s *StepContext) Workflow() *Definition { return s.x.def }

// Delegate hands task, with input, to the agent to, as the step's agent. A
// delegation to the agent itself, to an agent already in the chain, or past
// the chain's maximum depth is refused with DELEGATION_REFUSED, an error
// value. The delegated work runs in an agent child run and is recorded as an
// effect, so a resume or replay reuses its result.
func (s *StepContext) Delegate(ctx context.Context, to, task string, input json.RawMessage) (json.RawMessage, error) {
	_, key := s.nextKey()
	return s.delegate(ctx, key, s.Chain(), to, task, input)
}

// delegate runs one delegation as the effect key. A further delegation from
// within it is keyed under key, so that the step's own effects keep their
// keys whether or not a resume runs the delegation again.
func (s *StepContext) delegate(ctx context.Context, key string, from delegation.Chain, to, task string, input json.RawMessage) (json.RawMessage, error) {
	const op = "workflow.delegate"
	chain, err := from.Delegate(to)
	if err != nil {
		return nil, err
	}
	e := s.x.e
	if e.cfg.Delegate == nil {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "step %s delegates to %s, but the engine has no delegator", s.Step.ID, to)
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	request := map[string]any{"task": task, "input": input, "chain": chain.Agents}
	spec := EffectSpec{Kind: "delegation", Name: to, Input: request, Idempotent: true}
	return s.x.effect(ctx, s, key, spec, func(ctx context.Context, key string) (json.RawMessage, error) {
		child, err := e.cfg.Runs.Start(ctx, runs.Spec{
			Kind: sanad.KindAgent, Parent: s.x.run, Scope: s.x.run.Record.Scope, Agent: to, Role: e.role(to), Request: request,
			Decision: runs.Decision{Allow: true, Reason: "delegated by " + from.Current() + " (" + chain.String() + ")", Action: "delegate:" + to},
		})
		if err != nil {
			return nil, err
		}
		// The delegation's own effects are keyed under its key, numbered in
		// the order the delegated agent makes them.
		n := 0
		next := func(sep string) string {
			n++
			return key + sep + strconv.Itoa(n)
		}
		d := Delegation{Step: s.Step, Chain: chain, Task: task, Input: input, Run: child,
			Delegate: func(ctx context.Context, to, task string, input json.RawMessage) (json.RawMessage, error) {
				return s.delegate(ctx, next(">"), chain, to, task, input)
			},
			CallTool: func(ctx context.Context, c ToolCall) (json.RawMessage, error) {
				// A call id takes no '>': the nesting of delegations is
				// written with '_' in it, which no step call id holds
				// after its step id.
				k := next(":t")
				callID := strings.ReplaceAll(strings.TrimPrefix(k, s.x.run.Record.ID+"/"), ">", "_")
				return s.callTool(ctx, chain.Current(), callID, k, c)
			},
			Generate: func(ctx context.Context, m ModelCaller, class string, req model.Request) (model.Response, error) {
				return s.generate(ctx, m, child, chain.Current(), class, next(":m"), req)
			},
		}
		out, err := e.cfg.Delegate(ctx, d)
		if err == nil {
			out, err = canonicalOutput(s.Step.ID, out)
		}
		if err != nil {
			if ferr := child.Fail(ctx, err); ferr != nil {
				return nil, ferr
			}
			return nil, err
		}
		if err := child.Complete(ctx, nil, out); err != nil {
			return nil, err
		}
		return out, nil
	})
}
