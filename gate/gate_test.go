package gate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
)

func setup(t *testing.T) (*home.Home, *gate.Service) {
	t.Helper()
	h, err := home.Open(context.Background(), home.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	set, err := policy.Load("../examples/policies/debate")
	if err != nil {
		t.Fatal(err)
	}
	return h, &gate.Service{Runs: h.Runs, Store: h.DB, Roles: set}
}

func startRun(t *testing.T, h *home.Home) *runs.Run {
	t.Helper()
	run, err := h.Runs.Start(context.Background(), runs.Spec{
		Kind: sanad.KindAgent, Scope: sanad.Scope{Tenant: "t", Case: "deal-1"}, Agent: "arbiter-1", Role: "arbiter",
		Decision: runs.Decision{Allow: true, Reason: "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestD09_HumanGateLifecycle: a gate is created, listed, refused to a
// principal without the required role (nothing recorded), approved by one
// with it, and cannot be resolved twice; every step is an event and the
// ledger verifies.
func TestD09_HumanGateLifecycle(t *testing.T) {
	ctx := context.Background()
	h, svc := setup(t)
	run := startRun(t, h)
	id, err := svc.Open(ctx, run, gate.Spec{Kind: gate.KindHumanReview, Reason: "claim C-7 rests on one grade-D source", RequiredRole: "analyst", Priority: "high", ClaimIDs: []string{"C-7"}})
	if err != nil {
		t.Fatal(err)
	}
	open, err := h.DB.Gates(ctx, gate.StatusOpen)
	if err != nil || len(open) != 1 || open[0].GateID != id || open[0].Run != run.Record.ID {
		t.Fatalf("open gates: got %+v, %v; want gate %s of run %s", open, err, id, run.Record.ID)
	}
	before, _ := h.DB.TreeSize(ctx)
	if _, err := svc.Resolve(ctx, id, runs.Principal{Agent: "ro-1", Role: "risk_officer"}, true, ""); sanad.ErrorCode(err) != sanad.CodePolicyDenied {
		t.Fatalf("resolve by risk_officer: got %v, want POLICY_DENIED", err)
	}
	if after, _ := h.DB.TreeSize(ctx); after != before {
		t.Fatalf("a refused resolution wrote %d events, want 0", after-before)
	}
	g, err := svc.Resolve(ctx, id, runs.Principal{Agent: "dana", Role: "analyst"}, true, "checked the filing")
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != gate.StatusApproved || g.Resolved == nil || g.Resolved.By.Agent != "dana" {
		t.Fatalf("got %+v, want approved by dana", g)
	}
	if _, err := svc.Resolve(ctx, id, runs.Principal{Agent: "dana", Role: "analyst"}, false, ""); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Fatalf("second resolution: got %v, want INVALID_INPUT", err)
	}
	if got, _ := svc.Wait(ctx, id, time.Millisecond); got.Status != gate.StatusApproved {
		t.Fatalf("Wait: got %s, want approved", got.Status)
	}
	if err := run.Complete(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Ledger.Verify(ctx, ""); err != nil {
		t.Fatal(err)
	}
}

// TestRejectedGateFailsRun: rejecting a gate opened with FailOnReject ends
// the waiting run as failed.
func TestRejectedGateFailsRun(t *testing.T) {
	ctx := context.Background()
	h, svc := setup(t)
	run := startRun(t, h)
	id, err := svc.Open(ctx, run, gate.Spec{Kind: gate.KindBlockedIntent, Reason: "critic blocked query_enrichment", RequiredRole: "analyst", FailOnReject: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Resolve(ctx, id, runs.Principal{Agent: "dana", Role: "analyst"}, false, "not justified"); err != nil {
		t.Fatal(err)
	}
	rec, err := h.DB.Run(ctx, run.Record.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != sanad.StatusFailed || rec.Error == nil || rec.Error.Code != sanad.CodePolicyDenied {
		t.Fatalf("run: got %s %+v, want failed with POLICY_DENIED", rec.Status, rec.Error)
	}
	if _, err := h.Ledger.Verify(ctx, run.Record.Trace); err != nil {
		t.Fatal(err)
	}
}

// TestGateOrderingRule: gate.resolved before gate.created is refused at
// append, and nothing is written.
func TestGateOrderingRule(t *testing.T) {
	ctx := context.Background()
	h, _ := setup(t)
	run := startRun(t, h)
	body := gate.Resolved{GateID: "g-unknown", Decision: gate.StatusApproved, By: runs.Principal{Agent: "dana", Role: "analyst"}}
	if _, err := run.Append(ctx, gate.TypeResolved, "", body, nil); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Fatalf("got %v, want INVALID_INPUT", err)
	}
	if _, err := h.Ledger.Verify(ctx, run.Record.Trace); err != nil {
		t.Fatal(err)
	}
}

// openGates is a gate store whose every gate is open.
type openGates struct{ gate.Store }

func (openGates) Gate(_ context.Context, id string) (gate.Gate, error) {
	return gate.Gate{Created: gate.Created{GateID: id}, Status: gate.StatusOpen}, nil
}

// Wait ends with its context: CANCELLED when it was cancelled, ERR_TIMEOUT
// when its deadline passed, and the context's error stays reachable.
func TestWaitEndsWithItsContext(t *testing.T) {
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	expired, cancel2 := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel2()
	cases := []struct {
		name  string
		ctx   context.Context
		code  sanad.Code
		cause error
	}{
		{"cancelled", cancelled, sanad.CodeCancelled, context.Canceled},
		{"deadline", expired, sanad.CodeTimeout, context.DeadlineExceeded},
	}
	s := &gate.Service{Store: openGates{}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.Wait(c.ctx, "g1", time.Hour)
			if sanad.ErrorCode(err) != c.code || !errors.Is(err, c.cause) {
				t.Errorf("got %v, want %s wrapping %v", err, c.code, c.cause)
			}
		})
	}
}
