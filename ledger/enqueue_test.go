package ledger_test

import (
	"context"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/runs"
)

// TestEnqueueChainedFailure: appends chained on one whose commit fails fail
// too, unwritten; the next append reads the head again and the trace stays
// whole.
func TestEnqueueChainedFailure(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	types, err := home.Types()
	if err != nil {
		t.Fatal(err)
	}
	store := newGatedStore(h.DB, true)
	store.fail = true
	l, err := ledger.Open(ledger.Config{Store: store, Keys: h.Keys, Types: types, Origin: "sanad.log/enqueue-test", MaxAge: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx)
	rec := sanad.Run{ID: "t1", RootID: "t1", Trace: "t1", Kind: sanad.KindAgent, Scope: ledgertest.Scope, Agent: "intake-agent",
		ContractVersion: sanad.ContractVersion, Status: sanad.StatusRunning, StartedAt: time.Now()}
	draft := func(typ string, body any) ledger.Draft {
		return ledger.Draft{Trace: "t1", Type: typ, Run: "t1", Root: "t1", Scope: ledgertest.Scope, Body: body}
	}
	started := draft(runs.TypeStarted, runs.StartedBody{Run: rec})
	authz := draft(runs.TypeAuthz, runs.Decision{Allow: true, Reason: "ok", Principal: runs.Principal{Agent: "intake-agent"}, Action: "run:agent"})

	first, err := l.Enqueue(ctx, started)
	if err != nil {
		t.Fatal(err)
	}
	// The first commit is under way (and will fail); this one is chained
	// on it.
	<-store.entered
	second, err := l.Enqueue(ctx, authz)
	if err != nil {
		t.Fatal(err)
	}
	close(store.hold)
	if err := first.Wait(ctx); sanad.ErrorCode(err) != sanad.CodeDependencyDown {
		t.Fatalf("first: got %v, want DEPENDENCY_DOWN", err)
	}
	if err := second.Wait(ctx); sanad.ErrorCode(err) != sanad.CodeConflict {
		t.Fatalf("second: got %v, want CONFLICT (chained on a failed append)", err)
	}
	if size := workSize(t, h); size != 0 {
		t.Fatalf("%d events written, want 0", size)
	}
	// The trace starts again from what is stored.
	evs, err := l.AppendAll(ctx, started, authz)
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Seq != 1 || evs[1].Seq != 2 {
		t.Fatalf("seqs %d, %d; want 1, 2", evs[0].Seq, evs[1].Seq)
	}
	if _, err := l.Verify(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
}

// TestEnqueueOrder: appends of one trace enqueued without waiting commit in
// order, as one chain.
func TestEnqueueOrder(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	run, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Scope: ledgertest.Scope, Agent: "intake-agent", Decision: runs.Decision{Allow: true, Reason: "ok"}})
	if err != nil {
		t.Fatal(err)
	}
	var ps []*ledger.Pending
	for range 50 {
		p, err := run.Enqueue(ctx, runs.Event{Type: runs.TypeAuthz, Body: runs.Decision{Allow: true, Reason: "again", Principal: runs.Principal{Agent: "intake-agent"}, Action: "run:agent"}})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	for i := len(ps) - 1; i >= 0; i-- { // waiting out of order changes nothing
		if err := ps[i].Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range ps {
		if got := p.Events()[0].Seq; got != uint64(i+3) {
			t.Fatalf("append %d: seq %d, want %d", i, got, i+3)
		}
	}
	if _, err := h.Ledger.Verify(ctx, run.Record.Trace); err != nil {
		t.Fatal(err)
	}
}
