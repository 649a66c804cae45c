// Package llmagent is the agent whose answers a model writes. It sends the
// model the agent's system prompt (abilities injected) and its rendered
// task, offers it the agent's tools as function declarations, makes the
// calls the model asks for through the agent's toolbox (the governed
// gateway, each call recorded) and feeds the results back, turn after turn,
// until the model answers without asking for a tool or the turns run out.
package llmagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/model"
)

// Mode is the mode an output of the agent records.
const Mode = "model"

// DefaultMaxTurns bounds the model calls of one task when Config.MaxTurns
// is zero.
const DefaultMaxTurns = 8

// Config configures an [Agent].
type Config struct {
	// MaxTurns bounds the model calls of one task (DefaultMaxTurns when
	// zero): a model that still asks for tools on its last turn fails the
	// task with AGENT_TURN_LIMIT.
	MaxTurns int
	// MaxTokens bounds each reply (the provider's default when zero).
	MaxTokens int
}

// Agent is an [agent.Node] backed by a model. It is safe for concurrent use.
type Agent struct {
	profile agent.Profile
	cfg     Config
}

var _ agent.Node = (*Agent)(nil)

// New returns the model-backed agent of profile p.
func New(p agent.Profile, cfg Config) *Agent {
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	return &Agent{profile: p, cfg: cfg}
}

// Profile implements [agent.Node].
func (a *Agent) Profile() agent.Profile { return a.profile }

// Output is the content of the agent's output.
type Output struct {
	Mode         string             `json:"mode"` // Mode
	Agent        string             `json:"agent"`
	Role         string             `json:"role"`
	Task         string             `json:"task"`
	Abilities    []string           `json:"abilities"`
	Class        string             `json:"class"`
	Provider     string             `json:"provider"`
	Model        string             `json:"model"`
	Text         string             `json:"text"`
	FinishReason model.FinishReason `json:"finish_reason,omitempty"`
	// Turns counts the model calls; ToolCalls are the calls the model
	// asked for, in order, with how each ended.
	Turns     int        `json:"turns"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

// ToolCall is one tool call the model asked for, as the output records it.
type ToolCall struct {
	Turn int    `json:"turn"`
	ID   string `json:"id"`
	Tool string `json:"tool"`
	// Status is "ok", or the code the call was refused or failed with.
	Status string `json:"status"`
}

// Execute implements [agent.Node]: the tool loop.
func (a *Agent) Execute(ctx context.Context, in agent.Input) (agent.Output, error) {
	const op = "agent.model"
	p := a.profile
	if in.Model == nil {
		return agent.Output{}, sanad.Errorf(sanad.CodeInvalidInput, op, "agent %s has no model configured for class %q", p.ID, p.ModelClass)
	}
	names, decls, err := declarations(in.Tools)
	if err != nil {
		return agent.Output{}, err
	}
	req := model.Request{
		System:    in.SystemPrompt,
		Messages:  []model.Message{{Role: model.RoleUser, Content: in.Prompt}},
		Tools:     decls,
		MaxTokens: a.cfg.MaxTokens,
	}
	out := Output{Mode: Mode, Agent: p.ID, Role: p.Role, Task: in.Task, Abilities: append([]string{}, in.Abilities...), Class: in.Model.Class(), Provider: in.Model.Provider()}
	for turn := 1; ; turn++ {
		resp, err := in.Model.Generate(ctx, req)
		if err != nil {
			return agent.Output{}, err
		}
		out.Turns, out.Model, out.Text, out.FinishReason = turn, resp.Model, resp.Text, resp.FinishReason
		if resp.Provider != "" {
			out.Provider = resp.Provider
		}
		if len(resp.ToolCalls) == 0 {
			break
		}
		if turn >= a.cfg.MaxTurns {
			return agent.Output{}, sanad.Errorf(sanad.CodeTurnLimit, op, "agent %s: the model still asked for tools after %d turns (the limit) and gave no answer", p.ID, turn)
		}
		req.Messages = append(req.Messages, resp.Message())
		// Calls asked for together are made one after the other, in the
		// order the model gave them, so that they are recorded in an order
		// a replay finds again.
		for _, c := range resp.ToolCalls {
			name := names[c.Name]
			if name == "" {
				name = c.Name // not offered: the gateway says so, and records it
			}
			result, status, err := call(ctx, in.Tools, name, c.Arguments)
			if err != nil {
				return agent.Output{}, err
			}
			out.ToolCalls = append(out.ToolCalls, ToolCall{Turn: turn, ID: c.ID, Tool: name, Status: status})
			req.Messages = append(req.Messages, model.Message{Role: model.RoleTool, ToolCallID: c.ID, Content: result})
		}
	}
	content, err := json.Marshal(out)
	if err != nil {
		return agent.Output{}, sanad.Wrap(err, sanad.CodeInternal, op, "output")
	}
	summary := fmt.Sprintf("%s (%s) answered with %s %s in %d turn(s), %d tool call(s): %s",
		p.ID, p.Role, out.Provider, out.Model, out.Turns, len(out.ToolCalls), clip(out.Text, 120))
	return agent.Output{Content: content, Summary: summary}, nil
}

// call makes one tool call and returns what the model is told: the tool's
// output, or the refusal or failure as a JSON object with success false, the
// code and the tool (seed 003 INV-TOOL-003), and the status to record. An
// error that is not a *agent.ToolError stops the loop.
func call(ctx context.Context, tools agent.Toolbox, name string, args json.RawMessage) (string, string, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var (
		out json.RawMessage
		err error
	)
	if tools == nil {
		err = &agent.ToolError{Tool: name, Code: sanad.CodeToolNotFound, Message: "the agent may call no tools here"}
	} else {
		out, err = tools.Call(ctx, name, args)
	}
	var te *agent.ToolError
	switch {
	case err == nil:
		return string(out), "ok", nil
	case errors.As(err, &te):
		b, merr := json.Marshal(map[string]any{"success": false, "code": te.Code, "message": te.Message, "tool": name})
		if merr != nil {
			return "", "", sanad.Wrap(merr, sanad.CodeInternal, "agent.model", "tool result")
		}
		return string(b), string(te.Code), nil
	}
	return "", "", err
}

// declarations returns the tools as the model sees them, and the map from a
// declared name back to the tool's name. A model's function names take no
// '.', so a tool's dots become '_'; two tools that would be declared under
// one name are INVALID_INPUT.
func declarations(tb agent.Toolbox) (map[string]string, []model.Tool, error) {
	if tb == nil {
		return nil, nil, nil
	}
	infos := tb.Tools()
	sort.Slice(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name })
	names := make(map[string]string, len(infos))
	decls := make([]model.Tool, 0, len(infos))
	for _, t := range infos {
		fn := FunctionName(t.Name)
		if prev, dup := names[fn]; dup {
			return nil, nil, sanad.Errorf(sanad.CodeInvalidInput, "agent.model", "tools %s and %s would both be declared to the model as %s: rename one", prev, t.Name, fn)
		}
		names[fn] = t.Name
		params := t.InputSchema
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		decls = append(decls, model.Tool{Name: fn, Description: t.Description, Parameters: params})
	}
	return names, decls, nil
}

// FunctionName is the name a tool is declared under to a model: its name
// with each '.' made '_'.
func FunctionName(tool string) string { return strings.ReplaceAll(tool, ".", "_") }

// ValidateOutput implements [agent.Node]: the model wrote an answer.
func (a *Agent) ValidateOutput(out agent.Output) error {
	var o Output
	if err := json.Unmarshal(out.Content, &o); err != nil {
		return errors.New("the content is not a model agent's output")
	}
	if o.Mode != Mode {
		return fmt.Errorf("the content's mode is %q, want %q", o.Mode, Mode)
	}
	if strings.TrimSpace(o.Text) == "" {
		return fmt.Errorf("the %s model %s wrote no text", o.Class, o.Model)
	}
	return nil
}

// clip returns s cut to n bytes at a rune boundary, with "…" when cut.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
