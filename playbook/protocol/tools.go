package protocol

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"math"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
)

// The built-in session tools.
const (
	ToolLookup       = "lookup"
	ToolCompute      = "compute"
	ToolSendExternal = "send_external"
)

//go:embed policy/roles.yaml policy/tools.yaml
var policyFiles embed.FS

// PolicyFS returns the policy of a session, roles.yaml and tools.yaml, at
// its root: the four roles and the operator, and the built-in tools open to
// the executor with their risk classes.
func PolicyFS() fs.FS {
	sub, err := fs.Sub(policyFiles, "policy")
	if err != nil {
		panic(err) // the embedded folder exists
	}
	return sub
}

// DefaultPolicy loads [PolicyFS].
func DefaultPolicy() (*policy.Set, error) { return policy.LoadFS(PolicyFS()) }

// Tools returns the built-in session tools, deterministic and offline:
//
//   - lookup returns the record stored under a key in a dataset artifact
//     (a session's fixtures), read from store within the caller's scope;
//   - compute does arithmetic over a list of numbers;
//   - send_external is the high-risk tool a critic blocks above its
//     threshold. Offline it reaches nothing: it returns the receipt a real
//     connector would, derived from its input.
func Tools(store *artifact.Store) []tool.Spec {
	obj := json.RawMessage(`{"type":"object"}`)
	return []tool.Spec{
		{
			Name: ToolLookup, Description: "Returns the record stored under key in the dataset artifact.",
			InputSchema: json.RawMessage(`{"type":"object","required":["dataset","key"],"additionalProperties":false,"properties":{
				"dataset":{"type":"string","pattern":"^[0-9a-f]{64}$"},"key":{"type":"string","minLength":1,"maxLength":256}}}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["key","record"]}`),
			Risk:         RiskLow, SideEffect: tool.SideEffectNone, Idempotent: true,
			Func: func(ctx context.Context, c tool.Call) (json.RawMessage, error) { return lookup(ctx, store, c) },
		},
		{
			Name: ToolCompute, Description: "Arithmetic over a list of numbers: sum, product, min, max, mean, subtract, divide.",
			InputSchema: json.RawMessage(`{"type":"object","required":["op","values"],"additionalProperties":false,"properties":{
				"op":{"enum":["sum","product","min","max","mean","subtract","divide"]},
				"values":{"type":"array","minItems":1,"maxItems":10000,"items":{"type":"number"}}}}`),
			OutputSchema: obj, Risk: RiskLow, SideEffect: tool.SideEffectNone, Idempotent: true, Func: compute,
		},
		{
			Name: ToolSendExternal, Description: "Sends a message or a payment to an outside party.",
			InputSchema: json.RawMessage(`{"type":"object","required":["to"],"additionalProperties":false,"properties":{
				"to":{"type":"string","minLength":1,"maxLength":256},"message":{"type":"string","maxLength":4000},
				"amount":{"type":"number","minimum":0},"currency":{"type":"string","pattern":"^[A-Z]{3}$"}}}`),
			OutputSchema: obj, Risk: RiskHigh, SideEffect: tool.SideEffectExternal, Func: sendExternal,
		},
	}
}

func lookup(ctx context.Context, store *artifact.Store, c tool.Call) (json.RawMessage, error) {
	const op = "tool.lookup"
	var in struct{ Dataset, Key string }
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "input")
	}
	data, _, err := store.Get(ctx, sanad.ArtifactID(in.Dataset), c.Principal.Scope)
	if err != nil {
		return nil, err
	}
	var records map[string]json.RawMessage
	if err := json.Unmarshal(data, &records); err != nil {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "dataset %s is not a JSON object of records", in.Dataset)
	}
	rec, ok := records[in.Key]
	if !ok {
		return nil, sanad.Errorf(sanad.CodeNotFound, op, "no record %q in the dataset", in.Key)
	}
	return json.Marshal(map[string]json.RawMessage{"key": mustJSON(in.Key), "record": rec})
}

func compute(_ context.Context, c tool.Call) (json.RawMessage, error) {
	const op = "tool.compute"
	var in struct {
		Op     string
		Values []float64
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "input")
	}
	r := in.Values[0]
	for _, v := range in.Values[1:] {
		switch in.Op {
		case "sum", "mean":
			r += v
		case "product":
			r *= v
		case "min":
			r = min(r, v)
		case "max":
			r = max(r, v)
		case "subtract":
			r -= v
		case "divide":
			if v == 0 {
				return nil, sanad.Errorf(sanad.CodeToolFailed, op, "division by zero")
			}
			r /= v
		}
	}
	if in.Op == "mean" {
		r /= float64(len(in.Values))
	}
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return nil, sanad.Errorf(sanad.CodeToolFailed, op, "the result of %s is not a finite number", in.Op)
	}
	return json.Marshal(map[string]any{"op": in.Op, "count": len(in.Values), "result": r})
}

func sendExternal(_ context.Context, c tool.Call) (json.RawMessage, error) {
	var in struct{ To string }
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, "tool.send_external", "input")
	}
	receipt := canon.Sum(c.Input)
	return json.Marshal(map[string]any{"delivered": true, "to": in.To, "receipt": receipt.String()})
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
