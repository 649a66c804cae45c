package model_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
)

const goodYAML = `# sanad.yaml
home: ./data
policies:
  dir: ./policies
models:
  reasoning:
    provider: anthropic
    model: claude-sonnet-4-5
    api_key_env: ANTHROPIC_API_KEY
    prices: {input_per_mtok: 3, output_per_mtok: 15}
  fast:
    provider: openai
    model: gpt-4o-mini
    base_url: "http://127.0.0.1:8080/v1"
    api_key_env: OPENAI_API_KEY
  embedding:
    provider: openai
    model: nomic-embed-text
    base_url: http://127.0.0.1:11434/v1
`

func TestParseConfig(t *testing.T) {
	cfg, err := model.ParseConfig("sanad.yaml", []byte(goodYAML))
	if err != nil {
		t.Fatalf("ParseConfig: %v", err)
	}
	want := map[string]model.ClassConfig{
		"reasoning": {Provider: "anthropic", Model: "claude-sonnet-4-5", APIKeyEnv: "ANTHROPIC_API_KEY", Prices: model.Prices{InputPerMTok: 3, OutputPerMTok: 15}},
		"fast":      {Provider: "openai", Model: "gpt-4o-mini", BaseURL: "http://127.0.0.1:8080/v1", APIKeyEnv: "OPENAI_API_KEY"},
		"embedding": {Provider: "openai", Model: "nomic-embed-text", BaseURL: "http://127.0.0.1:11434/v1"},
	}
	if len(cfg.Classes) != len(want) {
		t.Fatalf("got %d classes, want %d", len(cfg.Classes), len(want))
	}
	for name, w := range want {
		if got := cfg.Classes[name]; got != w {
			t.Errorf("%s: got %+v, want %+v", name, got, w)
		}
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}

	for _, empty := range []string{"", "home: x\n", "models:\n", "models: {}\n", "# nothing\n"} {
		cfg, err := model.ParseConfig("sanad.yaml", []byte(empty))
		if err != nil || len(cfg.Classes) != 0 {
			t.Errorf("%q: got %+v, %v; want no classes", empty, cfg, err)
		}
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		line int
		say  string
	}{
		{"unknown key", "models:\n  fast:\n    provider: openai\n    model: m\n    temperature: 0.2\n", 5, `unknown key "temperature"`},
		{"key pasted in", "models:\n  fast:\n    provider: openai\n    model: m\n    api_key: sk-abcdefgh12345678\n", 5, "api_key_env"},
		{"unknown provider", "models:\n  fast:\n    provider: gemini\n    model: m\n", 3, `"gemini" is not a provider`},
		{"no provider", "models:\n  fast:\n    model: m\n", 2, "provider: missing"},
		{"no model", "models:\n  fast:\n    provider: openai\n", 2, "model: missing"},
		{"bad base URL", "models:\n  fast:\n    provider: openai\n    model: m\n    base_url: localhost:8080\n", 5, "base_url"},
		{"credentials in the URL", "models:\n  fast:\n    provider: openai\n    model: m\n    base_url: http://u:p@host/v1\n", 5, "must not hold credentials"},
		{"key instead of a variable name", "models:\n  fast:\n    provider: openai\n    model: m\n    api_key_env: sk-abc-123\n", 5, "not the key itself"},
		{"negative price", "models:\n  fast:\n    provider: openai\n    model: m\n    prices:\n      input_per_mtok: -1\n", 6, "prices.input_per_mtok"},
		{"anthropic embeddings", "models:\n  embedding:\n    provider: anthropic\n    model: m\n", 3, "no embeddings API"},
		{"bad class name", "models:\n  Fast:\n    provider: openai\n    model: m\n", 2, "class name"},
		{"a class that is not a mapping", "models:\n  fast: gpt-4o\n", 2, ""},
		{"duplicate class", "models:\n  fast:\n    provider: openai\n    model: a\n  fast:\n    provider: openai\n    model: b\n", 5, "already defined"},
		{"bad YAML", "models:\n  fast: [\n", 0, ""},
		{"not a mapping", "- a\n- b\n", 1, "mapping of sections"},
		{"price not a number", "models:\n  fast:\n    provider: openai\n    model: m\n    prices: {input_per_mtok: cheap}\n", 5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := model.ParseConfig("sanad.yaml", []byte(tt.yaml))
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
				t.Fatalf("got %v, want INVALID_INPUT", err)
			}
			var ce *model.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("%v does not wrap a *ConfigError", err)
			}
			if tt.line > 0 && ce.Line != tt.line {
				t.Errorf("got line %d, want %d (%v)", ce.Line, tt.line, err)
			}
			if !strings.Contains(err.Error(), tt.say) || !strings.HasPrefix(ce.Error(), "sanad.yaml") {
				t.Errorf("message %q does not say %q", err, tt.say)
			}
			if strings.Contains(err.Error(), "sk-abc") || strings.Contains(err.Error(), "sk-abcdefgh") {
				t.Errorf("message %q repeats the pasted key", err)
			}
			if testing.Verbose() {
				t.Log(err)
			}
		})
	}
}

func TestCost(t *testing.T) {
	u := model.Usage{InputTokens: 2_000_000, OutputTokens: 500_000, TotalTokens: 2_500_000}
	if got := model.Cost(u, model.Prices{InputPerMTok: 3, OutputPerMTok: 15}); got != 13.5 {
		t.Errorf("got %v, want 13.5", got)
	}
	if got := model.Cost(u, model.Prices{}); got != 0 {
		t.Errorf("free model: got %v, want 0", got)
	}
}

func TestRegistry(t *testing.T) {
	cfg, err := model.ParseConfig("sanad.yaml", []byte(goodYAML))
	if err != nil {
		t.Fatal(err)
	}
	fast, reasoning := &fake{}, &fake{}
	r := model.NewRegistry(cfg, map[string]model.Model{"fast": fast, "reasoning": reasoning, "unknown": &fake{}})
	if got := strings.Join(r.Classes(), ","); got != "fast,reasoning" {
		t.Errorf("Classes: got %s, want fast,reasoning", got)
	}
	if m, ok := r.Model("fast"); !ok || m != fast {
		t.Errorf("Model(fast): got %v %v", m, ok)
	}
	if _, ok := r.Model("embedding"); ok {
		t.Error("Model(embedding) has no model, want false")
	}
	if got := r.Cost("reasoning", model.Usage{InputTokens: 1e6, OutputTokens: 1e6}); got != 18 {
		t.Errorf("Cost: got %v, want 18", got)
	}
	var none *model.Registry
	if _, ok := none.Model("fast"); ok || none.Classes() != nil || none.Cost("fast", model.Usage{InputTokens: 1}) != 0 {
		t.Error("a nil registry should have no classes")
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(goodYAML))
	f.Add([]byte("models:\n  fast: {provider: openai, model: m}\n"))
	f.Add([]byte("models: &a\n  x: *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := model.ParseConfig("f.yaml", data)
		if err != nil {
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
				t.Fatalf("got %v, want INVALID_INPUT", err)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("ParseConfig accepted what Validate refuses: %v", err)
		}
	})
}
