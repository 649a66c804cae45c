package schemafile

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// An *Error keeps the error it comes from as its cause: errors.As reaches
// the YAML parser's, the validator's or encoding/json's through it.
func TestErrorKeepsItsCause(t *testing.T) {
	s := compiled(t)["thing"]
	var schema *jsonschema.ValidationError
	var unsupported *json.UnsupportedTypeError
	var yaml interface{ GetMessage() string } // the YAML parser's errors
	cases := []struct {
		name   string
		run    func() error
		target any
	}{
		{"not YAML", func() error { _, err := Parse("f.yaml", []byte("a: [1,"), Limits{}); return err }, &yaml},
		{"against the schema", func() error {
			root, err := Parse("f.yaml", []byte("name: x\nversion: \"1\"\nlimit: 20\n"), Limits{})
			if err != nil {
				return err
			}
			return Validate("f.yaml", root, s, testHints)
		}, &schema},
		{"a value with no JSON", func() error { return ValidateValue("thing x", map[string]any{"f": make(chan int)}, s, testHints) }, &unsupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if !errors.As(err, c.target) {
				t.Errorf("errors.As(%T) through %v: not found (cause %v)", c.target, err, e.Err)
			}
		})
	}
}
