package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

//go:noinline
func brokenTool(context.Context, tool.Call) (json.RawMessage, error) {
	panic("tool-bug-7f3a")
}

//go:noinline
func brokenCritic(context.Context, tool.Intent) (tool.Verdict, error) {
	panic("critic-bug-51c0")
}

// A tool or a critic that panics fails the call; its record keeps the panic's
// value in the error message and the stack, naming the function that
// panicked, in the error of the failure events and of the run's record.
func TestPanicsRecorded(t *testing.T) {
	cases := []struct {
		name     string
		risk     string
		approver tool.Approver
		want     sanad.Code
		value    string
		fn       string   // the function the stack names
		events   []string // of the call's run
	}{
		{"tool", "read", nil, sanad.CodeToolFailed, "tool-bug-7f3a", "tool_test.brokenTool",
			[]string{runs.TypeStarted, runs.TypeAuthz, tool.TypeStarted, tool.TypeFailed, runs.TypeFailed}},
		{"critic", "critic", tool.ApproverFunc(brokenCritic), sanad.CodeInternal, "critic-bug-51c0", "tool_test.brokenCritic",
			[]string{runs.TypeStarted, runs.TypeAuthz, tool.TypeIntent, tool.TypeRefused, runs.TypeFailed}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := tool.Spec{Name: "wire", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{}`), Func: brokenTool}
			pol := policyOf(t, rolesYAML, toolsYAML(toolEntry("wire", c.risk, []string{"worker"})))
			e := openEnv(t, pol, registry(t, spec), func(cfg *tool.Config) { cfg.Approver = c.approver })
			ctx := t.Context()
			p := policy.Principal{Agent: "payer-1", Role: "worker", Scope: deal}
			parent := e.startParent(t, p)
			r := e.Gateway.Call(ctx, parent, p, tool.Request{Tool: "wire", CallID: "w1", Input: json.RawMessage(`{}`), Justification: "pay"})
			wantCode(t, c.name, r, c.want)
			if !strings.Contains(r.Message, c.value) {
				t.Errorf("result message %q does not hold the panic's value %q", r.Message, c.value)
			}
			if err := parent.Complete(ctx, nil, nil); err != nil {
				t.Fatal(err)
			}
			run := ofRun(e.events(t, parent.Record.Trace), r.Run)
			wantTypes(t, c.name, typesOf(run), c.events...)
			check := func(what string, re *sanad.RunError) {
				t.Helper()
				switch {
				case re == nil:
					t.Errorf("%s: no error recorded", what)
				case re.Code != c.want || !strings.Contains(re.Message, c.value):
					t.Errorf("%s: got %s %q, want %s with %q", what, re.Code, re.Message, c.want, c.value)
				case !strings.HasPrefix(re.Stack, "github.com/sanadhq/sanad/tool_test."+strings.TrimPrefix(c.fn, "tool_test.")+"\n"):
					t.Errorf("%s: the stack does not start at %s:\n%s", what, c.fn, re.Stack)
				}
			}
			if c.name == "tool" {
				failed := decode[tool.FailedBody](t, run[3])
				check("tool.failed", &failed.Error)
			}
			check("run.failed", decode[runs.EndedBody](t, run[len(run)-1]).Error)
			rec, err := e.DB.Run(ctx, r.Run)
			if err != nil {
				t.Fatal(err)
			}
			check("the run's record", rec.Error)
			if _, err := e.Ledger.Verify(ctx, parent.Record.Trace); err != nil {
				t.Errorf("Verify: %v", err)
			}
		})
	}
}
