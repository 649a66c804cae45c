package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
)

// recorder returns a run recorder over l with predictable ids and a clock
// that ticks a millisecond per start, so runs have a defined order.
func recorder(l *ledger.Ledger) *runs.Recorder {
	var n atomic.Int64
	var mu sync.Mutex
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	return &runs.Recorder{
		Ledger: l,
		NewID:  func() string { return fmt.Sprintf("run-%05d", n.Add(1)) },
		Now: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			now = now.Add(time.Millisecond)
			return now
		},
	}
}

var testPolicies = map[string]sanad.PolicyVersion{
	"lanes": {Version: "3", SHA256: strings.Repeat("a1", 32)},
	"roles": {Version: "7", SHA256: strings.Repeat("b2", 32)},
}

func allow(reason string) runs.Decision { return runs.Decision{Allow: true, Reason: reason} }

// normalize returns r as a store returns it: through its JSON form, which
// drops monotonic clock readings and time zone pointers.
func normalize(t testing.TB, r sanad.Run) sanad.Run {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("encode run: %v", err)
	}
	var out sanad.Run
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("decode run: %v", err)
	}
	return out
}

func wantRun(t testing.TB, s Store, want sanad.Run) {
	t.Helper()
	got, err := s.Run(t.Context(), want.ID)
	if err != nil {
		t.Fatalf("Run(%s): %v", want.ID, err)
	}
	if want = normalize(t, want); !reflect.DeepEqual(got, want) {
		t.Fatalf("Run(%s):\n got %+v\nwant %+v", want.ID, got, want)
	}
}

func wantRuns(t testing.TB, s Store, trace string, want []sanad.Run) {
	t.Helper()
	got, err := s.Runs(t.Context(), trace)
	if err != nil {
		t.Fatalf("Runs(%q): %v", trace, err)
	}
	norm := make([]sanad.Run, len(want))
	for i, r := range want {
		norm[i] = normalize(t, r)
	}
	if len(got) != len(norm) {
		t.Fatalf("Runs(%q): got %d runs %v, want %d %v", trace, len(got), runIDs(got), len(norm), runIDs(norm))
	}
	for i := range norm {
		if !reflect.DeepEqual(got[i], norm[i]) {
			t.Fatalf("Runs(%q)[%d]:\n got %+v\nwant %+v", trace, i, got[i], norm[i])
		}
	}
}

func runIDs(rs []sanad.Run) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// testRunsProjection: after each lifecycle event the projected run is the
// record the recorder holds: running after start, then completed with
// outputs, response hash and end time, failed with its bounded error, denied
// with POLICY_DENIED, or cancelled.
func testRunsProjection(t *testing.T, open Open) {
	ctx := t.Context()
	e := newEnv(t, open)
	rec := recorder(e.ledger(t, e.s))
	_, err := e.s.Run(ctx, "no-such-run")
	wantCode(t, "Run(no-such-run)", err, sanad.CodeNotFound)
	if got, err := e.s.Runs(ctx, ""); err != nil || len(got) != 0 {
		t.Fatalf("Runs of an empty store: got (%v, %v), want none", runIDs(got), err)
	}

	input := artifactRef("the brief", "text/plain", testScope, "")
	root, err := rec.Start(ctx, runs.Spec{
		Kind: sanad.KindWorkflow, Scope: testScope, Agent: "orchestrator", Role: "orchestrator",
		CorrelationID: "corr-1", PolicyVersions: testPolicies, TaxonomyVersions: map[string]string{"coa": "2"},
		Inputs: []sanad.ArtifactRef{input}, Request: map[string]any{"question": "what happened?"},
		Decision: allow("the workflow lane allows it"),
	})
	if err != nil {
		t.Fatalf("Start(root): %v", err)
	}
	if root.Record.Status != sanad.StatusRunning || root.Record.ContractVersion != sanad.ContractVersion {
		t.Fatalf("started run: got status %q contract %q, want running %s", root.Record.Status, root.Record.ContractVersion, sanad.ContractVersion)
	}
	wantRun(t, e.s, root.Record)

	start := func(kind sanad.RunKind, agent string, d runs.Decision) *runs.Run {
		t.Helper()
		r, err := rec.Start(ctx, runs.Spec{Kind: kind, Parent: root, Scope: testScope, Agent: agent, Decision: d})
		if err != nil {
			t.Fatalf("Start(%s): %v", kind, err)
		}
		wantRun(t, e.s, r.Record)
		return r
	}

	done := start(sanad.KindToolGateway, "gateway", allow("tool allowed"))
	output := artifactRef("the transcript", "text/plain", testScope, done.Record.ID)
	if err := done.Complete(ctx, []sanad.ArtifactRef{output}, map[string]any{"words": 812}); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if r := done.Record; r.Status != sanad.StatusCompleted || len(r.Outputs) != 1 || r.ResponseHash == "" || r.EndedAt.IsZero() {
		t.Fatalf("completed run: got %+v, want status completed with an output, a response hash and an end time", r)
	}
	wantRun(t, e.s, done.Record)

	failed := start(sanad.KindDBWrite, "writer", allow("write lane allows it"))
	if err := failed.Fail(ctx, sanad.Errorf(sanad.CodeDependencyDown, "db.write", "the case database is down")); err != nil {
		t.Fatalf("Fail: %v", err)
	}
	wantErr := &sanad.RunError{Code: sanad.CodeDependencyDown, Message: "the case database is down", Retryable: true}
	if r := failed.Record; r.Status != sanad.StatusFailed || !reflect.DeepEqual(r.Error, wantErr) || r.EndedAt.IsZero() {
		t.Fatalf("failed run: got status %q error %+v, want failed %+v", r.Status, r.Error, wantErr)
	}
	wantRun(t, e.s, failed.Record)

	cancelled := start(sanad.KindModelCall, "model", allow("model allowed"))
	if err := cancelled.Cancel(ctx, "operator stopped it"); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	wantRun(t, e.s, cancelled.Record)

	denied, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindExport, Parent: root, Scope: testScope, Agent: "exporter",
		Decision: runs.Decision{Reason: "no export lane for this case"}})
	wantCode(t, "Start(denied)", err, sanad.CodePolicyDenied)
	if r := denied.Record; r.Status != sanad.StatusDenied || r.Error == nil || r.Error.Code != sanad.CodePolicyDenied {
		t.Fatalf("denied run: got status %q error %+v, want denied with POLICY_DENIED", r.Status, r.Error)
	}
	wantRun(t, e.s, denied.Record)

	// Another trace, left running.
	other, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Scope: testScope, Agent: "intake", Decision: allow("ok")})
	if err != nil {
		t.Fatalf("Start(other root): %v", err)
	}

	wantRun(t, e.s, root.Record) // children ending does not touch the parent
	if err := root.Complete(ctx, nil, nil); err != nil {
		t.Fatalf("Complete(root): %v", err)
	}
	wantRun(t, e.s, root.Record)

	tree := []sanad.Run{root.Record, done.Record, failed.Record, cancelled.Record, denied.Record}
	wantRuns(t, e.s, root.Record.Trace, tree)
	wantRuns(t, e.s, other.Record.Trace, []sanad.Run{other.Record})
	wantRuns(t, e.s, "", append(tree, other.Record))
	wantRuns(t, e.s, "no-such-trace", nil)
}

// runPlan records one root run of a mixed tree: its children end in every
// way, and some runs are left open, as after a crash.
func runPlan(ctx context.Context, rec *runs.Recorder, i int) error {
	scope := sanad.Scope{Tenant: "storetest", Case: fmt.Sprintf("case-%d", i%3)}
	root, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindWorkflow, Scope: scope, Agent: "orchestrator",
		PolicyVersions: testPolicies, Request: map[string]any{"n": i}, Decision: allow("ok")})
	if err != nil {
		return err
	}
	for c := range i % 5 {
		d := allow("ok")
		if c == 2 {
			d = runs.Decision{Reason: "denied by the lane"}
		}
		child, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindToolGateway, Parent: root, Scope: scope, Agent: "gateway", Decision: d})
		switch {
		case c == 2 && sanad.ErrorCode(err) == sanad.CodePolicyDenied:
			continue
		case err != nil:
			return err
		}
		switch c {
		case 0:
			ref := artifactRef(fmt.Sprintf("output %d", i), "text/plain", scope, child.Record.ID)
			err = child.Complete(ctx, []sanad.ArtifactRef{ref}, map[string]any{"n": i})
		case 1:
			err = child.Fail(ctx, sanad.Errorf(sanad.CodeToolFailed, "tool", "tool %d failed", i))
		case 3:
			if i%8 == 7 {
				return nil // child and root left running
			}
			err = child.Cancel(ctx, "enough")
		}
		if err != nil {
			return err
		}
	}
	switch i % 5 {
	case 0:
		return nil // root left running
	case 1:
		return root.Fail(ctx, sanad.Errorf(sanad.CodeTimeout, "workflow", "took too long"))
	}
	return root.Complete(ctx, nil, map[string]any{"done": i})
}

// project computes the runs projection straight from the log, independently
// of the store: run.started gives the record, a terminal event its status,
// outputs, response hash, error and end time. Runs come in the order of their
// run.started events in the log.
func project(t testing.TB, s Store) []sanad.Run {
	t.Helper()
	var order []string
	byID := map[string]*sanad.Run{}
	for _, st := range readLog(t, t.Context(), s, 0) {
		ev := decode(t, st)
		switch ev.Type {
		case runs.TypeStarted:
			var b runs.StartedBody
			if err := json.Unmarshal(ev.Body, &b); err != nil {
				t.Fatalf("event %d: %s body: %v", st.Index, ev.Type, err)
			}
			order = append(order, ev.Run)
			byID[ev.Run] = &b.Run
		case runs.TypeCompleted, runs.TypeFailed, runs.TypeDenied, runs.TypeCancelled:
			var b runs.EndedBody
			if err := json.Unmarshal(ev.Body, &b); err != nil {
				t.Fatalf("event %d: %s body: %v", st.Index, ev.Type, err)
			}
			r := byID[ev.Run]
			if r == nil {
				t.Fatalf("event %d: %s of run %s, which never started", st.Index, ev.Type, ev.Run)
			}
			r.Status, r.Outputs, r.ResponseHash, r.Error, r.EndedAt = b.Status, b.Outputs, b.ResponseHash, b.Error, ev.Time
		}
	}
	out := make([]sanad.Run, len(order))
	for i, id := range order {
		out[i] = *byID[id]
	}
	return out
}

// testRunsRebuild: the runs table is a projection of the ledger. After many
// runs recorded concurrently, it equals the projection computed from the
// log; dropping and rebuilding it gives back exactly the same table, which
// appends then keep up to date.
func testRunsRebuild(t *testing.T, open Open) {
	ctx := t.Context()
	e := newEnv(t, open)
	if err := e.s.RebuildRuns(ctx); err != nil {
		t.Fatalf("RebuildRuns of an empty store: %v", err)
	}
	rec := recorder(e.ledger(t, e.s))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < 40; i += 4 {
				if err := runPlan(ctx, rec, i); err != nil {
					t.Errorf("run plan %d: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	want := project(t, e.s)
	if len(want) < 80 {
		t.Fatalf("projection from the log has %d runs, want at least 80", len(want))
	}
	before, err := e.s.Runs(ctx, "")
	if err != nil {
		t.Fatalf("Runs: %v", err)
	}
	wantRuns(t, e.s, "", want)
	statuses := map[sanad.RunStatus]int{}
	for _, r := range before {
		statuses[r.Status]++
	}
	for _, st := range []sanad.RunStatus{sanad.StatusRunning, sanad.StatusCompleted, sanad.StatusFailed, sanad.StatusDenied, sanad.StatusCancelled} {
		if statuses[st] == 0 {
			t.Fatalf("runs by status %v: want some %s", statuses, st)
		}
	}

	if err := e.s.RebuildRuns(ctx); err != nil {
		t.Fatalf("RebuildRuns: %v", err)
	}
	after, err := e.s.Runs(ctx, "")
	if err != nil {
		t.Fatalf("Runs after rebuild: %v", err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("Runs after rebuild differ from before:\n got %v\nwant %v", runIDs(after), runIDs(before))
	}
	traces := map[string][]sanad.Run{}
	for _, r := range want {
		traces[r.Trace] = append(traces[r.Trace], r)
		wantRun(t, e.s, r)
	}
	for tr, rs := range traces {
		wantRuns(t, e.s, tr, rs)
	}

	// Appends keep the rebuilt projection current, and rebuilding is
	// idempotent.
	if err := runPlan(ctx, rec, 41); err != nil {
		t.Fatalf("run plan after rebuild: %v", err)
	}
	want = project(t, e.s)
	wantRuns(t, e.s, "", want)
	for range 2 {
		if err := e.s.RebuildRuns(ctx); err != nil {
			t.Fatalf("RebuildRuns: %v", err)
		}
		wantRuns(t, e.s, "", want)
	}
	verifyLog(t, ctx, rec.Ledger)
}
