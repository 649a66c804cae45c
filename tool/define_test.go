package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/tool"
)

type sumIn struct {
	Numbers []float64 `json:"numbers" jsonschema:"the numbers to add"`
	Label   string    `json:"label,omitempty"`
}

type sumOut struct {
	Sum float64 `json:"sum"`
}

func TestDefineDerivesSchemasFromTypes(t *testing.T) {
	s, err := tool.Define(tool.Spec{Name: "math.sum", Description: "Adds numbers.", SideEffect: tool.SideEffectNone},
		func(_ context.Context, _ tool.Call, in sumIn) (sumOut, error) {
			var total float64
			for _, n := range in.Numbers {
				total += n
			}
			return sumOut{Sum: total}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Required             []string
		AdditionalProperties bool `json:"additionalProperties"`
		Properties           map[string]struct{ Description string }
	}
	if err := json.Unmarshal(s.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if strings.Join(schema.Required, ",") != "numbers" || schema.AdditionalProperties || schema.Properties["numbers"].Description != "the numbers to add" {
		t.Errorf("input schema: %s", s.InputSchema)
	}
	// The registry compiles what Define derived.
	if _, err := tool.NewRegistry(s); err != nil {
		t.Fatal(err)
	}
	out, err := s.Func(context.Background(), tool.Call{Input: json.RawMessage(`{"numbers":[1,2.5]}`)})
	if err != nil || string(out) != `{"sum":3.5}` {
		t.Fatalf("got %s, %v", out, err)
	}
	// What the schema would refuse never reaches the function, but the
	// function refuses it too.
	if _, err := s.Func(context.Background(), tool.Call{Input: json.RawMessage(`{"numbers":[1],"extra":true}`)}); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Fatalf("unknown field: got %v, want INVALID_INPUT", err)
	}
}

func TestDefineRefusesWhatSchemasCannotDescribe(t *testing.T) {
	_, err := tool.Define(tool.Spec{Name: "bad"}, func(context.Context, tool.Call, chan int) (sumOut, error) { return sumOut{}, nil })
	if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Fatalf("a channel input: got %v, want INVALID_INPUT", err)
	}
	if _, err := tool.Define[sumIn, sumOut](tool.Spec{Name: "nil"}, nil); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Fatalf("no function: got %v, want INVALID_INPUT", err)
	}
	// Schemas given are kept.
	s, err := tool.Define(tool.Spec{Name: "kept", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, tool.Call, map[string]any) (sumOut, error) { return sumOut{}, nil })
	if err != nil || string(s.InputSchema) != `{"type":"object"}` {
		t.Fatalf("got %s, %v", s.InputSchema, err)
	}
}
