package workflow_test

import (
	"errors"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/schemafile"
	"github.com/sanadhq/sanad/workflow"
)

// Parse's INVALID_INPUT errors keep the error they come from, for errors.As:
// the file's (with its line), the schema's, or the definition's own check.
func TestParseErrorsKeepTheirCause(t *testing.T) {
	var file *schemafile.Error
	var schema *jsonschema.ValidationError
	var inner *sanad.Error
	cases := []struct {
		name   string
		src    string
		target any
		check  func() bool // what the target must hold
	}{
		{"not YAML", "name: [", &file, func() bool { return file.Line == 1 && file.Err != nil }},
		{"against the schema", "name: w\nagent: a\nsteps:\n  - {id: a, surprise: 1}\n", &schema, func() bool { return schema != nil }},
		{"a cycle", "name: c\nagent: w\nsteps:\n  - {id: a, depends_on: [b]}\n  - {id: b, depends_on: [a]}\n", &inner,
			func() bool { return inner.Op == "workflow.validate" && inner.Code == sanad.CodeInvalidInput }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := workflow.Parse("w.yaml", []byte(c.src))
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
				t.Fatalf("got %v, want %s", err, sanad.CodeInvalidInput)
			}
			if !errors.As(errors.Unwrap(err), c.target) || !c.check() {
				t.Errorf("errors.As(%T) through %v: not found, or not the one wanted", c.target, err)
			}
		})
	}
}
