package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/ledger"
)

// appendRetrying appends d, retrying while the store reports CONFLICT (another
// appender took the seq). It returns the event and how many conflicts it met.
func appendRetrying(ctx context.Context, l *ledger.Ledger, d ledger.Draft) (*ledger.Event, int, error) {
	for conflicts := 0; ; conflicts++ {
		ev, err := l.Append(ctx, d)
		if sanad.ErrorCode(err) != sanad.CodeConflict || conflicts >= 100 {
			return ev, conflicts, err
		}
	}
}

// wantChains checks that every trace in acked is stored as a linear chain
// (seq 1..n, each prev the hash of the event before) holding exactly the
// acknowledged events, and that each acknowledged event sits at its own leaf.
func wantChains(t testing.TB, ctx context.Context, s Store, acked map[string][]*ledger.Event) {
	t.Helper()
	// The keys the ledgers registered are acknowledged events too.
	if _, ok := acked[ledger.KeysTrace]; !ok {
		for _, st := range readTrace(t, ctx, s, ledger.KeysTrace, 0) {
			acked[ledger.KeysTrace] = append(acked[ledger.KeysTrace], decode(t, st))
		}
	}
	leaves := map[uint64]canon.Digest{}
	total := 0
	for tr, evs := range acked {
		want := map[canon.Digest]bool{}
		for _, ev := range evs {
			want[ev.Hash] = true
		}
		var prev canon.Digest
		stored := readTrace(t, ctx, s, tr, 0)
		for i, st := range stored {
			ev := decode(t, st)
			if ev.Seq != uint64(i+1) || ev.Prev != prev {
				t.Fatalf("trace %s: event %d has seq %d prev %s, want seq %d prev %s", tr, i, ev.Seq, ev.Prev, i+1, prev)
			}
			if !want[ev.Hash] {
				t.Fatalf("trace %s seq %d: stored event %s was never acknowledged", tr, ev.Seq, ev.Hash)
			}
			if other, dup := leaves[st.Index]; dup {
				t.Fatalf("leaf %d holds both %s and %s", st.Index, other, ev.Hash)
			}
			leaves[st.Index] = ev.Hash
			prev = ev.Hash
		}
		if len(stored) != len(evs) {
			t.Fatalf("trace %s: %d events stored, %d acknowledged", tr, len(stored), len(evs))
		}
		mustHead(t, ctx, s, tr, uint64(len(evs)), prev)
		total += len(evs)
	}
	mustSize(t, ctx, s, uint64(total))
}

// testConcurrentAppends: many goroutines appending through one ledger to a
// few shared traces and to run trees of their own keep every chain linear and
// every acknowledged event stored once.
func testConcurrentAppends(t *testing.T, open Open) {
	ctx := t.Context()
	e := newEnv(t, open)
	l := e.ledger(t, e.s)
	rec := recorder(l)
	const goroutines, perGoroutine = 8, 40
	var mu sync.Mutex
	acked := map[string][]*ledger.Event{}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			lastSeq := map[string]uint64{}
			for i := range perGoroutine {
				tr := fmt.Sprintf("shared-%d", (g+i)%3)
				ev, err := l.Append(ctx, draft(tr, fmt.Sprintf("g%d #%d", g, i)))
				if err != nil {
					t.Errorf("append: %v", err)
					return
				}
				if ev.Seq <= lastSeq[tr] {
					t.Errorf("goroutine %d: %s seq %d after seq %d", g, tr, ev.Seq, lastSeq[tr])
				}
				lastSeq[tr] = ev.Seq
				mu.Lock()
				acked[tr] = append(acked[tr], ev)
				mu.Unlock()
			}
			if err := runPlan(ctx, rec, 100+g); err != nil {
				t.Errorf("run plan: %v", err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// The run trees' events are acknowledged too: add them from their traces,
	// which only one goroutine each wrote.
	traces, err := ledger.WorkTraces(ctx, e.s)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range traces {
		if _, ok := acked[tr]; ok {
			continue
		}
		for _, st := range readTrace(t, ctx, e.s, tr, 0) {
			acked[tr] = append(acked[tr], decode(t, st))
		}
	}
	if len(acked) != 3+goroutines {
		t.Fatalf("got %d traces, want %d", len(acked), 3+goroutines)
	}
	wantChains(t, ctx, e.s, acked)
	verifyLog(t, ctx, l)
	CheckTree(t, ctx, e.s)
}

// testTwoLedgersOneStore: two ledgers over one store, as two processes
// sharing a database, append to the same traces at once. The store's
// (trace, seq) conflicts turn races into retries, so every chain stays linear
// and holds exactly the acknowledged events.
func testTwoLedgersOneStore(t *testing.T, open Open) {
	ctx := t.Context()
	e := newEnv(t, open)
	ledgers := []*ledger.Ledger{e.ledger(t, e.s), e.ledger(t, e.s)}
	var mu sync.Mutex
	acked := map[string][]*ledger.Event{}
	conflicts := 0
	var wg sync.WaitGroup
	for g := range 8 {
		l := ledgers[g%2]
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(g), 1))
			for i := range 30 {
				tr := fmt.Sprintf("both-%d", rnd.IntN(3))
				ev, n, err := appendRetrying(ctx, l, draft(tr, fmt.Sprintf("g%d #%d", g, i)))
				if err != nil {
					t.Errorf("append: %v", err)
					return
				}
				mu.Lock()
				acked[tr] = append(acked[tr], ev)
				conflicts += n
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d appends retried after CONFLICT", conflicts)
	wantChains(t, ctx, e.s, acked)
	for _, l := range ledgers {
		verifyLog(t, ctx, l)
	}
	CheckTree(t, ctx, e.s)
}
