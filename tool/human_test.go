package tool_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// TestHumanApprovalThroughGate: a tool whose approval is human opens a gate
// in the call's run; the call waits; a person with the required role
// approves (the tool runs) or rejects (it never runs, BLOCKED). Every step is
// an event, and the trace verifies.
func TestHumanApprovalThroughGate(t *testing.T) {
	for _, approve := range []bool{true, false} {
		t.Run(map[bool]string{true: "approved", false: "rejected"}[approve], func(t *testing.T) {
			ran := &counter{}
			spec := tool.Spec{Name: "wire", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{}`),
				SideEffect: tool.SideEffectExternal, Func: fixed(ran, `{"ok":true}`)}
			roles := rolesYAML + "  treasurer:\n    kind: human\n"
			pol := policyOf(t, roles, toolsYAML(toolEntry("wire", "human", []string{"worker"})))
			var gates *gate.Service
			e := openEnv(t, pol, registry(t, spec), func(cfg *tool.Config) {
				gates = &gate.Service{Runs: cfg.Runs, Roles: pol}
				cfg.Humans = &tool.GateApprover{Gates: gates, RequiredRole: "treasurer", Every: time.Millisecond}
			})
			awaited := &awaitedGate{Store: e.DB, id: make(chan string, 1)}
			gates.Store = awaited
			ctx := t.Context()
			p := policy.Principal{Agent: "payer-1", Role: "worker", Scope: deal}
			parent := e.startParent(t, p)
			resolved := make(chan struct{})
			go func() {
				defer close(resolved)
				select {
				case id := <-awaited.id:
					if _, err := gates.Resolve(context.Background(), id, runs.Principal{Agent: "tess", Role: "treasurer"}, approve, "checked"); err != nil {
						t.Errorf("resolve: %v", err)
					}
				case <-ctx.Done():
				}
			}()
			t.Cleanup(func() { <-resolved }) // after ctx is cancelled
			r := e.Gateway.Call(ctx, parent, p, tool.Request{Tool: "wire", CallID: "w1", Input: json.RawMessage(`{"amount":5}`), Justification: "supplier invoice 77"})
			want := map[bool]sanad.Code{true: "", false: sanad.CodeBlocked}[approve]
			wantCode(t, "human", r, want)
			if got, w := ran.count(), map[bool]int{true: 1, false: 0}[approve]; got != w {
				t.Errorf("the tool ran %d times, want %d", got, w)
			}
			if err := parent.Complete(ctx, nil, nil); err != nil {
				t.Fatal(err)
			}
			evs := ofRun(e.events(t, parent.Record.Trace), r.Run)
			got := typesOf(evs)
			wantTypes := []string{runs.TypeStarted, runs.TypeAuthz, tool.TypeIntent, gate.TypeCreated, gate.TypeResolved, tool.TypeApproved, tool.TypeStarted, tool.TypeCompleted, runs.TypeCompleted}
			if !approve {
				wantTypes = []string{runs.TypeStarted, runs.TypeAuthz, tool.TypeIntent, gate.TypeCreated, gate.TypeResolved, tool.TypeBlocked, runs.TypeFailed}
			}
			if len(got) != len(wantTypes) {
				t.Fatalf("events: got %v, want %v", got, wantTypes)
			}
			for i := range got {
				if got[i] != wantTypes[i] {
					t.Fatalf("events: got %v, want %v", got, wantTypes)
				}
			}
			if _, err := e.Ledger.Verify(ctx, parent.Record.Trace); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// awaitedGate is the gate store of a test: it sends, once, the id of the
// first gate it is asked for, which is the gate the approver waits on once
// it has opened it.
type awaitedGate struct {
	gate.Store
	once sync.Once
	id   chan string
}

func (s *awaitedGate) Gate(ctx context.Context, id string) (gate.Gate, error) {
	s.once.Do(func() { s.id <- id })
	return s.Store.Gate(ctx, id)
}
