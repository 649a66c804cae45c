package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/sqlite"
	"github.com/sanadhq/sanad/storetest"
)

// TestStore runs the store conformance suite against a real SQLite file.
func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store { return openDB(t, dbPath(t)) })
}

func dbPath(t *testing.T) string { return filepath.Join(t.TempDir(), "sanad.db") }

// openDB opens the SQLite store at path, closed at cleanup.
func openDB(t *testing.T, path string) *sqlite.DB {
	t.Helper()
	return openConfig(t, sqlite.Config{Path: path})
}

func openConfig(t *testing.T, cfg sqlite.Config) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("sqlite.Open(%+v): %v", cfg, err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

func openKeys(t *testing.T) *keyring.Keyring {
	t.Helper()
	keys, err := keyring.Open(t.TempDir())
	if err != nil {
		t.Fatalf("keyring.Open: %v", err)
	}
	return keys
}

// openLedger opens a ledger over s, closed at cleanup (before s, which was
// opened first).
func openLedger(t *testing.T, s ledger.Store, keys *keyring.Keyring) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(ledger.Config{Store: s, Keys: keys, Types: storetest.Types(t), Origin: storetest.Origin})
	if err != nil {
		t.Fatalf("ledger.Open: %v", err)
	}
	t.Cleanup(func() { l.Close(context.Background()) })
	return l
}

var scope = sanad.Scope{Tenant: "sqlite-test", Case: "c1"}

func noteDraft(trace, tag string) ledger.Draft {
	return ledger.Draft{Trace: trace, Type: runs.TypeAuthz, Scope: scope,
		Body: runs.Decision{Allow: true, Reason: tag, Principal: runs.Principal{Agent: "sqlite-test"}, Action: "test:note"}}
}

// appendNotes appends n events to trace, retrying on CONFLICT (another store
// handle took the seq), and returns them.
func appendNotes(t *testing.T, l *ledger.Ledger, trace string, n int) []*ledger.Event {
	t.Helper()
	var out []*ledger.Event
	for i := range n {
		ev, err := appendRetrying(t.Context(), l, noteDraft(trace, fmt.Sprintf("%s #%d", trace, i)))
		if err != nil {
			t.Fatalf("append to %s: %v", trace, err)
		}
		out = append(out, ev)
	}
	return out
}

func appendRetrying(ctx context.Context, l *ledger.Ledger, d ledger.Draft) (*ledger.Event, error) {
	for try := 0; ; try++ {
		ev, err := l.Append(ctx, d)
		if sanad.ErrorCode(err) != sanad.CodeConflict || try == 100 {
			return ev, err
		}
	}
}

func verify(t *testing.T, l *ledger.Ledger) ledger.Report {
	t.Helper()
	rep, err := l.Verify(t.Context(), "")
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return rep
}

func wantCode(t *testing.T, what string, err error, code sanad.Code) {
	t.Helper()
	if got := sanad.ErrorCode(err); got != code {
		t.Fatalf("%s: got error %v (code %q), want code %s", what, err, got, code)
	}
}

// rawDB opens the file with the driver directly, to do what sanad never
// does: tamper with it.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// logBytes returns the events of the log but the key registrations.
func logBytes(t *testing.T, s ledger.Reader) [][]byte {
	t.Helper()
	var out [][]byte
	err := s.ReadLog(t.Context(), 0, func(st ledger.Stored) error {
		if st.Trace != ledger.KeysTrace {
			out = append(out, bytes.Clone(st.Raw))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("ReadLog: %v", err)
	}
	return out
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg     sqlite.Config
		wantErr bool
	}{
		{sqlite.Config{Path: "x.db"}, false},
		{sqlite.Config{Path: "x.db", Synchronous: sqlite.SyncNormal}, false},
		{sqlite.Config{Path: "x.db", Synchronous: sqlite.SyncFull}, false},
		{sqlite.Config{Path: "x.db", Synchronous: "OFF"}, true},
		{sqlite.Config{Path: "x.db", Synchronous: "EXTRA"}, true},
		{sqlite.Config{Path: "x.db", Synchronous: "sometimes"}, true},
		{sqlite.Config{}, true},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if (err != nil) != tt.wantErr {
			t.Errorf("Validate(%+v): got %v, want error %t", tt.cfg, err, tt.wantErr)
		}
	}
}

// TestSynchronous: FULL is accepted and gives a working store; anything but
// NORMAL or FULL is refused with INVALID_INPUT before a file is created.
func TestSynchronous(t *testing.T) {
	path := dbPath(t)
	db := openConfig(t, sqlite.Config{Path: path, Synchronous: sqlite.SyncFull})
	keys := openKeys(t)
	l := openLedger(t, db, keys)
	evs := appendNotes(t, l, "full", 5)
	verify(t, l)
	if got := logBytes(t, db); len(got) != len(evs) {
		t.Fatalf("FULL store holds %d events, want %d", len(got), len(evs))
	}

	bad := filepath.Join(t.TempDir(), "bad.db")
	_, err := sqlite.Open(t.Context(), sqlite.Config{Path: bad, Synchronous: "OFF"})
	wantCode(t, "Open(synchronous OFF)", err, sanad.CodeInvalidInput)
	if msg := err.Error(); !strings.Contains(msg, sqlite.SyncNormal) || !strings.Contains(msg, sqlite.SyncFull) {
		t.Errorf("Open(synchronous OFF): error %q does not name the allowed values", msg)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("Open(synchronous OFF) created %s (stat: %v)", bad, err)
	}
}

// TestReadOnlyOpen: a read-only open of a missing, empty, foreign or damaged
// file fails with a clear error and changes nothing; of a store, it reads and
// refuses every write with INVALID_INPUT.
func TestReadOnlyOpen(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	garbage := []byte(strings.Repeat("this is not a database. ", 100))
	files := map[string][]byte{"garbage.db": garbage, "empty.db": {}}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	foreign := filepath.Join(dir, "foreign.db")
	if _, err := rawDB(t, foreign).Exec("CREATE TABLE notes (body TEXT)"); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		file     string
		readOnly bool
		codes    []sanad.Code
		msg      string
	}{
		{"missing.db", true, []sanad.Code{sanad.CodeNotFound, sanad.CodeInvalidInput}, ""},
		{"empty.db", true, []sanad.Code{sanad.CodeNotFound}, "no sanad ledger"},
		{"foreign.db", true, []sanad.Code{sanad.CodeNotFound}, "no sanad ledger"},
		{"garbage.db", true, []sanad.Code{sanad.CodeIntegrity}, "not a database"},
		{"garbage.db", false, []sanad.Code{sanad.CodeIntegrity}, "not a database"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.file)
		db, err := sqlite.Open(ctx, sqlite.Config{Path: path, ReadOnly: tt.readOnly})
		if err == nil {
			db.Close()
			t.Errorf("Open(%s, read-only %t): got a store, want an error", tt.file, tt.readOnly)
			continue
		}
		if code := sanad.ErrorCode(err); !slices.Contains(tt.codes, code) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Open(%s, read-only %t): got %v (code %s), want code in %v and a message with %q", tt.file, tt.readOnly, err, code, tt.codes, tt.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); !os.IsNotExist(err) {
		t.Errorf("read-only Open of a missing file created it (stat: %v)", err)
	}
	for name, data := range files {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, data) {
			t.Errorf("failed Open changed %s", name)
		}
	}

	// A real store, read-only.
	path := dbPath(t)
	w := openDB(t, path)
	l := openLedger(t, w, openKeys(t))
	evs := appendNotes(t, l, "ro", 4)
	ro := openConfig(t, sqlite.Config{Path: path, ReadOnly: true})
	if got := logBytes(t, ro); len(got) != len(evs) || !bytes.Equal(got[3], evs[3].Canonical()) {
		t.Fatalf("read-only store: got %d events, want %d", len(got), len(evs))
	}
	storetest.CheckTree(t, ctx, ro)
	ref := sanad.ArtifactRef{ID: sanad.ArtifactID(strings.Repeat("0", 64)), SHA256: strings.Repeat("0", 64), MediaType: "text/plain", Scope: scope}
	writes := map[string]func() error{
		"AppendEvents":   func() error { _, err := ro.AppendEvents(ctx, evs[:1]); return err },
		"SaveCheckpoint": func() error { return ro.SaveCheckpoint(ctx, 4, []byte("note")) },
		"PutArtifact":    func() error { return ro.PutArtifact(ctx, ref) },
		"RebuildRuns":    func() error { return ro.RebuildRuns(ctx) },
	}
	for name, write := range writes {
		wantCode(t, "read-only "+name, write(), sanad.CodeInvalidInput)
	}
	if got := logBytes(t, w); len(got) != len(evs) {
		t.Fatalf("after refused writes: %d events, want %d", len(got), len(evs))
	}
	verify(t, l)
}

// TestSchemaNewerThanBinary: a database whose schema version is newer than
// this binary knows is refused with a message that says to upgrade, whether
// opened for writing or for reading, and is left as it was.
func TestSchemaNewerThanBinary(t *testing.T) {
	path := dbPath(t)
	db, err := sqlite.Open(t.Context(), sqlite.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw := rawDB(t, path)
	if _, err := raw.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("read-only=%t", readOnly), func(t *testing.T) {
			db, err := sqlite.Open(t.Context(), sqlite.Config{Path: path, ReadOnly: readOnly})
			if err == nil {
				db.Close()
				t.Fatalf("Open of a schema version 99 database: got a store, want an error")
			}
			if msg := err.Error(); !strings.Contains(msg, "newer") || !strings.Contains(msg, "upgrade") {
				t.Fatalf("Open of a schema version 99 database: got %q, want a message saying it is newer and to upgrade", msg)
			}
			var v int
			if err := rawDB(t, path).QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != 99 {
				t.Fatalf("schema version after the refused open: got (%d, %v), want 99", v, err)
			}
		})
	}
}

// TestAppendsFromAnotherHandleAreNoticed: two handles on one file, as two
// processes would have, append in turn and at once. Each re-reads the tree
// size inside its write transaction, so the Merkle tree stays the tree of
// every event, whichever handle wrote it.
func TestAppendsFromAnotherHandleAreNoticed(t *testing.T) {
	ctx := t.Context()
	path := dbPath(t)
	keys := openKeys(t)
	db1, db2 := openDB(t, path), openDB(t, path)
	l1, l2 := openLedger(t, db1, keys), openLedger(t, db2, keys)
	check := func(step string) {
		t.Helper()
		for i, db := range []*sqlite.DB{db1, db2} {
			t.Run(fmt.Sprintf("%s/db%d", step, i+1), func(t *testing.T) { storetest.CheckTree(t, ctx, db) })
		}
	}
	appendNotes(t, l1, "p1", 5)
	check("first handle")
	appendNotes(t, l2, "p2", 3)
	check("second handle")
	appendNotes(t, l1, "p1", 4) // db1's cached tree is 3 leaves behind
	check("first handle again")
	appendNotes(t, l2, "p1", 2) // and a trace the other handle wrote
	appendNotes(t, l1, "p1", 2)
	check("same trace from both")
	if _, _, err := l1.Checkpoint(ctx); err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	appendNotes(t, l2, "p2", 1)
	if _, _, err := l2.Checkpoint(ctx); err != nil {
		t.Fatalf("Checkpoint through the second handle: %v", err)
	}

	var wg sync.WaitGroup
	for g := range 6 {
		l := []*ledger.Ledger{l1, l2}[g%2]
		wg.Go(func() {
			for i := range 15 {
				tr := fmt.Sprintf("p%d", (g+i)%3+1)
				if _, err := appendRetrying(ctx, l, noteDraft(tr, fmt.Sprintf("g%d #%d", g, i))); err != nil {
					t.Errorf("concurrent append: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	check("concurrent")
	for _, l := range []*ledger.Ledger{l1, l2} {
		if rep := verify(t, l); rep.Events != 2+17+90 || rep.Checkpoints != 2 {
			t.Fatalf("Verify: got %d events, %d checkpoints; want %d (2 key registrations), 2", rep.Events, rep.Checkpoints, 2+17+90)
		}
	}
}

// TestReopen: a closed store opens again with its log, tree and runs intact,
// and appends continue its chains.
func TestReopen(t *testing.T) {
	ctx := t.Context()
	path := dbPath(t)
	keys := openKeys(t)
	db, err := sqlite.Open(ctx, sqlite.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Open(ledger.Config{Store: db, Keys: keys, Types: storetest.Types(t), Origin: storetest.Origin})
	if err != nil {
		t.Fatal(err)
	}
	rec := &runs.Recorder{Ledger: l}
	run, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Scope: scope, Agent: "intake", Decision: runs.Decision{Allow: true, Reason: "ok"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 7 {
		if _, err := l.Append(ctx, noteDraft("r1", fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	before := logBytes(t, db)
	l.Close(context.Background())
	db.Close()

	db = openDB(t, path)
	if got := logBytes(t, db); !reflect.DeepEqual(got, before) {
		t.Fatalf("log after reopen differs: got %d events, want %d", len(got), len(before))
	}
	got, err := db.Run(ctx, run.Record.ID)
	if err != nil || got.Status != sanad.StatusRunning {
		t.Fatalf("Run after reopen: got (%+v, %v), want running", got, err)
	}
	l = openLedger(t, db, keys)
	appendNotes(t, l, "r1", 3)
	appendNotes(t, l, "r2", 2)
	storetest.CheckTree(t, ctx, db)
	if rep := verify(t, l); rep.Events != 2+len(before)+5 {
		t.Fatalf("Verify after reopen: got %d events, want %d (2 key registrations)", rep.Events, 2+len(before)+5)
	}
}

// TestRunsRebuildFromLedger: the runs table is a projection. Emptied or
// partly deleted behind sanad's back, it comes back exactly from the ledger.
func TestRunsRebuildFromLedger(t *testing.T) {
	ctx := t.Context()
	path := dbPath(t)
	db := openDB(t, path)
	l := openLedger(t, db, openKeys(t))
	rec := &runs.Recorder{Ledger: l}
	for i := range 12 {
		root, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindWorkflow, Scope: scope, Agent: "orchestrator",
			Request: map[string]any{"i": i}, Decision: runs.Decision{Allow: true, Reason: "ok"}})
		if err != nil {
			t.Fatal(err)
		}
		child, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindDBWrite, Parent: root, Scope: scope, Agent: "writer",
			Decision: runs.Decision{Allow: i%3 != 0, Reason: "lane"}})
		switch {
		case i%3 == 0:
			wantCode(t, "denied child", err, sanad.CodePolicyDenied)
		case err != nil:
			t.Fatal(err)
		case i%3 == 1:
			err = child.Fail(ctx, sanad.Errorf(sanad.CodeDependencyDown, "db", "down"))
		default:
			err = child.Complete(ctx, nil, map[string]any{"rows": i})
		}
		if err != nil && i%3 != 0 {
			t.Fatal(err)
		}
		if i%4 != 0 {
			if err := root.Complete(ctx, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	want, err := db.Runs(ctx, "")
	if err != nil || len(want) != 24 {
		t.Fatalf("Runs: got (%d runs, %v), want 24", len(want), err)
	}
	raw := rawDB(t, path)
	for _, tamper := range []string{"DELETE FROM runs", "DELETE FROM runs WHERE started_idx % 3 = 0"} {
		if _, err := raw.Exec(tamper); err != nil {
			t.Fatalf("%s: %v", tamper, err)
		}
		if got, _ := db.Runs(ctx, ""); len(got) >= len(want) {
			t.Fatalf("after %s: still %d runs", tamper, len(got))
		}
		if err := db.RebuildRuns(ctx); err != nil {
			t.Fatalf("RebuildRuns: %v", err)
		}
		got, err := db.Runs(ctx, "")
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("Runs after %s and RebuildRuns: got (%d runs, %v), want the %d before", tamper, len(got), err, len(want))
		}
	}
}

// TestPathWithURICharacters: the store lives at exactly the path given, even
// when the path holds characters that mean something in a file: URI.
func TestPathWithURICharacters(t *testing.T) {
	// Subtest names stay plain: t.TempDir keeps some of these characters, and
	// a wrongly placed file must land inside the test's folder.
	for test, name := range map[string]string{
		"plain": "plain", "space": "with space", "hash": "hash#tag", "question": "what?",
		"percent": "100%", "escape": "percent%41",
	} {
		t.Run(test, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "sanad.db")
			db, err := sqlite.Open(t.Context(), sqlite.Config{Path: path})
			if err != nil {
				t.Fatalf("Open(%s): %v", path, err)
			}
			l, err := ledger.Open(ledger.Config{Store: db, Keys: openKeys(t), Types: storetest.Types(t), Origin: storetest.Origin})
			if err != nil {
				t.Fatal(err)
			}
			_, err = l.Append(t.Context(), noteDraft("t", "x"))
			l.Close(context.Background())
			db.Close()
			if err != nil {
				t.Fatalf("append: %v", err)
			}
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("the database is not at %s: %v", path, err)
			}
			entries, _ := os.ReadDir(parent)
			for _, e := range entries {
				if e.Name() != name {
					t.Errorf("Open(%s) created %s beside its folder", path, filepath.Join(parent, e.Name()))
				}
			}
			ro := openConfig(t, sqlite.Config{Path: path, ReadOnly: true})
			if got := logBytes(t, ro); len(got) != 1 {
				t.Fatalf("reopened read-only: got %d events, want 1", len(got))
			}
		})
	}
}
