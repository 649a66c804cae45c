package protocol_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/playbook/protocol"
)

// The errors of ParseTask and Project keep the error they come from: a
// caller reaches it with errors.As through the INVALID_INPUT or INTEGRITY
// error it gets.
func TestErrorsKeepTheirCause(t *testing.T) {
	const ok = "- {id: a, objective: A, tool: lookup, input: {key: k}, claim: {text: t, confidence: 0.5}}"
	parse := func(src string) func() error {
		return func() error { _, err := protocol.ParseTask("task.yaml", []byte(src)); return err }
	}
	project := func(body string) func() error {
		return func() error {
			_, err := protocol.Project([]*ledger.Event{{Type: protocol.TypeSessionInitialized, Run: "s1", Trace: "s1", Body: json.RawMessage(body)}})
			return err
		}
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var schema *jsonschema.ValidationError
	var inner *sanad.Error
	cases := []struct {
		name   string
		run    func() error
		code   sanad.Code
		target any
		check  func() bool // what the target must hold, when not nil
	}{
		{"task against its schema", parse("name: x\nobjectives: []"), sanad.CodeInvalidInput, &schema, nil},
		{"task against its rules", parse("name: x\nobjectives:\n  " + ok + "\n  " + ok), sanad.CodeInvalidInput, &inner,
			func() bool { return inner.Op == "protocol.task" }},
		{"recorded body not JSON", project(`{"roster":`), sanad.CodeIntegrity, &syntax, nil},
		{"recorded body of another shape", project(`{"roster":[1]}`), sanad.CodeIntegrity, &typ, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if sanad.ErrorCode(err) != c.code {
				t.Fatalf("got %v, want %s", err, c.code)
			}
			inner = nil
			if !errors.As(errors.Unwrap(err), c.target) {
				t.Fatalf("errors.As(%T): not found in %v", c.target, err)
			}
			if c.check != nil && !c.check() {
				t.Errorf("errors.As(%T): got %v", c.target, inner)
			}
		})
	}
}
