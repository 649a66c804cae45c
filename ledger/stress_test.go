package ledger_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
)

// flakyStore is the real store whose commits fail at random, before they
// reach it.
type flakyStore struct {
	ledger.Store
	failures atomic.Int64
	rate     float64
}

func (s *flakyStore) AppendEvents(ctx context.Context, evs []*ledger.Event) (uint64, error) {
	if rand.Float64() < s.rate {
		s.failures.Add(1)
		return 0, sanad.Errorf(sanad.CodeDependencyDown, "test.append", "the disk hiccuped")
	}
	return s.Store.AppendEvents(ctx, evs)
}

// TestCommitStress: goroutines append to shared traces with Append,
// AppendAll and Enqueue (waited at once, later, or never) while one commit
// in twenty fails. Every append reported durable is in the store, in its
// trace's order; none reported failed is; appends nobody waited for are
// committed by Close; every trace verifies.
func TestCommitStress(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	store := &flakyStore{Store: h.DB, rate: 0.05}
	l, err := ledger.Open(ledger.Config{Store: store, Keys: h.Keys, Types: h.Types, Origin: "sanad.log/stress", QueueSize: 64, MaxBatch: 16})
	if err != nil {
		t.Fatal(err)
	}
	const workers, perWorker, traces = 16, 60, 6
	type outcome struct {
		trace, mark string
		ok          bool
		unknown     bool // enqueued and never waited for
	}
	var mu sync.Mutex
	var outcomes []outcome
	record := func(o outcome) { mu.Lock(); outcomes = append(outcomes, o); mu.Unlock() }
	draft := func(trace, mark string) ledger.Draft {
		return ledger.Draft{Trace: trace, Type: bundle.TypeExportAuthorized, Scope: ledgertest.Scope, Body: map[string]any{"trace": mark}}
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var later []func()
			for i := range perWorker {
				trace := fmt.Sprintf("stress-%d", (w+i)%traces)
				mark := fmt.Sprintf("w%d-%d", w, i)
				switch i % 4 {
				case 0:
					_, err := l.Append(ctx, draft(trace, mark))
					record(outcome{trace, mark, err == nil, false})
				case 1:
					_, err := l.AppendAll(ctx, draft(trace, mark+"a"), draft(trace, mark+"b"))
					record(outcome{trace, mark + "a", err == nil, false})
					record(outcome{trace, mark + "b", err == nil, false})
				case 2:
					p, err := l.Enqueue(ctx, draft(trace, mark))
					if err != nil {
						record(outcome{trace, mark, false, false})
						continue
					}
					later = append(later, func() { record(outcome{trace, mark, p.Wait(ctx) == nil, false}) })
				case 3:
					if _, err := l.Enqueue(ctx, draft(trace, mark)); err != nil {
						record(outcome{trace, mark, false, false})
					} else {
						record(outcome{trace, mark, false, true})
					}
				}
			}
			for _, f := range later {
				f()
			}
		}()
	}
	wg.Wait()
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if store.failures.Load() == 0 {
		t.Fatal("no commit failed: the test proves nothing about failures")
	}
	stored := map[string]bool{}
	for i := range traces {
		trace := fmt.Sprintf("stress-%d", i)
		if _, err := h.Ledger.Verify(ctx, trace); err != nil {
			t.Fatalf("Verify(%s): %v", trace, err)
		}
		evs, err := h.Ledger.Events(ctx, trace)
		if err != nil {
			t.Fatal(err)
		}
		checkChain(t, trace, evs)
		for _, ev := range evs {
			stored[ev.BodyString("trace")] = true
		}
	}
	okN, failedN := 0, 0
	for _, o := range outcomes {
		switch {
		case o.unknown:
		case o.ok && !stored[o.mark]:
			t.Errorf("%s: reported durable, not stored", o.mark)
		case !o.ok && stored[o.mark]:
			t.Errorf("%s: reported failed, but stored", o.mark)
		case o.ok:
			okN++
		default:
			failedN++
		}
	}
	if okN == 0 || failedN == 0 {
		t.Fatalf("%d appends durable, %d failed: want both", okN, failedN)
	}
	t.Logf("%d durable, %d failed, %d commits failed", okN, failedN, store.failures.Load())
}
