package sqlite_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/sqlite"
	"github.com/sanadhq/sanad/tlog"
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

func runEvents(b testing.TB, n int) []*ledger.Event {
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
	l.Close(context.Background())
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

// TestAppendEventsChunks: batches of every shape of multi-row chunking (a
// full chunk of 64, the smaller chunks, single rows) store the events in
// order and the Merkle nodes that give the log's root.
func TestAppendEventsChunks(t *testing.T) {
	ctx := t.Context()
	evs := runEvents(t, 400)
	db := openDB(t, dbPath(t))
	sizes := []int{1, 3, 4, 5, 16, 17, 21, 64, 69, 85, 115}
	tree := tlog.NewTree()
	for lo, i := 0, 0; lo < len(evs); i++ {
		hi := min(lo+sizes[i%len(sizes)], len(evs))
		if _, err := db.AppendEvents(ctx, evs[lo:hi]); err != nil {
			t.Fatalf("AppendEvents of %d: %v", hi-lo, err)
		}
		for _, ev := range evs[lo:hi] {
			if err := tree.Append(tlog.LeafHash(ev.Hash[:]), nil); err != nil {
				t.Fatal(err)
			}
		}
		lo = hi
	}
	i := 0
	err := db.ReadLog(ctx, 0, func(s ledger.Stored) error {
		if s.Index != uint64(i) || s.Hash != evs[i].Hash {
			t.Fatalf("leaf %d: stored %d %s, want %s", i, s.Index, s.Hash, evs[i].Hash)
		}
		i++
		return nil
	})
	if err != nil || i != len(evs) {
		t.Fatalf("ReadLog: %d events, %v", i, err)
	}
	want, _ := tree.Root()
	got, err := tlog.Prover{Nodes: db}.RootAt(ctx, uint64(len(evs)))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("root from stored nodes %x (%v), want %x", got, err, want)
	}
}
