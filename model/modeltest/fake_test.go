package modeltest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
	rt "github.com/sanadhq/sanad/model/internal/replaytest"
	"github.com/sanadhq/sanad/model/modeltest"
	"github.com/sanadhq/sanad/model/provider"
)

// fakes are the providers a fake speaks, with the model a class names.
var fakes = []struct {
	provider string
	model    string
	start    func(modeltest.Script) *modeltest.Fake
}{
	{model.ProviderOpenAI, "gpt-4o-mini", modeltest.NewOpenAI},
	{model.ProviderAnthropic, "claude-sonnet-4-5", modeltest.NewAnthropic},
}

// open starts a fake of provider with script s and returns it with the
// model of a class configured on it, opened by model/provider. Retries do
// not wait.
func open(t *testing.T, i int, s modeltest.Script) (*modeltest.Fake, model.Model) {
	t.Helper()
	fk := fakes[i]
	f := fk.start(s)
	t.Cleanup(f.Close)
	noWait := model.Retry{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}
	reg, err := provider.Open(model.Config{
		Classes: map[string]model.ClassConfig{model.ClassFast: {Provider: fk.provider, Model: fk.model, BaseURL: f.BaseURL()}},
		Retry:   noWait,
	}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := reg.Model(model.ClassFast)
	return f, m
}

// ask sends req to m, streamed or not. A stream's deltas must add up to its
// reply.
func ask(t *testing.T, m model.Model, req model.Request, stream bool) (model.Response, error) {
	t.Helper()
	if !stream {
		return m.Generate(context.Background(), req)
	}
	var acc model.Accumulator
	var pieces int
	for d, err := range model.Stream(context.Background(), m, req) {
		if err != nil {
			return model.Response{}, err
		}
		if d.Response != nil {
			calls, err := acc.ToolCalls()
			if err != nil || acc.Text() != d.Response.Text || fmt.Sprint(calls) != fmt.Sprint(d.Response.ToolCalls) {
				t.Errorf("the deltas add up to %q %v (%v), the reply is %q %v", acc.Text(), calls, err, d.Response.Text, d.Response.ToolCalls)
			}
			if want := len(strings.Fields(d.Response.Text)); pieces < want {
				t.Errorf("got %d text and tool-call deltas, want at least one a word (%d)", pieces, want)
			}
			return *d.Response, nil
		}
		acc.Add(d)
		pieces++
	}
	t.Fatal("the stream ended without a reply")
	return model.Response{}, nil
}

// each runs f for each provider, whole and streamed.
func each(t *testing.T, f func(t *testing.T, i int, stream bool)) {
	for i, fk := range fakes {
		for _, stream := range []bool{false, true} {
			name := fk.provider
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) { f(t, i, stream) })
		}
	}
}

var weather = model.Tool{
	Name:        "get_weather",
	Description: "Returns the weather of a city.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
}

func question(text string, tools ...model.Tool) model.Request {
	return model.Request{System: "Be brief.", Messages: []model.Message{{Role: model.RoleUser, Content: text}}, Tools: tools}
}

func TestFakeText(t *testing.T) {
	each(t, func(t *testing.T, i int, stream bool) {
		f, m := open(t, i, modeltest.Sequence(modeltest.Turn{Text: "The capital is Paris.", Usage: modeltest.Usage{InputTokens: 12, OutputTokens: 5}}))
		resp, err := ask(t, m, question("Capital of France?"), stream)
		if err != nil {
			t.Fatal(err)
		}
		want := model.Usage{InputTokens: 12, OutputTokens: 5, TotalTokens: 17}
		if resp.Text != "The capital is Paris." || resp.FinishReason != model.FinishStop || resp.Usage != want ||
			resp.Model != fakes[i].model || resp.ID == "" || resp.RequestID != "req_1" || len(resp.ToolCalls) != 0 {
			t.Errorf("got %+v, want the text, stop, usage %+v, the model, an id and request id req_1", resp, want)
		}
		reqs := f.Requests()
		if len(reqs) != 1 {
			t.Fatalf("got %d requests, want 1", len(reqs))
		}
		r := reqs[0]
		if r.Model != fakes[i].model || r.System != "Be brief." || r.Stream != stream || len(r.Tools) != 0 || r.ToolChoice != "" || !json.Valid(r.Raw) ||
			fmt.Sprint(r.Messages) != fmt.Sprint([]modeltest.Message{{Role: "user", Content: "Capital of France?"}}) {
			t.Errorf("the fake saw %+v", r)
		}
	})
}

func TestFakeToolCalls(t *testing.T) {
	tests := []struct {
		name  string
		calls []modeltest.ToolCall
	}{
		{"one", []modeltest.ToolCall{{ID: "call_w1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		{"two in parallel", []modeltest.ToolCall{
			{Name: "get_weather", Arguments: `{"city":"Paris"}`},
			{Name: "get_weather", Arguments: `{"city":"Zürich, with a long name"}`},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			each(t, func(t *testing.T, i int, stream bool) {
				f, m := open(t, i, modeltest.Sequence(modeltest.Turn{ToolCalls: tt.calls}))
				req := question("Weather in Paris and Zürich?", weather)
				req.ToolChoice = model.ToolChoice{Mode: model.ToolChoiceRequired}
				resp, err := ask(t, m, req, stream)
				if err != nil {
					t.Fatal(err)
				}
				if resp.FinishReason != model.FinishToolCalls || len(resp.ToolCalls) != len(tt.calls) {
					t.Fatalf("got %+v, want %d tool calls", resp, len(tt.calls))
				}
				ids := map[string]bool{}
				for j, c := range resp.ToolCalls {
					w := tt.calls[j]
					if c.Name != w.Name || !rt.SameJSON(c.Arguments, json.RawMessage(w.Arguments)) || (w.ID != "" && c.ID != w.ID) || c.ID == "" || ids[c.ID] {
						t.Errorf("call %d: got %s %s(%s), want %s %s(%s) with an id of its own", j, c.ID, c.Name, c.Arguments, w.ID, w.Name, w.Arguments)
					}
					ids[c.ID] = true
				}
				r := f.Requests()[0]
				if len(r.Tools) != 1 || r.Tools[0].Name != weather.Name || r.Tools[0].Description != weather.Description ||
					!rt.SameJSON(r.Tools[0].Parameters, weather.Parameters) || r.ToolChoice != "required" {
					t.Errorf("the fake saw tools %+v and tool choice %q", r.Tools, r.ToolChoice)
				}
			})
		})
	}
}

// TestFakeToolResults runs a tool loop of two turns: the second request
// carries the assistant's parallel calls and the results back, and the
// fake shows them in one form for both providers.
func TestFakeToolResults(t *testing.T) {
	each(t, func(t *testing.T, i int, stream bool) {
		f, m := open(t, i, modeltest.Sequence(
			modeltest.Turn{Text: "Looking both up.", ToolCalls: []modeltest.ToolCall{
				{Name: "get_weather", Arguments: `{"city":"Paris"}`},
				{Name: "get_weather", Arguments: `{"city":"Oslo"}`},
			}},
			modeltest.Turn{Text: "Sunny in Paris, snow in Oslo."},
		))
		req := question("Weather in Paris and Oslo?", weather)
		req.ToolChoice = model.UseTool("get_weather")
		first, err := ask(t, m, req, stream)
		if err != nil {
			t.Fatal(err)
		}
		req.ToolChoice = model.ToolChoice{}
		req.Messages = append(req.Messages, first.Message(),
			model.Message{Role: model.RoleTool, ToolCallID: first.ToolCalls[0].ID, Content: "sunny"},
			model.Message{Role: model.RoleTool, ToolCallID: first.ToolCalls[1].ID, Content: "snow"})
		second, err := ask(t, m, req, stream)
		if err != nil {
			t.Fatal(err)
		}
		if second.Text != "Sunny in Paris, snow in Oslo." {
			t.Errorf("second reply: got %q", second.Text)
		}
		reqs := f.Requests()
		if len(reqs) != 2 || reqs[0].ToolChoice != "tool:get_weather" || reqs[1].ToolChoice != "" {
			t.Fatalf("got %d requests with tool choices %q, want 2: tool:get_weather, then none", len(reqs), toolChoices(reqs))
		}
		got := reqs[1].Messages
		want := []modeltest.Message{
			{Role: "user", Content: "Weather in Paris and Oslo?"},
			{Role: "assistant", Content: "Looking both up.", ToolCalls: []modeltest.ToolCall{
				{ID: first.ToolCalls[0].ID, Name: "get_weather", Arguments: `{"city":"Paris"}`},
				{ID: first.ToolCalls[1].ID, Name: "get_weather", Arguments: `{"city":"Oslo"}`},
			}},
			{Role: "tool", ToolCallID: first.ToolCalls[0].ID, Content: "sunny"},
			{Role: "tool", ToolCallID: first.ToolCalls[1].ID, Content: "snow"},
		}
		if !sameMessages(got, want) {
			t.Errorf("the fake saw\n%+v\nwant\n%+v", got, want)
		}
	})
}

func toolChoices(reqs []modeltest.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.ToolChoice)
	}
	return out
}

// sameMessages compares messages, tool-call arguments as JSON.
func sameMessages(got, want []modeltest.Message) bool {
	if len(got) != len(want) {
		return false
	}
	for i, g := range got {
		w := want[i]
		if g.Role != w.Role || g.Content != w.Content || g.ToolCallID != w.ToolCallID || g.IsError != w.IsError || len(g.ToolCalls) != len(w.ToolCalls) {
			return false
		}
		for j, c := range g.ToolCalls {
			if c.ID != w.ToolCalls[j].ID || c.Name != w.ToolCalls[j].Name || !rt.SameJSON(json.RawMessage(c.Arguments), json.RawMessage(w.ToolCalls[j].Arguments)) {
				return false
			}
		}
	}
	return true
}

func TestFakeErrors(t *testing.T) {
	tests := []struct {
		name     string
		turns    []modeltest.Turn
		code     sanad.Code
		say      string
		requests int
	}{
		{"401", []modeltest.Turn{{Status: http.StatusUnauthorized}}, sanad.CodeModelAuth, "401", 1},
		{"400 with a message", []modeltest.Turn{{Status: http.StatusBadRequest, Text: "max_tokens is too large"}}, sanad.CodeInvalidInput, "max_tokens is too large", 1},
		{"429 then an answer", []modeltest.Turn{{Status: http.StatusTooManyRequests}, {Text: "ok"}}, "", "", 2},
		{"429 throughout", []modeltest.Turn{{Status: 429}, {Status: 429}, {Status: 429}}, sanad.CodeModelRateLimit, "rate limited", 3},
		{"500 throughout", []modeltest.Turn{{Status: 500}, {Status: 500}, {Status: 500}}, sanad.CodeDependencyDown, "500", 3},
		{"past the end of the script", nil, sanad.CodeInvalidInput, "past the end of the script", 1},
		{"bad arguments", []modeltest.Turn{{ToolCalls: []modeltest.ToolCall{{Name: "get_weather", Arguments: "Paris"}}}}, sanad.CodeModelOutput, "not a JSON object", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			each(t, func(t *testing.T, i int, stream bool) {
				f, m := open(t, i, modeltest.Sequence(tt.turns...))
				_, err := ask(t, m, question("Weather?", weather), stream)
				if sanad.ErrorCode(err) != tt.code || (err != nil && !strings.Contains(err.Error(), tt.say)) {
					t.Errorf("got %v, want code %q saying %q", err, tt.code, tt.say)
				}
				if n := len(f.Requests()); n != tt.requests {
					t.Errorf("got %d requests, want %d", n, tt.requests)
				}
			})
		})
	}
}

// TestFakeNormalizesRecordedRequests sends recorded request bodies to the
// fakes: tool calls sent back and tool results (Anthropic's tool_result
// blocks in a user turn) come out as the same messages.
func TestFakeNormalizesRecordedRequests(t *testing.T) {
	tests := []struct {
		file  string
		index int
		start func(modeltest.Script) *modeltest.Fake
		path  string
	}{
		{"test_openai/test_run_stream_sync_streams_real_model.json", 1, modeltest.NewOpenAI, "/chat/completions"},
		{"test_anthropic/test_multiple_parallel_tool_calls.json", 1, modeltest.NewAnthropic, "/v1/messages"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ia := rt.Find(t, tt.file, tt.index)
			f := tt.start(modeltest.Sequence(modeltest.Turn{Text: "ok"}))
			defer f.Close()
			body, _ := json.Marshal(ia.Body)
			hr, err := http.Post(f.BaseURL()+tt.path, "application/json", strings.NewReader(string(body)))
			if err != nil {
				t.Fatal(err)
			}
			hr.Body.Close()
			if hr.StatusCode != http.StatusOK {
				t.Fatalf("got status %d", hr.StatusCode)
			}
			r := f.Requests()[0]
			if r.Model != rt.Str(ia.Body, "model") || r.Stream != (ia.Body["stream"] == true) || r.ToolChoice != "auto" || len(r.Tools) != len(rt.List(ia.Body, "tools")) {
				t.Errorf("got model %q, stream %v, tool choice %q, %d tools", r.Model, r.Stream, r.ToolChoice, len(r.Tools))
			}
			var calls []modeltest.ToolCall
			for _, m := range r.Messages {
				calls = append(calls, m.ToolCalls...)
			}
			var results []modeltest.Message
			for _, m := range r.Messages {
				if m.Role == "tool" {
					results = append(results, m)
				}
			}
			if len(calls) == 0 || len(results) != len(calls) {
				t.Fatalf("got %d calls and %d results, want one result a call: %+v", len(calls), len(results), r.Messages)
			}
			for j, res := range results {
				if res.ToolCallID != calls[j].ID || res.Content == "" || res.IsError || !json.Valid([]byte(calls[j].Arguments)) {
					t.Errorf("result %d: got %+v for call %+v", j, res, calls[j])
				}
			}
		})
	}
}

func TestFakeToolResultIsError(t *testing.T) {
	f := modeltest.NewAnthropic(modeltest.Sequence(modeltest.Turn{Text: "ok"}))
	defer f.Close()
	body := `{"model":"claude-sonnet-4-5","max_tokens":100,"system":[{"type":"text","text":"One."},{"type":"text","text":"Two."}],"messages":[` +
		`{"role":"user","content":"Read it."},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"read","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"no such file"}]},{"type":"text","text":"Go on."}]}]}`
	hr, err := http.Post(f.BaseURL()+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	hr.Body.Close()
	r := f.Requests()[0]
	want := []modeltest.Message{
		{Role: "user", Content: "Read it."},
		{Role: "assistant", ToolCalls: []modeltest.ToolCall{{ID: "toolu_1", Name: "read", Arguments: "{}"}}},
		{Role: "tool", ToolCallID: "toolu_1", Content: "no such file", IsError: true},
		{Role: "user", Content: "Go on."},
	}
	if r.System != "One.\n\nTwo." || !sameMessages(r.Messages, want) {
		t.Errorf("got system %q and %+v, want %+v", r.System, r.Messages, want)
	}
}

// TestFakeAnswersAsRecorded checks that each field of the fakes' answers is
// one the real APIs send: every path of keys of an answer is in a recorded
// answer of the same API.
func TestFakeAnswersAsRecorded(t *testing.T) {
	recorded := map[string]map[string]bool{"openai": {}, "openai/stream": {}, "anthropic": {}}
	for _, ia := range rt.Load(t, "openai.chat_completions", "anthropic.messages") {
		switch {
		case ia.Status != http.StatusOK:
		case ia.Stream != "":
			for _, line := range strings.Split(ia.Stream, "\n") {
				var chunk any
				if data, ok := strings.CutPrefix(line, "data: "); ok && json.Unmarshal([]byte(data), &chunk) == nil {
					keyPaths(chunk, "", recorded["openai/stream"])
				}
			}
		case strings.HasPrefix(ia.API, "openai."):
			keyPaths(ia.Reply, "", recorded["openai"])
		default:
			keyPaths(ia.Reply, "", recorded["anthropic"])
		}
	}
	turn := modeltest.Turn{Text: "Two calls.", ToolCalls: []modeltest.ToolCall{{Name: "f", Arguments: `{"a":1}`}, {Name: "g", Arguments: `{}`}}, Usage: modeltest.Usage{InputTokens: 3, OutputTokens: 4}}
	for _, tt := range []struct {
		api, path, body string
		start           func(modeltest.Script) *modeltest.Fake
	}{
		{"openai", "/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, modeltest.NewOpenAI},
		{"openai/stream", "/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`, modeltest.NewOpenAI},
		{"anthropic", "/v1/messages", `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`, modeltest.NewAnthropic},
	} {
		t.Run(tt.api, func(t *testing.T) {
			f := tt.start(modeltest.Sequence(turn))
			defer f.Close()
			hr, err := http.Post(f.BaseURL()+tt.path, "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer hr.Body.Close()
			var answers []any
			if strings.HasSuffix(tt.api, "/stream") {
				var b strings.Builder
				_, _ = io.Copy(&b, hr.Body)
				for _, line := range strings.Split(b.String(), "\n") {
					var chunk any
					if data, ok := strings.CutPrefix(line, "data: "); ok && data != "[DONE]" {
						if err := json.Unmarshal([]byte(data), &chunk); err != nil {
							t.Fatalf("chunk %q: %v", data, err)
						}
						answers = append(answers, chunk)
					}
				}
			} else {
				var v any
				if err := json.NewDecoder(hr.Body).Decode(&v); err != nil {
					t.Fatal(err)
				}
				answers = append(answers, v)
			}
			for _, a := range answers {
				got := map[string]bool{}
				keyPaths(a, "", got)
				for p := range got {
					if !recorded[tt.api][p] {
						t.Errorf("%s: no recorded answer has %s", tt.api, p)
					}
				}
			}
		})
	}
}

// keyPaths adds the paths of keys of v to into: "choices[].message.content".
// The arguments and input of tool calls are values, not shapes.
func keyPaths(v any, prefix string, into map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			into[p] = true
			if k != "input" && k != "arguments" {
				keyPaths(x, p, into)
			}
		}
	case []any:
		for _, x := range v {
			keyPaths(x, prefix+"[]", into)
		}
	}
}
