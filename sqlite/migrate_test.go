package sqlite_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/sqlite"
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

	db.Close()
	// Put the runs table back as schema version 3 had it.
	downgradeRuns(t, path, 3, `(run_id TEXT PRIMARY KEY, trace TEXT NOT NULL, status TEXT NOT NULL,
		  started BLOB NOT NULL, ended BLOB, ended_at TEXT)`,
		`(run_id, trace, status, started) SELECT run_id, trace, status, x'00'`)

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

// TestMigrateRunsOneTree: a store of schema version 4, whose runs table had
// a rowid, an index of its key and an index by trace, migrates to one tree
// keyed by run id and answers every runs query as before: all runs, a
// trace's runs in start order, the latest root runs, one run.
func TestMigrateRunsOneTree(t *testing.T) {
	ctx := t.Context()
	path := dbPath(t)
	db := openDB(t, path)
	rec := &runs.Recorder{Ledger: openLedger(t, db, openKeys(t))}
	allow := runs.Decision{Allow: true, Reason: "ok"}
	var roots []*runs.Run
	for range 3 {
		root, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindWorkflow, Scope: scope, Agent: "orchestrator", Decision: allow})
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, root)
		for range 2 {
			child, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Parent: root, Scope: scope, Agent: "worker", Decision: allow})
			if err != nil {
				t.Fatal(err)
			}
			if err := child.Complete(ctx, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	type answers struct {
		all, trace, recent []sanad.Run
		one                sanad.Run
	}
	ask := func(db *sqlite.DB) (a answers) {
		var err error
		if a.all, err = db.Runs(ctx, ""); err != nil {
			t.Fatal(err)
		}
		if a.trace, err = db.Runs(ctx, roots[1].Record.Trace); err != nil {
			t.Fatal(err)
		}
		if a.recent, err = db.RecentRuns(ctx, 2); err != nil {
			t.Fatal(err)
		}
		if a.one, err = db.Run(ctx, roots[2].Record.ID); err != nil {
			t.Fatal(err)
		}
		return a
	}
	before := ask(db)
	if len(before.all) != 9 || len(before.trace) != 3 || len(before.recent) != 2 ||
		before.trace[0].ID != roots[1].Record.ID || before.recent[0].ID != roots[2].Record.ID || before.recent[1].ID != roots[1].Record.ID {
		t.Fatalf("runs before the migration: %d all, %d in the trace, %d recent", len(before.all), len(before.trace), len(before.recent))
	}

	db.Close()
	// Put the runs table back as schema version 4 had it.
	downgradeRuns(t, path, 4, `(run_id TEXT PRIMARY KEY, trace TEXT NOT NULL, status TEXT NOT NULL,
		  started_idx INTEGER NOT NULL, ended_idx INTEGER)`,
		`SELECT run_id, trace, status, started_idx, ended_idx`)

	migrated := openDB(t, path)
	if after := ask(migrated); !reflect.DeepEqual(after, before) {
		t.Fatalf("runs after the migration:\n%+v\nwant\n%+v", after, before)
	}
	var indexes int
	if err := rawDB(t, path).QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE tbl_name = 'runs' AND type = 'index'`).Scan(&indexes); err != nil || indexes != 0 {
		t.Fatalf("indexes of runs after the migration: %d, %v", indexes, err)
	}
}

// downgradeRuns replaces the runs table of the store at path with the one
// an older schema version had: columns is its definition, fill the
// INSERT's column list and SELECT from the current runs, in start order. A
// runs_trace index is made, as every older version had one.
func downgradeRuns(t *testing.T, path string, version int, columns, fill string) {
	t.Helper()
	raw := rawDB(t, path)
	defer raw.Close()
	for _, q := range []string{
		`CREATE TABLE runs_old ` + columns,
		`INSERT INTO runs_old ` + fill + ` FROM runs ORDER BY started_idx`,
		`DROP TABLE runs`,
		`ALTER TABLE runs_old RENAME TO runs`,
		`CREATE INDEX runs_trace ON runs (trace)`,
		fmt.Sprintf(`PRAGMA user_version = %d`, version),
	} {
		if _, err := raw.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
