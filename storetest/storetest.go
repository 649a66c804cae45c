// Package storetest is the conformance suite every sanad store adapter runs,
// in the manner of google/adk-go's session/sessiontestsuite. An adapter's
// test calls [Run] with a function that opens a fresh, empty store:
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) storetest.Store {
//			db, err := sqlite.Open(t.Context(), sqlite.Config{Path: filepath.Join(t.TempDir(), "sanad.db")})
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { db.Close() })
//			return db
//		})
//	}
//
// The suite drives the store through a real [ledger.Ledger] and
// [runs.Recorder], so the events it stores are the events production stores.
package storetest

import (
	"context"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/ledger"
)

// RunStore is the runs projection a store keeps: a table derived from the
// run.* events of the ledger, which can be dropped and rebuilt at any time.
type RunStore interface {
	// Run returns the projected record of a run, or NOT_FOUND.
	Run(ctx context.Context, id string) (sanad.Run, error)
	// Runs returns the projected runs of trace, or of every trace for "", in
	// the order their run.started events have in the log.
	Runs(ctx context.Context, trace string) ([]sanad.Run, error)
	// RebuildRuns drops the projection and rebuilds it from the ledger.
	RebuildRuns(ctx context.Context) error
}

// Store is everything the suite checks: the ledger's storage, the artifact
// index and the runs projection.
type Store interface {
	ledger.Store
	artifact.Index
	RunStore
}

// Open returns a new, empty store for one test. It registers the store's
// Close with t.Cleanup. Two calls within one test must return independent
// stores.
type Open func(t *testing.T) Store

// Run runs the conformance suite. Each case is a subtest that calls open for
// the stores it needs.
func Run(t *testing.T, open func(t *testing.T) Store) {
	cases := []struct {
		name string
		fn   func(t *testing.T, open Open)
	}{
		{"AppendAndReadBack", testAppendAndReadBack},
		{"AppendEventsAllOrNothing", testAppendEventsAllOrNothing},
		{"TraceHead", testTraceHead},
		{"ReadTraceAfter", testReadTraceAfter},
		{"ReadLogFrom", testReadLogFrom},
		{"ReadStopsOnCallbackError", testReadStopsOnCallbackError},
		{"EventByHash", testEventByHash},
		{"Traces", testTraces},
		{"MerkleTree", testMerkleTree},
		{"Checkpoints", testCheckpoints},
		{"LedgerCheckpoints", testLedgerCheckpoints},
		{"Artifacts", testArtifacts},
		{"RunsProjection", testRunsProjection},
		{"RunsRebuild", testRunsRebuild},
		{"ConcurrentAppends", testConcurrentAppends},
		{"TwoLedgersOneStore", testTwoLedgersOneStore},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open) })
	}
}
