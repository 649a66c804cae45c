package provider_test

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
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/provider"
)

const key = "sk-test-SECRET-1234567890"

// chat is an OpenAI-compatible server that answers with the given texts in
// turn and keeps the bodies it received.
type chat struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	auths  []string
}

func newChat(t *testing.T, reply func(n int, w http.ResponseWriter, r *http.Request)) *chat {
	c := &chat{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		c.mu.Lock()
		c.bodies = append(c.bodies, body)
		c.auths = append(c.auths, r.Header.Get("Authorization"))
		n := len(c.bodies)
		c.mu.Unlock()
		reply(n, w, r)
	}))
	t.Cleanup(c.Close)
	return c
}

func texts(ts ...string) func(n int, w http.ResponseWriter, r *http.Request) {
	return func(n int, w http.ResponseWriter, r *http.Request) {
		content, _ := json.Marshal(ts[min(n, len(ts))-1])
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-%d","model":"gpt-4o-mini","choices":[{"finish_reason":"stop","message":{"role":"assistant","content":%s}}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`, n, content)
	}
}

func config(t *testing.T, yaml string) model.Config {
	t.Helper()
	cfg, err := model.ParseConfig("sanad.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Retry = model.Retry{Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }}
	return cfg
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestOpen(t *testing.T) {
	srv := newChat(t, texts("Paris."))
	cfg := config(t, `
models:
  reasoning:
    provider: anthropic
    model: claude-sonnet-4-5
    api_key_env: ANTHROPIC_API_KEY
  fast:
    provider: openai
    model: gpt-4o-mini
    base_url: `+srv.URL+`/v1
    api_key_env: OPENAI_API_KEY
    prices: {input_per_mtok: 1, output_per_mtok: 2}
  local:
    provider: openai
    model: llama3
    base_url: `+srv.URL+`/v1
`)
	reg, err := provider.Open(cfg, env(map[string]string{"OPENAI_API_KEY": key, "ANTHROPIC_API_KEY": "sk-ant-0000000000"}), nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if got := strings.Join(reg.Classes(), ","); got != "fast,local,reasoning" {
		t.Errorf("Classes: got %s", got)
	}
	fast, ok := reg.Model("fast")
	if !ok {
		t.Fatal("no fast model")
	}
	resp, err := fast.Generate(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "Capital of France?"}}})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if resp.Text != "Paris." || srv.auths[0] != "Bearer "+key {
		t.Errorf("got %q with Authorization %q", resp.Text, srv.auths[0])
	}
	if got := reg.Cost("fast", resp.Usage); got != (10*1+5*2)/1e6 {
		t.Errorf("Cost: got %v", got)
	}
	local, _ := reg.Model("local")
	if _, err := local.Generate(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}); err != nil {
		t.Fatalf("local Generate: %v", err)
	}
	if srv.auths[1] != "" {
		t.Errorf("a class without api_key_env sent Authorization %q", srv.auths[1])
	}
}

func TestOpenFailures(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		code sanad.Code
		say  string
	}{
		{"key unset", "models:\n  fast: {provider: openai, model: m, api_key_env: OPENAI_API_KEY}\n", nil, sanad.CodeModelAuth, "OPENAI_API_KEY is not set"},
		{"key empty", "models:\n  fast: {provider: anthropic, model: m, api_key_env: MY_KEY}\n", map[string]string{"MY_KEY": ""}, sanad.CodeModelAuth, "MY_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := provider.Open(config(t, tt.yaml), env(tt.env), nil)
			if sanad.ErrorCode(err) != tt.code || !strings.Contains(err.Error(), tt.say) {
				t.Errorf("got %v, want %s saying %q", err, tt.code, tt.say)
			}
		})
	}
	bad := model.Config{Classes: map[string]model.ClassConfig{"fast": {Provider: "openai"}}}
	if _, err := provider.Open(bad, env(nil), nil); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("a class without a model: got %v, want INVALID_INPUT", err)
	}
	reg, err := provider.Open(model.Config{}, nil, nil)
	if err != nil || len(reg.Classes()) != 0 {
		t.Errorf("no models: got %v, %v", reg.Classes(), err)
	}
}

// TestStructuredOutputRepair runs the repair through a real adapter: an
// answer that misses a property is sent back with the violation, once.
func TestStructuredOutputRepair(t *testing.T) {
	const good, bad = `{"city":"Mexico City","country":"Mexico"}`, `{"city":"Mexico City"}`
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"country":{"type":"string"}},"required":["city","country"]}`)
	tests := []struct {
		name    string
		replies []string
		code    sanad.Code
	}{
		{"repaired once", []string{bad, good}, ""},
		{"invalid twice", []string{bad, "Mexico City"}, sanad.CodeModelOutput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newChat(t, texts(tt.replies...))
			reg, err := provider.Open(config(t, "models:\n  fast: {provider: openai, model: gpt-4o-mini, base_url: "+srv.URL+"}\n"), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			m, _ := reg.Model("fast")
			resp, err := m.Generate(context.Background(), model.Request{
				Messages: []model.Message{{Role: model.RoleUser, Content: "Largest city of Mexico?"}},
				Output:   &model.OutputSchema{Name: "city", Schema: schema},
			})
			if sanad.ErrorCode(err) != tt.code {
				t.Fatalf("got %v, want code %q", err, tt.code)
			}
			if len(srv.bodies) != 2 {
				t.Fatalf("got %d requests, want 2", len(srv.bodies))
			}
			msgs := srv.bodies[1]["messages"].([]any)
			last := msgs[len(msgs)-1].(map[string]any)
			if len(msgs) != 3 || last["role"] != "user" || !strings.Contains(last["content"].(string), "missing property 'country'") {
				t.Errorf("the repair request is %v, want the bad reply and the violation appended", msgs)
			}
			if resp.Usage.TotalTokens != 30 {
				t.Errorf("Usage: got %+v, want both calls counted", resp.Usage)
			}
			if err == nil && string(resp.Output) != good {
				t.Errorf("Output: got %s, want %s", resp.Output, good)
			}
			if err != nil && !strings.Contains(err.Error(), "not a JSON value") {
				t.Errorf("message %q does not name the violation", err)
			}
		})
	}
}

// TestSecretsNeverLeak opens models with the key in the environment and
// makes calls that succeed, are refused, fail and time out: the key is in
// no error, reply or log record.
func TestSecretsNeverLeak(t *testing.T) {
	srv := newChat(t, func(n int, w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		switch n {
		case 1:
			texts("you sent "+auth)(n, w, r)
		case 2:
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"error":{"message":"bad key %s"}}`, auth)
		case 3, 4, 5:
			w.WriteHeader(500)
			fmt.Fprintf(w, `{"error":{"message":"boom %s"}}`, auth)
		default:
			_, _ = io.Copy(io.Discard, r.Body)
			<-r.Context().Done()
		}
	})
	var logs bytes.Buffer
	cfg := config(t, "models:\n  fast: {provider: openai, model: m, base_url: "+srv.URL+", api_key_env: OPENAI_API_KEY}\n")
	cfg.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.Timeout = 200 * time.Millisecond
	reg, err := provider.Open(cfg, env(map[string]string{"OPENAI_API_KEY": key}), nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := reg.Model("fast")
	req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}
	var codes []sanad.Code
	for range 4 { // success, 401, 500 ×3, timeout
		resp, err := m.Generate(context.Background(), req)
		codes = append(codes, sanad.ErrorCode(err))
		all := fmt.Sprintf("%v %+v %#v %v %+v", resp, resp, resp, err, err)
		for e := err; e != nil; e = errors.Unwrap(e) {
			all += e.Error()
		}
		if strings.Contains(all, key) {
			t.Errorf("a call leaks the key: %s", all)
		}
	}
	if want := fmt.Sprint([]sanad.Code{"", sanad.CodeModelAuth, sanad.CodeDependencyDown, sanad.CodeTimeout}); fmt.Sprint(codes) != want {
		t.Errorf("got codes %v, want %s", codes, want)
	}
	srv.mu.Lock()
	first := srv.auths[0]
	srv.mu.Unlock()
	if first != "Bearer "+key {
		t.Fatalf("the server got %q, so the test proves nothing", first)
	}
	if strings.Contains(logs.String(), key) || logs.Len() == 0 {
		t.Errorf("the log leaks the key or is empty:\n%s", logs.String())
	}
	if c, _ := reg.Class("fast"); strings.Contains(fmt.Sprintf("%+v", c), key) {
		t.Error("the class configuration holds the key")
	}
}
