package shape

import (
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/sanadhq/sanad/canon"
)

// Schema is a compiled JSON Schema checked by shape where the schema is
// within its subset, and explained by the general validator: a value shape
// accepts is valid; any other is validated again by the general validator,
// whose error says why (or which accepts it, if shape was stricter).
type Schema struct {
	fast *Validator // nil: the schema is outside the subset
	full *jsonschema.Schema
}

// NewSchema pairs the general validator's compiled form of the JSON Schema
// document raw with shape's, when raw is within the subset.
func NewSchema(raw []byte, full *jsonschema.Schema) (*Schema, error) {
	fast, err := Compile(raw)
	if err != nil && !errors.Is(err, ErrUnsupported) {
		return nil, err
	}
	return &Schema{fast: fast, full: full}, nil
}

// Validate checks v, a value as canon.Parse returns it; a failure is the
// general validator's error (a *jsonschema.ValidationError).
func (s *Schema) Validate(v any) error {
	if s.fast != nil && s.fast.Valid(v) {
		return nil
	}
	return s.full.Validate(v)
}

// ValidateCanonical checks the canonical JSON document b without decoding
// it, unless it is invalid.
func (s *Schema) ValidateCanonical(b []byte) error {
	if s.fast != nil && s.fast.ValidCanonical(b) {
		return nil
	}
	v, err := canon.Parse(b)
	if err != nil {
		return err
	}
	return s.full.Validate(v)
}

// printer words the general validator's errors.
var printer = message.NewPrinter(language.English)

// Explain flattens a validation error of the general validator to one line:
// where and what, for each leaf ("at /run/kind: value must be one of …; at
// …"). Any other error is its own message.
func Explain(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, fmt.Sprintf("at /%s: %s", strings.Join(e.InstanceLocation, "/"), e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(leaves, "; ")
}
