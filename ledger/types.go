package ledger

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/shape"
)

// Signer says whose key must sign an event type.
type Signer int

const (
	// SignedByRuntime events record what the runtime did or decided.
	SignedByRuntime Signer = iota
	// SignedByAgent events record what an agent asserts; the acting agent signs.
	SignedByAgent
	// SignedByEither events may be signed by the runtime or the acting agent.
	SignedByEither
)

// TypeDef declares one event type: its name, the JSON Schema of its body, and
// who signs it.
type TypeDef struct {
	Name   string
	Schema string // JSON Schema (draft 2020-12) of the body
	Signer Signer
	Doc    string
}

// Rule checks an ordering constraint while a verifier walks a trace in order.
// Check is called for every event of the trace; it returns an error naming the
// broken rule. Finish is called after the last event. A Rule is used for one
// trace only.
type Rule interface {
	Check(e *Event) error
	Finish() error
}

// RuleFunc makes a fresh [Rule] for a trace.
type RuleFunc func() Rule

// Vocabulary is a group of event types and the ordering rules over them, as
// one package contributes them.
type Vocabulary struct {
	Types []TypeDef
	Rules []RuleFunc
}

// Types is the closed set of event types a ledger accepts, each with its
// compiled body schema, and the ordering rules that apply to every trace. It
// is immutable after [NewTypes] and safe for concurrent use.
type Types struct {
	defs  map[string]*typeDef
	rules []RuleFunc
}

type typeDef struct {
	TypeDef
	schema *shape.Schema
}

var typeNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`)

// NewTypes compiles the vocabularies into one set, with the ledger's own
// key.registered. Duplicate names, bad names and schemas that do not compile
// are errors.
func NewTypes(vocabularies ...Vocabulary) (*Types, error) {
	t := &Types{defs: make(map[string]*typeDef)}
	vocabularies = append([]Vocabulary{coreVocabulary()}, vocabularies...)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for _, v := range vocabularies {
		for _, d := range v.Types {
			if !typeNameRE.MatchString(d.Name) {
				return nil, fmt.Errorf("ledger: event type %q is not a dotted lower-case name", d.Name)
			}
			if _, dup := t.defs[d.Name]; dup {
				return nil, fmt.Errorf("ledger: event type %q declared twice", d.Name)
			}
			doc, err := jsonschema.UnmarshalJSON(strings.NewReader(d.Schema))
			if err != nil {
				return nil, fmt.Errorf("ledger: schema of %s: %w", d.Name, err)
			}
			url := "sanad:/events/" + d.Name + ".json"
			if err := c.AddResource(url, doc); err != nil {
				return nil, fmt.Errorf("ledger: schema of %s: %w", d.Name, err)
			}
			s, err := c.Compile(url)
			if err != nil {
				return nil, fmt.Errorf("ledger: schema of %s: %w", d.Name, err)
			}
			checked, err := shape.NewSchema([]byte(d.Schema), s)
			if err != nil {
				return nil, fmt.Errorf("ledger: schema of %s: %w", d.Name, err)
			}
			t.defs[d.Name] = &typeDef{TypeDef: d, schema: checked}
		}
		t.rules = append(t.rules, v.Rules...)
	}
	return t, nil
}

// Names returns the declared type names, sorted.
func (t *Types) Names() []string {
	out := make([]string, 0, len(t.defs))
	for n := range t.defs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the declaration of a type.
func (t *Types) Lookup(name string) (TypeDef, bool) {
	d, ok := t.defs[name]
	if !ok {
		return TypeDef{}, false
	}
	return d.TypeDef, true
}

// Rules returns fresh ordering rules for one trace.
func (t *Types) Rules() []Rule {
	out := make([]Rule, len(t.rules))
	for i, f := range t.rules {
		out[i] = f()
	}
	return out
}

// ValidateBody checks body against the schema of type name.
func (t *Types) ValidateBody(name string, body json.RawMessage) error {
	v, err := canon.Parse(body)
	if err != nil {
		return fmt.Errorf("body of %s is not JSON: %w", name, err)
	}
	return t.validate(name, v)
}

// validateCanonical checks a body in canonical form, without decoding it
// unless it is invalid (for the reason).
func (t *Types) validateCanonical(name string, body []byte) error {
	return t.check(name, func(s *shape.Schema) error { return s.ValidateCanonical(body) })
}

// validate checks a parsed body (as canon.Parse returns it).
func (t *Types) validate(name string, v any) error {
	return t.check(name, func(s *shape.Schema) error { return s.Validate(v) })
}

// check applies validate to the schema of type name and words its error.
func (t *Types) check(name string, validate func(*shape.Schema) error) error {
	d, ok := t.defs[name]
	if !ok {
		return fmt.Errorf("unknown event type %q", name)
	}
	if err := validate(d.schema); err != nil {
		return fmt.Errorf("body of %s does not match its schema: %s", name, shape.Explain(err))
	}
	return nil
}
