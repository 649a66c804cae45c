package ledger_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/sqlite"
)

// BenchmarkAppend measures durable appends from many concurrent writers,
// each appending to its own trace: every Append returns only after its event
// is committed, and concurrent appends share commits.
//
//	go test ./ledger -run XXX -bench Append -cpu 2
func BenchmarkAppend(b *testing.B) {
	for _, sync := range []string{sqlite.SyncNormal, sqlite.SyncFull} {
		b.Run("sync="+sync, func(b *testing.B) {
			ctx := context.Background()
			h, err := home.Open(ctx, home.Config{Dir: b.TempDir(), Synchronous: sync})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			b.SetParallelism(32) // 32 writers per GOMAXPROCS
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				run, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Scope: ledgertest.Scope, Agent: "bench-agent", Decision: allow})
				if err != nil {
					b.Error(err)
					return
				}
				body := map[string]any{"trace": run.Record.Trace, "events": 1}
				for pb.Next() {
					if _, err := run.Append(ctx, bundle.TypeExportAssembled, "", body, nil); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// benchLedger records a trace of at least n events and takes a checkpoint.
func benchLedger(b *testing.B, n int) (*home.Home, string) {
	b.Helper()
	h := ledgertest.Home(b)
	trace := ledgertest.Record(b, h, n)
	if _, _, err := h.Ledger.Checkpoint(context.Background()); err != nil {
		b.Fatal(err)
	}
	return h, trace
}

// BenchmarkVerify measures verification of a ledger of 1,000 events, all of
// it and one trace (which also checks each event's inclusion proof).
func BenchmarkVerify(b *testing.B) {
	ctx := context.Background()
	h, trace := benchLedger(b, 1000)
	for _, tt := range []struct{ name, trace string }{{"log", ""}, {"trace", trace}} {
		b.Run(tt.name, func(b *testing.B) {
			var events int
			for b.Loop() {
				rep, err := h.Ledger.Verify(ctx, tt.trace)
				if err != nil {
					b.Fatal(err)
				}
				events += rep.Events
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkProve measures inclusion proofs of random events of a 1,000-event
// log against its checkpoint: by event hash (Prove) and by leaf index
// (ProveStored).
func BenchmarkProve(b *testing.B) {
	ctx := context.Background()
	h, trace := benchLedger(b, 1000)
	events, err := h.Ledger.Events(ctx, trace)
	if err != nil {
		b.Fatal(err)
	}
	_, cp, err := h.Ledger.Checkpoint(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var leaves []uint64
	h.Ledger.Store().ReadTrace(ctx, trace, 0, func(s ledger.Stored) error { leaves = append(leaves, s.Index); return nil })
	rng := rand.New(rand.NewPCG(1, 2))
	b.Run("by-hash", func(b *testing.B) {
		for b.Loop() {
			ev := events[rng.IntN(len(events))]
			if _, err := h.Ledger.Prove(ctx, ev.Hash, cp); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("by-index", func(b *testing.B) {
		for b.Loop() {
			i := rng.IntN(len(events))
			if _, err := h.Ledger.ProveStored(ctx, leaves[i], events[i].Hash, cp); err != nil {
				b.Fatal(err)
			}
		}
	})
}
