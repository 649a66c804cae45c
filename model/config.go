package model

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/sanadhq/sanad"
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

// ConfigError says where the models: section of a file is wrong. Line and
// Column are 1-based, or 0 when unknown.
type ConfigError struct {
	File   string
	Line   int
	Column int
	Reason string
}

// Error returns "file:line:column: reason".
func (e *ConfigError) Error() string {
	switch {
	case e.Line <= 0:
		return e.File + ": " + e.Reason
	case e.Column <= 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Reason)
}

// MaxConfigBytes is the largest file ParseConfig reads.
const MaxConfigBytes = 256 << 10

// ParseConfig reads the models: section of a sanad.yaml file (file names it
// in errors). Other top-level sections belong to other components and are
// left alone; inside models:, unknown keys are errors. A missing or empty
// section means no model is configured. Errors are INVALID_INPUT and wrap a
// *ConfigError that gives the line.
//
// The returned Config has only Classes set.
func ParseConfig(file string, data []byte) (cfg Config, err error) {
	fail := func(e *ConfigError) (Config, error) {
		return Config{}, sanad.Wrap(e, sanad.CodeInvalidInput, opConfig, e.Error())
	}
	if len(data) > MaxConfigBytes {
		return fail(&ConfigError{File: file, Reason: fmt.Sprintf("file is larger than %d bytes", MaxConfigBytes)})
	}
	defer func() {
		// The parser reads a file a person wrote: a panic in it fails the
		// file, not the process.
		if r := recover(); r != nil {
			cfg, err = fail(&ConfigError{File: file, Reason: fmt.Sprintf("YAML parser failed: %v", r)})
		}
	}()
	f, perr := parser.ParseBytes(data, 0)
	if perr != nil {
		return fail(yamlError(file, perr))
	}
	var section *ast.MappingValueNode
	for _, doc := range f.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		if section != nil {
			return fail(&ConfigError{File: file, Reason: "a sanad.yaml holds one YAML document"})
		}
		switch body := doc.Body.(type) {
		case *ast.MappingNode:
			for _, mv := range body.Values {
				if keyName(mv) == "models" {
					section = mv
				}
			}
		case *ast.MappingValueNode:
			if keyName(body) == "models" {
				section = body
			}
		case *ast.CommentGroupNode, *ast.NullNode:
		default:
			return fail(at(file, body.GetToken(), "the file must be a mapping of sections, such as models:"))
		}
	}
	if section == nil || section.Value == nil {
		return Config{}, nil
	}
	if _, ok := section.Value.(*ast.NullNode); ok {
		return Config{}, nil
	}
	classes := map[string]ClassConfig{}
	if derr := yaml.NodeToValue(section.Value, &classes, yaml.DisallowUnknownField()); derr != nil {
		return fail(yamlError(file, derr))
	}
	cfg = Config{Classes: classes}
	for _, name := range cfg.classNames() {
		if fe := validateClass(name, classes[name]); fe != nil {
			return fail(at(file, placeOf(section.Value, name, fe.field), fe.in(name)))
		}
	}
	return cfg, nil
}

// keyName returns the key of mv as written, or "".
func keyName(mv *ast.MappingValueNode) string {
	if mv == nil || mv.Key == nil {
		return ""
	}
	if tk := mv.Key.GetToken(); tk != nil {
		return tk.Value
	}
	return ""
}

// placeOf returns the token of the deepest key of path ("prices.input_per_mtok")
// written in the class name of the models mapping, or the class's own key.
func placeOf(models ast.Node, class, path string) *token.Token {
	var best *token.Token
	cur := models
	keys := []string{class}
	if path != "" {
		keys = append(keys, strings.Split(path, ".")...)
	}
	for _, key := range keys {
		m, ok := cur.(*ast.MappingNode)
		var values []*ast.MappingValueNode
		if ok {
			values = m.Values
		} else if mv, ok := cur.(*ast.MappingValueNode); ok {
			values = []*ast.MappingValueNode{mv}
		}
		var next ast.Node
		for _, mv := range values {
			if keyName(mv) == key {
				best, next = mv.Key.GetToken(), mv.Value
			}
		}
		if next == nil {
			break
		}
		cur = next
	}
	return best
}

func at(file string, tk *token.Token, reason string) *ConfigError {
	e := &ConfigError{File: file, Reason: reason}
	if tk != nil && tk.Position != nil {
		e.Line, e.Column = tk.Position.Line, tk.Position.Column
	}
	return e
}

// yamlError turns an error of the YAML library into a *ConfigError with the
// place it names. The library's message is kept, not the source text, so a
// key pasted in the wrong place does not travel on in the error.
func yamlError(file string, err error) *ConfigError {
	var ye yaml.Error
	if errors.As(err, &ye) {
		msg := ye.GetMessage()
		var uf *yaml.UnknownFieldError
		if errors.As(err, &uf) {
			msg = strings.Replace(msg, "unknown field", "unknown key", 1) +
				" (known: provider, model, base_url, api_key_env, prices with input_per_mtok and output_per_mtok)"
			if strings.Contains(strings.ToLower(msg), "key\"") || strings.Contains(strings.ToLower(msg), "token") {
				msg += "; an API key never goes in the file: put it in an environment variable and name that with api_key_env"
			}
		}
		return at(file, ye.GetToken(), msg)
	}
	return &ConfigError{File: file, Reason: "invalid YAML: " + err.Error()}
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
