package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/canon"
)

// offlineNode is the agent.Node that stands in for a model when none is
// configured for the agent's model class (deterministic mode): it calls
// nothing and writes no prose. Its output is a record of what the agent was
// given: who it is, its task, the abilities its prompt carried and a hash of
// each input, so a run shows how work flowed between agents and replays
// exactly. The output depends only on the profile, the library, the budget,
// the system prompt and the input: no clock, no randomness. It is safe for
// concurrent use.
type offlineNode struct {
	profile agent.Profile
	library *agent.Library
	budget  int
	// system is the system prompt before the abilities were injected.
	system string
}

var _ agent.Node = (*offlineNode)(nil)

// offlineOutput is the content of an offlineNode's output.
type offlineOutput struct {
	Mode         string        `json:"mode"` // modeDeterministic
	Agent        string        `json:"agent"`
	Role         string        `json:"role"`
	Task         string        `json:"task"`
	Abilities    []string      `json:"abilities"`
	PromptTokens int           `json:"prompt_tokens"`
	Inputs       []offlineSeen `json:"inputs"`
}

// offlineSeen is one input an offlineNode was given: the step it came from,
// and the SHA-256 (hex) and size of its canonical JSON.
type offlineSeen struct {
	Step   string `json:"step"`
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
}

// offlineKeys are the keys every offlineNode output holds.
var offlineKeys = []string{"mode", "agent", "role", "task", "abilities", "prompt_tokens", "inputs"}

func (n *offlineNode) Profile() agent.Profile { return n.profile }

// Execute records the task. The abilities are those the library injects for
// the task within the budget, as agent.Prepare injected them into
// in.SystemPrompt; Execute works them out again because the node is given the
// prepared prompt, not the injection.
func (n *offlineNode) Execute(ctx context.Context, in agent.Input) (agent.Output, error) {
	const op = "agent.offline"
	if err := ctx.Err(); err != nil {
		code := sanad.CodeCancelled
		if errors.Is(err, context.DeadlineExceeded) {
			code = sanad.CodeTimeout
		}
		return agent.Output{}, sanad.Wrap(err, code, op, "agent "+n.profile.ID+" stopped: "+err.Error())
	}
	inj, err := n.library.Inject(n.profile, in.Task, n.system, n.budget)
	if err != nil {
		return agent.Output{}, err
	}
	out := offlineOutput{
		Mode: modeDeterministic, Agent: n.profile.ID, Role: n.profile.Role, Task: in.Task,
		Abilities: append([]string{}, inj.Included...), PromptTokens: inj.Tokens,
		Inputs: make([]offlineSeen, 0, len(in.Inputs)),
	}
	for step, raw := range in.Inputs {
		c, err := canon.Transform(raw)
		if err != nil {
			return agent.Output{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, "the input from step "+step+" is not valid JSON")
		}
		sum := sha256.Sum256(c)
		out.Inputs = append(out.Inputs, offlineSeen{Step: step, SHA256: hex.EncodeToString(sum[:]), Bytes: len(c)})
	}
	sort.Slice(out.Inputs, func(i, j int) bool { return out.Inputs[i].Step < out.Inputs[j].Step })
	content, err := json.Marshal(out)
	if err != nil {
		return agent.Output{}, sanad.Wrap(err, sanad.CodeInternal, op, "output")
	}
	summary := fmt.Sprintf("%s (%s) took the task %q offline, with %d abilities and %d inputs", n.profile.ID, n.profile.Role, in.Task, len(out.Abilities), len(out.Inputs))
	return agent.Output{Content: content, Summary: summary}, nil
}

// ValidateOutput checks that the content is a JSON object with every key an
// offline output has.
func (n *offlineNode) ValidateOutput(out agent.Output) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(out.Content, &m); err != nil || m == nil {
		return errors.New("the content is not a JSON object")
	}
	for _, k := range offlineKeys {
		if _, ok := m[k]; !ok {
			return fmt.Errorf("the content has no %q", k)
		}
	}
	if out.Summary == "" {
		return errors.New("the output has no summary")
	}
	return nil
}
