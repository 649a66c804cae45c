package modeltest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// NewOpenAI starts a fake of the OpenAI Chat Completions API that answers
// POST /v1/chat/completions with the turns of s: a chat.completion, or,
// when the request has "stream": true, chat.completion.chunk events that
// send text word by word and tool-call arguments in fragments, the usage
// last when stream_options.include_usage asks for it, then [DONE]. Tool
// calls finish with "tool_calls", anything else with "stop". Each answer
// has an x-request-id header. BaseURL includes /v1, as the adapter's
// base URL does. The caller closes the fake.
func NewOpenAI(s Script) *Fake { return newFake(s, openaiAPI{}) }

// openaiAPI is the Chat Completions API.
type openaiAPI struct{}

func (openaiAPI) paths() (string, string) { return "/v1/chat/completions", "/v1" }
func (openaiAPI) requestIDHeader() string { return "X-Request-Id" }

// openaiRequest is as much of a Chat Completions request as the fake reads.
type openaiRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoice    json.RawMessage `json:"tool_choice"`
	Stream        bool            `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func (openaiAPI) decode(body []byte) (Request, bool, error) {
	var in openaiRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, false, fmt.Errorf("the body is not a chat completion request: %w", err)
	}
	req := Request{Model: in.Model, Stream: in.Stream}
	var system []string
	for i, m := range in.Messages {
		content, err := text(m.Content)
		if err != nil {
			return Request{}, false, fmt.Errorf("message %d: %w", i, err)
		}
		switch m.Role {
		case "system", "developer":
			system = append(system, content)
		case "user", "tool":
			req.Messages = append(req.Messages, Message{Role: m.Role, Content: content, ToolCallID: m.ToolCallID})
		case "assistant":
			msg := Message{Role: "assistant", Content: content}
			for _, c := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
			}
			req.Messages = append(req.Messages, msg)
		default:
			return Request{}, false, fmt.Errorf("message %d has role %q", i, m.Role)
		}
	}
	req.System = strings.Join(system, "\n\n")
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	var mode string
	var named struct {
		Function struct{ Name string } `json:"function"`
	}
	switch {
	case len(in.ToolChoice) == 0 || string(in.ToolChoice) == "null":
	case json.Unmarshal(in.ToolChoice, &mode) == nil:
		req.ToolChoice = mode
	case json.Unmarshal(in.ToolChoice, &named) == nil && named.Function.Name != "":
		req.ToolChoice = "tool:" + named.Function.Name
	default:
		return Request{}, false, errors.New("tool_choice is neither a mode nor a named function")
	}
	return req, in.StreamOptions.IncludeUsage, nil
}

// created is the creation time every answer gives.
const created = 1700000000

type (
	// openaiCompletion is a chat.completion, or a chat.completion.chunk
	// of a stream.
	openaiCompletion struct {
		ID      string          `json:"id"`
		Object  string          `json:"object"`
		Created int64           `json:"created"`
		Model   string          `json:"model"`
		Choices []any           `json:"choices"` // openaiChoice or openaiChunkChoice
		Usage   json.RawMessage `json:"usage,omitempty"`
	}
	openaiChoice struct {
		Index        int            `json:"index"`
		Message      map[string]any `json:"message"`
		Logprobs     any            `json:"logprobs"`
		FinishReason string         `json:"finish_reason"`
	}
	openaiChunkChoice struct {
		Index        int            `json:"index"`
		Delta        map[string]any `json:"delta"`
		Logprobs     any            `json:"logprobs"`
		FinishReason *string        `json:"finish_reason"`
	}
	openaiUsage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	}
	openaiCall struct {
		Index    *int           `json:"index,omitempty"` // streams only
		ID       string         `json:"id,omitempty"`
		Type     string         `json:"type,omitempty"`
		Function openaiFunction `json:"function"`
	}
	openaiFunction struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
)

func (openaiAPI) reply(w http.ResponseWriter, n int, req Request, usage bool, t Turn) {
	model := req.Model
	if model == "" {
		model = Model
	}
	finish := "stop"
	if len(t.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	counts, _ := json.Marshal(openaiUsage{PromptTokens: t.Usage.InputTokens, CompletionTokens: t.Usage.OutputTokens, TotalTokens: t.Usage.InputTokens + t.Usage.OutputTokens})
	reply := func(object string, choices ...any) openaiCompletion {
		return openaiCompletion{ID: fmt.Sprintf("chatcmpl-%d", n), Object: object, Created: created, Model: model, Choices: choices}
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": t.Text, "refusal": nil}
		if len(t.ToolCalls) > 0 {
			if t.Text == "" {
				msg["content"] = nil
			}
			var calls []openaiCall
			for i, c := range t.ToolCalls {
				calls = append(calls, openaiCall{ID: callID("call", n, i, c), Type: "function", Function: openaiFunction{Name: c.Name, Arguments: openaiArguments(c.Arguments)}})
			}
			msg["tool_calls"] = calls
		}
		c := reply("chat.completion", openaiChoice{Message: msg, FinishReason: finish})
		c.Usage = counts
		writeJSON(w, http.StatusOK, c)
		return
	}
	ev := startEvents(w)
	chunk := func(delta map[string]any, reason *string) {
		c := reply("chat.completion.chunk", openaiChunkChoice{Delta: delta, FinishReason: reason})
		if usage {
			// With include_usage, every chunk has a usage: null until the
			// last chunk, which has only the usage.
			c.Usage = json.RawMessage("null")
		}
		ev.send("", c)
	}
	first := map[string]any{"role": "assistant", "content": "", "refusal": nil}
	if t.Text == "" && len(t.ToolCalls) > 0 {
		first["content"] = nil
	}
	chunk(first, nil)
	for _, piece := range words(t.Text) {
		chunk(map[string]any{"content": piece}, nil)
	}
	for i, c := range t.ToolCalls {
		chunk(map[string]any{"tool_calls": []openaiCall{{Index: &i, ID: callID("call", n, i, c), Type: "function", Function: openaiFunction{Name: c.Name}}}}, nil)
		for _, piece := range fragments(openaiArguments(c.Arguments)) {
			chunk(map[string]any{"tool_calls": []openaiCall{{Index: &i, Function: openaiFunction{Arguments: piece}}}}, nil)
		}
	}
	chunk(map[string]any{}, &finish)
	if usage {
		last := reply("chat.completion.chunk")
		last.Choices, last.Usage = []any{}, counts
		ev.send("", last)
	}
	ev.send("", "[DONE]")
}

// openaiArguments returns the arguments of a call as the API writes them:
// "{}" for none.
func openaiArguments(args string) string {
	if strings.TrimSpace(args) == "" {
		return "{}"
	}
	return args
}

// fail writes an error as the OpenAI API does.
func (openaiAPI) fail(w http.ResponseWriter, _ int, status int, message string) {
	typ, code := "invalid_request_error", any(nil)
	switch {
	case status == http.StatusUnauthorized:
		code = "invalid_api_key"
	case status == http.StatusNotFound:
		code = "model_not_found"
	case status == http.StatusTooManyRequests:
		typ, code = "requests", "rate_limit_exceeded"
	case status >= 500:
		typ = "server_error"
	}
	if message == "" {
		message = map[int]string{
			http.StatusUnauthorized:    "Incorrect API key provided.",
			http.StatusNotFound:        "The model does not exist or you do not have access to it.",
			http.StatusTooManyRequests: "Rate limit reached for requests.",
		}[status]
	}
	if message == "" {
		message = "The server had an error while processing your request. Sorry about that!"
		if status < 500 {
			message = http.StatusText(status)
		}
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": code}})
}
