package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/internal/call"
)

// The shapes of the answers, as much of them as a reply needs. Pointers
// tell a missing or null field from an empty one.
type (
	message struct {
		ID         string          `json:"id"`
		Type       string          `json:"type"`
		Model      string          `json:"model"`
		Content    *[]block        `json:"content"`
		StopReason *string         `json:"stop_reason"`
		Usage      *usage          `json:"usage"`
		Error      json.RawMessage `json:"error"`
	}
	block struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	usage struct {
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	}
	// event is one event of a stream; which fields it has depends on Type.
	event struct {
		Type         string          `json:"type"`
		Message      *message        `json:"message"`       // message_start
		Index        *int64          `json:"index"`         // content_block_*
		ContentBlock *block          `json:"content_block"` // content_block_start
		Delta        *eventDelta     `json:"delta"`         // content_block_delta, message_delta
		Usage        *usage          `json:"usage"`         // message_delta
		Error        json.RawMessage `json:"error"`         // error
	}
	eventDelta struct {
		Type        string  `json:"type"`
		Text        string  `json:"text"`
		PartialJSON string  `json:"partial_json"`
		StopReason  *string `json:"stop_reason"`
	}
)

// parseMessage reads a Messages API reply.
func parseMessage(raw []byte) (model.Response, error) {
	var msg message
	if err := call.Decode(raw, &msg, "message"); err != nil {
		return model.Response{}, err
	}
	if msg.Type == "error" || (len(msg.Error) > 0 && string(msg.Error) != "null") {
		return model.Response{}, fmt.Errorf("the body is an error instead of a message: %s", call.ProviderMessage(raw))
	}
	if msg.Type != "" && msg.Type != "message" {
		return model.Response{}, fmt.Errorf("the body is a %q, not a message", msg.Type)
	}
	if msg.Content == nil {
		return model.Response{}, errors.New("the message has no content")
	}
	u, err := msg.Usage.usage()
	if err != nil {
		return model.Response{}, err
	}
	resp := model.Response{ID: msg.ID, Model: msg.Model, Usage: u}
	for i, b := range *msg.Content {
		switch b.Type {
		case "text":
			resp.Text += b.Text
		case "tool_use":
			if b.Name == "" {
				return model.Response{}, fmt.Errorf("tool call %d names no tool", i)
			}
			args, err := toolInput(b.Name, b.Input)
			if err != nil {
				return model.Response{}, err
			}
			id := b.ID
			if id == "" {
				id = call.ToolCallID(msg.ID, len(resp.ToolCalls), b.Name, args)
			}
			resp.ToolCalls = append(resp.ToolCalls, model.ToolCall{ID: id, Name: b.Name, Arguments: args})
		case "":
			return model.Response{}, fmt.Errorf("content block %d has no type", i)
		}
		// Thinking and the blocks of server-side tools are not part of
		// the reply.
	}
	resp.FinishReason = stopReason(msg.StopReason, len(resp.ToolCalls) > 0)
	return resp, nil
}

// toolInput returns the input of a tool call as its arguments: a JSON
// object; absent or null is {}.
func toolInput(name string, input json.RawMessage) (json.RawMessage, error) {
	s := string(bytes.TrimSpace(input))
	if s == "null" {
		s = ""
	}
	args, err := model.ToolArguments(name, s)
	if err != nil {
		return nil, fmt.Errorf("the input of tool call %s is not a JSON object", name)
	}
	return args, nil
}

// usage returns the token counts; input counts the cached prompt tokens
// too. A missing usage counts nothing.
func (u *usage) usage() (model.Usage, error) {
	if u == nil {
		return model.Usage{}, nil
	}
	if u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheCreationInputTokens < 0 || u.CacheReadInputTokens < 0 {
		return model.Usage{}, errors.New("the usage has negative token counts")
	}
	in := u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
	return model.Usage{InputTokens: in, OutputTokens: u.OutputTokens, TotalTokens: in + u.OutputTokens}, nil
}

// stopReason maps Anthropic's stop reason onto model's. A missing reason is
// inferred from the reply.
func stopReason(r *string, toolCalls bool) model.FinishReason {
	reason := ""
	if r != nil {
		reason = *r
	}
	switch reason {
	case "end_turn", "stop_sequence":
		return model.FinishStop
	case "max_tokens", "model_context_window_exceeded":
		return model.FinishLength
	case "tool_use":
		return model.FinishToolCalls
	case "refusal":
		return model.FinishContentFilter
	case "":
		if toolCalls {
			return model.FinishToolCalls
		}
		return model.FinishStop
	}
	return model.FinishReason(reason)
}

// streamState reads the events of a streamed message.
type streamState struct {
	id      string
	model   string
	stop    *string
	usage   usage
	calls   int
	toolAt  map[int64]int // content block index → position of its tool call in the reply
	started bool
}

var _ call.Reader = (*streamState)(nil)

func newStreamState() call.Reader { return &streamState{toolAt: map[int64]int{}} }

// Event reads one event of the stream and returns its deltas; done is true
// at message_stop.
func (s *streamState) Event(data []byte) (deltas []model.Delta, done bool, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, false, nil
	}
	var ev event
	if err := call.Decode(data, &ev, "stream event"); err != nil {
		return nil, false, err
	}
	switch ev.Type {
	case "ping":
	case "error":
		return nil, false, &call.StreamError{Msg: call.ProviderMessage(data)}
	case "message_start":
		if ev.Message == nil {
			return nil, false, errors.New("message_start carries no message")
		}
		s.started = true
		s.id, s.model = ev.Message.ID, ev.Message.Model
		if u := ev.Message.Usage; u != nil {
			s.usage = *u
		}
	case "content_block_start":
		if ev.Index == nil || ev.ContentBlock == nil {
			return nil, false, errors.New("content_block_start carries no index or block")
		}
		switch b := ev.ContentBlock; b.Type {
		case "text":
			if b.Text != "" {
				deltas = append(deltas, model.Delta{Text: b.Text})
			}
		case "tool_use":
			if b.Name == "" {
				return nil, false, errors.New("a streamed tool call names no tool")
			}
			if _, dup := s.toolAt[*ev.Index]; dup {
				return nil, false, errors.New("a content block starts twice")
			}
			s.toolAt[*ev.Index] = s.calls
			deltas = append(deltas, model.Delta{ToolCall: &model.ToolCallDelta{Index: s.calls, ID: b.ID, Name: b.Name}})
			s.calls++
		}
	case "content_block_delta":
		if ev.Index == nil || ev.Delta == nil {
			return nil, false, errors.New("content_block_delta carries no index or delta")
		}
		switch d := ev.Delta; d.Type {
		case "text_delta":
			if d.Text != "" {
				deltas = append(deltas, model.Delta{Text: d.Text})
			}
		case "input_json_delta":
			at, ok := s.toolAt[*ev.Index]
			if !ok {
				return nil, false, errors.New("tool input arrives for a block that is not a tool call")
			}
			if d.PartialJSON != "" {
				deltas = append(deltas, model.Delta{ToolCall: &model.ToolCallDelta{Index: at, Arguments: d.PartialJSON}})
			}
		}
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != nil {
			s.stop = ev.Delta.StopReason
		}
		if u := ev.Usage; u != nil {
			// The counts of message_delta are the totals so far; a count it
			// leaves out keeps its value from message_start.
			s.usage.OutputTokens = u.OutputTokens
			if u.InputTokens > 0 {
				s.usage.InputTokens = u.InputTokens
			}
			if u.CacheCreationInputTokens > 0 {
				s.usage.CacheCreationInputTokens = u.CacheCreationInputTokens
			}
			if u.CacheReadInputTokens > 0 {
				s.usage.CacheReadInputTokens = u.CacheReadInputTokens
			}
		}
	case "message_stop":
		done = true
	case "":
		return nil, false, errors.New("a stream event has no type")
	}
	return deltas, done, nil
}

// Reply returns the id, model, usage and finish reason of the reply once
// the stream has ended.
func (s *streamState) Reply(toolCalls bool) (model.Response, error) {
	if !s.started || s.stop == nil {
		return model.Response{}, call.ErrUnfinished
	}
	u, err := s.usage.usage()
	if err != nil {
		return model.Response{}, err
	}
	return model.Response{ID: s.id, Model: s.model, Usage: u, FinishReason: stopReason(s.stop, toolCalls)}, nil
}
