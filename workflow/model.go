package workflow

import (
	"context"
	"encoding/json"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/runs"
)

// ModelCaller makes an audited model call as a child run of parent.
// *model.Recorder implements it.
type ModelCaller interface {
	Generate(ctx context.Context, parent *runs.Run, agent, class string, req model.Request) (model.Response, error)
}

var _ ModelCaller = (*model.Recorder)(nil)

// Generate asks the model of class for req as the step's agent, through m,
// with the workflow run as the call's parent. The call is an idempotent
// effect whose output is the reply (model.ResponseJSON): a resume or a
// replay gets the recorded reply back and calls no model, and a call
// interrupted by a crash is made again. The reply returned is always the
// recorded one, read back, so that a first run and its replay see the same
// (its Latency is zero; the model.call event has it).
//
// Like every effect, calls must be made in a deterministic order, and with
// requests that depend only on what the step was given.
func (s *StepContext) Generate(ctx context.Context, m ModelCaller, class string, req model.Request) (model.Response, error) {
	_, key := s.nextKey()
	return s.generate(ctx, m, nil, s.Step.Agent, class, key, req)
}

// generate makes the model call req as agent, a model_call child of parent
// (of the step's agent run when nil), recorded as the effect key.
func (s *StepContext) generate(ctx context.Context, m ModelCaller, parent *runs.Run, agent, class, key string, req model.Request) (model.Response, error) {
	const op = "workflow.generate"
	if m == nil {
		return model.Response{}, sanad.Errorf(sanad.CodeInvalidInput, op, "step %s calls a model, but no model caller was given", s.Step.ID)
	}
	if class == "" {
		return model.Response{}, sanad.Errorf(sanad.CodeInvalidInput, op, "step %s calls a model without naming its class", s.Step.ID)
	}
	prompt, err := model.RequestJSON(req)
	if err != nil {
		return model.Response{}, err
	}
	spec := EffectSpec{Kind: "model", Name: class, Input: json.RawMessage(prompt), Idempotent: true}
	out, err := s.x.effect(ctx, s, key, spec, func(ctx context.Context, _ string) (json.RawMessage, error) {
		if parent == nil {
			p, err := s.acting(ctx)
			if err != nil {
				return nil, err
			}
			parent = p
		}
		resp, err := m.Generate(ctx, parent, agent, class, req)
		if err != nil {
			return nil, err
		}
		return model.ResponseJSON(resp)
	})
	if err != nil {
		return model.Response{}, err
	}
	return model.ParseResponse(out)
}
