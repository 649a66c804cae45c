package sqlite_test

import (
	"slices"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/runs"
)

// TestRecentRuns: only root runs, newest first, cut at the limit; a child
// run never appears, whatever its status.
func TestRecentRuns(t *testing.T) {
	ctx := t.Context()
	db := openDB(t, dbPath(t))
	rec := &runs.Recorder{Ledger: openLedger(t, db, openKeys(t))}
	allow := runs.Decision{Allow: true, Reason: "ok"}
	var roots []string
	for i := range 5 {
		root, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindWorkflow, Scope: scope, Agent: "orchestrator",
			Request: map[string]any{"i": i}, Decision: allow})
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, root.Record.ID)
		child, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindToolGateway, Parent: root, Scope: scope, Agent: "worker", Decision: allow})
		if err != nil {
			t.Fatal(err)
		}
		if err := child.Complete(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if err := root.Complete(ctx, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	newest := slices.Clone(roots)
	slices.Reverse(newest)
	for _, tc := range []struct {
		limit int
		want  []string
	}{
		{0, newest},
		{-1, newest},
		{3, newest[:3]},
		{1, newest[:1]},
		{10, newest},
	} {
		got, err := db.RecentRuns(ctx, tc.limit)
		if err != nil {
			t.Fatalf("RecentRuns(%d): %v", tc.limit, err)
		}
		ids := make([]string, len(got))
		for i, r := range got {
			ids[i] = r.ID
			if r.ID != r.Trace || r.ParentID != "" {
				t.Errorf("RecentRuns(%d): run %s (trace %s, parent %q) is not a root run", tc.limit, r.ID, r.Trace, r.ParentID)
			}
		}
		if !slices.Equal(ids, tc.want) {
			t.Errorf("RecentRuns(%d): got %v, want %v", tc.limit, ids, tc.want)
		}
	}
	got, err := db.RecentRuns(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range got {
		want := sanad.StatusRunning
		if (len(roots)-1-i)%2 == 0 {
			want = sanad.StatusCompleted
		}
		if r.Status != want {
			t.Errorf("run %s: got status %s, want %s", r.ID, r.Status, want)
		}
	}
}
