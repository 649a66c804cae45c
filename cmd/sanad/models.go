package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/provider"
)

// The modes a run, a step or a command works in.
const (
	modeDeterministic = "deterministic" // no model: the offline agents, rule-based roles
	modeModel         = "model"         // a configured model writes the answers
)

// configFile is the file of a home that holds its settings; the models:
// section is the model classes.
const configFile = "sanad.yaml"

// modelEnvPrefix starts the environment variables that override a class:
// SANAD_MODEL_<CLASS>=provider:model[@base_url].
const modelEnvPrefix = "SANAD_MODEL_"

// modelsHelp documents the model configuration, for every command that reads
// it.
const modelsHelp = `Models are configured in the models: section of sanad.yaml in the home folder (or the file
given with --model-config), one entry per model class that agent profiles name in model_class:

  models:
    reasoning:
      provider: openai                      # or anthropic
      model: gpt-4o-mini
      base_url: "http://127.0.0.1:8080/v1"  # optional: Ollama, vLLM, llama.cpp, a hosted API
      api_key_env: OPENAI_API_KEY           # the variable that holds the key; optional for local servers
      prices: {input_per_mtok: 0.15, output_per_mtok: 0.60}

The environment overrides a class, or adds one: SANAD_MODEL_<CLASS>=provider:model[@base_url],
such as SANAD_MODEL_FAST=openai:llama3.1:8b@http://127.0.0.1:11434/v1 (CLASS in upper case, with
'_' for '-'; an empty value is ignored). An override keeps the file's api_key_env and prices for
the class when the provider is the same; a class that only the environment names uses
OPENAI_API_KEY or ANTHROPIC_API_KEY when it has no base_url, and no key when it has one.

API keys are read only from the environment variable api_key_env names, never from a file or a
flag, and are never printed or recorded. With no model configured, agents run in deterministic
mode: each analyses its evidence by rules (agent/offline) instead of asking a model.`

// modelSetup is the model configuration of a command and where it came
// from.
type modelSetup struct {
	cfg model.Config
	// file is the file read, "" when there was none.
	file string
	// overrides are the SANAD_MODEL_* variables applied, sorted.
	overrides []string
	getenv    func(string) string
}

// loadModels reads the model configuration: the models: section of file,
// or of the home's sanad.yaml when file is empty (a home without one has no
// model), then the SANAD_MODEL_* overrides of environ. A configuration that
// is not valid is a usage error.
func loadModels(homeDir, file string, environ []string) (modelSetup, error) {
	vars := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	s := modelSetup{getenv: func(k string) string { return vars[k] }}
	path, explicit := file, file != ""
	if !explicit {
		path = filepath.Join(homeDir, configFile)
	}
	data, err := readConfig(path)
	switch {
	case err == nil:
		s.file = path
		if s.cfg, err = model.ParseConfig(path, data); err != nil {
			return s, usageError{err}
		}
	case errors.Is(err, fs.ErrNotExist) && !explicit:
	case errors.Is(err, fs.ErrNotExist):
		return s, usagef("--model-config %s: no such file", file)
	default:
		return s, usageError{err}
	}
	if s.cfg.Classes == nil {
		s.cfg.Classes = map[string]model.ClassConfig{}
	}
	for k, v := range vars {
		name, ok := strings.CutPrefix(k, modelEnvPrefix)
		if !ok || name == "" || v == "" {
			continue
		}
		class := envClass(s.cfg, name)
		cc, err := parseOverride(k, v, s.cfg.Classes[class])
		if err != nil {
			return s, err
		}
		s.cfg.Classes[class] = cc
		s.overrides = append(s.overrides, k)
	}
	slices.Sort(s.overrides)
	if err := s.cfg.Validate(); err != nil {
		if len(s.overrides) > 0 {
			return s, usagef("%s (with %s)", sanad.ErrorMessage(err), strings.Join(s.overrides, ", "))
		}
		return s, usageError{err}
	}
	return s, nil
}

// readConfig reads a configuration file, bounded.
func readConfig(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, model.MaxConfigBytes+1))
}

// envClass returns the class an override variable's suffix names: the
// configured class whose name it spells, else the suffix in lower case.
func envClass(cfg model.Config, suffix string) string {
	for name := range cfg.Classes {
		if strings.ToUpper(strings.ReplaceAll(name, "-", "_")) == suffix {
			return name
		}
	}
	return strings.ToLower(suffix)
}

// parseOverride reads provider:model[@base_url] into the class it
// overrides (the zero ClassConfig for a new class).
func parseOverride(name, value string, old model.ClassConfig) (model.ClassConfig, error) {
	prov, rest, ok := strings.Cut(strings.TrimSpace(value), ":")
	modelName, baseURL, _ := strings.Cut(rest, "@")
	if !ok || prov == "" || modelName == "" {
		return old, usagef("%s must be provider:model[@base_url], such as openai:gpt-4o-mini or openai:llama3.1:8b@http://127.0.0.1:11434/v1", name)
	}
	cc := model.ClassConfig{Provider: prov, Model: modelName, BaseURL: baseURL}
	switch {
	case old.Provider == prov:
		cc.APIKeyEnv, cc.Prices = old.APIKeyEnv, old.Prices
	case baseURL != "":
	case prov == model.ProviderOpenAI:
		cc.APIKeyEnv = "OPENAI_API_KEY"
	case prov == model.ProviderAnthropic:
		cc.APIKeyEnv = "ANTHROPIC_API_KEY"
	}
	return cc, nil
}

// mode is the mode of a command that uses these models.
func (s modelSetup) mode() string {
	if len(s.cfg.Classes) == 0 {
		return modeDeterministic
	}
	return modeModel
}

// open returns the registry of the configured classes; a class whose key
// variable is unset fails with MODEL_AUTH naming it.
func (s modelSetup) open() (*model.Registry, error) {
	return provider.Open(s.cfg, s.getenv, nil)
}

func (a *app) modelsCommand() *cobra.Command {
	var file string
	c := &cobra.Command{
		Use:   "models",
		Short: "List the configured model classes, or test one with a short call",
		Long:  "Models lists and tests the model classes agents call.\n\n" + modelsHelp,
	}
	c.PersistentFlags().StringVar(&file, "model-config", "", "file with a models: section (default: sanad.yaml in the home folder)")
	c.AddCommand(a.modelsListCommand(&file), a.modelsTestCommand(&file))
	return c
}

// modelClassInfo is one class as models list prints it.
type modelClassInfo struct {
	Class      string `json:"class"`
	Provider   string `json:"provider"`
	Model      string `json:"model"`
	BaseURL    string `json:"base_url,omitempty"`
	APIKeyEnv  string `json:"api_key_env,omitempty"`
	KeyPresent bool   `json:"key_present"`
}

func (a *app) modelsListCommand(file *string) *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "list",
		Short: "List the model classes: provider, model, base URL, key variable and whether it is set",
		Long: `List prints each configured model class: its provider, model and base URL, the environment
variable that holds its API key and whether that variable is set (never the key). With no
model configured it says so: agents then run in deterministic mode. Exit 2 for a configuration
that is not valid.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := loadModels(a.home(), *file, os.Environ())
			if err != nil {
				return err
			}
			classes := []modelClassInfo{}
			names := make([]string, 0, len(s.cfg.Classes))
			for n := range s.cfg.Classes {
				names = append(names, n)
			}
			slices.Sort(names)
			for _, n := range names {
				cc := s.cfg.Classes[n]
				classes = append(classes, modelClassInfo{
					Class: n, Provider: cc.Provider, Model: cc.Model, BaseURL: cc.BaseURL,
					APIKeyEnv: cc.APIKeyEnv, KeyPresent: cc.APIKeyEnv != "" && s.getenv(cc.APIKeyEnv) != "",
				})
			}
			if a.jsonOut {
				overrides := append([]string{}, s.overrides...)
				return a.printJSON(map[string]any{"mode": s.mode(), "config": s.file, "overrides": overrides, "classes": classes})
			}
			if len(classes) == 0 {
				where := filepath.Join(a.home(), configFile)
				if *file != "" {
					where = *file
				}
				fmt.Fprintf(a.stdout, "No model is configured: agents run in deterministic mode.\nAdd a models: section to %s, or set SANAD_MODEL_<CLASS> (see sanad models --help).\n", where)
				return nil
			}
			for _, c := range classes {
				base := c.BaseURL
				if base == "" {
					base = "(" + c.Provider + " default)"
				}
				key := "no key"
				switch {
				case c.APIKeyEnv != "" && c.KeyPresent:
					key = "key " + c.APIKeyEnv + " (set)"
				case c.APIKeyEnv != "":
					key = "key " + c.APIKeyEnv + " (NOT SET)"
				}
				fmt.Fprintf(a.stdout, "%-12s %-10s %-24s %-36s %s\n", c.Class, c.Provider, c.Model, base, key)
			}
			switch {
			case s.file != "" && len(s.overrides) > 0:
				fmt.Fprintf(a.stdout, "from %s, with %s\n", s.file, strings.Join(s.overrides, ", "))
			case s.file != "":
				fmt.Fprintf(a.stdout, "from %s\n", s.file)
			default:
				fmt.Fprintf(a.stdout, "from %s\n", strings.Join(s.overrides, ", "))
			}
			return nil
		},
	})
}

// modelTestReport is what models test prints with --json.
type modelTestReport struct {
	Class     string          `json:"class"`
	Provider  string          `json:"provider"`
	Model     string          `json:"model"`
	LatencyMS int64           `json:"latency_ms"`
	Usage     model.UsageJSON `json:"usage"`
}

func (a *app) modelsTestCommand(file *string) *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "test CLASS",
		Short: "Make one short call to the model of CLASS and report its latency and token usage",
		Long: `Test sends the model of CLASS one short request ("Reply with OK") and prints the model that
answered, the latency and the token usage. The call checks the configuration, the key and the
connection; it does no work for a run, so it is not recorded in the ledger.

Exit 0 when the model answered; 1 when the call failed, with the provider's error (for a refused
key, 401 or 403, the error names the variable that holds it); 2 when CLASS is not configured or
the configuration is not valid.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			class := args[0]
			s, err := loadModels(a.home(), *file, os.Environ())
			if err != nil {
				return err
			}
			cc, ok := s.cfg.Classes[class]
			if !ok {
				known := "none: agents run in deterministic mode"
				if len(s.cfg.Classes) > 0 {
					names := make([]string, 0, len(s.cfg.Classes))
					for n := range s.cfg.Classes {
						names = append(names, n)
					}
					slices.Sort(names)
					known = strings.Join(names, ", ")
				}
				return usagef("no model class %q is configured (configured: %s)", class, known)
			}
			one := s
			one.cfg.Classes = map[string]model.ClassConfig{class: cc}
			reg, err := one.open()
			if err != nil {
				return failure{err}
			}
			m, _ := reg.Model(class)
			resp, err := m.Generate(cmd.Context(), model.Request{
				Messages: []model.Message{{Role: model.RoleUser, Content: "Reply with OK"}}, MaxTokens: 16,
			})
			if err != nil {
				return failure{err}
			}
			rep := modelTestReport{Class: class, Provider: cc.Provider, Model: resp.Model, LatencyMS: resp.Latency.Milliseconds(), Usage: resp.Usage.JSON()}
			if rep.Model == "" {
				rep.Model = cc.Model
			}
			if a.jsonOut {
				return a.printJSON(rep)
			}
			fmt.Fprintf(a.stdout, "%s: %s %s answered in %d ms (%d input, %d output tokens): %q\n",
				class, rep.Provider, rep.Model, rep.LatencyMS, rep.Usage.InputTokens, rep.Usage.OutputTokens, clipText(resp.Text, 80))
			return nil
		},
	})
}

// clipText returns s on one line, cut to n runes.
func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
