package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/modeltest"
)

func TestLoadModels(t *testing.T) {
	dir := t.TempDir()
	const file = `models:
  reasoning:
    provider: openai
    model: gpt-4o-mini
    api_key_env: MY_KEY
    prices: {input_per_mtok: 1}
  long-context:
    provider: anthropic
    model: claude-x
    api_key_env: ANTHROPIC_API_KEY
`
	if err := os.WriteFile(filepath.Join(dir, configFile), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile := map[string]model.ClassConfig{
		"reasoning":    {Provider: "openai", Model: "gpt-4o-mini", APIKeyEnv: "MY_KEY", Prices: model.Prices{InputPerMTok: 1}},
		"long-context": {Provider: "anthropic", Model: "claude-x", APIKeyEnv: "ANTHROPIC_API_KEY"},
	}
	with := func(class string, cc model.ClassConfig) map[string]model.ClassConfig {
		out := map[string]model.ClassConfig{}
		for k, v := range fromFile {
			out[k] = v
		}
		out[class] = cc
		return out
	}
	for _, tc := range []struct {
		name    string
		environ []string
		want    map[string]model.ClassConfig
	}{
		{"file", []string{"HOME=/x", "SANAD_HOME=/y"}, fromFile},
		{"same provider keeps key and prices", []string{"SANAD_MODEL_REASONING=openai:gpt-4o@http://127.0.0.1:8080/v1"},
			with("reasoning", model.ClassConfig{Provider: "openai", Model: "gpt-4o", BaseURL: "http://127.0.0.1:8080/v1", APIKeyEnv: "MY_KEY", Prices: model.Prices{InputPerMTok: 1}})},
		{"other provider takes its usual key", []string{"SANAD_MODEL_REASONING=anthropic:claude-y"},
			with("reasoning", model.ClassConfig{Provider: "anthropic", Model: "claude-y", APIKeyEnv: "ANTHROPIC_API_KEY"})},
		{"a new local class has no key", []string{"SANAD_MODEL_FAST=openai:llama3.1:8b@http://127.0.0.1:11434/v1"},
			with("fast", model.ClassConfig{Provider: "openai", Model: "llama3.1:8b", BaseURL: "http://127.0.0.1:11434/v1"})},
		{"a new hosted class", []string{"SANAD_MODEL_FAST=openai:gpt-4o-mini"},
			with("fast", model.ClassConfig{Provider: "openai", Model: "gpt-4o-mini", APIKeyEnv: "OPENAI_API_KEY"})},
		{"'-' is written '_'", []string{"SANAD_MODEL_LONG_CONTEXT=anthropic:claude-z"},
			with("long-context", model.ClassConfig{Provider: "anthropic", Model: "claude-z", APIKeyEnv: "ANTHROPIC_API_KEY"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := loadModels(dir, "", tc.environ)
			if err != nil {
				t.Fatalf("loadModels: got error %v, want nil", err)
			}
			if !reflect.DeepEqual(s.cfg.Classes, tc.want) {
				t.Errorf("classes:\n got %+v\nwant %+v", s.cfg.Classes, tc.want)
			}
			if s.file != filepath.Join(dir, configFile) || s.mode() != modeModel {
				t.Errorf("got file %q, mode %s; want the home's sanad.yaml, model", s.file, s.mode())
			}
		})
	}

	for _, tc := range []struct {
		name, file string
		environ    []string
		says       string
	}{
		{"no such file", filepath.Join(dir, "nope.yaml"), nil, "no such file"},
		{"malformed override", "", []string{"SANAD_MODEL_FAST=gpt-4o"}, "SANAD_MODEL_FAST must be provider:model"},
		{"unknown provider", "", []string{"SANAD_MODEL_FAST=azure:gpt-4o"}, "with SANAD_MODEL_FAST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadModels(dir, tc.file, tc.environ)
			if err == nil || exitCode(err) != exitUsage || !strings.Contains(message(err), tc.says) {
				t.Errorf("loadModels: got %v, want a usage error saying %q", err, tc.says)
			}
		})
	}

	s, err := loadModels(t.TempDir(), "", nil)
	if err != nil || len(s.cfg.Classes) != 0 || s.file != "" || s.mode() != modeDeterministic {
		t.Errorf("a home without sanad.yaml: got %+v, %v; want no model, deterministic", s, err)
	}
}

// TestModelsExitCodes: models test exits 0 when the model answered, 1 when
// the call failed (naming the key variable for a refused key), 2 for a
// class that is not configured.
func TestModelsExitCodes(t *testing.T) {
	srv := modeltest.NewServer(nil)
	defer srv.Close()
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv("SANAD_MODEL_REASONING", "openai:gpt-test@"+srv.BaseURL())
	t.Setenv("SANAD_MODEL_BROKEN", "openai:gpt-test@http://127.0.0.1:1/v1")
	cfg := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(cfg, []byte("models:\n  keyed:\n    provider: openai\n    model: gpt-test\n    base_url: "+srv.BaseURL()+"\n    api_key_env: SANAD_TEST_KEY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SANAD_TEST_KEY", modeltest.BadKey)
	for _, tc := range []struct {
		args []string
		want int
		says string
	}{
		{[]string{"models", "test", "reasoning"}, exitOK, ""},
		{[]string{"models", "test", "fast"}, exitUsage, `no model class "fast" is configured (configured: broken, reasoning)`},
		{[]string{"models", "test", "broken"}, exitFailure, "could not reach openai model gpt-test"},
		{[]string{"models", "test", "keyed", "--model-config", cfg}, exitFailure, "check the key in environment variable SANAD_TEST_KEY"},
		{[]string{"models", "list", "--model-config", filepath.Join(t.TempDir(), "none.yaml")}, exitUsage, "no such file"},
	} {
		code, _, errOut := sanadIn(t, home, tc.args...)
		if code != tc.want || !strings.Contains(errOut, tc.says) {
			t.Errorf("%v: got exit %d, stderr %q; want exit %d saying %q", tc.args, code, errOut, tc.want, tc.says)
		}
	}
}
