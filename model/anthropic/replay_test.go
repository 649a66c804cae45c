package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/model"
	rt "github.com/sanadhq/sanad/model/internal/replaytest"
)

func replay(t *testing.T, ia *rt.Interaction) (model.Response, *rt.Server, error) {
	t.Helper()
	req, skip := requestFromBody(ia.Body)
	if skip != "" {
		t.Skip(skip)
	}
	srv := rt.Serve(t, matchBody, ia)
	m := newModel(t, Config{Model: rt.Str(ia.Body, "model"), BaseURL: srv.URL})
	resp, err := m.Generate(context.Background(), req)
	return resp, srv, err
}

// TestReplayAnthropicMessages replays every recorded Messages exchange that
// model.Request can express and checks the parsed reply against the
// recording.
func TestReplayAnthropicMessages(t *testing.T) {
	replayed := map[string]bool{}
	for _, ia := range rt.Load(t, "anthropic.messages") {
		t.Run(ia.Name(), func(t *testing.T) {
			resp, srv, err := replay(t, ia)
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if srv.Served() != 1 {
				t.Fatalf("got %d requests, want 1", srv.Served())
			}
			if diff := sameReply(resp, reply(ia.Reply)); diff != "" {
				t.Error(diff)
			}
			replayed[ia.File] = true
		})
	}
	for _, f := range []string{
		"test_anthropic/test_multiple_parallel_tool_calls.json",
		"test_anthropic/test_anthropic_tool_output.json",
		"test_anthropic/test_anthropic_mixed_strict_tool_run.json",
		"test_anthropic/test_anthropic_text_output_function.json",
		"test_tool_choice_matrix/test_tool_choice_matrix[auto-anthropic].json",
		"test_tool_choice_matrix/test_tool_choice_matrix[tools_plus_output-anthropic].json",
	} {
		if !replayed[f] {
			t.Errorf("%s was not replayed", f)
		}
	}
}

// TestReplayAnthropicToolUse checks parsed tool calls against values
// written out by hand, and that parallel tool results go back in one turn.
func TestReplayAnthropicToolUse(t *testing.T) {
	ias := rt.LoadFile(t, "test_anthropic/test_multiple_parallel_tool_calls.json")
	srv := rt.Serve(t, matchBody, ias...)
	m := newModel(t, Config{Model: "claude-haiku-4-5", BaseURL: srv.URL})
	req, _ := requestFromBody(ias[0].Body)
	first, err := m.Generate(context.Background(), req)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	want := []struct{ id, name string }{
		{"toolu_0167cfEnoQaPviGdVXA95zcu", "Alice"},
		{"toolu_01EEe2V5HD1Ac4rKiUR4HD2T", "Bob"},
		{"toolu_01XFyAjstT3966qvRynZyVPo", "Charlie"},
		{"toolu_013mnQZbgtK2oe3Mo3XKJsx3", "Daisy"},
	}
	if len(first.ToolCalls) != len(want) {
		t.Fatalf("got %d tool calls, want %d", len(first.ToolCalls), len(want))
	}
	for i, w := range want {
		c := first.ToolCalls[i]
		if c.ID != w.id || c.Name != "retrieve_entity_info" || string(c.Arguments) != `{"name":"`+w.name+`"}` {
			t.Errorf("call %d: got %s %s(%s), want %s retrieve_entity_info({\"name\":%q})", i, c.ID, c.Name, c.Arguments, w.id, w.name)
		}
	}
	if !strings.HasPrefix(first.Text, "I'll help you find out who is the youngest") || first.FinishReason != model.FinishToolCalls {
		t.Errorf("got text %q finish %q", first.Text, first.FinishReason)
	}
	if first.Usage.InputTokens != 423 || first.Usage.OutputTokens != 202 {
		t.Errorf("Usage: got %+v, want 423 in and 202 out", first.Usage)
	}

	// Four tool messages go back as one user turn of four results.
	req.Messages = append(req.Messages, first.Message())
	for i, answer := range []string{"alice is bob's wife", "bob is alice's husband", "charlie is alice's son", "daisy is bob's daughter and charlie's younger sister"} {
		req.Messages = append(req.Messages, model.Message{Role: model.RoleTool, ToolCallID: first.ToolCalls[i].ID, Content: answer})
	}
	second, err := m.Generate(context.Background(), req)
	if err != nil {
		t.Fatalf("second Generate: %v", err)
	}
	if !strings.Contains(second.Text, "Daisy is the youngest") || second.FinishReason != model.FinishStop {
		t.Errorf("got text %q finish %q", second.Text, second.FinishReason)
	}
	if n := len(rt.List(srv.Requests[1], "messages")); n != 3 {
		t.Errorf("the second request has %d messages, want 3 (user, assistant, user with four results)", n)
	}
}

// TestReplayAnthropicToolChoice checks how each tool choice is sent.
func TestReplayAnthropicToolChoice(t *testing.T) {
	tests := []struct {
		file   string
		choice model.ToolChoice
		sent   string
		tool   string
	}{
		{"test_tool_choice_matrix[auto-anthropic].json", model.ToolChoice{Mode: model.ToolChoiceAuto}, `{"type":"auto"}`, "get_weather"},
		{"test_tool_choice_matrix[required-anthropic].json", model.ToolChoice{Mode: model.ToolChoiceRequired}, `{"type":"any"}`, "get_weather"},
		{"test_tool_choice_matrix[list_single-anthropic].json", model.UseTool("get_weather"), `{"type":"tool","name":"get_weather"}`, "get_weather"},
		{"test_tool_choice_matrix[none_with_output-anthropic].json", model.UseTool("final_result"), `{"type":"tool","name":"final_result"}`, "final_result"},
	}
	for _, tt := range tests {
		ia := rt.Find(t, "test_tool_choice_matrix/"+tt.file, 0)
		t.Run(ia.Name(), func(t *testing.T) {
			req, _ := requestFromBody(ia.Body)
			if req.ToolChoice != tt.choice {
				t.Fatalf("recorded tool choice reads as %+v, want %+v", req.ToolChoice, tt.choice)
			}
			resp, srv, err := replay(t, ia)
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if got := srv.Requests[0]["tool_choice"]; !rt.SameJSON(got, json.RawMessage(tt.sent)) {
				t.Errorf("sent tool_choice %v, want %s", got, tt.sent)
			}
			if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != tt.tool {
				t.Errorf("got calls %+v, want one call of %s", resp.ToolCalls, tt.tool)
			}
		})
	}
}

// TestReplayAnthropicThinking serves recorded replies that hold thinking
// blocks: they are not part of the reply's text.
func TestReplayAnthropicThinking(t *testing.T) {
	for _, tt := range []struct {
		file  string
		index int
		tool  string
	}{
		{"test_anthropic/test_anthropic_tool_with_thinking.json", 0, "get_user_country"},
		{"test_anthropic/test_anthropic_opus_46_adaptive_thinking_accepts_tool_output[unified].json", 0, "final_result"},
	} {
		ia := rt.Find(t, tt.file, tt.index)
		t.Run(ia.Name(), func(t *testing.T) {
			srv := rt.Serve(t, func(got, want map[string]any) string { return "" }, ia)
			m := newModel(t, Config{BaseURL: srv.URL})
			resp, err := m.Generate(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if diff := sameReply(resp, reply(ia.Reply)); diff != "" {
				t.Error(diff)
			}
			if strings.Contains(resp.Text, "The user is asking") {
				t.Errorf("the thinking leaked into the text: %q", resp.Text)
			}
			if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != tt.tool {
				t.Errorf("got calls %+v, want one %s call", resp.ToolCalls, tt.tool)
			}
		})
	}
}

// TestStreamMatchesGenerate turns recorded replies into event streams (as
// the Messages API streams them) and checks that the streamed reply is the
// one Generate parses.
func TestStreamMatchesGenerate(t *testing.T) {
	for _, name := range []string{
		"test_anthropic/test_multiple_parallel_tool_calls.json",
		"test_anthropic/test_anthropic_tool_with_thinking.json",
		"test_tool_choice_matrix/test_tool_choice_matrix[tools_plus_output-anthropic].json",
		"test_anthropic/test_anthropic_text_output_function.json",
	} {
		for _, ia := range rt.LoadFile(t, name) {
			t.Run(ia.Name(), func(t *testing.T) {
				anyBody := func(got, want map[string]any) string { return "" }
				srv := rt.Serve(t, anyBody, ia)
				m := newModel(t, Config{BaseURL: srv.URL})
				req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}
				gen, err := m.Generate(context.Background(), req)
				if err != nil {
					t.Fatalf("Generate: %v", err)
				}
				streamed := *ia
				streamed.Response = []byte(sse(t, ia.Reply))
				streamed.ContentType = "text/event-stream"
				srv = rt.Serve(t, func(got, want map[string]any) string {
					if got["stream"] != true {
						return "stream is not set"
					}
					return ""
				}, &streamed)
				m = newModel(t, Config{BaseURL: srv.URL})
				var acc model.Accumulator
				var final *model.Response
				for d, err := range m.Stream(context.Background(), req) {
					if err != nil {
						t.Fatalf("Stream: %v", err)
					}
					acc.Add(d)
					final = d.Response
				}
				if final == nil {
					t.Fatal("no final delta")
				}
				gen.Latency, final.Latency = 0, 0
				if diff := sameReply(*final, gen); diff != "" {
					t.Errorf("stream and Generate differ: %s", diff)
				}
				calls, err := acc.ToolCalls()
				if err != nil || acc.Text() != final.Text || len(calls) != len(final.ToolCalls) {
					t.Errorf("the deltas add up to %q %+v (%v), want the final reply", acc.Text(), calls, err)
				}
			})
		}
	}
}

// sse writes a recorded reply as the event stream the Messages API sends:
// message_start, each block with its text or input in pieces, the stop
// reason with the output tokens, and message_stop. Thinking blocks stream
// too.
func sse(tb testing.TB, r map[string]any) string {
	tb.Helper()
	var b strings.Builder
	emit := func(v map[string]any) {
		data, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		b.WriteString("event: " + v["type"].(string) + "\ndata: " + string(data) + "\n\n")
	}
	u := rt.Obj(r, "usage")
	start := map[string]any{"id": r["id"], "type": "message", "role": "assistant", "model": r["model"], "content": []any{},
		"stop_reason": nil, "usage": map[string]any{"input_tokens": u["input_tokens"], "output_tokens": 1,
			"cache_creation_input_tokens": u["cache_creation_input_tokens"], "cache_read_input_tokens": u["cache_read_input_tokens"]}}
	emit(map[string]any{"type": "message_start", "message": start})
	emit(map[string]any{"type": "ping"})
	for i, blk := range blocks(r["content"]) {
		switch rt.Str(blk, "type") {
		case "text":
			emit(map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, p := range pieces(rt.Str(blk, "text"), 7) {
				emit(map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": p}})
			}
		case "tool_use":
			emit(map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": blk["id"], "name": blk["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(blk["input"])
			for _, p := range pieces(string(in), 3) {
				emit(map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}})
			}
		case "thinking":
			emit(map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "thinking", "thinking": ""}})
			emit(map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "thinking_delta", "thinking": blk["thinking"]}})
			emit(map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "signature_delta", "signature": blk["signature"]}})
		}
		emit(map[string]any{"type": "content_block_stop", "index": i})
	}
	emit(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": r["stop_reason"], "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u["output_tokens"]}})
	emit(map[string]any{"type": "message_stop"})
	return b.String()
}

// pieces cuts s into pieces of n bytes, on rune boundaries.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		cut := min(n, len(s))
		for cut < len(s) && s[cut]&0xC0 == 0x80 {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}
