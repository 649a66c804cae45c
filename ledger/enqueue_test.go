package ledger_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/runs"
)

// failing is the real store with a commit that fails on demand: the first
// commit after fail is set waits for hold, then fails.
type failing struct {
	ledger.Store
	fail atomic.Bool
	hold chan struct{}
}

func (f *failing) AppendEvents(ctx context.Context, evs []*ledger.Event) (uint64, error) {
	if f.fail.CompareAndSwap(true, false) {
		<-f.hold
		return 0, sanad.Errorf(sanad.CodeDependencyDown, "test.append", "the disk went away")
	}
	return f.Store.AppendEvents(ctx, evs)
}

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
	store := &failing{Store: h.DB, hold: make(chan struct{})}
	l, err := ledger.Open(ledger.Config{Store: store, Keys: h.Keys, Types: types, Origin: "sanad.log/enqueue-test", Linger: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rec := sanad.Run{ID: "t1", RootID: "t1", Trace: "t1", Kind: sanad.KindAgent, Scope: ledgertest.Scope, Agent: "intake-agent",
		ContractVersion: sanad.ContractVersion, Status: sanad.StatusRunning, StartedAt: time.Now()}
	draft := func(typ string, body any) ledger.Draft {
		return ledger.Draft{Trace: "t1", Type: typ, Run: "t1", Root: "t1", Scope: ledgertest.Scope, Body: body}
	}
	started := draft(runs.TypeStarted, runs.StartedBody{Run: rec})
	authz := draft(runs.TypeAuthz, runs.Decision{Allow: true, Reason: "ok", Principal: runs.Principal{Agent: "intake-agent"}, Action: "run:agent"})

	store.fail.Store(true)
	first, err := l.Enqueue(ctx, started)
	if err != nil {
		t.Fatal(err)
	}
	// The first commit is under way (and will fail); this one is chained
	// on it.
	for store.fail.Load() {
		time.Sleep(time.Millisecond)
	}
	second, err := l.Enqueue(ctx, authz)
	if err != nil {
		t.Fatal(err)
	}
	close(store.hold)
	if err := first.Wait(); sanad.ErrorCode(err) != sanad.CodeDependencyDown {
		t.Fatalf("first: got %v, want DEPENDENCY_DOWN", err)
	}
	if err := second.Wait(); sanad.ErrorCode(err) != sanad.CodeConflict {
		t.Fatalf("second: got %v, want CONFLICT (chained on a failed append)", err)
	}
	if size, _ := h.DB.TreeSize(ctx); size != 0 {
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
		if err := ps[i].Wait(); err != nil {
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

// TestEnqueueUnwaitedCommits: an append nobody waits for is committed by the
// background committer after the linger, and Close commits what is left.
func TestEnqueueUnwaitedCommits(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	l, err := ledger.Open(ledger.Config{Store: h.DB, Keys: h.Keys, Types: h.Types, Origin: "sanad.log/unwaited", Linger: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	draft := func(trace string) ledger.Draft {
		return ledger.Draft{Trace: trace, Type: bundle.TypeExportAuthorized, Scope: ledgertest.Scope, Body: map[string]any{"trace": trace}}
	}
	if _, err := l.Enqueue(ctx, draft("u1")); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if size, _ := h.DB.TreeSize(ctx); size == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an append nobody waited for was not committed within 10s")
		}
	}
	if _, err := l.Enqueue(ctx, draft("u2")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if size, _ := h.DB.TreeSize(ctx); size != 2 {
		t.Fatalf("tree size after Close: %d, want 2", size)
	}
	if _, err := l.Enqueue(ctx, draft("u3")); sanad.ErrorCode(err) != sanad.CodeUnavailable {
		t.Fatalf("Enqueue after Close: got %v, want UNAVAILABLE", err)
	}
}

// TestSignersSignAhead: appends nobody waits for yet are signed by the
// signers before any commit takes them, both while a signer is still
// polling the queue and once every signer has parked.
func TestSignersSignAhead(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	l, err := ledger.Open(ledger.Config{Store: h.DB, Keys: h.Keys, Types: h.Types, Origin: "sanad.log/sign-ahead"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var ps []*ledger.Pending
	for i, pause := range []time.Duration{0, 0, 50 * time.Millisecond, 0, 50 * time.Millisecond} {
		time.Sleep(pause) // longer than a signer polls: all of them park
		trace := fmt.Sprintf("ahead-%d", i)
		// Held: the background committer is not woken, so only a signer
		// can sign it before the Wait below.
		p, err := l.Hold(ctx, ledger.Draft{Trace: trace, Type: bundle.TypeExportAuthorized, Scope: ledgertest.Scope, Body: map[string]any{"trace": trace}})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-ledger.Signed(p):
		case <-time.After(10 * time.Second):
			t.Fatalf("append %d (after a pause of %v) was not signed ahead of its commit within 10s", i, pause)
		}
		ps = append(ps, p)
	}
	for _, p := range ps {
		if err := p.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	if size, _ := h.DB.TreeSize(ctx); size != uint64(len(ps)) {
		t.Fatalf("tree size %d, want %d", size, len(ps))
	}
}
