package sqlite_test

import (
	"reflect"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/runs"
)

// TestMigrateRunsByIndex: a store of schema version 3, whose runs table held
// copies of the run bodies, migrates to a table of event indexes and reads
// the same run records (running, completed, failed and denied runs).
func TestMigrateRunsByIndex(t *testing.T) {
	ctx := t.Context()
	path := dbPath(t)
	db := openDB(t, path)
	rec := &runs.Recorder{Ledger: openLedger(t, db, openKeys(t))}
	allow := runs.Decision{Allow: true, Reason: "ok"}
	root, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindWorkflow, Scope: scope, Agent: "orchestrator", Decision: allow})
	if err != nil {
		t.Fatal(err)
	}
	done, _ := rec.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Parent: root, Scope: scope, Agent: "worker", Decision: allow})
	if err := done.Complete(ctx, nil, map[string]any{"ok": true}); err != nil {
		t.Fatal(err)
	}
	failed, _ := rec.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Parent: root, Scope: scope, Agent: "worker", Decision: allow})
	if err := failed.Fail(ctx, sanad.Errorf(sanad.CodeToolFailed, "test", "it broke")); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Parent: root, Scope: scope, Agent: "worker",
		Decision: runs.Decision{Allow: false, Reason: "not this one"}}); sanad.ErrorCode(err) != sanad.CodePolicyDenied {
		t.Fatalf("denied start: %v", err)
	}
	before, err := db.Runs(ctx, "")
	if err != nil || len(before) != 4 {
		t.Fatalf("runs before: %d, %v", len(before), err)
	}

	// Put the runs table back as schema version 3 had it.
	raw := rawDB(t, path)
	for _, q := range []string{
		`CREATE TABLE runs_v3 (run_id TEXT PRIMARY KEY, trace TEXT NOT NULL, status TEXT NOT NULL,
		  started BLOB NOT NULL, ended BLOB, ended_at TEXT)`,
		`INSERT INTO runs_v3 (run_id, trace, status, started) SELECT run_id, trace, status, x'00' FROM runs ORDER BY rowid`,
		`DROP TABLE runs`,
		`ALTER TABLE runs_v3 RENAME TO runs`,
		`CREATE INDEX runs_trace ON runs (trace)`,
		`PRAGMA user_version = 3`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()
	db.Close()

	migrated := openDB(t, path)
	after, err := migrated.Runs(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("runs after the migration:\n%+v\nwant\n%+v", after, before)
	}
	statuses := map[sanad.RunStatus]int{}
	for _, r := range after {
		statuses[r.Status]++
	}
	if statuses[sanad.StatusRunning] != 1 || statuses[sanad.StatusCompleted] != 1 || statuses[sanad.StatusFailed] != 1 || statuses[sanad.StatusDenied] != 1 {
		t.Fatalf("statuses after the migration: %v", statuses)
	}
}
