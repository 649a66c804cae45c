package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
	rt "github.com/sanadhq/sanad/model/internal/replaytest"
)

const okBody = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Paris."}],"stop_reason":"end_turn","usage":{"input_tokens":9,"output_tokens":2}}`

var hello = model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "Capital of France?"}}}

type script struct {
	*httptest.Server
	n    atomic.Int32
	mu   sync.Mutex // guards keys: handlers of timed-out requests run on
	keys []string
}

// key returns the x-api-key header of the i-th request.
func (s *script) key(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[i]
}

type step func(w http.ResponseWriter, r *http.Request)

func status(code int, body string, header ...string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

func hang(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

func serve(t *testing.T, steps ...step) *script {
	t.Helper()
	s := &script{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(s.n.Add(1)) - 1
		s.mu.Lock()
		s.keys = append(s.keys, r.Header.Get("X-Api-Key"))
		s.mu.Unlock()
		steps[min(n, len(steps)-1)](w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *script) requests() int { return int(s.n.Load()) }

func code(err error) sanad.Code { return sanad.ErrorCode(err) }

func TestRetry429ThenOK(t *testing.T) {
	srv := serve(t, status(429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, "Retry-After", "1"), status(200, okBody, "Request-Id", "req_42"))
	sleeps := &rt.NoSleep{}
	m := newModel(t, Config{BaseURL: srv.URL, Retry: sleeps.Retry()})
	resp, err := m.Generate(context.Background(), hello)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if resp.Text != "Paris." || resp.RequestID != "req_42" || resp.ID != "msg_1" {
		t.Errorf("got text %q request id %q id %q", resp.Text, resp.RequestID, resp.ID)
	}
	if srv.requests() != 2 || fmt.Sprint(sleeps.Waits) != "[1s]" {
		t.Errorf("got %d requests and waits %v, want 2 and [1s]", srv.requests(), sleeps.Waits)
	}
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name      string
		steps     []step
		code      sanad.Code
		retryable bool
		requests  int
	}{
		{"overloaded 529", []step{status(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)}, sanad.CodeDependencyDown, true, 3},
		{"500", []step{status(500, `{"type":"error","error":{"type":"api_error","message":"Internal"}}`)}, sanad.CodeDependencyDown, true, 3},
		{"429", []step{status(429, `{}`)}, sanad.CodeModelRateLimit, true, 3},
		{"401", []step{status(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)}, sanad.CodeModelAuth, false, 1},
		{"400", []step{status(400, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}`)}, sanad.CodeInvalidInput, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, tt.steps...)
			m := newModel(t, Config{BaseURL: srv.URL, APIKey: "sk-ant-test-0000000", APIKeyEnv: "ANTHROPIC_API_KEY"})
			_, err := m.Generate(context.Background(), hello)
			if code(err) != tt.code || sanad.IsRetryable(err) != tt.retryable {
				t.Errorf("got %v (retryable %v), want %s (retryable %v)", err, sanad.IsRetryable(err), tt.code, tt.retryable)
			}
			if srv.requests() != tt.requests {
				t.Errorf("got %d requests, want %d", srv.requests(), tt.requests)
			}
			if tt.code == sanad.CodeModelAuth && !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
				t.Errorf("message %q does not name the environment variable", err)
			}
			if srv.key(0) != "sk-ant-test-0000000" {
				t.Errorf("sent x-api-key %q, want the key", srv.key(0))
			}
		})
	}
}

func TestTimeoutHungServer(t *testing.T) {
	srv := serve(t, hang)
	m := newModel(t, Config{BaseURL: srv.URL, Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := m.Generate(context.Background(), hello)
	if code(err) != sanad.CodeTimeout || time.Since(start) > time.Second {
		t.Fatalf("got %v after %v, want ERR_TIMEOUT within about 200ms", err, time.Since(start))
	}
}

func TestMalformedBody(t *testing.T) {
	tests := []struct{ name, body, say string }{
		{"not JSON", `Service Unavailable`, "not JSON"},
		{"truncated", `{"id":"m","type":"message","content":[{"type":"text","text":"Pa`, "not JSON"},
		{"no content", `{"id":"m","type":"message","stop_reason":"end_turn"}`, "no content"},
		{"content not a list", `{"type":"message","content":"hi"}`, "content"},
		{"tool input not an object", `{"type":"message","content":[{"type":"tool_use","id":"t","name":"f","input":[1]}]}`, "not a JSON object"},
		{"tool without a name", `{"type":"message","content":[{"type":"tool_use","id":"t","input":{}}]}`, "names no tool"},
		{"block without a type", `{"type":"message","content":[{"text":"hi"}]}`, "no type"},
		{"an error with status 200", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded"},
		{"not a message", `{"type":"completion","content":[]}`, "not a message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, status(200, tt.body))
			m := newModel(t, Config{BaseURL: srv.URL})
			_, err := m.Generate(context.Background(), hello)
			if code(err) != sanad.CodeModelOutput || !strings.Contains(err.Error(), tt.say) {
				t.Errorf("got %v, want MODEL_OUTPUT_INVALID saying %q", err, tt.say)
			}
		})
	}
}

func TestRequestBody(t *testing.T) {
	var got map[string]any
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		dec := json.NewDecoder(r.Body)
		dec.UseNumber()
		_ = dec.Decode(&got)
		status(200, okBody)(w, r)
	})
	m := newModel(t, Config{BaseURL: srv.URL})
	req := model.Request{
		System: "Be brief.",
		Messages: []model.Message{
			{Role: model.RoleSystem, Content: "Answer in French."},
			{Role: model.RoleUser, Content: "Weather in Paris and Rome?"},
			{Role: model.RoleAssistant, Content: "Checking.", ToolCalls: []model.ToolCall{
				{ID: "t1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
				{ID: "t2", Name: "get_weather"},
			}},
			{Role: model.RoleTool, ToolCallID: "t1", Content: "Sunny"},
			{Role: model.RoleTool, ToolCallID: "t2"},
			{Role: model.RoleUser, Content: "And tomorrow?"},
		},
		Tools: []model.Tool{{Name: "get_weather", Description: "Weather of a city.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)}},
		ToolChoice:  model.ToolChoice{Mode: model.ToolChoiceNone},
		Output:      &model.OutputSchema{Schema: json.RawMessage(`{"type":"object","properties":{"t":{"type":"number","maximum":9007199254740993}}}`)},
		Temperature: new(0.0),
		Stop:        []string{"END"},
	}
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatalf("Generate: %v", err)
	}
	want := `{
		"model": "claude-sonnet-4-5",
		"max_tokens": 4096,
		"system": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Answer in French."}],
		"messages": [
			{"role": "user", "content": [{"type": "text", "text": "Weather in Paris and Rome?"}]},
			{"role": "assistant", "content": [
				{"type": "text", "text": "Checking."},
				{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}},
				{"type": "tool_use", "id": "t2", "name": "get_weather", "input": {}}
			]},
			{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "Sunny"}]},
				{"type": "tool_result", "tool_use_id": "t2"},
				{"type": "text", "text": "And tomorrow?"}
			]}
		],
		"tools": [{"name": "get_weather", "description": "Weather of a city.",
			"input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false}}],
		"tool_choice": {"type": "none"},
		"output_config": {"format": {"type": "json_schema", "schema": {"type":"object","properties":{"t":{"type":"number","maximum":9007199254740993}}}}},
		"temperature": 0,
		"stop_sequences": ["END"]
	}`
	sent, _ := json.Marshal(got)
	if !rt.SameJSON(json.RawMessage(sent), json.RawMessage(want)) {
		t.Errorf("sent %s\nwant %s", sent, want)
	}

	bad := req
	bad.Tools = []model.Tool{{Name: "f", Parameters: json.RawMessage(`{"type":"string"}`)}}
	if _, err := m.Generate(context.Background(), bad); code(err) != sanad.CodeInvalidInput {
		t.Errorf("a tool with a string schema: got %v, want INVALID_INPUT", err)
	}
}

func TestEmbedUnsupported(t *testing.T) {
	m := newModel(t, Config{BaseURL: "http://127.0.0.1:1"})
	if _, err := m.Embed(context.Background(), []string{"x"}); code(err) != sanad.CodeInvalidInput {
		t.Errorf("got %v, want INVALID_INPUT", err)
	}
}

func TestStreamFailures(t *testing.T) {
	sse := func(body string) step {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, body)
		}
	}
	start := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"c\",\"usage\":{\"input_tokens\":3}}}\n\n"
	tests := []struct {
		name string
		step step
		code sanad.Code
	}{
		{"cut short", sse(start), sanad.CodeDependencyDown},
		{"error event", sse(start + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"), sanad.CodeDependencyDown},
		{"event not JSON", sse(start + "event: content_block_delta\ndata: {oops\n\n"), sanad.CodeModelOutput},
		{"input for a text block", sse(start + `data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}` + "\n\n"), sanad.CodeModelOutput},
		{"bad tool input", sse(start +
			`data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}` + "\n\n" +
			`data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}` + "\n\n" +
			`data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}` + "\n\n" +
			`data: {"type":"message_stop"}` + "\n\n"), sanad.CodeModelOutput},
		{"529 before the stream", status(529, `{}`), sanad.CodeDependencyDown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, tt.step)
			m := newModel(t, Config{BaseURL: srv.URL})
			_, err := model.Collect(m.Stream(context.Background(), hello))
			if code(err) != tt.code {
				t.Errorf("got %v, want %s", err, tt.code)
			}
		})
	}
}

// TestSecretsNeverLeak runs calls that succeed, are refused, fail and time
// out, against a server that echoes the key back, and checks that the key
// is in no error, reply or log record.
func TestSecretsNeverLeak(t *testing.T) {
	const key = "sk-test-SECRET-1234567890"
	echo := func(code int) step {
		return func(w http.ResponseWriter, r *http.Request) {
			k := r.Header.Get("X-Api-Key")
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Request-Id", "req-"+k)
			w.WriteHeader(code)
			if code == 200 {
				fmt.Fprintf(w, `{"id":"msg_%s","type":"message","model":"c","content":[{"type":"text","text":"your key is %s"}],"stop_reason":"end_turn"}`, k, k)
				return
			}
			fmt.Fprintf(w, `{"type":"error","error":{"type":"x","message":"key %s refused"}}`, k)
		}
	}
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	leaks := func(what string, v ...any) {
		for _, x := range v {
			s := fmt.Sprintf("%v %+v %#v", x, x, x)
			if err, ok := x.(error); ok {
				for e := err; e != nil; e = errors.Unwrap(e) {
					s += " " + e.Error()
				}
			}
			if strings.Contains(s, key) {
				t.Errorf("%s leaks the key: %s", what, s)
			}
		}
	}
	for _, tt := range []struct {
		name  string
		steps []step
	}{
		{"success", []step{echo(200)}},
		{"401", []step{echo(401)}},
		{"500", []step{echo(500)}},
		{"timeout", []step{hang}},
	} {
		srv := serve(t, tt.steps...)
		m := newModel(t, Config{BaseURL: srv.URL, APIKey: key, APIKeyEnv: "ANTHROPIC_API_KEY", Logger: logger, Timeout: 300 * time.Millisecond})
		leaks(tt.name+": the model", m)
		resp, err := m.Generate(context.Background(), hello)
		leaks(tt.name+": Generate", resp, err)
		resp, err = model.Collect(m.Stream(context.Background(), hello))
		leaks(tt.name+": Stream", resp, err)
		if srv.key(0) != key {
			t.Fatalf("%s: the server got x-api-key %q, so the test proves nothing", tt.name, srv.key(0))
		}
	}
	if strings.Contains(logs.String(), key) {
		t.Errorf("the log leaks the key:\n%s", logs.String())
	}
}

// TestStreamErrorKeepsCause checks that a malformed streamed reply fails
// with an error whose chain still holds the *sanad.Error that found the
// fault, code and operation included.
func TestStreamErrorKeepsCause(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":3}}}`+"\n\n"+
			`data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}`+"\n\n"+
			`data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"[1]"}}`+"\n\n"+
			`data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}`+"\n\n"+
			`data: {"type":"message_stop"}`+"\n\n")
	})
	m := newModel(t, Config{BaseURL: srv.URL})
	_, err := model.Collect(m.Stream(context.Background(), hello))
	rt.WantCause(t, err, sanad.CodeModelOutput, "model.output")
}
