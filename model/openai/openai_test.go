package openai

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

const okBody = `{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Paris."}}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}`

var hello = model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "Capital of France?"}}}

// script is a server that answers request n with steps[n] (the last step
// repeats) and counts the requests.
type script struct {
	*httptest.Server
	n     atomic.Int32
	mu    sync.Mutex // guards auths: handlers of timed-out requests run on
	auths []string
}

// auth returns the Authorization header of the i-th request.
func (s *script) auth(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.auths[i]
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

// hang reads the request and then answers nothing until the client goes
// away. (The server only notices a closed connection once the body is read.)
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
		s.auths = append(s.auths, r.Header.Get("Authorization"))
		s.mu.Unlock()
		steps[min(n, len(steps)-1)](w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *script) requests() int { return int(s.n.Load()) }

func code(err error) sanad.Code { return sanad.ErrorCode(err) }

func TestRetry429ThenOK(t *testing.T) {
	srv := serve(t, status(429, `{"error":{"message":"Rate limit reached"}}`, "Retry-After", "1"), status(200, okBody))
	sleeps := &rt.NoSleep{}
	m := newModel(t, Config{BaseURL: srv.URL + "/v1", Retry: sleeps.Retry()})
	resp, err := m.Generate(context.Background(), hello)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if resp.Text != "Paris." {
		t.Errorf("Text: got %q, want %q", resp.Text, "Paris.")
	}
	if got := srv.requests(); got != 2 {
		t.Errorf("got %d requests, want 2", got)
	}
	if want := []time.Duration{time.Second}; fmt.Sprint(sleeps.Waits) != fmt.Sprint(want) {
		t.Errorf("slept %v, want %v (the Retry-After)", sleeps.Waits, want)
	}
}

func TestRetryAfterForms(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header []string
		want   time.Duration
	}{
		{"seconds", []string{"Retry-After", "3"}, 3 * time.Second},
		{"http date", []string{"Retry-After", now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second},
		{"milliseconds", []string{"Retry-After-Ms", "250", "Retry-After", "9"}, 250 * time.Millisecond},
		{"none: backoff", nil, model.DefaultBaseDelay},
		{"unreadable: backoff", []string{"Retry-After", "soon"}, model.DefaultBaseDelay},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, status(503, `{}`, tt.header...), status(200, okBody))
			sleeps := &rt.NoSleep{}
			r := sleeps.Retry()
			r.Now = func() time.Time { return now }
			m := newModel(t, Config{BaseURL: srv.URL, Retry: r})
			if _, err := m.Generate(context.Background(), hello); err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if len(sleeps.Waits) != 1 || sleeps.Waits[0] != tt.want {
				t.Errorf("slept %v, want [%v]", sleeps.Waits, tt.want)
			}
		})
	}
}

func TestRetry500Exhausted(t *testing.T) {
	srv := serve(t, status(500, `{"error":{"message":"The server had an error"}}`))
	sleeps := &rt.NoSleep{}
	m := newModel(t, Config{BaseURL: srv.URL, Retry: sleeps.Retry()})
	_, err := m.Generate(context.Background(), hello)
	if code(err) != sanad.CodeDependencyDown || !sanad.IsRetryable(err) {
		t.Fatalf("got %v (code %s, retryable %v), want a retryable DEPENDENCY_DOWN", err, code(err), sanad.IsRetryable(err))
	}
	if got := srv.requests(); got != 3 {
		t.Errorf("got %d requests, want 3", got)
	}
	if want := []time.Duration{500 * time.Millisecond, time.Second}; fmt.Sprint(sleeps.Waits) != fmt.Sprint(want) {
		t.Errorf("slept %v, want %v", sleeps.Waits, want)
	}
	if !strings.Contains(err.Error(), "after 3 attempts") || !strings.Contains(err.Error(), "The server had an error") {
		t.Errorf("message %q should count the attempts and quote the provider", err)
	}
}

func TestRetryFailures(t *testing.T) {
	tests := []struct {
		name      string
		steps     []step
		maxRetry  int
		code      sanad.Code
		retryable bool
		requests  int
	}{
		{"429 until the end", []step{status(429, `{}`)}, 0, sanad.CodeModelRateLimit, true, 3},
		{"429 asking for too long a wait", []step{status(429, `{}`, "Retry-After", "120")}, 0, sanad.CodeModelRateLimit, true, 1},
		{"408 then 200", []step{status(408, `{}`), status(200, okBody)}, 0, "", false, 2},
		{"retries off", []step{status(502, `bad gateway`)}, -1, sanad.CodeDependencyDown, true, 1},
		{"400 is not retried", []step{status(400, `{"error":{"message":"Invalid schema for function 'f'"}}`)}, 0, sanad.CodeInvalidInput, false, 1},
		{"404 is not retried", []step{status(404, `{"error":{"message":"The model does not exist"}}`)}, 0, sanad.CodeInvalidInput, false, 1},
		{"401", []step{status(401, `{"error":{"message":"Incorrect API key provided"}}`)}, 0, sanad.CodeModelAuth, false, 1},
		{"403", []step{status(403, `{"error":{"message":"Project does not have access"}}`)}, 0, sanad.CodeModelAuth, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, tt.steps...)
			r := (&rt.NoSleep{}).Retry()
			r.MaxRetries = tt.maxRetry
			m := newModel(t, Config{BaseURL: srv.URL, Retry: r, APIKey: "sk-test-key-000000", APIKeyEnv: "OPENAI_API_KEY"})
			_, err := m.Generate(context.Background(), hello)
			if code(err) != tt.code {
				t.Errorf("got %v (code %q), want code %q", err, code(err), tt.code)
			}
			if err != nil && sanad.IsRetryable(err) != tt.retryable {
				t.Errorf("retryable: got %v, want %v", sanad.IsRetryable(err), tt.retryable)
			}
			if got := srv.requests(); got != tt.requests {
				t.Errorf("got %d requests, want %d", got, tt.requests)
			}
		})
	}
}

func TestAuthErrorNamesEnvVar(t *testing.T) {
	srv := serve(t, status(401, `{"error":{"message":"Incorrect API key provided: sk-wrong***"}}`))
	m := newModel(t, Config{BaseURL: srv.URL, APIKey: "sk-wrong-key-123456", APIKeyEnv: "SANAD_OPENAI_KEY"})
	_, err := m.Generate(context.Background(), hello)
	if code(err) != sanad.CodeModelAuth {
		t.Fatalf("got %v, want MODEL_AUTH", err)
	}
	if !strings.Contains(err.Error(), "SANAD_OPENAI_KEY") {
		t.Errorf("message %q does not name the environment variable", err)
	}
	if srv.auth(0) != "Bearer sk-wrong-key-123456" {
		t.Errorf("sent Authorization %q, want the bearer key", srv.auth(0))
	}

	// Without a key (a local server), the message says none is configured.
	m = newModel(t, Config{BaseURL: srv.URL})
	_, err = m.Generate(context.Background(), hello)
	if code(err) != sanad.CodeModelAuth || !strings.Contains(err.Error(), "api_key_env") {
		t.Errorf("got %v, want MODEL_AUTH saying to set api_key_env", err)
	}
	if srv.auth(1) != "" {
		t.Errorf("sent Authorization %q without a key, want none", srv.auth(1))
	}
}

func TestTimeoutHungServer(t *testing.T) {
	srv := serve(t, hang)
	m := newModel(t, Config{BaseURL: srv.URL, Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := m.Generate(context.Background(), hello)
	elapsed := time.Since(start)
	if code(err) != sanad.CodeTimeout {
		t.Fatalf("got %v, want ERR_TIMEOUT", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v does not wrap context.DeadlineExceeded", err)
	}
	if elapsed > time.Second {
		t.Errorf("took %v, want about 200ms", elapsed)
	}
	if srv.requests() != 1 {
		t.Errorf("got %d requests, want 1: the deadline covers the retries", srv.requests())
	}
}

func TestCallerCancel(t *testing.T) {
	srv := serve(t, hang)
	m := newModel(t, Config{BaseURL: srv.URL})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := m.Generate(ctx, hello)
	if code(err) != sanad.CodeCancelled || sanad.IsRetryable(err) {
		t.Fatalf("got %v, want a CANCELLED error that is not retryable", err)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	srv := serve(t, status(503, `{}`))
	ctx, cancel := context.WithCancel(context.Background())
	r := model.Retry{Sleep: func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }}
	m := newModel(t, Config{BaseURL: srv.URL, Retry: r})
	_, err := m.Generate(ctx, hello)
	if code(err) != sanad.CodeCancelled {
		t.Fatalf("got %v, want CANCELLED", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	m := newModel(t, Config{BaseURL: url + "/v1"})
	_, err := m.Generate(context.Background(), hello)
	if code(err) != sanad.CodeDependencyDown || !sanad.IsRetryable(err) {
		t.Fatalf("got %v, want a retryable DEPENDENCY_DOWN", err)
	}
	if !strings.Contains(err.Error(), url) {
		t.Errorf("message %q does not say where the provider was looked for", err)
	}
}

func TestMalformedBody(t *testing.T) {
	tests := []struct{ name, body, say string }{
		{"not JSON", `<html>Bad Gateway</html>`, "not JSON"},
		{"truncated", `{"id":"x","choices":[{"message":{"content":"Pa`, "not JSON"},
		{"empty", ``, "empty"},
		{"array", `[1,2]`, "not a JSON object"},
		{"no choices", `{"id":"x","choices":[]}`, "no choices"},
		{"choices not a list", `{"choices":5}`, "choices"},
		{"no message", `{"choices":[{"index":0,"finish_reason":"stop"}]}`, "no message"},
		{"content a number", `{"choices":[{"message":{"content":5}}]}`, "content"},
		{"arguments not JSON", `{"choices":[{"finish_reason":"tool_calls","message":{"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}}]}`, "arguments"},
		{"arguments an array", `{"choices":[{"message":{"tool_calls":[{"id":"c1","function":{"name":"f","arguments":"[1]"}}]}}]}`, "arguments"},
		{"arguments an object, not a string", `{"choices":[{"message":{"tool_calls":[{"id":"c1","function":{"name":"f","arguments":{"a":1}}}]}}]}`, "arguments"},
		{"tool call without a name", `{"choices":[{"message":{"tool_calls":[{"id":"c1","function":{"arguments":"{}"}}]}}]}`, "names no function"},
		{"custom tool call", `{"choices":[{"message":{"tool_calls":[{"id":"c1","type":"custom","custom":{"name":"f","input":"x"}}]}}]}`, "custom"},
		{"negative usage", `{"choices":[{"message":{"content":"hi"}}],"usage":{"prompt_tokens":-1}}`, "negative"},
		{"an error with status 200", `{"error":{"message":"model overloaded"}}`, "model overloaded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, status(200, tt.body))
			m := newModel(t, Config{BaseURL: srv.URL})
			_, err := m.Generate(context.Background(), hello)
			if code(err) != sanad.CodeModelOutput {
				t.Fatalf("got %v, want MODEL_OUTPUT_INVALID", err)
			}
			if !strings.Contains(err.Error(), tt.say) {
				t.Errorf("message %q does not say %q", err, tt.say)
			}
			if srv.requests() != 1 {
				t.Errorf("got %d requests, want 1: a malformed answer is not retried here", srv.requests())
			}
		})
	}
}

func TestRequestBody(t *testing.T) {
	var got map[string]any
	capture := func(w http.ResponseWriter, r *http.Request) {
		dec := json.NewDecoder(r.Body)
		dec.UseNumber()
		_ = dec.Decode(&got)
		status(200, okBody)(w, r)
	}
	srv := serve(t, capture)
	req := model.Request{
		System: "Be brief.",
		Messages: []model.Message{
			{Role: model.RoleUser, Content: "Weather in Paris?"},
			{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "c1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}},
			{Role: model.RoleTool, ToolCallID: "c1", Content: "Sunny"},
			{Role: model.RoleSystem, Content: "Answer in French."},
		},
		Tools:       []model.Tool{{Name: "get_weather", Description: "Weather of a city.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","maxLength":9007199254740993}}}`)}, {Name: "noop"}},
		ToolChoice:  model.UseTool("get_weather"),
		Output:      &model.OutputSchema{Name: "weather", Schema: json.RawMessage(`{"type":"object"}`)},
		MaxTokens:   100,
		Temperature: new(0.0),
		Stop:        []string{"END"},
	}
	for _, tt := range []struct{ base, maxKey string }{
		{srv.URL + "/v1", "max_tokens"},
		{strings.Replace(srv.URL, "127.0.0.1", "localhost", 1), "max_tokens"},
	} {
		m := newModel(t, Config{BaseURL: tt.base})
		if _, err := m.Generate(context.Background(), req); err != nil {
			t.Fatalf("Generate: %v", err)
		}
		want := `{
			"model": "gpt-4o-mini",
			"messages": [
				{"role": "system", "content": "Be brief."},
				{"role": "user", "content": "Weather in Paris?"},
				{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
				{"role": "tool", "tool_call_id": "c1", "content": "Sunny"},
				{"role": "system", "content": "Answer in French."}
			],
			"tools": [
				{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city.", "parameters": {"type":"object","properties":{"city":{"type":"string","maxLength":9007199254740993}}}}},
				{"type": "function", "function": {"name": "noop", "parameters": {"type": "object", "properties": {}}}}
			],
			"tool_choice": {"type": "function", "function": {"name": "get_weather"}},
			"response_format": {"type": "json_schema", "json_schema": {"name": "weather", "schema": {"type": "object"}, "strict": false}},
			"` + tt.maxKey + `": 100,
			"temperature": 0,
			"stop": ["END"]
		}`
		if !rt.SameJSON(json.RawMessage(mustJSON(t, got)), json.RawMessage(want)) {
			t.Errorf("sent %s\nwant %s", mustJSON(t, got), want)
		}
	}
}

// TestMaxCompletionTokensForOpenAI checks that the OpenAI API itself gets
// max_completion_tokens, which its reasoning models require.
func TestMaxCompletionTokensForOpenAI(t *testing.T) {
	var got map[string]any
	tr := roundTripper(func(r *http.Request) (*http.Response, error) {
		_ = json.NewDecoder(r.Body).Decode(&got)
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(okBody)), Request: r}, nil
	})
	m := newModel(t, Config{HTTPClient: &http.Client{Transport: tr}})
	req := hello
	req.MaxTokens = 64
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if got["max_completion_tokens"] != 64.0 || got["max_tokens"] != nil {
		t.Errorf("sent max_completion_tokens %v and max_tokens %v, want 64 and none", got["max_completion_tokens"], got["max_tokens"])
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInvalidRequest(t *testing.T) {
	srv := serve(t, status(200, okBody))
	m := newModel(t, Config{BaseURL: srv.URL})
	_, err := m.Generate(context.Background(), model.Request{})
	if code(err) != sanad.CodeInvalidInput {
		t.Errorf("got %v, want INVALID_INPUT", err)
	}
	if srv.requests() != 0 {
		t.Errorf("an invalid request reached the server")
	}
	if _, err := New(Config{Model: "m", BaseURL: "ftp://x"}); code(err) != sanad.CodeInvalidInput {
		t.Errorf("New with an ftp URL: got %v, want INVALID_INPUT", err)
	}
	if _, err := New(Config{}); code(err) != sanad.CodeInvalidInput {
		t.Errorf("New without a model: got %v, want INVALID_INPUT", err)
	}
}

func TestEmbed(t *testing.T) {
	var inputs [][]any
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		in, _ := body["input"].([]any)
		inputs = append(inputs, in)
		if body["encoding_format"] != "float" {
			t.Errorf("encoding_format: got %v, want float", body["encoding_format"])
		}
		// Answer in reverse order: the index decides where a vector goes.
		var data []string
		for i := len(in) - 1; i >= 0; i-- {
			data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%d,0.5]}`, i, len(strings.Fields(in[i].(string)))))
		}
		status(200, fmt.Sprintf(`{"object":"list","model":"text-embedding-3-small","data":[%s],"usage":{"prompt_tokens":%d,"total_tokens":%d}}`,
			strings.Join(data, ","), len(in), len(in)))(w, r)
	})
	m := newModel(t, Config{Model: "text-embedding-3-small", BaseURL: srv.URL})
	texts := make([]string, MaxEmbedBatch+3)
	for i := range texts {
		texts[i] = strings.Repeat("w ", i%7+1)
	}
	got, err := m.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(inputs) != 2 || len(inputs[0]) != MaxEmbedBatch || len(inputs[1]) != 3 {
		t.Fatalf("sent batches of %d and %d texts, want %d and 3", len(inputs[0]), len(inputs[len(inputs)-1]), MaxEmbedBatch)
	}
	if len(got.Vectors) != len(texts) {
		t.Fatalf("got %d vectors, want %d", len(got.Vectors), len(texts))
	}
	for i, v := range got.Vectors {
		if want := float32(i%7 + 1); v[0] != want || v[1] != 0.5 {
			t.Fatalf("vector %d: got %v, want [%v 0.5]", i, v, want)
		}
	}
	if got.Usage.InputTokens != int64(len(texts)) || got.Model != "text-embedding-3-small" || got.Provider != "openai" {
		t.Errorf("got usage %+v model %q provider %q", got.Usage, got.Model, got.Provider)
	}
	if _, err := m.Embed(context.Background(), []string{"a", ""}); code(err) != sanad.CodeInvalidInput {
		t.Errorf("an empty text: got %v, want INVALID_INPUT", err)
	}
}

func TestEmbedMalformed(t *testing.T) {
	tests := []struct{ name, body string }{
		{"too few", `{"data":[{"index":0,"embedding":[1]}]}`},
		{"repeated index", `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`},
		{"index out of range", `{"data":[{"index":0,"embedding":[1]},{"index":5,"embedding":[2]}]}`},
		{"dimensions differ", `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[2,3]}]}`},
		{"empty vector", `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[]}]}`},
		{"base64", `{"data":[{"index":0,"embedding":"AAAA"},{"index":1,"embedding":"AAAA"}]}`},
		{"too large for float32", `{"data":[{"index":0,"embedding":[1e300]},{"index":1,"embedding":[1]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, status(200, tt.body))
			m := newModel(t, Config{BaseURL: srv.URL})
			if _, err := m.Embed(context.Background(), []string{"a", "b"}); code(err) != sanad.CodeModelOutput {
				t.Errorf("got %v, want MODEL_OUTPUT_INVALID", err)
			}
		})
	}
}

func TestStreamFailures(t *testing.T) {
	sse := func(body string) step {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, body)
		}
	}
	chunk := `data: {"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}` + "\n\n"
	tests := []struct {
		name string
		step step
		code sanad.Code
	}{
		{"cut short", sse(chunk), sanad.CodeDependencyDown},
		{"error event", sse(chunk + `data: {"error":{"message":"overloaded"}}` + "\n\n"), sanad.CodeDependencyDown},
		{"chunk not JSON", sse(chunk + "data: {oops\n\n"), sanad.CodeModelOutput},
		{"bad arguments", sse(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{"}}]},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"), sanad.CodeModelOutput},
		{"429 before the stream", status(429, `{}`), sanad.CodeModelRateLimit},
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

// TestStreamStopsEarly checks that breaking out of a stream ends the call.
func TestStreamStopsEarly(t *testing.T) {
	done := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		hang(w, r)
		close(done)
	})
	m := newModel(t, Config{BaseURL: srv.URL})
	for d, err := range m.Stream(context.Background(), hello) {
		if err != nil || d.Text != "Hi" {
			t.Fatalf("got %+v, %v; want the text Hi", d, err)
		}
		break
	}
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("the server still holds the request after the loop ended")
	}
}

// TestSecretsNeverLeak runs calls that succeed, are refused, fail and time
// out, against a server that echoes the key back in every body, and checks
// that the key is in no error, reply or log record.
func TestSecretsNeverLeak(t *testing.T) {
	const key = "sk-test-SECRET-1234567890"
	echo := func(code int) step {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Request-Id", "req-"+r.Header.Get("Authorization"))
			w.WriteHeader(code)
			auth := r.Header.Get("Authorization")
			if code == 200 {
				fmt.Fprintf(w, `{"id":"chatcmpl-%s","model":"m","choices":[{"finish_reason":"stop","message":{"content":"ok"}}]}`, "x")
				return
			}
			fmt.Fprintf(w, `{"error":{"message":"key %s refused (%s)"}}`, auth, auth)
		}
	}
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var seen []string
	check := func(what string, v ...any) {
		for _, x := range v {
			s := fmt.Sprintf("%v %+v %#v", x, x, x)
			if err, ok := x.(error); ok {
				for e := err; e != nil; e = errors.Unwrap(e) {
					s += " " + e.Error() + fmt.Sprintf(" %+v", e)
				}
			}
			if strings.Contains(s, key) {
				t.Errorf("%s leaks the key: %s", what, s)
			}
		}
		seen = append(seen, what)
	}
	cfg := Config{APIKey: key, APIKeyEnv: "OPENAI_API_KEY", Logger: logger}
	check("the config", cfg)

	for _, tt := range []struct {
		name  string
		steps []step
	}{
		{"success", []step{echo(200)}},
		{"401", []step{echo(401)}},
		{"500", []step{echo(500)}},
		{"429 then 200", []step{echo(429), echo(200)}},
		{"timeout", []step{hang}},
		{"malformed", []step{status(200, `{"choices":[{"message":{"content":"`+key+`","tool_calls":[{"function":{"name":"f","arguments":"`+key+`"}}]}}]}`)}},
	} {
		srv := serve(t, tt.steps...)
		c := cfg
		c.BaseURL, c.Timeout = srv.URL, 300*time.Millisecond
		m := newModel(t, c)
		check(tt.name+": the model", m)
		resp, err := m.Generate(context.Background(), hello)
		check(tt.name+": Generate", resp, err)
		resp, err = model.Collect(m.Stream(context.Background(), hello))
		check(tt.name+": Stream", resp, err)
		emb, err := m.Embed(context.Background(), []string{"x"})
		check(tt.name+": Embed", emb, err)
		if srv.auth(0) != "Bearer "+key {
			t.Fatalf("%s: the server got Authorization %q, so the test proves nothing", tt.name, srv.auth(0))
		}
	}
	if strings.Contains(logs.String(), key) {
		t.Errorf("the log leaks the key:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "[redacted]") {
		t.Errorf("the log has no redacted provider message; the echo did not reach it:\n%s", logs.String())
	}
}

// TestStreamErrorKeepsCause checks that a malformed streamed reply fails
// with an error whose chain still holds the *sanad.Error that found the
// fault, code and operation included.
func TestStreamErrorKeepsCause(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"[1]"}}]},"finish_reason":"tool_calls"}]}`+"\n\ndata: [DONE]\n\n")
	})
	m := newModel(t, Config{BaseURL: srv.URL})
	_, err := model.Collect(m.Stream(context.Background(), hello))
	rt.WantCause(t, err, sanad.CodeModelOutput, "model.output")
}
