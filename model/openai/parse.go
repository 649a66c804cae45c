package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/internal/call"
)

// The shapes of the answers, as much of them as a reply needs. Pointers
// tell a missing or null field from an empty one.
type (
	completion struct {
		ID      string          `json:"id"`
		Model   string          `json:"model"`
		Choices []choice        `json:"choices"`
		Usage   *usage          `json:"usage"`
		Error   json.RawMessage `json:"error"`
	}
	choice struct {
		Index        int64    `json:"index"`
		FinishReason *string  `json:"finish_reason"`
		Message      *message `json:"message"` // a completion
		Delta        *message `json:"delta"`   // a chunk of a stream
	}
	message struct {
		Content   *string    `json:"content"`
		Refusal   *string    `json:"refusal"`
		ToolCalls []toolCall `json:"tool_calls"`
	}
	toolCall struct {
		Index    *int64    `json:"index"` // streams only
		ID       string    `json:"id"`
		Type     string    `json:"type"`
		Function *function `json:"function"`
	}
	function struct {
		Name      string  `json:"name"`
		Arguments *string `json:"arguments"`
	}
	usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	}
)

// parseCompletion reads a chat completion.
func parseCompletion(raw []byte) (model.Response, error) {
	var c completion
	if err := call.Decode(raw, &c, "completion"); err != nil {
		return model.Response{}, err
	}
	if len(c.Choices) == 0 {
		if len(c.Error) > 0 && string(c.Error) != "null" {
			return model.Response{}, fmt.Errorf("the body is an error instead of a completion: %s", call.ProviderMessage(raw))
		}
		return model.Response{}, errors.New("the completion has no choices")
	}
	ch := c.Choices[0]
	if ch.Message == nil {
		return model.Response{}, errors.New("the first choice of the completion has no message")
	}
	u, err := c.Usage.usage()
	if err != nil {
		return model.Response{}, err
	}
	resp := model.Response{ID: c.ID, Model: c.Model, Usage: u}
	refused := false
	if ch.Message.Content != nil {
		resp.Text = *ch.Message.Content
	}
	if r := ch.Message.Refusal; r != nil && *r != "" {
		resp.Text += *r
		refused = true
	}
	for i, tc := range ch.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			return model.Response{}, fmt.Errorf("tool call %d is of type %q; only function tools are used", i, tc.Type)
		}
		if tc.Function == nil || tc.Function.Name == "" {
			return model.Response{}, fmt.Errorf("tool call %d names no function", i)
		}
		var s string
		if tc.Function.Arguments != nil {
			s = *tc.Function.Arguments
		}
		args, err := model.ToolArguments(tc.Function.Name, s)
		if err != nil {
			return model.Response{}, fmt.Errorf("the arguments of tool call %d (%s) are not a JSON object", i, tc.Function.Name)
		}
		id := tc.ID
		if id == "" {
			id = call.ToolCallID(c.ID, i, tc.Function.Name, args)
		}
		resp.ToolCalls = append(resp.ToolCalls, model.ToolCall{ID: id, Name: tc.Function.Name, Arguments: args})
	}
	resp.FinishReason = finishReason(ch.FinishReason, len(resp.ToolCalls) > 0, refused)
	return resp, nil
}

// usage returns the token counts; a missing usage counts nothing (some
// servers send none). The total is the provider's: it may include tokens
// that are neither prompt nor completion, such as reasoning.
func (u *usage) usage() (model.Usage, error) {
	if u == nil {
		return model.Usage{}, nil
	}
	if u.PromptTokens < 0 || u.CompletionTokens < 0 || u.TotalTokens < 0 {
		return model.Usage{}, errors.New("the usage has negative token counts")
	}
	out := model.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	return out, nil
}

// finishReason maps the provider's reason onto model's. A missing reason is
// inferred from the reply.
func finishReason(r *string, toolCalls, refused bool) model.FinishReason {
	reason := ""
	if r != nil {
		reason = *r
	}
	switch reason {
	case "stop", "":
		switch {
		case refused:
			return model.FinishContentFilter
		case reason == "" && toolCalls:
			return model.FinishToolCalls
		}
		return model.FinishStop
	case "length":
		return model.FinishLength
	case "tool_calls", "function_call":
		return model.FinishToolCalls
	case "content_filter":
		return model.FinishContentFilter
	}
	return model.FinishReason(reason)
}

// streamState reads the chunks of a streamed completion.
type streamState struct {
	id       string
	model    string
	finish   *string
	refused  bool
	usage    *usage
	ordinals map[int64]int // the provider's tool-call index → position in the reply
	lastCall int           // position of the last call a fragment went to, -1 before any
	calls    int
}

var _ call.Reader = (*streamState)(nil)

func newStreamState() call.Reader {
	return &streamState{ordinals: map[int64]int{}, lastCall: -1}
}

// Event reads one chunk of the stream and returns its deltas; done is true
// at [DONE].
func (s *streamState) Event(data []byte) (deltas []model.Delta, done bool, err error) {
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, []byte("[DONE]")) {
		return nil, true, nil
	}
	var c completion
	if err := call.Decode(data, &c, "stream chunk"); err != nil {
		return nil, false, err
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return nil, false, &call.StreamError{Msg: call.ProviderMessage(data)}
	}
	if c.ID != "" {
		s.id = c.ID
	}
	if c.Model != "" {
		s.model = c.Model
	}
	if c.Usage != nil {
		s.usage = c.Usage
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.finish = ch.FinishReason
		}
		d := ch.Delta
		if d == nil {
			continue
		}
		if d.Content != nil && *d.Content != "" {
			deltas = append(deltas, model.Delta{Text: *d.Content})
		}
		if d.Refusal != nil && *d.Refusal != "" {
			deltas = append(deltas, model.Delta{Text: *d.Refusal})
			s.refused = true
		}
		for _, tc := range d.ToolCalls {
			if tc.Type != "" && tc.Type != "function" {
				return nil, false, fmt.Errorf("a streamed tool call is of type %q; only function tools are used", tc.Type)
			}
			td := &model.ToolCallDelta{Index: s.ordinal(tc), ID: tc.ID}
			if tc.Function != nil {
				td.Name = tc.Function.Name
				if tc.Function.Arguments != nil {
					td.Arguments = *tc.Function.Arguments
				}
			}
			deltas = append(deltas, model.Delta{ToolCall: td})
		}
	}
	return deltas, false, nil
}

// ordinal returns the position in the reply of the call a fragment belongs
// to. Fragments carry the provider's index; a server that sends none starts
// a new call with each fragment that has an id or a name of its own.
func (s *streamState) ordinal(tc toolCall) int {
	if tc.Index != nil {
		o, ok := s.ordinals[*tc.Index]
		if !ok {
			o = s.calls
			s.calls++
			s.ordinals[*tc.Index] = o
		}
		s.lastCall = o
		return o
	}
	starts := tc.ID != "" || (tc.Function != nil && tc.Function.Name != "")
	if s.lastCall < 0 || starts {
		s.lastCall = s.calls
		s.calls++
	}
	return s.lastCall
}

// Reply returns the id, model, usage and finish reason of the reply once
// the stream has ended.
func (s *streamState) Reply(toolCalls bool) (model.Response, error) {
	if s.finish == nil {
		return model.Response{}, call.ErrUnfinished
	}
	u, err := s.usage.usage()
	if err != nil {
		return model.Response{}, err
	}
	return model.Response{ID: s.id, Model: s.model, Usage: u, FinishReason: finishReason(s.finish, toolCalls, s.refused)}, nil
}

type embeddings struct {
	Model string `json:"model"`
	Data  []struct {
		Index     *int      `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Usage *usage `json:"usage"`
}

// parseEmbeddings reads the answer to an embeddings request of n texts.
func parseEmbeddings(raw []byte, n int) (model.Embeddings, error) {
	var e embeddings
	if err := call.Decode(raw, &e, "embeddings answer"); err != nil {
		return model.Embeddings{}, err
	}
	if len(e.Data) != n {
		return model.Embeddings{}, fmt.Errorf("the answer holds %d embeddings for %d texts", len(e.Data), n)
	}
	out := model.Embeddings{Model: e.Model, Vectors: make([][]float32, n)}
	dim := -1
	for i, d := range e.Data {
		at := i
		if d.Index != nil {
			at = *d.Index
		}
		if at < 0 || at >= n || out.Vectors[at] != nil {
			return model.Embeddings{}, fmt.Errorf("embedding %d has a missing, repeated or out-of-range index", i)
		}
		if len(d.Embedding) == 0 || (dim >= 0 && len(d.Embedding) != dim) {
			return model.Embeddings{}, fmt.Errorf("embedding %d is empty or of a different dimension than the others", i)
		}
		dim = len(d.Embedding)
		v := make([]float32, dim)
		for j, x := range d.Embedding {
			f := float32(x)
			if math.IsInf(float64(f), 0) || math.IsNaN(x) {
				return model.Embeddings{}, fmt.Errorf("embedding %d holds a value that is not a finite number", i)
			}
			v[j] = f
		}
		out.Vectors[at] = v
	}
	u, err := e.Usage.usage()
	if err != nil {
		return model.Embeddings{}, err
	}
	out.Usage = u
	return out, nil
}
