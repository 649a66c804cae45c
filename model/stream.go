package model

import (
	"context"
	"encoding/json"
	"iter"
	"strings"

	"github.com/sanadhq/sanad"
)

const (
	opStream = "model.stream"
	opOutput = "model.output"
)

// Stream streams m's reply to req: m's own stream when m is a [Streamer];
// otherwise m.Generate, replayed as one text delta, one delta per tool call,
// and the final delta.
func Stream(ctx context.Context, m Model, req Request) iter.Seq2[Delta, error] {
	if s, ok := m.(Streamer); ok {
		return s.Stream(ctx, req)
	}
	return func(yield func(Delta, error) bool) {
		resp, err := m.Generate(ctx, req)
		if err != nil {
			yield(Delta{}, err)
			return
		}
		for _, d := range Deltas(resp) {
			if !yield(d, nil) {
				return
			}
		}
	}
}

// Deltas returns resp as the deltas a stream of it would yield: its text,
// each tool call whole, then resp itself.
func Deltas(resp Response) []Delta {
	var out []Delta
	if resp.Text != "" {
		out = append(out, Delta{Text: resp.Text})
	}
	for i, c := range resp.ToolCalls {
		out = append(out, Delta{ToolCall: &ToolCallDelta{Index: i, ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)}})
	}
	return append(out, Delta{Response: &resp})
}

// Collect reads a stream to its end and returns its final Response. A
// stream that ends without one fails with MODEL_OUTPUT_INVALID.
func Collect(stream iter.Seq2[Delta, error]) (Response, error) {
	for d, err := range stream {
		if err != nil {
			return Response{}, err
		}
		if d.Response != nil {
			return *d.Response, nil
		}
	}
	return Response{}, sanad.Errorf(sanad.CodeModelOutput, opStream, "the stream ended before the model finished its reply")
}

// Accumulator puts a reply back together from its deltas. Adapters build
// the final Response of a stream with it, so the text and tool calls of the
// final delta are exactly the sum of the fragments before it. The zero value
// is ready to use; it is not safe for concurrent use.
type Accumulator struct {
	text     strings.Builder
	calls    []partialCall
	badIndex bool // a fragment named a call beyond MaxToolCalls
}

// MaxToolCalls bounds the tool calls of one reply an [Accumulator] puts
// together, so a hostile stream cannot make it allocate without end.
const MaxToolCalls = 1024

type partialCall struct {
	id, name string
	args     strings.Builder
}

// Add adds the text or tool-call fragment of d.
func (a *Accumulator) Add(d Delta) {
	a.text.WriteString(d.Text)
	tc := d.ToolCall
	if tc == nil {
		return
	}
	if tc.Index < 0 || tc.Index >= MaxToolCalls {
		a.badIndex = true
		return
	}
	for len(a.calls) <= tc.Index {
		a.calls = append(a.calls, partialCall{})
	}
	c := &a.calls[tc.Index]
	if tc.ID != "" {
		c.id = tc.ID
	}
	if tc.Name != "" {
		c.name = tc.Name
	}
	c.args.WriteString(tc.Arguments)
}

// Text returns the text so far.
func (a *Accumulator) Text() string { return a.text.String() }

// ToolCalls returns the tool calls so far. Empty arguments become {}; a call
// without a name, or whose arguments are not a JSON object, or a fragment
// whose index was negative or not below MaxToolCalls, fails with
// MODEL_OUTPUT_INVALID.
func (a *Accumulator) ToolCalls() ([]ToolCall, error) {
	if a.badIndex {
		return nil, sanad.Errorf(sanad.CodeModelOutput, opOutput, "a tool-call fragment has an index outside [0, %d)", MaxToolCalls)
	}
	if len(a.calls) == 0 {
		return nil, nil
	}
	out := make([]ToolCall, 0, len(a.calls))
	for i := range a.calls {
		c := &a.calls[i]
		if c.name == "" {
			return nil, sanad.Errorf(sanad.CodeModelOutput, opOutput, "tool call %d of the reply has no name", i)
		}
		args, err := ToolArguments(c.name, c.args.String())
		if err != nil {
			return nil, err
		}
		out = append(out, ToolCall{ID: c.id, Name: c.name, Arguments: args})
	}
	return out, nil
}

// ToolArguments checks the arguments a model wrote for the named tool: empty
// means {}, anything else must be one JSON object (MODEL_OUTPUT_INVALID
// otherwise).
func ToolArguments(name, args string) (json.RawMessage, error) {
	s := strings.TrimSpace(args)
	if s == "" {
		return json.RawMessage("{}"), nil
	}
	if !isObject(json.RawMessage(s)) {
		return nil, sanad.Errorf(sanad.CodeModelOutput, opOutput, "the model called tool %q with arguments that are not a JSON object", name)
	}
	return json.RawMessage(s), nil
}
