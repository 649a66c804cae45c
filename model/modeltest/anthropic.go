package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// NewAnthropic starts a fake of the Anthropic Messages API that answers
// POST /v1/messages with the turns of s: a message whose content is a text
// block and tool_use blocks, or, when the request has "stream": true, the
// events of one (message_start, a ping, each block's start, deltas and
// stop, message_delta with the stop reason and usage, message_stop), text
// sent word by word and tool input in input_json_delta fragments. Tool
// calls stop with "tool_use", anything else with "end_turn". Each answer
// has a request-id header. BaseURL is the server's URL, as the adapter's
// base URL is. The caller closes the fake.
func NewAnthropic(s Script) *Fake { return newFake(s, anthropicAPI{}) }

// anthropicAPI is the Messages API.
type anthropicAPI struct{}

func (anthropicAPI) paths() (string, string) { return "/v1/messages", "" }
func (anthropicAPI) requestIDHeader() string { return "Request-Id" }

type (
	// anthropicRequest is as much of a Messages request as the fake reads.
	anthropicRequest struct {
		Model    string          `json:"model"`
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
		ToolChoice *struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tool_choice"`
		Stream bool `json:"stream"`
	}
	// anthropicBlock is a content block, of a request or of an answer.
	anthropicBlock struct {
		Type      string          `json:"type"`
		Text      *string         `json:"text,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Input     json.RawMessage `json:"input,omitempty"`
		ToolUseID string          `json:"tool_use_id,omitempty"`
		Content   json.RawMessage `json:"content,omitempty"`
		IsError   bool            `json:"is_error,omitempty"`
	}
)

func (anthropicAPI) decode(body []byte) (Request, bool, error) {
	var in anthropicRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, false, fmt.Errorf("the body is not a messages request: %w", err)
	}
	req := Request{Model: in.Model, Stream: in.Stream}
	system, err := blocks(in.System)
	if err != nil {
		return Request{}, false, fmt.Errorf("system: %w", err)
	}
	var prompt []string
	for _, b := range system {
		if b.Type == "text" && b.Text != nil {
			prompt = append(prompt, *b.Text)
		}
	}
	req.System = strings.Join(prompt, "\n\n")
	for i, m := range in.Messages {
		content, err := blocks(m.Content)
		if err != nil {
			return Request{}, false, fmt.Errorf("message %d: %w", i, err)
		}
		switch m.Role {
		case "user":
			for _, b := range content {
				switch b.Type {
				case "text":
					req.Messages = append(req.Messages, Message{Role: "user", Content: *b.Text})
				case "tool_result":
					result, err := text(b.Content)
					if err != nil {
						return Request{}, false, fmt.Errorf("message %d: tool result %s: %w", i, b.ToolUseID, err)
					}
					req.Messages = append(req.Messages, Message{Role: "tool", Content: result, ToolCallID: b.ToolUseID, IsError: b.IsError})
				}
			}
		case "assistant":
			msg := Message{Role: "assistant"}
			for _, b := range content {
				switch b.Type {
				case "text":
					msg.Content += *b.Text
				case "tool_use":
					msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
				}
			}
			req.Messages = append(req.Messages, msg)
		default:
			return Request{}, false, fmt.Errorf("message %d has role %q", i, m.Role)
		}
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	if tc := in.ToolChoice; tc != nil {
		switch tc.Type {
		case "any":
			req.ToolChoice = "required"
		case "tool":
			req.ToolChoice = "tool:" + tc.Name
		default:
			req.ToolChoice = tc.Type
		}
	}
	return req, true, nil
}

// blocks returns content that is a string, null or a list of blocks as a
// list of blocks; a string is one text block.
func blocks(raw json.RawMessage) ([]anthropicBlock, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: &s}}, nil
	}
	var out []anthropicBlock
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("content is neither text nor a list of blocks")
	}
	for i := range out {
		if out[i].Type == "text" && out[i].Text == nil {
			out[i].Text = new(string)
		}
	}
	return out, nil
}

type (
	anthropicMessage struct {
		ID           string           `json:"id"`
		Type         string           `json:"type"`
		Role         string           `json:"role"`
		Model        string           `json:"model"`
		Content      []anthropicBlock `json:"content"`
		StopReason   *string          `json:"stop_reason"`
		StopSequence *string          `json:"stop_sequence"`
		Usage        anthropicUsage   `json:"usage"`
	}
	anthropicUsage struct {
		InputTokens              int64 `json:"input_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
	}
)

func (anthropicAPI) reply(w http.ResponseWriter, n int, req Request, _ bool, t Turn) {
	model := req.Model
	if model == "" {
		model = "claude-test"
	}
	stop := "end_turn"
	if len(t.ToolCalls) > 0 {
		stop = "tool_use"
	}
	msg := anthropicMessage{ID: fmt.Sprintf("msg_%d", n), Type: "message", Role: "assistant", Model: model, Content: []anthropicBlock{},
		Usage: anthropicUsage{InputTokens: t.Usage.InputTokens, OutputTokens: t.Usage.OutputTokens}}
	if t.Text != "" {
		msg.Content = append(msg.Content, anthropicBlock{Type: "text", Text: &t.Text})
	}
	for i, c := range t.ToolCalls {
		msg.Content = append(msg.Content, anthropicBlock{Type: "tool_use", ID: callID("toolu", n, i, c), Name: c.Name, Input: arguments(c.Arguments)})
	}
	if !req.Stream {
		msg.StopReason = &stop
		writeJSON(w, http.StatusOK, msg)
		return
	}
	ev := startEvents(w)
	event := func(v map[string]any) { ev.send(v["type"].(string), v) }
	content := msg.Content
	msg.Content = []anthropicBlock{}
	msg.Usage.OutputTokens = min(t.Usage.OutputTokens, 1)
	event(map[string]any{"type": "message_start", "message": msg})
	event(map[string]any{"type": "ping"})
	for i, b := range content {
		delta := func(d map[string]any) {
			event(map[string]any{"type": "content_block_delta", "index": i, "delta": d})
		}
		switch b.Type {
		case "text":
			event(map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, piece := range words(*b.Text) {
				delta(map[string]any{"type": "text_delta", "text": piece})
			}
		case "tool_use":
			event(map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			delta(map[string]any{"type": "input_json_delta", "partial_json": ""})
			for _, piece := range fragments(string(b.Input)) {
				delta(map[string]any{"type": "input_json_delta", "partial_json": piece})
			}
		}
		event(map[string]any{"type": "content_block_stop", "index": i})
	}
	event(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": t.Usage.OutputTokens}})
	event(map[string]any{"type": "message_stop"})
}

// fail writes an error as the Anthropic API does.
func (anthropicAPI) fail(w http.ResponseWriter, n int, status int, message string) {
	typ := map[int]string{
		http.StatusBadRequest:            "invalid_request_error",
		http.StatusUnauthorized:          "authentication_error",
		http.StatusForbidden:             "permission_error",
		http.StatusNotFound:              "not_found_error",
		http.StatusRequestEntityTooLarge: "request_too_large",
		http.StatusTooManyRequests:       "rate_limit_error",
		529:                              "overloaded_error",
	}[status]
	switch {
	case typ != "":
	case status >= 500:
		typ = "api_error"
	default:
		typ = "invalid_request_error"
	}
	if message == "" {
		message = map[string]string{
			"authentication_error": "invalid x-api-key",
			"rate_limit_error":     "Number of requests has exceeded your rate limit.",
			"overloaded_error":     "Overloaded",
			"api_error":            "Internal server error",
		}[typ]
	}
	if message == "" {
		message = http.StatusText(status)
	}
	body := map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": message}}
	if n > 0 {
		body["request_id"] = fmt.Sprintf("req_%d", n)
	}
	writeJSON(w, status, body)
}
