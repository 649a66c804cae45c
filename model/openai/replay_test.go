package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/model"
	rt "github.com/sanadhq/sanad/model/internal/replaytest"
)

// replay sends the request of ia through a model pointed at a server that
// answers with the recording, and returns the reply.
func replay(t *testing.T, ia *rt.Interaction) (model.Response, *rt.Server, error) {
	t.Helper()
	req, skip := requestFromBody(ia.Body)
	if skip != "" {
		t.Skip(skip)
	}
	srv := rt.Serve(t, matchBody, ia)
	m := newModel(t, Config{Model: rt.Str(ia.Body, "model"), BaseURL: srv.BaseURL(ia, "/chat/completions")})
	resp, err := m.Generate(context.Background(), req)
	return resp, srv, err
}

// TestReplayOpenAIChatCompletions replays every recorded Chat Completions
// exchange, from OpenAI and from the OpenAI-compatible APIs of Groq,
// Hugging Face, Cerebras, Gemini and Mistral, and checks the parsed reply
// against the recording.
func TestReplayOpenAIChatCompletions(t *testing.T) {
	replayed := map[string]bool{}
	for _, ia := range rt.Load(t, "openai.", "openai_compatible.", "mistral.") {
		if ia.Stream != "" {
			continue // TestReplayOpenAIStream
		}
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
		"test_openai/test_multiple_agent_tool_calls.json",
		"test_openai/test_openai_instructions_with_tool_calls_keep_instructions.json",
		"test_openai/test_openai_tool_output.json",
		"test_openai/test_openai_native_output.json",
		"test_openai/test_compatible_api_with_tool_calls_without_id.json",
		"test_tool_choice_matrix/test_tool_choice_matrix[auto-openai].json",
		"test_tool_choice_matrix/test_tool_choice_matrix[tools_plus_output-groq].json",
		"test_tool_choice_matrix/test_tool_choice_matrix[list_single-huggingface].json",
		"test_tool_choice_matrix/test_tool_choice_matrix[required-mistral].json",
	} {
		if !replayed[f] {
			t.Errorf("%s was not replayed", f)
		}
	}
}

// TestReplayOpenAIToolCalls checks the parsed tool calls of recordings
// against values written out by hand.
func TestReplayOpenAIToolCalls(t *testing.T) {
	type call struct{ id, name, args string }
	tests := []struct {
		file   string
		index  int
		calls  []call
		text   string
		finish model.FinishReason
		usage  model.Usage
	}{
		{
			file: "test_openai/test_multiple_agent_tool_calls.json", index: 2,
			calls:  []call{{"call_SkEQ3ZGSJC8m6AvaIGNuuKdm", "get_capital", `{"country":"England"}`}},
			finish: model.FinishToolCalls, usage: model.Usage{InputTokens: 104, OutputTokens: 16, TotalTokens: 120},
		},
		{
			file: "test_openai/test_multiple_agent_tool_calls.json", index: 3,
			text:   "The capital of England is London.",
			finish: model.FinishStop, usage: model.Usage{InputTokens: 129, OutputTokens: 9, TotalTokens: 138},
		},
		{
			file: "test_openai/test_openai_instructions_with_tool_calls_keep_instructions.json", index: 0,
			calls:  []call{{"call_bhZkmIKKItNGJ41whHUHB7p9", "get_temperature", `{"city":"Tokyo"}`}},
			finish: model.FinishToolCalls, usage: model.Usage{InputTokens: 50, OutputTokens: 15, TotalTokens: 65},
		},
		{
			// Two calls in one reply, ids from Groq.
			file: "test_tool_choice_matrix/test_tool_choice_matrix[tools_plus_output-groq].json", index: 0,
			calls: []call{
				{"rew01jq49", "get_weather", `{"city":"Paris"}`},
				{"gbpypqxpx", "final_result", `{"city":"Paris","summary":"Current weather in Paris"}`},
			},
			finish: model.FinishToolCalls, usage: model.Usage{InputTokens: 779, OutputTokens: 65, TotalTokens: 844},
		},
		{
			// Mistral sends tool calls without "type".
			file: "test_tool_choice_matrix/test_tool_choice_matrix[tools_plus_output-mistral].json", index: 0,
			calls:  []call{{"rHU0eZiMa", "get_weather", `{"city": "Paris"}`}},
			finish: model.FinishToolCalls, usage: model.Usage{InputTokens: 152, OutputTokens: 12, TotalTokens: 164},
		},
		{
			// Gemini's compatible API sends an empty id, and a total that
			// counts thinking tokens.
			file: "test_openai/test_compatible_api_with_tool_calls_without_id.json", index: 0,
			calls:  []call{{"", "get_current_time", `{}`}},
			finish: model.FinishToolCalls, usage: model.Usage{InputTokens: 35, OutputTokens: 12, TotalTokens: 109},
		},
	}
	for _, tt := range tests {
		ia := rt.Find(t, tt.file, tt.index)
		t.Run(ia.Name(), func(t *testing.T) {
			resp, _, err := replay(t, ia)
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if resp.Text != tt.text {
				t.Errorf("Text: got %q, want %q", resp.Text, tt.text)
			}
			if resp.FinishReason != tt.finish {
				t.Errorf("FinishReason: got %q, want %q", resp.FinishReason, tt.finish)
			}
			if resp.Usage != tt.usage {
				t.Errorf("Usage: got %+v, want %+v", resp.Usage, tt.usage)
			}
			if len(resp.ToolCalls) != len(tt.calls) {
				t.Fatalf("got %d tool calls, want %d", len(resp.ToolCalls), len(tt.calls))
			}
			for i, w := range tt.calls {
				g := resp.ToolCalls[i]
				if w.id == "" {
					if !strings.HasPrefix(g.ID, "call_") {
						t.Errorf("call %d: got id %q, want a made-up call_… id", i, g.ID)
					}
				} else if g.ID != w.id {
					t.Errorf("call %d: got id %q, want %q", i, g.ID, w.id)
				}
				if g.Name != w.name || string(g.Arguments) != w.args {
					t.Errorf("call %d: got %s(%s), want %s(%s)", i, g.Name, g.Arguments, w.name, w.args)
				}
			}
		})
	}
}

// TestReplayToolChoiceMatrix checks that each tool choice is sent the way
// the recorded client sent it, for OpenAI and the compatible APIs.
func TestReplayToolChoiceMatrix(t *testing.T) {
	tests := []struct {
		file     string
		choice   model.ToolChoice
		sent     any
		wantTool string // the tool the reply calls
	}{
		{"test_tool_choice_matrix[auto-openai].json", model.ToolChoice{Mode: model.ToolChoiceAuto}, "auto", "get_weather"},
		{"test_tool_choice_matrix[required-openai].json", model.ToolChoice{Mode: model.ToolChoiceRequired}, "required", "get_weather"},
		{"test_tool_choice_matrix[list_single-openai].json", model.UseTool("get_weather"), map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}}, "get_weather"},
		{"test_tool_choice_matrix[none_with_output-openai].json", model.UseTool("final_result"), map[string]any{"type": "function", "function": map[string]any{"name": "final_result"}}, "final_result"},
		{"test_tool_choice_matrix[auto-groq].json", model.ToolChoice{Mode: model.ToolChoiceAuto}, "auto", "get_weather"},
		{"test_tool_choice_matrix[required-groq].json", model.ToolChoice{Mode: model.ToolChoiceRequired}, "required", "get_weather"},
		{"test_tool_choice_matrix[list_single-groq].json", model.UseTool("get_weather"), map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}}, "get_weather"},
		{"test_tool_choice_matrix[required-huggingface].json", model.ToolChoice{Mode: model.ToolChoiceRequired}, "required", "get_weather"},
		{"test_tool_choice_matrix[none-huggingface].json", model.ToolChoice{Mode: model.ToolChoiceNone}, "none", ""},
		{"test_tool_choice_matrix[list_single-huggingface].json", model.UseTool("get_weather"), map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}}, "get_weather"},
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
			if got := srv.Requests[0]["tool_choice"]; !rt.SameJSON(got, tt.sent) {
				t.Errorf("sent tool_choice %v, want %v", got, tt.sent)
			}
			gotTool := ""
			if len(resp.ToolCalls) > 0 {
				gotTool = resp.ToolCalls[0].Name
			}
			if gotTool != tt.wantTool {
				t.Errorf("reply calls %q, want %q", gotTool, tt.wantTool)
			}
			if tt.wantTool == "" && (resp.Text == "" || resp.FinishReason != model.FinishStop) {
				t.Errorf("with tool choice none: got text %q and finish %q, want text and stop", resp.Text, resp.FinishReason)
			}
		})
	}
}

// TestReplayOpenAINativeOutput replays a json_schema structured-output
// conversation through model.Structured: the first reply calls a tool and
// is not checked, the second is JSON that matches the recorded schema.
func TestReplayOpenAINativeOutput(t *testing.T) {
	ias := rt.LoadFile(t, "test_openai/test_openai_native_output.json")
	srv := rt.Serve(t, matchBody, ias...)
	m := model.Structured(newModel(t, Config{Model: "gpt-4o", BaseURL: srv.BaseURL(ias[0], "/chat/completions")}))
	ctx := context.Background()

	req, _ := requestFromBody(ias[0].Body)
	first, err := m.Generate(ctx, req)
	if err != nil {
		t.Fatalf("first Generate: %v", err)
	}
	if len(first.ToolCalls) != 1 || first.ToolCalls[0].Name != "get_user_country" || first.Output != nil {
		t.Fatalf("first reply: got calls %+v and output %s, want one get_user_country call and no output", first.ToolCalls, first.Output)
	}
	req.Messages = append(req.Messages, first.Message(),
		model.Message{Role: model.RoleTool, ToolCallID: first.ToolCalls[0].ID, Content: "Mexico"})
	second, err := m.Generate(ctx, req)
	if err != nil {
		t.Fatalf("second Generate: %v", err)
	}
	if !rt.SameJSON(second.Output, json.RawMessage(`{"city":"Mexico City","country":"Mexico"}`)) {
		t.Errorf("Output: got %s, want the recorded city and country", second.Output)
	}
	if srv.Served() != 2 {
		t.Errorf("got %d requests, want 2", srv.Served())
	}
}

// TestReplayOpenAIStream replays the recorded event streams: a tool call
// whose arguments arrive in pieces, then the text answer.
func TestReplayOpenAIStream(t *testing.T) {
	ias := rt.LoadFile(t, "test_openai/test_run_stream_sync_streams_real_model.json")
	tests := []struct {
		ia        *rt.Interaction
		text      string
		call      string // name(arguments)
		callID    string
		finish    model.FinishReason
		usage     model.Usage
		fragments int // tool-call deltas
	}{
		{ia: ias[0], call: `get_capital({"country":"UK"})`, callID: "call_ZR5UUuTt3pf61kjwAJIYdVMj",
			finish: model.FinishToolCalls, usage: model.Usage{InputTokens: 53, OutputTokens: 15, TotalTokens: 68}, fragments: 6},
		{ia: ias[1], text: "The capital of the UK is London.",
			finish: model.FinishStop, usage: model.Usage{InputTokens: 78, OutputTokens: 9, TotalTokens: 87}},
	}
	for _, tt := range tests {
		t.Run(tt.ia.Name(), func(t *testing.T) {
			req, _ := requestFromBody(tt.ia.Body)
			srv := rt.Serve(t, matchBody, tt.ia)
			m := newModel(t, Config{BaseURL: srv.BaseURL(tt.ia, "/chat/completions")})
			var acc model.Accumulator
			var final *model.Response
			fragments := 0
			for d, err := range m.Stream(context.Background(), req) {
				if err != nil {
					t.Fatalf("stream: %v", err)
				}
				if final != nil {
					t.Fatal("a delta came after the final one")
				}
				acc.Add(d)
				if d.ToolCall != nil {
					fragments++
				}
				final = d.Response
			}
			if final == nil {
				t.Fatal("the stream has no final delta")
			}
			if got := srv.Requests[0]["stream_options"]; !rt.SameJSON(got, json.RawMessage(`{"include_usage":true}`)) {
				t.Errorf("stream_options: got %v, want include_usage", got)
			}
			if final.Text != tt.text || acc.Text() != tt.text {
				t.Errorf("Text: got %q (deltas %q), want %q", final.Text, acc.Text(), tt.text)
			}
			calls, err := acc.ToolCalls()
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(final.ToolCalls) == 1 {
				c := final.ToolCalls[0]
				got = c.Name + "(" + string(c.Arguments) + ")"
				if c.ID != tt.callID {
					t.Errorf("call id: got %q, want %q", c.ID, tt.callID)
				}
				if len(calls) != 1 || !rt.SameJSON(calls[0].Arguments, c.Arguments) {
					t.Errorf("the deltas add up to %+v, want the final call %+v", calls, c)
				}
			}
			if got != tt.call {
				t.Errorf("tool call: got %q, want %q", got, tt.call)
			}
			if fragments != tt.fragments {
				t.Errorf("got %d tool-call deltas, want %d", fragments, tt.fragments)
			}
			if final.FinishReason != tt.finish || final.Usage != tt.usage {
				t.Errorf("got finish %q usage %+v, want %q %+v", final.FinishReason, final.Usage, tt.finish, tt.usage)
			}
			if final.Model != "gpt-4o-mini-2024-07-18" || final.Provider != "openai" || !strings.HasPrefix(final.ID, "chatcmpl-") {
				t.Errorf("got model %q provider %q id %q", final.Model, final.Provider, final.ID)
			}
		})
	}
}

// TestStreamMatchesGenerate turns recorded completions into event streams
// and checks that the streamed reply is the one Generate parses.
func TestStreamMatchesGenerate(t *testing.T) {
	for _, name := range []string{
		"test_openai/test_multiple_agent_tool_calls.json",
		"test_tool_choice_matrix/test_tool_choice_matrix[tools_plus_output-groq].json",
		"test_tool_choice_matrix/test_tool_choice_matrix[tools_plus_output-huggingface].json",
		"test_openai/test_compatible_api_with_tool_calls_without_id.json",
		"test_openai/test_openai_native_output.json",
	} {
		for _, ia := range rt.LoadFile(t, name) {
			if ia.Reply == nil || !strings.Contains(ia.API, "openai") {
				continue
			}
			t.Run(ia.Name(), func(t *testing.T) {
				req, _ := requestFromBody(ia.Body)
				gen, _, err := replay(t, ia)
				if err != nil {
					t.Fatalf("Generate: %v", err)
				}
				streamed := *ia
				streamed.Response = []byte(sse(t, ia.Reply))
				streamed.ContentType = "text/event-stream"
				srv := rt.Serve(t, func(got, want map[string]any) string {
					if got["stream"] != true {
						return "stream is not set"
					}
					return ""
				}, &streamed)
				m := newModel(t, Config{Model: rt.Str(ia.Body, "model"), BaseURL: srv.BaseURL(ia, "/chat/completions")})
				str, err := model.Collect(m.Stream(context.Background(), req))
				if err != nil {
					t.Fatalf("Stream: %v", err)
				}
				gen.Latency, str.Latency = 0, 0
				if diff := sameReply(str, gen); diff != "" || !rt.SameJSON(str.Output, gen.Output) && (gen.Output != nil || str.Output != nil) {
					t.Errorf("stream and Generate differ: %s (output %s vs %s)", diff, str.Output, gen.Output)
				}
			})
		}
	}
}

// sse writes a recorded completion as the event stream OpenAI would have
// sent: the text in pieces of a few bytes, each tool call's arguments in
// pieces, the finish reason, the usage, and [DONE].
func sse(t *testing.T, r map[string]any) string {
	t.Helper()
	var b strings.Builder
	emit := func(v map[string]any) {
		v["id"], v["model"], v["object"] = r["id"], r["model"], "chat.completion.chunk"
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("data: " + string(data) + "\n\n")
	}
	chunk := func(delta map[string]any, finish any) {
		emit(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	ch := rt.List(r, "choices")[0].(map[string]any)
	msg := rt.Obj(ch, "message")
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, piece := range pieces(rt.Str(msg, "content"), 5) {
		chunk(map[string]any{"content": piece}, nil)
	}
	for i, c := range rt.List(msg, "tool_calls") {
		tc := c.(map[string]any)
		fn := rt.Obj(tc, "function")
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": tc["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": ""}}}}, nil)
		for _, piece := range pieces(rt.Str(fn, "arguments"), 4) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": piece}}}}, nil)
		}
	}
	chunk(map[string]any{}, ch["finish_reason"])
	emit(map[string]any{"choices": []any{}, "usage": r["usage"]})
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// pieces cuts s into pieces of n bytes, on rune boundaries.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		cut := min(n, len(s))
		for cut < len(s) && !utf8RuneStart(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
