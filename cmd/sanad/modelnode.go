package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/model"
)

// generateFunc makes one recorded model call: in a workflow step, an effect
// of the step (workflow.StepContext.Generate) whose model_call run is a
// child of the workflow run.
type generateFunc func(ctx context.Context, req model.Request) (model.Response, error)

// modelNode is the agent.Node of an agent whose model class is configured:
// it sends the model the system prompt, with the agent's abilities injected,
// and the task with its inputs, and its output is the model's answer. The
// call goes through generate, so it is audited and, in a workflow, made once:
// a resume or a replay reads the recorded answer. It is safe for concurrent
// use.
type modelNode struct {
	profile agent.Profile
	library *agent.Library
	budget  int
	// system is the system prompt before the abilities were injected.
	system   string
	class    string
	provider string
	generate generateFunc
}

var _ agent.Node = (*modelNode)(nil)

// modelOutput is the content of a modelNode's output.
type modelOutput struct {
	Mode         string             `json:"mode"` // modeModel
	Agent        string             `json:"agent"`
	Role         string             `json:"role"`
	Task         string             `json:"task"`
	Abilities    []string           `json:"abilities"`
	Class        string             `json:"class"`
	Provider     string             `json:"provider"`
	Model        string             `json:"model"`
	Text         string             `json:"text"`
	FinishReason model.FinishReason `json:"finish_reason,omitempty"`
}

func (n *modelNode) Profile() agent.Profile { return n.profile }

// request is what the node asks the model: the prepared system prompt, and
// the task followed by its inputs as canonical JSON, so that the same task on
// the same inputs is the same request.
func (n *modelNode) request(in agent.Input) (model.Request, error) {
	var user strings.Builder
	user.WriteString(in.Task)
	if len(in.Inputs) > 0 {
		inputs, err := canon.Marshal(in.Inputs)
		if err != nil {
			return model.Request{}, sanad.Wrap(err, sanad.CodeInvalidInput, "agent.model", "the inputs are not valid JSON")
		}
		user.WriteString("\n\nInputs (JSON, by the step that produced them):\n")
		user.Write(inputs)
	}
	return model.Request{
		System:   in.SystemPrompt,
		Messages: []model.Message{{Role: model.RoleUser, Content: user.String()}},
	}, nil
}

// Execute asks the model. in.SystemPrompt is the prompt agent.Prepare made;
// the abilities it injected are worked out again for the output, as the
// offline node does.
func (n *modelNode) Execute(ctx context.Context, in agent.Input) (agent.Output, error) {
	inj, err := n.library.Inject(n.profile, in.Task, n.system, n.budget)
	if err != nil {
		return agent.Output{}, err
	}
	req, err := n.request(in)
	if err != nil {
		return agent.Output{}, err
	}
	resp, err := n.generate(ctx, req)
	if err != nil {
		return agent.Output{}, err
	}
	out := modelOutput{
		Mode: modeModel, Agent: n.profile.ID, Role: n.profile.Role, Task: in.Task,
		Abilities: append([]string{}, inj.Included...), Class: n.class, Provider: n.provider, Model: resp.Model,
		Text: resp.Text, FinishReason: resp.FinishReason,
	}
	if resp.Provider != "" {
		out.Provider = resp.Provider
	}
	content, err := json.Marshal(out)
	if err != nil {
		return agent.Output{}, sanad.Wrap(err, sanad.CodeInternal, "agent.model", "output")
	}
	summary := fmt.Sprintf("%s (%s) answered the task %q with %s %s: %s", n.profile.ID, n.profile.Role, in.Task, out.Provider, out.Model, clipText(resp.Text, 120))
	return agent.Output{Content: content, Summary: summary}, nil
}

// ValidateOutput checks that the model wrote an answer.
func (n *modelNode) ValidateOutput(out agent.Output) error {
	var o modelOutput
	if err := json.Unmarshal(out.Content, &o); err != nil {
		return errors.New("the content is not a model output")
	}
	if o.Mode != modeModel {
		return fmt.Errorf("the content's mode is %q, want %q", o.Mode, modeModel)
	}
	if strings.TrimSpace(o.Text) == "" {
		return fmt.Errorf("the %s model %s wrote no text", o.Class, o.Model)
	}
	return nil
}
