package model

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/schemafile"
)

// The providers a class may name.
const (
	ProviderOpenAI    = "openai"    // OpenAI Chat Completions and Embeddings, or a server that speaks them
	ProviderAnthropic = "anthropic" // Anthropic Messages
)

// The model classes sanad's components ask for. Other class names are
// allowed.
const (
	ClassReasoning = "reasoning"
	ClassFast      = "fast"
	ClassEmbedding = "embedding"
)

// Config maps model classes to provider models: the models: section of a
// home's sanad.yaml, read with [ParseConfig], plus the settings of the
// calls, which are not read from the file.
//
// Config never holds an API key: ClassConfig.APIKeyEnv names the
// environment variable that does, and model/provider reads it.
type Config struct {
	Classes map[string]ClassConfig

	Retry   Retry         // how failed calls are retried
	Timeout time.Duration // the deadline of one call, retries included; DefaultTimeout when zero
	Logger  *slog.Logger  // where retries and failures are logged; nil logs nothing
}

// ClassConfig is one model class:
//
//	reasoning:
//	  provider: openai                      # or anthropic
//	  model: gpt-4o-mini
//	  base_url: "http://127.0.0.1:8080/v1"  # optional: the provider's API by default
//	  api_key_env: OPENAI_API_KEY           # optional for local servers
//	  prices: {input_per_mtok: 0.15, output_per_mtok: 0.60}
type ClassConfig struct {
	Provider  string `yaml:"provider"`
	Model     string `yaml:"model"`
	BaseURL   string `yaml:"base_url"`
	APIKeyEnv string `yaml:"api_key_env"`
	Prices    Prices `yaml:"prices"`
}

// Prices are what a model costs, in a currency of the operator's choosing
// per million tokens.
type Prices struct {
	InputPerMTok  float64 `yaml:"input_per_mtok"`
	OutputPerMTok float64 `yaml:"output_per_mtok"`
}

// Cost returns what usage cost at prices.
func Cost(u Usage, p Prices) float64 {
	return (float64(u.InputTokens)*p.InputPerMTok + float64(u.OutputTokens)*p.OutputPerMTok) / 1e6
}

const opConfig = "model.config"

var (
	classPattern  = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)
	envVarPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
)

// Validate reports the first class of c that cannot work, as an
// INVALID_INPUT error naming the class and the field.
func (c Config) Validate() error {
	for _, name := range c.classNames() {
		if fe := validateClass(name, c.Classes[name]); fe != nil {
			return sanad.Errorf(sanad.CodeInvalidInput, opConfig, "%s", fe.in(name))
		}
	}
	return nil
}

func (c Config) classNames() []string {
	names := make([]string, 0, len(c.Classes))
	for n := range c.Classes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// fieldError is what is wrong with one field of a class.
type fieldError struct{ field, reason string }

// in returns the error as said of class: "models.fast.model: missing".
func (e *fieldError) in(class string) string {
	if e.field == "" {
		return "models." + class + ": " + e.reason
	}
	return "models." + class + "." + e.field + ": " + e.reason
}

// validateClass checks one class and says which field is wrong, if one is.
func validateClass(name string, cc ClassConfig) *fieldError {
	if !classPattern.MatchString(name) {
		return &fieldError{"", fmt.Sprintf("class name %q must be lower case letters, digits, '_' or '-', starting with a letter", name)}
	}
	switch cc.Provider {
	case ProviderOpenAI, ProviderAnthropic:
	case "":
		return &fieldError{"provider", "missing: set it to openai or anthropic"}
	default:
		return &fieldError{"provider", fmt.Sprintf("%q is not a provider: use openai (also for Ollama, vLLM and llama.cpp servers) or anthropic", cc.Provider)}
	}
	if strings.TrimSpace(cc.Model) == "" {
		return &fieldError{"model", "missing: name the provider's model"}
	}
	if name == ClassEmbedding && cc.Provider == ProviderAnthropic {
		return &fieldError{"provider", "anthropic has no embeddings API: use an openai-compatible provider for the embedding class"}
	}
	if cc.BaseURL != "" {
		u, err := url.Parse(cc.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &fieldError{"base_url", "must be an http or https URL such as http://127.0.0.1:8080/v1"}
		}
		if u.User != nil {
			return &fieldError{"base_url", "must not hold credentials: put the key in an environment variable named by api_key_env"}
		}
	}
	if cc.APIKeyEnv != "" && !envVarPattern.MatchString(cc.APIKeyEnv) {
		// The value is not echoed: a key pasted here by mistake must not
		// end up in a log.
		return &fieldError{"api_key_env", "must be the name of an environment variable (letters, digits and '_'), not the key itself"}
	}
	for _, p := range []struct {
		field string
		v     float64
	}{{"prices.input_per_mtok", cc.Prices.InputPerMTok}, {"prices.output_per_mtok", cc.Prices.OutputPerMTok}} {
		if math.IsNaN(p.v) || math.IsInf(p.v, 0) || p.v < 0 {
			return &fieldError{p.field, "must be a price of zero or more"}
		}
	}
	return nil
}

// ConfigError says where the models: section of a file is wrong: File,
// and Line and Column, 1-based, or 0 when the error concerns the whole file.
// It is the error type of schemafile, which reads the file.
type ConfigError = schemafile.Error

// MaxConfigBytes is the largest file ParseConfig reads.
const MaxConfigBytes = 256 << 10

// The schema of the models: section.
//
//go:embed schema/config.schema.json
var configSchemaFile embed.FS

// configSchema compiles the schema once, on first use.
var configSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	all, err := schemafile.Compile(configSchemaFile, "https://sanad.dev/schema/model/", "config")
	if err != nil {
		return nil, err
	}
	return all["config"], nil
})

// classKeys are the keys of a class, as the schema has them.
var classKeys = map[string]bool{"provider": true, "model": true, "base_url": true, "api_key_env": true, "prices": true}

// ParseConfig reads the models: section of a sanad.yaml file (file names it
// in errors). The file is read as schemafile reads every configuration file
// (one document; no anchors, aliases, tags or duplicate keys). Other
// top-level sections belong to other components and are left alone;
// inside models:, unknown keys are errors. An empty file, or a missing or
// empty section, means no model is configured. Errors are INVALID_INPUT and
// wrap a *ConfigError that gives the line: of all that is wrong, what is
// written first.
//
// The returned Config has only Classes set.
func ParseConfig(file string, data []byte) (Config, error) {
	fail := func(err error) (Config, error) {
		var ce *ConfigError
		if !errors.As(err, &ce) {
			ce = &ConfigError{File: file, Reason: err.Error()}
		}
		return Config{}, sanad.Wrap(ce, sanad.CodeInvalidInput, opConfig, ce.Error())
	}
	root, err := schemafile.Parse(file, data, schemafile.Limits{MaxBytes: MaxConfigBytes})
	if errors.Is(err, schemafile.ErrEmpty) {
		return Config{}, nil
	}
	if err != nil {
		return fail(err)
	}
	if !root.IsMap() {
		return fail(schemafile.Errorf(file, root.Pos(), "the file must be a mapping of sections, such as models:"))
	}
	models := root.Get("models")
	if err := pastedKey(file, models); err != nil {
		return fail(err)
	}
	schema, err := configSchema()
	if err != nil {
		// The schema is part of the binary: failing to compile it is a bug.
		return Config{}, sanad.Wrap(err, sanad.CodeInternal, opConfig, "the schema of the models: section does not compile")
	}
	if err := schemafile.Validate(file, root, schema, nil); err != nil {
		return fail(err)
	}
	names, nodes := models.Keys(), models.Items()
	if len(names) == 0 {
		return Config{}, nil
	}
	cfg := Config{Classes: make(map[string]ClassConfig, len(names))}
	for i, name := range names {
		n := nodes[i]
		cc := ClassConfig{
			Provider:  n.Get("provider").Str(),
			Model:     n.Get("model").Str(),
			BaseURL:   n.Get("base_url").Str(),
			APIKeyEnv: n.Get("api_key_env").Str(),
			Prices: Prices{
				InputPerMTok:  number(n.Get("prices").Get("input_per_mtok")),
				OutputPerMTok: number(n.Get("prices").Get("output_per_mtok")),
			},
		}
		if fe := validateClass(name, cc); fe != nil {
			return fail(schemafile.Errorf(file, fe.pos(models, name), "%s", fe.in(name)))
		}
		cfg.Classes[name] = cc
	}
	return cfg, nil
}

// pastedKey refuses a key of a class that looks like it holds a credential,
// with the advice to use api_key_env. The value is not echoed: a key pasted
// here by mistake must not end up in a log.
func pastedKey(file string, models *schemafile.Node) error {
	nodes := models.Items()
	for i, class := range models.Keys() {
		n := nodes[i]
		for _, k := range n.Keys() {
			low := strings.ToLower(k)
			if !classKeys[k] && (strings.Contains(low, "key") || strings.Contains(low, "token") || strings.Contains(low, "secret")) {
				return schemafile.Errorf(file, n.KeyPos(k), "models.%s: unknown key %q: an API key never goes in the file; "+
					"put it in an environment variable and name that with api_key_env", class, k)
			}
		}
	}
	return nil
}

// pos returns where the field of e is written in class of the models
// mapping: the deepest key of its path that is written, or the class's own
// key.
func (e *fieldError) pos(models *schemafile.Node, class string) schemafile.Pos {
	at := models.KeyPos(class)
	n := models.Get(class)
	if e.field == "" {
		return at
	}
	for _, key := range strings.Split(e.field, ".") {
		if !slices.Contains(n.Keys(), key) {
			break
		}
		at, n = n.KeyPos(key), n.Get(key)
	}
	return at
}

// number returns the number n holds, or 0.
func number(n *schemafile.Node) float64 {
	v, _ := n.Value().(json.Number)
	f, _ := v.Float64()
	return f
}

// Registry holds the model of each configured class. It is safe for
// concurrent use. A nil *Registry has no classes.
type Registry struct {
	classes map[string]ClassConfig
	models  map[string]Model
}

// NewRegistry returns the registry of cfg's classes with the given models;
// a class without a model is left out.
func NewRegistry(cfg Config, models map[string]Model) *Registry {
	r := &Registry{classes: map[string]ClassConfig{}, models: map[string]Model{}}
	for name, m := range models {
		if cc, ok := cfg.Classes[name]; ok && m != nil {
			r.classes[name], r.models[name] = cc, m
		}
	}
	return r
}

// Model returns the model of class, and false when none is configured; the
// caller then works without a model.
func (r *Registry) Model(class string) (Model, bool) {
	if r == nil {
		return nil, false
	}
	m, ok := r.models[class]
	return m, ok
}

// Class returns the configuration of class.
func (r *Registry) Class(class string) (ClassConfig, bool) {
	if r == nil {
		return ClassConfig{}, false
	}
	cc, ok := r.classes[class]
	return cc, ok
}

// Classes returns the configured class names, sorted.
func (r *Registry) Classes() []string {
	if r == nil {
		return nil
	}
	out := make([]string, 0, len(r.models))
	for n := range r.models {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Cost returns what usage cost at the prices of class (0 for an unknown
// class).
func (r *Registry) Cost(class string, u Usage) float64 {
	cc, _ := r.Class(class)
	return Cost(u, cc.Prices)
}
