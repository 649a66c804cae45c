package ledger_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tlog"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
)

var allow = runs.Decision{Allow: true, Reason: "allowed by the test lane"}

// checkChain fails unless events are seq 1..n of trace, each linked to the
// one before by prev.
func checkChain(tb testing.TB, trace string, events []*ledger.Event) {
	tb.Helper()
	var prev canon.Digest
	for i, ev := range events {
		if ev.Trace != trace {
			tb.Fatalf("event %d: got trace %q, want %q", i, ev.Trace, trace)
		}
		if ev.Seq != uint64(i+1) {
			tb.Fatalf("event %d: got seq %d, want %d", i, ev.Seq, i+1)
		}
		if ev.Prev != prev {
			tb.Fatalf("seq %d: got prev %s, want %s (hash of seq %d)", ev.Seq, ev.Prev, prev, i)
		}
		prev = ev.Hash
	}
}

func canonicals(events []*ledger.Event) [][]byte {
	out := make([][]byte, len(events))
	for i, ev := range events {
		out[i] = append([]byte(nil), ev.Canonical()...)
	}
	return out
}

// TestP03_AppendOnlyChain: events are append-only, totally ordered per trace,
// and each references its predecessor's hash (protocol P03) — across a
// restart too, where a new ledger picks the chain up from the store and the
// events already written stay byte for byte as they were.
func TestP03_AppendOnlyChain(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	h := ledgertest.Open(t, dir)
	trace := ledgertest.Record(t, h, 60)
	before, err := h.Ledger.Events(ctx, trace)
	if err != nil {
		t.Fatalf("Events: got error %v, want nil", err)
	}
	checkChain(t, trace, before)
	if before[0].Prev != (canon.Digest{}) {
		t.Errorf("seq 1: got prev %s, want the zero digest", before[0].Prev)
	}
	var leaves []uint64
	err = h.Ledger.Store().ReadTrace(ctx, trace, 0, func(s ledger.Stored) error { leaves = append(leaves, s.Index); return nil })
	if err != nil {
		t.Fatalf("ReadTrace: got error %v, want nil", err)
	}
	// One trace appended alone: its events are consecutive leaves, but for
	// the key registrations of agents signing for the first time.
	keys := map[uint64]bool{}
	err = h.Ledger.Store().ReadTrace(ctx, ledger.KeysTrace, 0, func(s ledger.Stored) error { keys[s.Index] = true; return nil })
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(leaves); i++ {
		for gap := leaves[i-1] + 1; gap < leaves[i]; gap++ {
			if !keys[gap] {
				t.Fatalf("seq %d: got leaf index %d after %d, and leaf %d between them is not a key registration", i+1, leaves[i], leaves[i-1], gap)
			}
		}
	}
	ledgertest.Close(t, h)

	// A new ledger over the same store continues the chain.
	h2 := ledgertest.Open(t, dir)
	var rootRec sanad.Run
	if err := json.Unmarshal(before[0].Body, &struct{ Run *sanad.Run }{&rootRec}); err != nil {
		t.Fatalf("root run.started body: %v", err)
	}
	// The root run has ended; events without a run are not bound by the run
	// lifecycle, so the trace can still grow.
	for i := range 5 {
		ev, err := h2.Ledger.Append(ctx, ledger.Draft{Trace: trace, Type: bundle.TypeExportAuthorized, Scope: rootRec.Scope,
			Body: map[string]any{"trace": trace, "reason": fmt.Sprintf("audit copy %d", i)}})
		if err != nil {
			t.Fatalf("Append after reopen: got error %v, want nil", err)
		}
		if want := uint64(len(before) + i + 1); ev.Seq != want {
			t.Fatalf("Append after reopen: got seq %d, want %d", ev.Seq, want)
		}
	}
	after, err := h2.Ledger.Events(ctx, trace)
	if err != nil {
		t.Fatalf("Events after reopen: got error %v, want nil", err)
	}
	checkChain(t, trace, after)
	if got, want := len(after), len(before)+5; got != want {
		t.Fatalf("got %d events, want %d", got, want)
	}
	for i, raw := range canonicals(before) {
		if !bytes.Equal(after[i].Canonical(), raw) {
			t.Fatalf("seq %d changed after later appends:\ngot  %s\nwant %s", i+1, after[i].Canonical(), raw)
		}
	}
	rep, err := h2.Ledger.Verify(ctx, trace)
	if err != nil {
		t.Fatalf("Verify(%s): got error %v, want nil", trace, err)
	}
	if rep.Events != len(after) {
		t.Errorf("Verify: got %d events, want %d", rep.Events, len(after))
	}
}

// TestAppendRefusesBadDrafts: a draft that is malformed, of an undeclared
// type, against its schema or signed by the wrong identity fails with
// INVALID_INPUT, and nothing is written: no event, no trace, no key.
func TestAppendRefusesBadDrafts(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	// An agent-signed type needs a vocabulary of its own.
	agentOnly := ledger.Vocabulary{Types: []ledger.TypeDef{{Name: "claim.issued", Signer: ledger.SignedByAgent,
		Schema: `{"type":"object","required":["claim"],"properties":{"claim":{"type":"string"}}}`}}}
	types, err := ledger.NewTypes(append(home.Vocabularies(), agentOnly)...)
	if err != nil {
		t.Fatalf("NewTypes: %v", err)
	}
	custom, err := ledger.Open(ledger.Config{Store: h.DB, Keys: h.Keys, Types: types, Origin: "test.log/custom"})
	if err != nil {
		t.Fatalf("ledger.Open: %v", err)
	}
	t.Cleanup(func() { custom.Close(context.Background()) })

	scope := ledgertest.Scope
	okBody := map[string]any{"trace": "t1"}
	started := runs.StartedBody{Run: sanad.Run{ID: "t1", RootID: "t1", Trace: "t1", Kind: sanad.KindAgent, Scope: scope,
		Agent: "intake-agent", ContractVersion: sanad.ContractVersion, Status: sanad.StatusRunning, StartedAt: time.Now()}}
	goodRef, err := h.Artifacts.Put(ctx, scope, "t1", "text/plain", []byte("evidence"))
	if err != nil {
		t.Fatalf("Artifacts.Put: %v", err)
	}
	badRef := goodRef
	badRef.ID = "sha256:0000"
	tests := []struct {
		name string
		l    *ledger.Ledger
		d    ledger.Draft
	}{
		{"unknown type", h.Ledger, ledger.Draft{Trace: "t1", Type: "tool.teleported", Scope: scope, Body: okBody}},
		{"type not a name", h.Ledger, ledger.Draft{Trace: "t1", Type: "", Scope: scope, Body: okBody}},
		{"body against schema", h.Ledger, ledger.Draft{Trace: "t1", Type: runs.TypeStarted, Run: "t1", Root: "t1", Scope: scope, Body: map[string]any{"run": map[string]any{"run_id": "t1"}}}},
		{"body unknown field", h.Ledger, ledger.Draft{Trace: "t1", Type: bundle.TypeExportAuthorized, Scope: scope, Body: map[string]any{"trace": "t1", "extra": true}}},
		{"body not an object", h.Ledger, ledger.Draft{Trace: "t1", Type: bundle.TypeExportAuthorized, Scope: scope, Body: []string{"t1"}}},
		{"body not JSON", h.Ledger, ledger.Draft{Trace: "t1", Type: bundle.TypeExportAuthorized, Scope: scope, Body: map[string]any{"trace": "t1", "events": math.Inf(1)}}},
		{"body raw JSON malformed", h.Ledger, ledger.Draft{Trace: "t1", Type: bundle.TypeExportAuthorized, Scope: scope, Body: json.RawMessage(`{"trace":`)}},
		{"runtime-only type signed by an agent", h.Ledger, ledger.Draft{Trace: "t1", Type: runs.TypeStarted, Run: "t1", Root: "t1", Agent: "intake-agent", Scope: scope, Body: started}},
		{"runtime-only type signed by an agent (authz)", h.Ledger, ledger.Draft{Trace: "t1", Type: runs.TypeAuthz, Run: "t1", Agent: "mallory", Scope: scope, Body: runs.Decision{Allow: true, Reason: "self-approved", Principal: runs.Principal{Agent: "mallory"}, Action: "run:agent"}}},
		{"agent-only type signed by the runtime", custom, ledger.Draft{Trace: "t1", Type: "claim.issued", Scope: scope, Body: map[string]any{"claim": "the contract was breached"}}},
		{"signed by the log key", h.Ledger, ledger.Draft{Trace: "t1", Type: runs.TypeCompleted, Run: "t1", Agent: ledger.DefaultLogIdentity, Scope: scope, Body: runs.EndedBody{Status: sanad.StatusCompleted, Outcome: "success"}}},
		{"agent not a key name", h.Ledger, ledger.Draft{Trace: "t1", Type: runs.TypeCompleted, Run: "t1", Agent: "Mallory Root", Scope: scope, Body: runs.EndedBody{Status: sanad.StatusCompleted, Outcome: "success"}}},
		{"empty trace id", h.Ledger, ledger.Draft{Trace: "", Type: bundle.TypeExportAuthorized, Scope: scope, Body: okBody}},
		{"trace id with a space", h.Ledger, ledger.Draft{Trace: "t 1", Type: bundle.TypeExportAuthorized, Scope: scope, Body: okBody}},
		{"trace id with a path", h.Ledger, ledger.Draft{Trace: "../t1", Type: bundle.TypeExportAuthorized, Scope: scope, Body: okBody}},
		{"trace id too long", h.Ledger, ledger.Draft{Trace: string(bytes.Repeat([]byte("t"), 129)), Type: bundle.TypeExportAuthorized, Scope: scope, Body: okBody}},
		{"trace id not ASCII", h.Ledger, ledger.Draft{Trace: "trace\u00e9", Type: bundle.TypeExportAuthorized, Scope: scope, Body: okBody}},
		{"run id invalid", h.Ledger, ledger.Draft{Trace: "t1", Type: bundle.TypeExportAuthorized, Run: "run/1", Scope: scope, Body: okBody}},
		{"parent id invalid", h.Ledger, ledger.Draft{Trace: "t1", Type: bundle.TypeExportAuthorized, Parent: "\x00", Scope: scope, Body: okBody}},
		{"scope without tenant", h.Ledger, ledger.Draft{Trace: "t1", Type: bundle.TypeExportAuthorized, Scope: sanad.Scope{Case: "c"}, Body: okBody}},
		{"artifact ref malformed", h.Ledger, ledger.Draft{Trace: "t1", Type: bundle.TypeExportAuthorized, Scope: scope, Body: okBody, Refs: []sanad.ArtifactRef{goodRef, badRef}}},
	}
	keysBefore := keyFiles(t, h)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sizeBefore, err := h.DB.TreeSize(ctx)
			if err != nil {
				t.Fatalf("TreeSize: %v", err)
			}
			ev, err := tt.l.Append(ctx, tt.d)
			if got := sanad.ErrorCode(err); got != sanad.CodeInvalidInput {
				t.Fatalf("Append: got error %v (code %q), want code %s", err, got, sanad.CodeInvalidInput)
			}
			if ev != nil {
				t.Errorf("Append: got event %s, want nil", ev.Canonical())
			}
			sizeAfter, err := h.DB.TreeSize(ctx)
			if err != nil {
				t.Fatalf("TreeSize: %v", err)
			}
			if sizeAfter != sizeBefore {
				t.Errorf("log size: got %d after a refused append, want %d", sizeAfter, sizeBefore)
			}
			if seq, _, err := h.DB.TraceHead(ctx, tt.d.Trace); err != nil || seq != 0 {
				t.Errorf("TraceHead(%q): got seq %d, error %v; want 0, nil", tt.d.Trace, seq, err)
			}
		})
	}
	if got := keyFiles(t, h); !equalStrings(got, keysBefore) {
		t.Errorf("key files: got %v after refused appends, want %v (no key is created for a refused draft)", got, keysBefore)
	}
	// The refusals left the ledger sound and able to append.
	if _, err := h.Ledger.Append(ctx, ledger.Draft{Trace: "t1", Type: bundle.TypeExportAuthorized, Scope: scope, Body: okBody, Refs: []sanad.ArtifactRef{goodRef}}); err != nil {
		t.Fatalf("valid Append after refusals: got error %v, want nil", err)
	}
	if _, err := h.Ledger.Verify(ctx, ""); err != nil {
		t.Fatalf("Verify after refusals: got error %v, want nil", err)
	}
}

func keyFiles(tb testing.TB, h *home.Home) []string {
	tb.Helper()
	return listDir(tb, h.Keys.Dir())
}

func listDir(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatalf("ReadDir: %v", err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestAppendOrderingRulesRefused: an append that breaks the run lifecycle
// (002 ordering rules as the runs vocabulary states them) is refused with
// INVALID_INPUT before anything is written, and the trace stays appendable
// and verifiable.
func TestAppendOrderingRulesRefused(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	const tr = "trace-order"
	scope := ledgertest.Scope
	startedBody := func(id, parent string) runs.StartedBody {
		return runs.StartedBody{Run: sanad.Run{ID: id, ParentID: parent, RootID: tr, Trace: tr, Kind: sanad.KindAgent, Scope: scope,
			Agent: "intake-agent", ContractVersion: sanad.ContractVersion, Status: sanad.StatusRunning, StartedAt: time.Now()}}
	}
	authz := runs.Decision{Allow: true, Reason: "lane allows", Principal: runs.Principal{Agent: "intake-agent"}, Action: "run:agent"}
	done := runs.EndedBody{Status: sanad.StatusCompleted, Outcome: "success"}
	started := func(run, parent, root string) ledger.Draft {
		return ledger.Draft{Trace: tr, Type: runs.TypeStarted, Run: run, Parent: parent, Root: root, Scope: scope, Body: startedBody(run, parent)}
	}
	ev := func(typ, run, agent string, body any) ledger.Draft {
		return ledger.Draft{Trace: tr, Type: typ, Run: run, Root: tr, Agent: agent, Scope: scope, Body: body}
	}
	steps := []struct {
		name string
		d    ledger.Draft
		ok   bool
	}{
		{"completed before started", ev(runs.TypeCompleted, tr, "intake-agent", done), false},
		{"authz before started", ev(runs.TypeAuthz, tr, "", authz), false},
		{"root run not named after its trace", started("other-root", "", "other-root"), false},
		{"root naming another root", started(tr, "", "elsewhere"), false},
		{"child before its parent", started("child-1", tr, tr), false},
		{"root started", started(tr, "", tr), true},
		{"started twice", started(tr, "", tr), false},
		{"completed before authz", ev(runs.TypeCompleted, tr, "intake-agent", done), false},
		{"root authorized", ev(runs.TypeAuthz, tr, "", authz), true},
		{"child under a run that never started", started("child-1", "ghost", tr), false},
		{"child started", started("child-1", tr, tr), true},
		{"child completed before its authz", ev(runs.TypeCompleted, "child-1", "intake-agent", done), false},
		{"child authorized", ev(runs.TypeAuthz, "child-1", "", authz), true},
		{"root completed with a child open", ev(runs.TypeCompleted, tr, "intake-agent", done), false},
		{"child completed", ev(runs.TypeCompleted, "child-1", "intake-agent", done), true},
		{"child completed twice", ev(runs.TypeCompleted, "child-1", "intake-agent", done), false},
		{"child event after its end", ev(runs.TypeAuthz, "child-1", "", authz), false},
		{"child under an ended parent", started("child-2", "child-1", tr), false},
		{"root completed", ev(runs.TypeCompleted, tr, "intake-agent", done), true},
		{"root failed after completing", ev(runs.TypeFailed, tr, "", runs.EndedBody{Status: sanad.StatusFailed, Outcome: "failure"}), false},
		{"child under an ended root", started("child-3", tr, tr), false},
	}
	accepted := 0
	for _, s := range steps {
		sizeBefore, err := workSize(t, h), error(nil)
		if err != nil {
			t.Fatalf("TreeSize: %v", err)
		}
		_, err = h.Ledger.Append(ctx, s.d)
		if s.ok {
			if err != nil {
				t.Fatalf("%s: got error %v, want nil", s.name, err)
			}
			accepted++
			continue
		}
		if got := sanad.ErrorCode(err); got != sanad.CodeInvalidInput {
			t.Fatalf("%s: got error %v (code %q), want code %s", s.name, err, got, sanad.CodeInvalidInput)
		}
		if sizeAfter := workSize(t, h); sizeAfter != sizeBefore {
			t.Fatalf("%s: log size got %d after a refused append, want %d", s.name, sizeAfter, sizeBefore)
		}
	}
	events, err := h.Ledger.Events(ctx, tr)
	if err != nil {
		t.Fatalf("Events: got error %v, want nil", err)
	}
	if len(events) != accepted {
		t.Fatalf("got %d events, want the %d accepted", len(events), accepted)
	}
	checkChain(t, tr, events)
	if _, err := h.Ledger.Verify(ctx, tr); err != nil {
		t.Fatalf("Verify: got error %v, want nil", err)
	}
}

// TestConcurrentAppends: many goroutines appending at once, to one trace and
// to many, leave every chain linear and the log verifiable, and every
// acknowledged event is in the store.
func TestConcurrentAppends(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	const (
		traces   = 48 // distinct traces, one goroutine each
		children = 24 // goroutines sharing one trace
		extra    = 3  // events each distinct-trace writer adds inside its run
	)
	var wg sync.WaitGroup
	errs := make(chan error, traces+children)
	ids := make([]string, traces)
	for i := range traces {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Scope: ledgertest.Scope, Agent: fmt.Sprintf("agent-%d", i%6), Decision: allow})
			if err != nil {
				errs <- err
				return
			}
			ids[i] = run.Record.Trace
			for j := range extra {
				if _, err := run.Append(ctx, bundle.TypeExportAssembled, "", map[string]any{"trace": run.Record.Trace, "events": j}, nil); err != nil {
					errs <- err
					return
				}
			}
			errs <- run.Complete(ctx, nil, map[string]any{"writer": i})
		}()
	}
	root, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindWorkflow, Scope: ledgertest.Scope, Agent: "orchestrator", Decision: allow})
	if err != nil {
		t.Fatalf("Start root: got error %v, want nil", err)
	}
	for i := range children {
		wg.Add(1)
		go func() {
			defer wg.Done()
			child, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Parent: root, Scope: ledgertest.Scope, Agent: fmt.Sprintf("agent-%d", i%6), Decision: allow})
			if err != nil {
				errs <- err
				return
			}
			errs <- child.Complete(ctx, nil, map[string]any{"child": i})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent append: got error %v, want nil", err)
		}
	}
	if err := root.Complete(ctx, nil, nil); err != nil {
		t.Fatalf("Complete root: got error %v, want nil", err)
	}
	for _, id := range ids {
		evs, err := h.Ledger.Events(ctx, id)
		if err != nil {
			t.Fatalf("Events(%s): got error %v, want nil", id, err)
		}
		checkChain(t, id, evs)
		if got, want := len(evs), 3+extra; got != want {
			t.Fatalf("trace %s: got %d events, want %d", id, got, want)
		}
	}
	shared, err := h.Ledger.Events(ctx, root.Record.Trace)
	if err != nil {
		t.Fatalf("Events(shared): got error %v, want nil", err)
	}
	checkChain(t, root.Record.Trace, shared)
	if got, want := len(shared), 3+3*children; got != want {
		t.Fatalf("shared trace: got %d events, want %d", got, want)
	}
	rep, err := h.Ledger.Verify(ctx, "")
	if err != nil {
		t.Fatalf("Verify: got error %v, want nil", err)
	}
	if want := int(keyEvents(t, h)) + traces*(3+extra) + 3 + 3*children; rep.Events != want || rep.Traces != traces+2 || rep.TreeSize != uint64(want) {
		t.Fatalf("Verify: got %d events in %d traces, tree size %d; want %d in %d, %d (with the keys trace)", rep.Events, rep.Traces, rep.TreeSize, want, traces+2, want)
	}
}

// countingStore records the size of every AppendEvents batch. While hold is
// open, the first batch waits inside AppendEvents, as a slow commit would.
type countingStore struct {
	ledger.Store
	hold    chan struct{}
	entered chan struct{}

	mu      sync.Mutex // guards batches
	batches []int
}

func (s *countingStore) AppendEvents(ctx context.Context, events []*ledger.Event) (uint64, error) {
	s.mu.Lock()
	first := len(s.batches) == 0
	s.batches = append(s.batches, len(events))
	s.mu.Unlock()
	if first {
		close(s.entered)
		<-s.hold
	}
	return s.Store.AppendEvents(ctx, events)
}

// TestGroupCommitBatches: appends that arrive while a commit is in progress
// share the next commit (group commit), and every one of them is durable and
// verifiable afterwards.
func TestGroupCommitBatches(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	store := &countingStore{Store: h.DB, hold: make(chan struct{}), entered: make(chan struct{})}
	l, err := ledger.Open(ledger.Config{Store: store, Keys: h.Keys, Types: h.Types, Origin: "test.log/group"})
	if err != nil {
		t.Fatalf("ledger.Open: %v", err)
	}
	defer l.Close(ctx)
	const n = 64
	// Every other append is queued behind the held commit once the open
	// batch holds n-1.
	queuedAll := make(chan struct{})
	ledger.OnQueued(l, func(open int) {
		if open == n-1 {
			close(queuedAll)
		}
	})
	appendTo := func(i int) error {
		tr := fmt.Sprintf("group-%d", i)
		_, err := l.Append(ctx, ledger.Draft{Trace: tr, Type: bundle.TypeExportAuthorized, Scope: ledgertest.Scope, Body: map[string]any{"trace": tr}})
		return err
	}
	errs := make(chan error, n)
	go func() { errs <- appendTo(0) }()
	<-store.entered // the first commit is now held
	for i := 1; i < n; i++ {
		go func() { errs <- appendTo(i) }()
	}
	<-queuedAll
	close(store.hold)
	for range n {
		if err := <-errs; err != nil {
			t.Fatalf("Append: got error %v, want nil", err)
		}
	}
	store.mu.Lock()
	batches := append([]int(nil), store.batches...)
	store.mu.Unlock()
	total, largest := 0, 0
	for _, b := range batches {
		total += b
		largest = max(largest, b)
	}
	if total != n && total != n+1 { // the agent's key may be registered in its own commit
		t.Errorf("events committed: got %d, want %d (batches %v)", total, n, batches)
	}
	if largest < 2 {
		t.Errorf("largest commit batch: got %d event(s) in batches %v, want appends queued behind a slow commit to share one commit", largest, batches)
	}
	t.Logf("%d appends in %d commits: %v", n, len(batches), batches)
	rep, err := h.Ledger.Verify(ctx, "")
	if err != nil {
		t.Fatalf("Verify: got error %v, want nil", err)
	}
	if k := int(keyEvents(t, h)); rep.Events != n+k || rep.Traces != n+1 {
		t.Fatalf("Verify: got %d events in %d traces, want %d in %d (with %d key registrations)", rep.Events, rep.Traces, n+k, n+1, k)
	}
}

// TestReplay: Replay yields a trace's events in seq order with exactly the
// bytes Append returned, stops at the first error of its callback, and
// reports an unknown trace as NOT_FOUND.
func TestReplay(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	h := ledgertest.Open(t, dir)
	root, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindWorkflow, Scope: ledgertest.Scope, Agent: "orchestrator", Decision: allow})
	if err != nil {
		t.Fatalf("Start: got error %v, want nil", err)
	}
	var appended []*ledger.Event
	for i := range 20 {
		ev, err := root.Append(ctx, bundle.TypeExportAssembled, "", map[string]any{"trace": root.Record.Trace, "events": i}, nil)
		if err != nil {
			t.Fatalf("Append %d: got error %v, want nil", i, err)
		}
		appended = append(appended, ev)
	}
	// Another trace interleaved in the log must not show up.
	other := ledgertest.Record(t, h, 10)
	for i := range 5 {
		ev, err := root.Append(ctx, bundle.TypeExportAssembled, "", map[string]any{"trace": root.Record.Trace, "events": 20 + i}, nil)
		if err != nil {
			t.Fatalf("Append: got error %v, want nil", err)
		}
		appended = append(appended, ev)
	}
	check := func(h *home.Home) {
		t.Helper()
		var got []*ledger.Event
		err := h.Ledger.Replay(ctx, root.Record.Trace, func(ev *ledger.Event) error { got = append(got, ev); return nil })
		if err != nil {
			t.Fatalf("Replay: got error %v, want nil", err)
		}
		// run.started and authz.decision come first.
		if len(got) != len(appended)+2 {
			t.Fatalf("Replay: got %d events, want %d", len(got), len(appended)+2)
		}
		checkChain(t, root.Record.Trace, got)
		if got[0].Type != runs.TypeStarted || got[1].Type != runs.TypeAuthz {
			t.Fatalf("Replay: got types %s, %s first, want %s, %s", got[0].Type, got[1].Type, runs.TypeStarted, runs.TypeAuthz)
		}
		for i, want := range appended {
			g := got[i+2]
			if !bytes.Equal(g.Canonical(), want.Canonical()) {
				t.Fatalf("seq %d: got\n%s\nwant (as appended)\n%s", g.Seq, g.Canonical(), want.Canonical())
			}
			var body struct{ Events int }
			if err := json.Unmarshal(g.Body, &body); err != nil || body.Events != i {
				t.Fatalf("seq %d: got body %s, want events %d", g.Seq, g.Body, i)
			}
		}
	}
	check(h)
	ledgertest.Close(t, h)
	h = ledgertest.Open(t, dir) // a new ledger reads the same bytes back
	check(h)
	ledgertest.Close(t, h)

	h = ledgertest.Open(t, ledgertest.CopyLedger(t, dir))
	stop := errors.New("stop here")
	calls := 0
	err = h.Ledger.Replay(ctx, other, func(*ledger.Event) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 3 {
		t.Errorf("Replay with a failing callback: got error %v after %d calls, want %v after 3", err, calls, stop)
	}
	for _, tr := range []string{"no-such-trace", ""} {
		err = h.Ledger.Replay(ctx, tr, func(*ledger.Event) error { return nil })
		if got := sanad.ErrorCode(err); got != sanad.CodeNotFound {
			t.Errorf("Replay(%q): got error %v, want code %s", tr, err, sanad.CodeNotFound)
		}
	}
}

// TestEventsAreJCS: a stored event is RFC 8785 canonical JSON, its hash is
// the SHA-256 of that form without hash and sig, and its signature is plain
// ed25519 over the domain-separated hash: anyone can check an event with a
// JCS library and the published public key, without sanad.
func TestEventsAreJCS(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	trace := ledgertest.Record(t, h, 40)
	pubs, err := h.Ledger.PublicKeys(ctx)
	if err != nil {
		t.Fatalf("PublicKeys: %v", err)
	}
	events, err := h.Ledger.Events(ctx, trace)
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	signers := map[string]bool{}
	for _, ev := range events {
		raw := ev.Canonical()
		if err := canon.Check(raw); err != nil {
			t.Fatalf("seq %d: canon.Check: got %v, want nil: %s", ev.Seq, err, raw)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("seq %d: %v", ev.Seq, err)
		}
		var hashText, sigText string
		json.Unmarshal(m["hash"], &hashText)
		json.Unmarshal(m["sig"], &sigText)
		delete(m, "hash")
		delete(m, "sig")
		pre, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		pre, err = canon.Transform(pre)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(pre)
		if got, want := hashText, "sha256:"+fmt.Sprintf("%x", sum); got != want {
			t.Fatalf("seq %d: got hash %s, want %s (SHA-256 of the JCS form without hash and sig)", ev.Seq, got, want)
		}
		sig, err := base64.StdEncoding.Strict().DecodeString(sigText)
		if err != nil {
			t.Fatalf("seq %d: sig is not base64: %v", ev.Seq, err)
		}
		pub, ok := pubs[ev.Actor.Key]
		if !ok {
			t.Fatalf("seq %d: key %s is not published", ev.Seq, ev.Actor.Key)
		}
		msg := append([]byte("sanad/event/v1\n"), sum[:]...)
		if !ed25519.Verify(ed25519.PublicKey(pub.Public), msg, sig) {
			t.Fatalf("seq %d: ed25519.Verify: got false, want true", ev.Seq)
		}
		if pub.Identity != ev.Actor.Agent {
			t.Fatalf("seq %d: key %s belongs to %q, want %q", ev.Seq, ev.Actor.Key, pub.Identity, ev.Actor.Agent)
		}
		signers[ev.Actor.Agent] = true
	}
	if !signers[ledger.DefaultRuntimeIdentity] || len(signers) < 3 {
		t.Errorf("signers: got %v, want the runtime and at least two agents", signers)
	}
}

// TestProofVerifiesWithMerkle: the inclusion and consistency proofs the
// ledger serves verify with github.com/transparency-dev/merkle alone, against
// the roots of its signed checkpoints; a changed proof does not.
func TestProofVerifiesWithMerkle(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	trace := ledgertest.Record(t, h, 40)
	_, cp1, err := h.Ledger.Checkpoint(ctx)
	if err != nil {
		t.Fatalf("Checkpoint: got error %v, want nil", err)
	}
	ledgertest.Record(t, h, 25)
	_, cp2, err := h.Ledger.Checkpoint(ctx)
	if err != nil {
		t.Fatalf("Checkpoint: got error %v, want nil", err)
	}
	hasher := rfc6962.DefaultHasher
	events, err := h.Ledger.Events(ctx, trace)
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	for _, c := range []tlog.Checkpoint{cp1, cp2} {
		cp := struct {
			size uint64
			root []byte
		}{c.Size, c.Hash}
		for _, ev := range events {
			p, err := h.Ledger.Prove(ctx, ev.Hash, c)
			if err != nil {
				t.Fatalf("Prove(seq %d, size %d): got error %v, want nil", ev.Seq, cp.size, err)
			}
			leaf := hasher.HashLeaf(ev.Hash[:])
			if !bytes.Equal(p.LeafHash, leaf) || p.TreeSize != cp.size || !bytes.Equal(p.RootHash, cp.root) {
				t.Fatalf("Prove(seq %d): got leaf %x size %d root %x, want %x %d %x", ev.Seq, p.LeafHash, p.TreeSize, p.RootHash, leaf, cp.size, cp.root)
			}
			if err := proof.VerifyInclusion(hasher, p.LeafIndex, cp.size, leaf, p.Proof, cp.root); err != nil {
				t.Fatalf("proof.VerifyInclusion(seq %d, size %d): got %v, want nil", ev.Seq, cp.size, err)
			}
			if len(p.Proof) > 0 {
				bad := append([][]byte(nil), p.Proof...)
				bad[0] = append([]byte(nil), bad[0]...)
				bad[0][0] ^= 1
				if proof.VerifyInclusion(hasher, p.LeafIndex, cp.size, leaf, bad, cp.root) == nil {
					t.Fatalf("proof.VerifyInclusion of a changed proof (seq %d): got nil, want an error", ev.Seq)
				}
			}
			if proof.VerifyInclusion(hasher, p.LeafIndex+1, cp.size, leaf, p.Proof, cp.root) == nil {
				t.Fatalf("proof.VerifyInclusion at the wrong index (seq %d): got nil, want an error", ev.Seq)
			}
		}
	}
	cons, err := h.Ledger.ConsistencyProof(ctx, cp1.Size, cp2.Size)
	if err != nil {
		t.Fatalf("ConsistencyProof: got error %v, want nil", err)
	}
	if err := proof.VerifyConsistency(hasher, cp1.Size, cp2.Size, cons, cp1.Hash, cp2.Hash); err != nil {
		t.Fatalf("proof.VerifyConsistency(%d, %d): got %v, want nil", cp1.Size, cp2.Size, err)
	}
	wrong := append([]byte(nil), cp1.Hash...)
	wrong[31] ^= 0x80
	if proof.VerifyConsistency(hasher, cp1.Size, cp2.Size, cons, wrong, cp2.Hash) == nil {
		t.Fatalf("proof.VerifyConsistency with a wrong old root: got nil, want an error")
	}
	// An event the checkpoint does not cover has no proof against it.
	late, err := h.Ledger.Append(ctx, ledger.Draft{Trace: trace, Type: bundle.TypeExportAuthorized, Scope: ledgertest.Scope, Body: map[string]any{"trace": trace}})
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	if _, err := h.Ledger.Prove(ctx, late.Hash, cp2); sanad.ErrorCode(err) != sanad.CodeNotFound {
		t.Fatalf("Prove of an event after the checkpoint: got error %v, want code %s", err, sanad.CodeNotFound)
	}
}

// keyIDs returns the key ids in the keyring of the home in dir, with the
// identity of each.
func keyIDs(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	kr, err := keyring.Open(filepath.Join(dir, "keys"))
	if err != nil {
		tb.Fatalf("keyring.Open: %v", err)
	}
	pubs, err := kr.Public()
	if err != nil {
		tb.Fatalf("Public: %v", err)
	}
	out := make(map[string]string, len(pubs))
	for id, p := range pubs {
		out[id] = p.Identity
	}
	return out
}
