package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/sanadhq/sanad"
)

// TypedFunc is a tool's code with typed input and output (see [Define]).
type TypedFunc[In, Out any] func(ctx context.Context, call Call, in In) (Out, error)

// Define returns spec with its Func made from fn: the call's input is decoded
// into an In, fn is called, and the Out it returns is the call's output.
// Empty InputSchema and OutputSchema are derived from In and Out with
// github.com/google/jsonschema-go: a struct is an object that admits no
// other properties, a field without omitempty or omitzero is required, and a
// field's jsonschema tag is its description. The gateway validates the input
// against the schema before fn runs, so fn never sees an input the schema
// refuses, and the output after, so a tool cannot return what its schema
// does not promise.
//
// A type that JSON Schema cannot describe (a channel, a func, a map whose
// keys are not strings, a cycle) is INVALID_INPUT.
func Define[In, Out any](spec Spec, fn TypedFunc[In, Out]) (Spec, error) {
	const op = "tool.define"
	if fn == nil {
		return Spec{}, sanad.Errorf(sanad.CodeInvalidInput, op, "tool %q: no function", spec.Name)
	}
	var err error
	if len(bytes.TrimSpace(spec.InputSchema)) == 0 {
		if spec.InputSchema, err = schemaFor[In](); err != nil {
			return Spec{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, fmt.Sprintf("tool %q: the input type: %v", spec.Name, err))
		}
	}
	if len(bytes.TrimSpace(spec.OutputSchema)) == 0 {
		if spec.OutputSchema, err = schemaFor[Out](); err != nil {
			return Spec{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, fmt.Sprintf("tool %q: the output type: %v", spec.Name, err))
		}
	}
	name := spec.Name
	spec.Func = func(ctx context.Context, call Call) (json.RawMessage, error) {
		var in In
		dec := json.NewDecoder(bytes.NewReader(call.Input))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInvalidInput, "tool."+name, "the input does not decode into the tool's input type: "+err.Error())
		}
		out, err := fn(ctx, call, in)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeToolFailed, "tool."+name, "the output does not encode as JSON: "+err.Error())
		}
		return b, nil
	}
	return spec, nil
}

// MustDefine is [Define] for tools defined once, at start-up: it panics
// where Define returns an error, which only a type JSON Schema cannot
// describe causes.
func MustDefine[In, Out any](spec Spec, fn TypedFunc[In, Out]) Spec {
	s, err := Define(spec, fn)
	if err != nil {
		panic(err)
	}
	return s
}

// schemaFor returns the JSON Schema of T.
func schemaFor[T any]() (json.RawMessage, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}
