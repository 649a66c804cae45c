package storetest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tlog"
	"github.com/transparency-dev/merkle/compact"
)

// Origin is the log name of the ledgers the suite opens.
const Origin = "test.log/x"

var testScope = sanad.Scope{Tenant: "storetest", Case: "case-1"}

var (
	typesOnce sync.Once
	types     *ledger.Types
	typesErr  error
)

// Types returns the event types the suite's ledgers accept: the built-in run
// and export vocabularies, the same set as home.Types. (The suite does not
// import package home, which wires the SQLite adapter: an adapter's own tests
// must be able to import the suite.)
func Types(tb testing.TB) *ledger.Types {
	tb.Helper()
	typesOnce.Do(func() { types, typesErr = ledger.NewTypes(runs.Vocabulary(), bundle.Vocabulary()) })
	if typesErr != nil {
		tb.Fatalf("compile event types: %v", typesErr)
	}
	return types
}

// env is one store under test with the keyring its ledgers sign with.
type env struct {
	s    Store
	keys *keyring.Keyring
	// base is the size of the log once the first ledger over s opened: the
	// events that register its keys.
	base uint64
}

func newEnv(t *testing.T, open Open) *env {
	t.Helper()
	keys, err := keyring.Open(t.TempDir())
	if err != nil {
		t.Fatalf("keyring.Open: %v", err)
	}
	return &env{s: open(t), keys: keys}
}

// ledger opens a ledger over s with the env's keys. It is closed by t.Cleanup
// before the store is, since cleanups run last-registered first.
func (e *env) ledger(t *testing.T, s Store) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(ledger.Config{Store: s, Keys: e.keys, Types: Types(t), Origin: Origin})
	if err != nil {
		t.Fatalf("ledger.Open: %v", err)
	}
	t.Cleanup(func() { l.Close(context.Background()) })
	if s == e.s && e.base == 0 {
		e.base, _ = s.TreeSize(t.Context())
	}
	return l
}

// note is the body of the filler events the suite appends: an authz.decision
// outside any run, which no ordering rule constrains.
func note(tag string) runs.Decision {
	return runs.Decision{Allow: true, Reason: tag, Principal: runs.Principal{Agent: "storetest"}, Action: "storetest:note"}
}

func draft(trace, tag string) ledger.Draft {
	return ledger.Draft{Trace: trace, Type: runs.TypeAuthz, Scope: testScope, Body: note(tag)}
}

func appendNote(t testing.TB, ctx context.Context, l *ledger.Ledger, trace, tag string) *ledger.Event {
	t.Helper()
	ev, err := l.Append(ctx, draft(trace, tag))
	if err != nil {
		t.Fatalf("append to %s: %v", trace, err)
	}
	return ev
}

// appendPattern appends n events spread over traces round-robin and returns
// them in append order.
func appendPattern(t testing.TB, ctx context.Context, l *ledger.Ledger, traces []string, n int) []*ledger.Event {
	t.Helper()
	out := make([]*ledger.Event, 0, n)
	for i := range n {
		tr := traces[i%len(traces)]
		out = append(out, appendNote(t, ctx, l, tr, fmt.Sprintf("%s #%d", tr, i)))
	}
	return out
}

// sealed returns events sealed by a ledger over a scratch store, for feeding
// to AppendEvents directly. tag makes the bodies, and so the hashes, differ
// between calls with the same trace and count.
func (e *env) sealed(t *testing.T, open Open, trace, tag string, n int) []*ledger.Event {
	t.Helper()
	l := e.ledger(t, open(t))
	out := make([]*ledger.Event, n)
	for i := range out {
		out[i] = appendNote(t, t.Context(), l, trace, fmt.Sprintf("%s %s #%d", tag, trace, i))
	}
	return out
}

// sealedRun starts a run through a recorder over a scratch store and returns
// its record and its events (run.started, authz.decision), for feeding to
// AppendEvents directly.
func (e *env) sealedRun(t *testing.T, open Open) (sanad.Run, []*ledger.Event) {
	t.Helper()
	s := open(t)
	run, err := recorder(e.ledger(t, s)).Start(t.Context(), runs.Spec{Kind: sanad.KindAgent, Scope: testScope, Agent: "storetest-agent",
		Decision: runs.Decision{Allow: true, Reason: "ok"}})
	if err != nil {
		t.Fatalf("start a run: %v", err)
	}
	var evs []*ledger.Event
	for _, st := range readLog(t, t.Context(), s, 0) {
		if ev := decode(t, st); ev.Trace != ledger.KeysTrace {
			evs = append(evs, ev)
		}
	}
	return run.Record, evs
}

// readLog returns the stored events with index >= from, copied.
func readLog(t testing.TB, ctx context.Context, s ledger.Reader, from uint64) []ledger.Stored {
	t.Helper()
	var out []ledger.Stored
	err := s.ReadLog(ctx, from, func(st ledger.Stored) error {
		out = append(out, ledger.Stored{Index: st.Index, Raw: bytes.Clone(st.Raw)})
		return nil
	})
	if err != nil {
		t.Fatalf("ReadLog(%d): %v", from, err)
	}
	return out
}

// readTrace returns the stored events of trace with seq > after, copied.
func readTrace(t testing.TB, ctx context.Context, s ledger.Reader, trace string, after uint64) []ledger.Stored {
	t.Helper()
	var out []ledger.Stored
	err := s.ReadTrace(ctx, trace, after, func(st ledger.Stored) error {
		out = append(out, ledger.Stored{Index: st.Index, Raw: bytes.Clone(st.Raw)})
		return nil
	})
	if err != nil {
		t.Fatalf("ReadTrace(%s, %d): %v", trace, after, err)
	}
	return out
}

func decode(t testing.TB, st ledger.Stored) *ledger.Event {
	t.Helper()
	ev, err := ledger.Decode(st.Raw)
	if err != nil {
		t.Fatalf("stored event at index %d does not decode: %v", st.Index, err)
	}
	return ev
}

// wantCode fails t unless err carries code.
func wantCode(t testing.TB, what string, err error, code sanad.Code) {
	t.Helper()
	if got := sanad.ErrorCode(err); got != code {
		t.Fatalf("%s: got error %v (code %q), want code %s", what, err, got, code)
	}
}

func mustSize(t testing.TB, ctx context.Context, s ledger.TreeStore, want uint64) {
	t.Helper()
	got, err := s.TreeSize(ctx)
	if err != nil {
		t.Fatalf("TreeSize: %v", err)
	}
	if got != want {
		t.Fatalf("TreeSize: got %d, want %d", got, want)
	}
}

func mustHead(t testing.TB, ctx context.Context, s ledger.Reader, trace string, seq uint64, hash canon.Digest) {
	t.Helper()
	gotSeq, gotHash, err := s.TraceHead(ctx, trace)
	if err != nil {
		t.Fatalf("TraceHead(%s): %v", trace, err)
	}
	if gotSeq != seq || gotHash != hash {
		t.Fatalf("TraceHead(%s): got (%d, %s), want (%d, %s)", trace, gotSeq, gotHash, seq, hash)
	}
}

// wantLog checks that the log holds exactly events, in order, from index 0,
// besides the events of the keys trace (the keys the ledgers registered).
func wantLog(t testing.TB, ctx context.Context, s Store, events []*ledger.Event) {
	t.Helper()
	all := readLog(t, ctx, s, 0)
	var got []ledger.Stored
	for i, st := range all {
		if st.Index != uint64(i) {
			t.Fatalf("ReadLog: event %d has index %d, want %d", i, st.Index, i)
		}
		if decode(t, st).Trace != ledger.KeysTrace {
			got = append(got, st)
		}
	}
	if len(got) != len(events) {
		t.Fatalf("ReadLog: got %d events (and %d key registrations), want %d", len(got), len(all)-len(got), len(events))
	}
	for i, st := range got {
		if !bytes.Equal(st.Raw, events[i].Canonical()) {
			t.Fatalf("ReadLog: index %d holds %s, want %s", st.Index, st.Raw, events[i].Canonical())
		}
	}
	mustSize(t, ctx, s, uint64(len(all)))
}

// refTree is the Merkle tree recomputed from event hashes: the root at every
// size and every complete node.
type refTree struct {
	roots [][]byte // roots[n] is the root of the first n leaves
	nodes map[compact.NodeID][]byte
}

func recompute(t testing.TB, hashes []canon.Digest) refTree {
	t.Helper()
	tree := tlog.NewTree()
	ref := refTree{nodes: make(map[compact.NodeID][]byte)}
	root, _ := tree.Root()
	ref.roots = append(ref.roots, root)
	for _, h := range hashes {
		err := tree.Append(tlog.LeafHash(h[:]), func(n tlog.Node) { ref.nodes[n.ID] = bytes.Clone(n.Hash) })
		if err != nil {
			t.Fatalf("tlog append: %v", err)
		}
		root, err := tree.Root()
		if err != nil {
			t.Fatalf("tlog root: %v", err)
		}
		ref.roots = append(ref.roots, root)
	}
	return ref
}

// CheckTree checks a store's Merkle tree against one recomputed from the
// hashes of the events it holds: the size, the root at every size, every
// complete node, and inclusion and consistency proofs built from its nodes.
// It reads O(n log n) nodes: it is meant for logs of hundreds of events.
func CheckTree(t testing.TB, ctx context.Context, s ledger.Store) {
	t.Helper()
	stored := readLog(t, ctx, s, 0)
	hashes := make([]canon.Digest, len(stored))
	for i, st := range stored {
		hashes[i] = decode(t, st).Hash
	}
	ref := recompute(t, hashes)
	n := uint64(len(hashes))
	mustSize(t, ctx, s, n)
	p := tlog.Prover{Nodes: s}
	for size := uint64(1); size <= n; size++ {
		got, err := p.RootAt(ctx, size)
		if err != nil {
			t.Fatalf("root at size %d: %v", size, err)
		}
		if !bytes.Equal(got, ref.roots[size]) {
			t.Fatalf("root at size %d: got %x, want %x", size, got, ref.roots[size])
		}
	}
	ids := make([]compact.NodeID, 0, len(ref.nodes))
	for id := range ref.nodes {
		ids = append(ids, id)
	}
	got, err := s.ReadNodes(ctx, ids)
	if err != nil {
		t.Fatalf("ReadNodes(all %d complete nodes): %v", len(ids), err)
	}
	if len(got) != len(ids) {
		t.Fatalf("ReadNodes: got %d hashes for %d ids", len(got), len(ids))
	}
	for i, id := range ids {
		if !bytes.Equal(got[i], ref.nodes[id]) {
			t.Fatalf("node (level %d, index %d): got %x, want %x", id.Level, id.Index, got[i], ref.nodes[id])
		}
	}
	if n == 0 {
		return
	}
	root := ref.roots[n]
	for i := uint64(0); i < n; i++ {
		prf, err := p.Inclusion(ctx, i, n)
		if err == nil {
			err = tlog.VerifyInclusion(i, n, tlog.LeafHash(hashes[i][:]), prf, root)
		}
		if err != nil {
			t.Fatalf("inclusion of leaf %d in size %d: %v", i, n, err)
		}
	}
	for size := uint64(1); size < n; size++ {
		prf, err := p.Consistency(ctx, size, n)
		if err == nil {
			err = tlog.VerifyConsistency(size, n, prf, ref.roots[size], root)
		}
		if err != nil {
			t.Fatalf("consistency of size %d with %d: %v", size, n, err)
		}
	}
}

func verifyLog(t testing.TB, ctx context.Context, l *ledger.Ledger) ledger.Report {
	t.Helper()
	rep, err := l.Verify(ctx, "")
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return rep
}
