package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/ledger"
	"github.com/transparency-dev/merkle/compact"
)

// testAppendAndReadBack: events a ledger appends come back byte for byte, in
// append order from the log and in seq order from each trace.
func testAppendAndReadBack(t *testing.T, open Open) {
	ctx := t.Context()
	e := newEnv(t, open)
	l := e.ledger(t, e.s)
	traces := []string{"trace-a", "trace-b", "trace-c"}
	events := appendPattern(t, ctx, l, traces, 30)
	wantLog(t, ctx, e.s, events)
	for _, tr := range traces {
		var want []*ledger.Event
		for _, ev := range events {
			if ev.Trace == tr {
				want = append(want, ev)
			}
		}
		got := readTrace(t, ctx, e.s, tr, 0)
		if len(got) != len(want) {
			t.Fatalf("ReadTrace(%s): got %d events, want %d", tr, len(got), len(want))
		}
		for i, st := range got {
			ev := decode(t, st)
			if ev.Seq != uint64(i+1) || !bytes.Equal(st.Raw, want[i].Canonical()) {
				t.Fatalf("ReadTrace(%s)[%d]: got seq %d %s, want seq %d %s", tr, i, ev.Seq, st.Raw, i+1, want[i].Canonical())
			}
			if idx := slices.Index(events, want[i]); st.Index != e.base+uint64(idx) {
				t.Fatalf("ReadTrace(%s)[%d]: got index %d, want %d", tr, i, st.Index, e.base+uint64(idx))
			}
		}
	}
	if rep := verifyLog(t, ctx, l); rep.Events != int(e.base)+len(events) || rep.Traces != len(traces)+1 {
		t.Fatalf("Verify: got %d events in %d traces, want %d in %d (with the keys trace)", rep.Events, rep.Traces, int(e.base)+len(events), len(traces)+1)
	}
}

// testAppendEventsAllOrNothing: a batch with a taken (trace, seq) fails with
// CONFLICT and leaves no trace of any of its events: not in the log, not in
// the trace heads, not in the hash index, not in the Merkle tree.
func testAppendEventsAllOrNothing(t *testing.T, open Open) {
	ctx := t.Context()
	e := newEnv(t, open)
	// The store's own ledger registers the keys first, as it would before
	// the first events they sign.
	if err := e.ledger(t, e.s).Register(ctx, "storetest-agent"); err != nil {
		t.Fatal(err)
	}
	base, _ := e.s.TreeSize(ctx)
	a := e.sealed(t, open, "a", "first", 3)
	b := e.sealed(t, open, "b", "first", 2)
	aOther := e.sealed(t, open, "a", "other", 2) // same (trace, seq) as a[0], a[1], other hashes
	run, runEvents := e.sealedRun(t, open)

	first, err := e.s.AppendEvents(ctx, a[:2])
	if err != nil || first != base {
		t.Fatalf("AppendEvents(a1, a2): got (%d, %v), want (%d, nil)", first, err, base)
	}
	stored := []*ledger.Event{a[0], a[1]}

	bad := []struct {
		name  string
		batch []*ledger.Event
	}{
		{"taken seq at the end", []*ledger.Event{b[0], b[1], aOther[1]}},
		{"taken seq at the start", []*ledger.Event{aOther[0], b[0]}},
		{"same event twice in the batch", []*ledger.Event{b[0], b[0]}},
		{"same seq twice in the batch", []*ledger.Event{a[2], b[0], a[2]}},
		{"event already stored", []*ledger.Event{a[1]}},
		{"run events with a taken seq", append(slices.Clip(runEvents), aOther[1])},
	}
	for _, c := range bad {
		_, err := e.s.AppendEvents(ctx, c.batch)
		wantCode(t, "AppendEvents("+c.name+")", err, sanad.CodeConflict)
		wantLog(t, ctx, e.s, stored)
		mustHead(t, ctx, e.s, "a", 2, a[1].Hash)
		mustHead(t, ctx, e.s, "b", 0, canon.Digest{})
		for _, ev := range c.batch {
			if slices.Contains(stored, ev) {
				continue
			}
			if _, err := e.s.EventByHash(ctx, ev.Hash); sanad.ErrorCode(err) != sanad.CodeNotFound {
				t.Fatalf("after failed AppendEvents(%s): EventByHash(%s) got %v, want NOT_FOUND", c.name, ev.Hash, err)
			}
		}
		if got, err := ledger.WorkTraces(ctx, e.s); err != nil || !slices.Equal(got, []string{"a"}) {
			t.Fatalf("after failed AppendEvents(%s): Traces got (%q, %v), want [a]", c.name, got, err)
		}
		if _, err := e.s.Run(ctx, run.ID); sanad.ErrorCode(err) != sanad.CodeNotFound {
			t.Fatalf("after failed AppendEvents(%s): Run(%s) got %v, want NOT_FOUND", c.name, run.ID, err)
		}
		CheckTree(t, ctx, e.s)
	}

	// The store still appends after the failures, at the next index, and the
	// tree it keeps extends the tree it had.
	first, err = e.s.AppendEvents(ctx, []*ledger.Event{b[0], a[2], b[1]})
	if err != nil || first != base+2 {
		t.Fatalf("AppendEvents(b1, a3, b2): got (%d, %v), want (%d, nil)", first, err, base+2)
	}
	stored = append(stored, b[0], a[2], b[1])
	wantLog(t, ctx, e.s, stored)
	CheckTree(t, ctx, e.s)
	if _, err := e.s.AppendEvents(ctx, runEvents); err != nil {
		t.Fatalf("AppendEvents(run events): %v", err)
	}
	stored = append(stored, runEvents...)
	wantRun(t, e.s, run)
	if first, err := e.s.AppendEvents(ctx, nil); err != nil {
		t.Fatalf("AppendEvents(nil): got (%d, %v), want no error", first, err)
	}
	wantLog(t, ctx, e.s, stored)
	verifyLog(t, ctx, e.ledger(t, e.s))
}

// testTraceHead: seq 0 and no hash for a trace with no events, else its last
// event.
func testTraceHead(t *testing.T, open Open) {
	ctx := t.Context()
	e := newEnv(t, open)
	mustHead(t, ctx, e.s, "nothing-here", 0, canon.Digest{})
	l := e.ledger(t, e.s)
	events := appendPattern(t, ctx, l, []string{"h1", "h2"}, 7)
	mustHead(t, ctx, e.s, "h1", 4, events[6].Hash)
	mustHead(t, ctx, e.s, "h2", 3, events[5].Hash)
	mustHead(t, ctx, e.s, "h3", 0, canon.Digest{})
	mustHead(t, ctx, e.s, "h", 0, canon.Digest{}) // a prefix of a trace id is another trace
}

// testReadTraceAfter: ReadTrace returns exactly the events with seq > after.
func testReadTraceAfter(t *testing.T, open Open) {
	ctx := t.Context()
	e := newEnv(t, open)
	l := e.ledger(t, e.s)
	events := appendPattern(t, ctx, l, []string{"r1", "r2"}, 20)
	var r1 []*ledger.Event
	for _, ev := range events {
		if ev.Trace == "r1" {
			r1 = append(r1, ev)
		}
	}
	for after := uint64(0); after <= uint64(len(r1))+2; after++ {
		got := readTrace(t, ctx, e.s, "r1", after)
		var want []*ledger.Event
		if after < uint64(len(r1)) {
			want = r1[after:]
		}
		if len(got) != len(want) {
			t.Fatalf("ReadTrace(r1, after %d): got %d events, want %d", after, len(got), len(want))
		}
		for i, st := range got {
			if !bytes.Equal(st.Raw, want[i].Canonical()) {
				t.Fatalf("ReadTrace(r1, after %d)[%d]: got %s, want %s", after, i, st.Raw, want[i].Canonical())
			}
		}
	}
	if got := readTrace(t, ctx, e.s, "missing", 0); len(got) != 0 {
		t.Fatalf("ReadTrace(missing): got %d events, want 0", len(got))
	}
}

// testReadLogFrom: ReadLog returns exactly the events with index >= from, in
// index order.
func testReadLogFrom(t *testing.T, open Open) {
	ctx := t.Context()
	e := newEnv(t, open)
	if got := readLog(t, ctx, e.s, 0); len(got) != 0 {
		t.Fatalf("ReadLog of an empty store: got %d events, want 0", len(got))
	}
	l := e.ledger(t, e.s)
	events := appendPattern(t, ctx, l, []string{"l1", "l2", "l3"}, 16)
	for from := e.base; from <= e.base+uint64(len(events))+2; from++ {
		got := readLog(t, ctx, e.s, from)
		var want []*ledger.Event
		if from < e.base+uint64(len(events)) {
			want = events[from-e.base:]
		}
		if len(got) != len(want) {
			t.Fatalf("ReadLog(%d): got %d events, want %d", from, len(got), len(want))
		}
		for i, st := range got {
			if st.Index != from+uint64(i) || !bytes.Equal(st.Raw, want[i].Canonical()) {
				t.Fatalf("ReadLog(%d)[%d]: got index %d %s, want index %d %s", from, i, st.Index, st.Raw, from+uint64(i), want[i].Canonical())
			}
		}
	}
}

// testReadStopsOnCallbackError: an error from the callback stops a scan and is
// returned (errors.Is finds it).
func testReadStopsOnCallbackError(t *testing.T, open Open) {
	ctx := t.Context()
	e := newEnv(t, open)
	l := e.ledger(t, e.s)
	appendPattern(t, ctx, l, []string{"s1"}, 5)
	stop := errors.New("stop here")
	for name, scan := range map[string]func(fn func(ledger.Stored) error) error{
		"ReadLog":   func(fn func(ledger.Stored) error) error { return e.s.ReadLog(ctx, 0, fn) },
		"ReadTrace": func(fn func(ledger.Stored) error) error { return e.s.ReadTrace(ctx, "s1", 0, fn) },
	} {
		calls := 0
		err := scan(func(ledger.Stored) error {
			calls++
			if calls == 2 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || calls != 2 {
			t.Fatalf("%s with a callback failing on the 2nd event: got (%v, %d calls), want (%v, 2 calls)", name, err, calls, stop)
		}
	}
}

// testEventByHash: every stored event is found by its hash, at its index;
// any other hash, even one that shares a prefix with a stored hash, is
// NOT_FOUND.
func testEventByHash(t *testing.T, open Open) {
	ctx := t.Context()
	e := newEnv(t, open)
	var zero canon.Digest
	_, err := e.s.EventByHash(ctx, zero)
	wantCode(t, "EventByHash in an empty store", err, sanad.CodeNotFound)
	l := e.ledger(t, e.s)
	events := appendPattern(t, ctx, l, []string{"x1", "x2"}, 12)
	for i, ev := range events {
		st, err := e.s.EventByHash(ctx, ev.Hash)
		if err != nil {
			t.Fatalf("EventByHash(%s): %v", ev.Hash, err)
		}
		if st.Index != e.base+uint64(i) || !bytes.Equal(st.Raw, ev.Canonical()) {
			t.Fatalf("EventByHash(%s): got index %d %s, want index %d %s", ev.Hash, st.Index, st.Raw, e.base+uint64(i), ev.Canonical())
		}
	}
	for name, h := range map[string]canon.Digest{
		"unrelated hash":           canon.Sum([]byte("no such event")),
		"zero hash":                zero,
		"same first 8 bytes":       withTail(events[3].Hash, 8),
		"same first 31 bytes":      withTail(events[3].Hash, 31),
		"same bytes after the 1st": withHead(events[5].Hash),
	} {
		_, err := e.s.EventByHash(ctx, h)
		wantCode(t, "EventByHash("+name+")", err, sanad.CodeNotFound)
	}
}

// withTail returns h with every byte from n on flipped.
func withTail(h canon.Digest, n int) canon.Digest {
	for i := n; i < len(h); i++ {
		h[i] ^= 0xff
	}
	return h
}

// withHead returns h with its first byte flipped.
func withHead(h canon.Digest) canon.Digest {
	h[0] ^= 0xff
	return h
}

// testTraces: trace ids in order of their first event, whatever order later
// events come in.
func testTraces(t *testing.T, open Open) {
	ctx := t.Context()
	e := newEnv(t, open)
	got, err := e.s.Traces(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("Traces of an empty store: got (%q, %v), want none", got, err)
	}
	l := e.ledger(t, e.s)
	order := []string{ledger.KeysTrace, "zeta", "alpha", "mid", "beta"}
	for i, tr := range []string{"zeta", "alpha", "zeta", "mid", "alpha", "beta", "mid", "zeta"} {
		appendNote(t, ctx, l, tr, fmt.Sprint(i))
	}
	got, err = e.s.Traces(ctx)
	if err != nil || !slices.Equal(got, order) {
		t.Fatalf("Traces: got (%q, %v), want %q", got, err, order)
	}
}

// testMerkleTree: the stored tree is the RFC 6962 tree of the event hashes in
// log order, at every size, whether events arrive one by one, in batches of
// every size, or from concurrent appenders.
func testMerkleTree(t *testing.T, open Open) {
	ctx := t.Context()
	e := newEnv(t, open)
	mustSize(t, ctx, e.s, 0)
	CheckTree(t, ctx, e.s)
	l := e.ledger(t, e.s)
	appendPattern(t, ctx, l, []string{"m1", "m2"}, 9)
	CheckTree(t, ctx, e.s)

	// Batches of sizes 1..8 straight into the store, crossing many subtree
	// boundaries.
	src := e.sealed(t, open, "m-batch", "batch", 36)
	for n, at := 1, 0; at < len(src); n++ {
		end := min(at+n, len(src))
		if _, err := e.s.AppendEvents(ctx, src[at:end]); err != nil {
			t.Fatalf("AppendEvents(batch of %d): %v", end-at, err)
		}
		at = end
	}
	CheckTree(t, ctx, e.s)

	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 10 {
				if _, err := l.Append(ctx, draft(fmt.Sprintf("m-par-%d", g), fmt.Sprint(i))); err != nil {
					t.Errorf("concurrent append: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	CheckTree(t, ctx, e.s)
	mustSize(t, ctx, e.s, e.base+9+36+40)

	// A node outside the tree is an error, not a made-up hash.
	size, _ := e.s.TreeSize(ctx)
	for _, id := range []compact.NodeID{compact.NewNodeID(0, size), compact.NewNodeID(1, size/2+1), compact.NewNodeID(7, 1)} {
		if h, err := e.s.ReadNodes(ctx, []compact.NodeID{id}); err == nil {
			t.Fatalf("ReadNodes(level %d, index %d) of a tree of size %d: got %x, want an error", id.Level, id.Index, size, h)
		}
	}
	verifyLog(t, ctx, l)
}
