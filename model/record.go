package model

import (
	"encoding/json"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
)

// The forms a recorded call keeps of its request and its reply: JSON with
// snake_case names, in RFC 8785 canonical form, so that the SHA-256 of the
// bytes is their canonical hash. They are what the prompt and response
// artifacts of a model_call run hold, and what a workflow's effect journal
// keeps of a reply.

type messageJSON struct {
	Role       Role           `json:"role"`
	Content    string         `json:"content,omitempty"`
	ToolCalls  []toolCallJSON `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type toolCallJSON struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

type toolJSON struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type toolChoiceJSON struct {
	Mode ToolChoiceMode `json:"mode"`
	Name string         `json:"name,omitempty"`
}

type outputSchemaJSON struct {
	Name   string          `json:"name,omitempty"`
	Schema json.RawMessage `json:"schema"`
}

type requestJSON struct {
	System      string            `json:"system,omitempty"`
	Messages    []messageJSON     `json:"messages"`
	Tools       []toolJSON        `json:"tools,omitempty"`
	ToolChoice  *toolChoiceJSON   `json:"tool_choice,omitempty"`
	Output      *outputSchemaJSON `json:"output,omitempty"`
	MaxTokens   int               `json:"max_tokens,omitempty"`
	Temperature *float64          `json:"temperature,omitempty"`
	Stop        []string          `json:"stop,omitempty"`
}

// UsageJSON is the JSON form of a [Usage], as the model.call event and the
// response record write it.
type UsageJSON struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	TotalTokens  int64 `json:"total_tokens"`
}

// JSON returns u in its JSON form.
func (u Usage) JSON() UsageJSON {
	return UsageJSON{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
}

type responseJSON struct {
	Text         string          `json:"text"`
	ToolCalls    []toolCallJSON  `json:"tool_calls,omitempty"`
	Output       json.RawMessage `json:"output,omitempty"`
	FinishReason FinishReason    `json:"finish_reason,omitempty"`
	Usage        UsageJSON       `json:"usage"`
	Model        string          `json:"model,omitempty"`
	Provider     string          `json:"provider,omitempty"`
	ID           string          `json:"id,omitempty"`
	RequestID    string          `json:"request_id,omitempty"`
}

const opRecord = "model.record"

// RequestJSON returns the canonical JSON of req: the prompt a recorded call
// keeps. It fails with INVALID_INPUT when a field that holds JSON (tool
// arguments, parameters, the output schema) is not valid JSON.
func RequestJSON(req Request) ([]byte, error) {
	r := requestJSON{
		System: req.System, Messages: make([]messageJSON, len(req.Messages)),
		MaxTokens: req.MaxTokens, Temperature: req.Temperature, Stop: req.Stop,
	}
	for i, m := range req.Messages {
		r.Messages[i] = messageJSON{Role: m.Role, Content: m.Content, ToolCalls: toolCallsJSON(m.ToolCalls), ToolCallID: m.ToolCallID}
	}
	for _, t := range req.Tools {
		r.Tools = append(r.Tools, toolJSON(t))
	}
	if req.ToolChoice != (ToolChoice{}) {
		r.ToolChoice = &toolChoiceJSON{Mode: req.ToolChoice.Mode, Name: req.ToolChoice.Name}
	}
	if req.Output != nil {
		r.Output = &outputSchemaJSON{Name: req.Output.Name, Schema: req.Output.Schema}
	}
	b, err := canon.Marshal(r)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, opRecord, "the request does not encode as JSON: "+err.Error())
	}
	return b, nil
}

// ResponseJSON returns the canonical JSON of resp without its latency,
// which differs between two calls that get the same reply: the response a
// recorded call keeps, which [ParseResponse] reads back.
func ResponseJSON(resp Response) ([]byte, error) {
	r := responseJSON{
		Text: resp.Text, ToolCalls: toolCallsJSON(resp.ToolCalls), Output: resp.Output,
		FinishReason: resp.FinishReason, Usage: resp.Usage.JSON(),
		Model: resp.Model, Provider: resp.Provider, ID: resp.ID, RequestID: resp.RequestID,
	}
	b, err := canon.Marshal(r)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeModelOutput, opRecord, "the reply does not encode as JSON: "+err.Error())
	}
	return b, nil
}

// ParseResponse reads a response written by [ResponseJSON]. Its Latency is
// zero. Data that is not such a response fails with INTEGRITY: it was
// recorded, so it should be.
func ParseResponse(data []byte) (Response, error) {
	var r responseJSON
	if err := json.Unmarshal(data, &r); err != nil {
		return Response{}, sanad.Wrap(err, sanad.CodeIntegrity, opRecord, "a recorded model response is not valid: "+err.Error())
	}
	resp := Response{
		Text: r.Text, Output: r.Output, FinishReason: r.FinishReason,
		Usage: Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens, TotalTokens: r.Usage.TotalTokens},
		Model: r.Model, Provider: r.Provider, ID: r.ID, RequestID: r.RequestID,
	}
	for _, c := range r.ToolCalls {
		resp.ToolCalls = append(resp.ToolCalls, ToolCall(c))
	}
	return resp, nil
}

func toolCallsJSON(calls []ToolCall) []toolCallJSON {
	if len(calls) == 0 {
		return nil
	}
	out := make([]toolCallJSON, len(calls))
	for i, c := range calls {
		out[i] = toolCallJSON(c)
	}
	return out
}
