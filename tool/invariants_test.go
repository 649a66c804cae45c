package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// TestINV_TOOL_001_InvalidInputNeverRuns: an input that is not a JSON object
// matching the tool's input schema is refused with INVALID_INPUT before
// authorization, the tool's code never runs, and the refusal is recorded.
func TestINV_TOOL_001_InvalidInputNeverRuns(t *testing.T) {
	counts := map[string]*counter{}
	e := debateEnv(t, counts)
	p := principal("sanad_breaker")
	parent := e.startParent(t, p)
	ctx := t.Context()

	huge := `{"claim_id":"` + strings.Repeat("x", tool.DefaultMaxInputBytes) + `"}`
	cases := []struct {
		name  string
		input string
	}{
		{"empty", ""},
		{"blank", "  \n"},
		{"not JSON", `{"claim_id":`},
		{"trailing data", `{"claim_id":"c-1"} {}`},
		{"duplicate key", `{"claim_id":"c-1","claim_id":"c-2"}`},
		{"invalid UTF-8", "{\"claim_id\":\"\xff\"}"},
		{"array", `["c-1"]`},
		{"string", `"c-1"`},
		{"null", `null`},
		{"missing required", `{}`},
		{"wrong type", `{"claim_id":7}`},
		{"empty string", `{"claim_id":""}`},
		{"unknown argument", `{"claim_id":"c-1","drop":"tables"}`},
		{"too large", huge},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := "bad-" + string(rune('a'+i))
			r := e.Gateway.Call(ctx, parent, p, tool.Request{Tool: "lookup_claim", CallID: id, Input: json.RawMessage(c.input)})
			wantCode(t, c.name, r, sanad.CodeInvalidInput)
			if r.Tool != "lookup_claim" || r.CallID != id || r.Run != "" {
				t.Errorf("result names tool %q call %q run %q, want lookup_claim, %s and no run", r.Tool, r.CallID, r.Run, id)
			}
			if r.Output() != nil {
				t.Errorf("output: got %s, want none", r.Output())
			}
		})
	}
	// The request around the input is validated too.
	bad := []struct {
		name string
		p    policy.Principal
		req  tool.Request
	}{
		{"no call id", p, tool.Request{Tool: "lookup_claim", Input: validInput["lookup_claim"]}},
		{"call id with a space", p, tool.Request{Tool: "lookup_claim", CallID: "call 1", Input: validInput["lookup_claim"]}},
		{"negative round", p, tool.Request{Tool: "lookup_claim", CallID: "neg", Round: -1, Input: validInput["lookup_claim"]}},
		{"agent not an identity", policy.Principal{Agent: "Sanad Breaker", Role: p.Role, Scope: deal}, tool.Request{Tool: "lookup_claim", CallID: "who", Input: validInput["lookup_claim"]}},
		{"runtime as agent", policy.Principal{Agent: e.Ledger.RuntimeIdentity(), Role: p.Role, Scope: deal}, tool.Request{Tool: "lookup_claim", CallID: "rt", Input: validInput["lookup_claim"]}},
	}
	for _, c := range bad {
		r := e.Gateway.Call(ctx, parent, c.p, c.req)
		wantCode(t, c.name, r, sanad.CodeInvalidInput)
	}
	if n := counts["lookup_claim"].count(); n != 0 {
		t.Fatalf("lookup_claim ran %d times on invalid input, want 0", n)
	}

	// A valid call runs, once.
	r := e.Gateway.Call(ctx, parent, p, tool.Request{Tool: "lookup_claim", CallID: "good", Input: validInput["lookup_claim"]})
	wantCode(t, "valid input", r, "")
	if n := counts["lookup_claim"].count(); n != 1 {
		t.Errorf("lookup_claim ran %d times, want 1", n)
	}

	if err := parent.Complete(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	evs := e.events(t, parent.Record.Trace)
	for i, c := range cases {
		id := "bad-" + string(rune('a'+i))
		got := ofCall(t, evs, id)
		wantTypes(t, c.name, typesOf(got), tool.TypeRefused)
		if len(got) == 1 {
			b := decode[tool.RefusedBody](t, got[0])
			if b.Status != sanad.CodeInvalidInput || b.Stage != tool.StageValidate || got[0].Run != parent.Record.ID {
				t.Errorf("%s: refusal %+v in run %s, want INVALID_INPUT at stage validate in the parent run", c.name, b, got[0].Run)
			}
		}
	}
	for _, ev := range evs {
		if ev.Type == tool.TypeStarted && decode[tool.CallInfo](t, ev).CallID != "good" {
			t.Errorf("got tool.started for call %s, want none but the valid call's", decode[tool.CallInfo](t, ev).CallID)
		}
	}
}

// TestINV_TOOL_002_ResultImmutable: a result is a value whose output is a
// read-only view. Changing the bytes Output returned, the bytes the tool
// returned, or the input the tool received changes neither a later Output nor
// what is stored.
func TestINV_TOOL_002_ResultImmutable(t *testing.T) {
	var returned json.RawMessage // the tool's own output slice, kept after it returns
	spec := tool.Spec{
		Name:         "echo",
		InputSchema:  json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","required":["echo"]}`),
		SideEffect:   tool.SideEffectNone,
		Func: func(ctx context.Context, call tool.Call) (json.RawMessage, error) {
			returned = json.RawMessage(`{"echo": ` + string(call.Input) + `}`)
			for i := range call.Input {
				call.Input[i] = 'X' // the tool scribbles on its input
			}
			return returned, nil
		},
	}
	pol := policyOf(t, rolesYAML, toolsYAML(toolEntry("echo", "read", []string{"worker"})))
	e := openEnv(t, pol, registry(t, spec), nil)
	p := policy.Principal{Agent: "worker-1", Role: "worker", Scope: deal}
	parent := e.startParent(t, p)
	ctx := t.Context()

	r := e.Gateway.Call(ctx, parent, p, tool.Request{Tool: "echo", CallID: "c1", Input: json.RawMessage(`{"b": 2, "a": [1, "x"]}`)})
	wantCode(t, "echo", r, "")
	const want = `{"echo":{"a":[1,"x"],"b":2}}`
	if got := string(r.Output()); got != want {
		t.Fatalf("Output: got %s, want %s", got, want)
	}

	out := r.Output()
	for i := range out {
		out[i] = 'Z'
	}
	for i := range returned {
		returned[i] = 'Y'
	}
	copied := r
	if got := string(r.Output()); got != want {
		t.Errorf("Output after mutating a copy and the tool's slice: got %s, want %s", got, want)
	}
	if got := string(copied.Output()); got != want {
		t.Errorf("Output of a copy of the result: got %s, want %s", got, want)
	}
	if b, err := json.Marshal(r); err != nil || !bytes.Contains(b, []byte(`"output":`+want)) {
		t.Errorf("json.Marshal(result): got %s (%v), want it to hold the output %s", b, err, want)
	}

	stored, ref, err := e.Artifacts.Get(ctx, r.OutputRef.ID, deal)
	if err != nil {
		t.Fatalf("Artifacts.Get(output): got error %v, want nil", err)
	}
	if string(stored) != want || ref.MediaType != tool.MediaType {
		t.Errorf("stored output: got %s (%s), want %s (%s)", stored, ref.MediaType, want, tool.MediaType)
	}
	if got := "sha256:" + ref.SHA256; got != r.ResultHash || got != canon.Sum([]byte(want)).String() {
		t.Errorf("result hash: got %s, want the stored output's hash %s", r.ResultHash, got)
	}
	input, _, err := e.Artifacts.Get(ctx, r.InputRef.ID, deal)
	if err != nil || string(input) != `{"a":[1,"x"],"b":2}` {
		t.Errorf("stored input: got %s (%v), want the canonical input the caller sent", input, err)
	}
}

// TestINV_TOOL_003_UnknownToolReturnsError: a tool the registry does not hold
// yields {success:false, code:TOOL_NOT_FOUND, tool:name}, never a panic, and
// the refusal is recorded.
func TestINV_TOOL_003_UnknownToolReturnsError(t *testing.T) {
	e := debateEnv(t, nil)
	p := principal("arbiter")
	parent := e.startParent(t, p)
	ctx := t.Context()
	names := []string{"no_such_tool", "", "LOOKUP_CLAIM", "lookup_claim ", strings.Repeat("x", 10_000), "bad\nname\x00\"", "\xff\xfe"}
	for i, name := range names {
		id := "u" + string(rune('a'+i))
		r := e.Gateway.Call(ctx, parent, p, tool.Request{Tool: name, CallID: id, Input: json.RawMessage(`{}`)})
		if r.Success || r.Code != sanad.CodeToolNotFound || r.Tool != name {
			t.Errorf("Call(%.20q): got success %v code %q tool %.20q, want false, TOOL_NOT_FOUND, the name", name, r.Success, r.Code, r.Tool)
		}
		if r.Message == "" || len(r.Message) > sanad.MaxMessageBytes {
			t.Errorf("Call(%.20q): got message of %d bytes, want a bounded one", name, len(r.Message))
		}
		if !errorsIsCode(r.Err(), sanad.CodeToolNotFound) {
			t.Errorf("Call(%.20q).Err(): got %v, want code TOOL_NOT_FOUND", name, r.Err())
		}
	}
	b, err := json.Marshal(e.Gateway.Call(ctx, parent, p, tool.Request{Tool: "no_such_tool", CallID: "json", Input: json.RawMessage(`{}`)}))
	if err != nil || !bytes.HasPrefix(b, []byte(`{"success":false,"code":"TOOL_NOT_FOUND","message":`)) || !bytes.Contains(b, []byte(`"tool":"no_such_tool"`)) {
		t.Errorf("result as JSON: got %s (%v), want {success:false, code:TOOL_NOT_FOUND, tool:no_such_tool}", b, err)
	}
	// Without a parent run nothing can be recorded; still no panic.
	if r := e.Gateway.Call(ctx, nil, p, tool.Request{Tool: "no_such_tool", CallID: "orphan"}); r.Code != sanad.CodeInvalidInput {
		t.Errorf("Call without a parent: got code %q, want INVALID_INPUT", r.Code)
	}

	if err := parent.Complete(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	evs := e.events(t, parent.Record.Trace)
	for i := range names {
		id := "u" + string(rune('a'+i))
		got, before := refusalOf(t, evs, id)
		if got.Status != sanad.CodeToolNotFound || got.Stage != tool.StageResolve || len(got.Tool) > 128 {
			t.Errorf("call %s: refusal %+v, want TOOL_NOT_FOUND at stage resolve with a bounded tool name", id, got)
		}
		if before.Type == runs.TypeAuthz && strings.HasPrefix(decode[runs.Decision](t, before).Action, "tool:") {
			t.Errorf("call %s: an unknown tool is not a policy decision, got an authz.decision before the refusal", id)
		}
	}
	// A refused call never reaches the parent run's end: the parent still completes.
	if last := evs[len(evs)-1]; last.Type != runs.TypeCompleted {
		t.Errorf("last event: got %s, want run.completed", last.Type)
	}
}

func errorsIsCode(err error, code sanad.Code) bool { return sanad.ErrorCode(err) == code }
