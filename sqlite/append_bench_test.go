package sqlite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/sqlite"
)

// captured records the events a ledger commits, to replay them into another
// store without signing again.
type captured struct {
	*sqlite.DB
	evs []*ledger.Event
}

func (c *captured) AppendEvents(ctx context.Context, evs []*ledger.Event) (uint64, error) {
	first, err := c.DB.AppendEvents(ctx, evs)
	if err == nil {
		c.evs = append(c.evs, evs...)
	}
	return first, err
}

func runEvents(b *testing.B, n int) []*ledger.Event {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, sqlite.Config{Path: b.TempDir() + "/src.db"})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	keys, _ := keyring.Open(b.TempDir())
	types, _ := ledger.NewTypes(runs.Vocabulary(), bundle.Vocabulary())
	c := &captured{DB: db}
	l, err := ledger.Open(ledger.Config{Store: c, Keys: keys, Types: types, Origin: "bench.log/x"})
	if err != nil {
		b.Fatal(err)
	}
	rec := &runs.Recorder{Ledger: l}
	for i := 0; len(c.evs) < n; i++ {
		run, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Scope: sanad.Scope{Tenant: "b", Case: fmt.Sprint(i)}, Agent: "bench-agent", Decision: runs.Decision{Allow: true, Reason: "bench"}, Request: map[string]any{"i": i}})
		if err != nil {
			b.Fatal(err)
		}
		if err := run.Complete(ctx, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	l.Close()
	return c.evs[:n]
}

// BenchmarkAppendEvents measures the store alone: committing already sealed
// run lifecycle events in batches of 256.
func BenchmarkAppendEvents(b *testing.B) {
	evs := runEvents(b, 30000)
	ctx := context.Background()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		b.StopTimer()
		db, err := sqlite.Open(ctx, sqlite.Config{Path: b.TempDir() + "/dst.db"})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for lo := 0; lo < len(evs); lo += 256 {
			if _, err := db.AppendEvents(ctx, evs[lo:min(lo+256, len(evs))]); err != nil {
				b.Fatal(err)
			}
		}
		n += len(evs)
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/event")
}

// BenchmarkAppendEventsBatch shows the fixed cost of a commit: the same events
// committed in batches of 1, 16 and 256.
func BenchmarkAppendEventsBatch(b *testing.B) {
	evs := runEvents(b, 4096)
	ctx := context.Background()
	for _, size := range []int{1, 16, 256} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			n := 0
			for b.Loop() {
				b.StopTimer()
				db, err := sqlite.Open(ctx, sqlite.Config{Path: b.TempDir() + "/dst.db"})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				for lo := 0; lo < len(evs); lo += size {
					if _, err := db.AppendEvents(ctx, evs[lo:min(lo+size, len(evs))]); err != nil {
						b.Fatal(err)
					}
				}
				n += len(evs)
				b.StopTimer()
				db.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/event")
		})
	}
}
