package tool_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/tool"
)

// Finding 8: a run's abuse counts are what the ledger says it was let
// through, not what one process remembers: after a restart, a resumed run
// (attached anew) is held to the limits it had used up.
func TestIntegrity8_AbuseCountsSurviveRestart(t *testing.T) {
	ctx := context.Background()
	calls := &counter{}
	pol := policyOf(t, rolesYAML, toolsYAML("  probe:\n    roles: [worker]\n    risk: read\n    max_calls_per_run: 2\n"))
	reg := registry(t, tool.Spec{Name: "probe", InputSchema: json.RawMessage(`{}`), OutputSchema: json.RawMessage(`{}`), Risk: "read",
		SideEffect: tool.SideEffectNone, Func: fixed(calls, `{}`)})
	e := openEnv(t, pol, reg, nil)
	p := principal("worker")
	parent := e.startParent(t, p)
	for _, id := range []string{"c1", "c2"} {
		if r := e.Gateway.Call(ctx, parent, p, tool.Request{Tool: "probe", CallID: id, Input: json.RawMessage(`{}`)}); !r.Success {
			t.Fatalf("call %s: %s %s", id, r.Code, r.Message)
		}
	}
	// A new process: a new gateway, the run attached from its record.
	gw, err := tool.New(tool.Config{Registry: reg, Policy: pol, Runs: e.Runs, Artifacts: e.Artifacts})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := e.DB.Run(ctx, parent.Record.ID)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.Runs.Attach(rec, p.Role)
	if err != nil {
		t.Fatal(err)
	}
	r := gw.Call(ctx, again, p, tool.Request{Tool: "probe", CallID: "c3", Input: json.RawMessage(`{}`)})
	wantCode(t, "a third call after the restart", r, sanad.CodeToolAbuse)
	r = gw.Call(ctx, again, p, tool.Request{Tool: "probe", CallID: "c1", Input: json.RawMessage(`{}`)})
	wantCode(t, "a call id used before the restart", r, sanad.CodeConflict)
	if calls.count() != 2 {
		t.Errorf("the tool ran %d times, want 2", calls.count())
	}
}

// Finding 8: an attempt left running after its deadline and grace is
// recorded as abandoned.
func TestIntegrity8_AbandonedAttemptRecorded(t *testing.T) {
	ctx := context.Background()
	release := make(chan struct{})
	defer close(release)
	pol := policyOf(t, rolesYAML, toolsYAML("  stuck:\n    roles: [worker]\n    risk: read\n"))
	reg := registry(t, tool.Spec{Name: "stuck", InputSchema: json.RawMessage(`{}`), OutputSchema: json.RawMessage(`{}`), Risk: "read",
		SideEffect: tool.SideEffectNone, Timeout: 10 * time.Millisecond,
		Func: func(context.Context, tool.Call) (json.RawMessage, error) {
			<-release // ignores its context: it outlives the deadline and the grace
			return json.RawMessage(`{}`), nil
		}})
	e := openEnv(t, pol, reg, func(c *tool.Config) { c.Grace = 10 * time.Millisecond })
	p := principal("worker")
	parent := e.startParent(t, p)
	r := e.Gateway.Call(ctx, parent, p, tool.Request{Tool: "stuck", CallID: "s1", Input: json.RawMessage(`{}`)})
	wantCode(t, "a stuck attempt", r, sanad.CodeTimeout)
	var failed *tool.FailedBody
	for _, ev := range ofCall(t, e.events(t, parent.Record.Trace), "s1") {
		if ev.Type == tool.TypeFailed {
			b := decode[tool.FailedBody](t, ev)
			failed = &b
		}
	}
	if failed == nil || !failed.Abandoned || failed.Retry {
		t.Fatalf("tool.failed of the stuck attempt: got %+v, want abandoned and not retried", failed)
	}
}
