package ledger_test

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/runs"
)

// recordTraces writes n traces of about size events each to a new home and
// closes it, returning its folder and the traces.
func recordTraces(t *testing.T, n, size int) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	h := ledgertest.Open(t, dir)
	var traces []string
	for range n {
		traces = append(traces, ledgertest.Record(t, h, size))
	}
	ledgertest.Close(t, h)
	return dir, traces
}

// verify opens the home in dir and verifies trace ("" for the whole log).
func verify(t *testing.T, dir, trace string) error {
	t.Helper()
	h := ledgertest.Open(t, dir)
	defer ledgertest.Close(t, h)
	_, err := h.Ledger.Verify(context.Background(), trace)
	return err
}

// Finding 1: a trace's tail hidden by changing its rows' seq column, which
// the events' signatures do not cover, is found by the whole-log and the
// per-trace verification alike.
func TestIntegrity1_HiddenTailThroughIndexColumns(t *testing.T) {
	dir, traces := recordTraces(t, 2, 30)
	ledgertest.Tamper(t, dir, func(db *sql.DB) error {
		_, err := db.Exec("UPDATE events SET seq = -seq WHERE trace = ? AND seq >= 19", traces[0])
		return err
	})
	for _, trace := range []string{"", traces[0]} {
		err := verify(t, dir, trace)
		if !errors.Is(err, ledger.ErrVerify) {
			t.Errorf("verify %q after hiding the tail: got %v, want a verification failure", trace, err)
		}
	}
	// The other trace is untouched, but a log with a hidden tail is not.
	if err := verify(t, dir, traces[1]); err != nil {
		t.Errorf("verify of the untouched trace: %v", err)
	}
}

// Finding 1: an event filed under another trace's name in the index is
// found, and so is one filed under another seq.
func TestIntegrity1_IndexColumnsAgreeWithSignedFields(t *testing.T) {
	for _, tc := range []struct {
		name string
		sql  string
	}{
		{"trace", "UPDATE events SET trace = 'elsewhere' WHERE idx = 5"},
		{"seq", "UPDATE events SET seq = seq + 1000 WHERE idx = (SELECT max(idx) FROM events)"},
		{"type", "UPDATE events SET type = 'run.completed' WHERE idx = 3"},
		{"run", "UPDATE events SET run = 'rnone' WHERE idx = 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, traces := recordTraces(t, 2, 20)
			ledgertest.Tamper(t, dir, func(db *sql.DB) error {
				_, err := db.Exec(tc.sql)
				return err
			})
			if err := verify(t, dir, ""); !errors.Is(err, ledger.ErrVerify) {
				t.Errorf("whole-log verify: got %v, want a verification failure", err)
			}
			failed := false
			for _, tr := range traces {
				if err := verify(t, dir, tr); err != nil {
					failed = true
				}
			}
			if !failed {
				t.Error("every per-trace verification passed")
			}
		})
	}
}

// copyDB copies the database files of the closed home in dir (a backup).
func copyDB(t *testing.T, dir string) string {
	t.Helper()
	backup := t.TempDir()
	for _, name := range []string{"sanad.db", "sanad.db-wal", "sanad.db-shm"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(backup, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return backup
}

// restoreDB puts the database files of backup back into the home in dir.
func restoreDB(t *testing.T, backup, dir string) {
	t.Helper()
	for _, name := range []string{"sanad.db", "sanad.db-wal", "sanad.db-shm"} {
		os.Remove(filepath.Join(dir, name))
		data, err := os.ReadFile(filepath.Join(backup, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// Finding 2: a database restored from an older copy is refused at open,
// with a message that says so.
func TestIntegrity2_RollbackRefusedAtOpen(t *testing.T) {
	dir, _ := recordTraces(t, 1, 20)
	backup := copyDB(t, dir)
	h := ledgertest.Open(t, dir)
	ledgertest.Record(t, h, 20)
	ledgertest.Close(t, h)
	restoreDB(t, backup, dir)
	_, err := ledgertest.OpenErr(t, dir)
	if sanad.ErrorCode(err) != sanad.CodeIntegrity || !strings.Contains(err.Error(), "rollback") {
		t.Fatalf("open after restoring an older database: got %v, want INTEGRITY saying rollback", err)
	}
}

// Finding 2: restoring an older copy of the whole home (checkpoint file
// included) and appending again forks the log; a checkpoint kept in
// another folder refuses it, so two checkpoints of one size with different
// roots are never signed.
func TestIntegrity2_ForkRefusedByACheckpointElsewhere(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	open := func() (*home.Home, error) {
		return home.Open(context.Background(), home.Config{Dir: dir, CheckpointDirs: []string{elsewhere}})
	}
	h, err := open()
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.Record(t, h, 20)
	h.Close()
	old := ledgertest.CopyHome(t, dir)
	h, err = open()
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.Record(t, h, 20)
	h.Close()
	// The whole home goes back to the old copy.
	os.RemoveAll(dir)
	if err := os.Rename(old, dir); err != nil {
		t.Fatal(err)
	}
	_, err = open()
	if sanad.ErrorCode(err) != sanad.CodeIntegrity || !strings.Contains(err.Error(), elsewhere) {
		t.Fatalf("open of a rolled-back home: got %v, want INTEGRITY naming %s", err, elsewhere)
	}
}

// Finding 2: deleting a trace's tail together with its Merkle nodes and the
// checkpoint rows that cover it is refused at open.
func TestIntegrity2_TailRemovedWithTreeAndCheckpoints(t *testing.T) {
	dir, traces := recordTraces(t, 2, 20)
	ledgertest.Tamper(t, dir, func(db *sql.DB) error {
		var from int64
		if err := db.QueryRow("SELECT min(idx) FROM events WHERE trace = ? AND seq >= 15", traces[1]).Scan(&from); err != nil {
			return err
		}
		for _, q := range []string{"DELETE FROM events WHERE idx >= ?", "DELETE FROM tlog_nodes", "DELETE FROM checkpoints"} {
			if _, err := db.Exec(q, from); err != nil {
				return err
			}
		}
		return nil
	})
	if _, err := ledgertest.OpenErr(t, dir); sanad.ErrorCode(err) != sanad.CodeIntegrity {
		t.Fatalf("open: got %v, want INTEGRITY", err)
	}
}

// Finding 2: the log never signs a checkpoint that does not extend the
// last one it signed, even when its store is changed under it.
func TestIntegrity2_NeverSignsAnInconsistentCheckpoint(t *testing.T) {
	ctx := context.Background()
	dir, _ := recordTraces(t, 1, 20)
	h := ledgertest.Open(t, dir)
	if _, _, err := h.Ledger.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	// Rewrite the leaf hash of the last event the checkpoint covers, while
	// the ledger is open.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "sanad.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE events SET hash = zeroblob(32) WHERE idx = (SELECT max(idx) FROM events)"); err != nil {
		t.Fatal(err)
	}
	ledgertest.Record(t, h, 10)
	_, _, err = h.Ledger.Checkpoint(ctx)
	if sanad.ErrorCode(err) != sanad.CodeIntegrity || !strings.Contains(err.Error(), "refusing to sign") {
		t.Fatalf("Checkpoint over a rewritten store: got %v, want INTEGRITY, refusing to sign", err)
	}
}

// signAsAgent has agent sign the end of a run in the home of dir.
func signAsAgent(t *testing.T, dir, agent string) error {
	t.Helper()
	return signAs(context.Background(), dir, agent)
}

// Finding 5: a deleted agent key is not made anew (the history it signed
// would no longer verify): the agent's next event is refused, and the key
// file stays gone.
func TestIntegrity5_DeletedKeyNotRegenerated(t *testing.T) {
	dir, _ := recordTraces(t, 1, 20)
	key := filepath.Join(dir, "keys", "intake-agent.key")
	if err := os.Remove(key); err != nil {
		t.Fatal(err)
	}
	err := signAsAgent(t, dir, "intake-agent")
	if sanad.ErrorCode(err) != sanad.CodeIntegrity || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("signing as intake-agent without its key: got %v, want INTEGRITY, the key is missing", err)
	}
	if _, err := os.Stat(key); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the key file was made anew: %v", err)
	}
}

// Finding 5: a key file replaced by another key of the same identity is
// refused, not used.
func TestIntegrity5_ReplacedKeyRefused(t *testing.T) {
	dir, _ := recordTraces(t, 1, 20)
	other := t.TempDir()
	kr, err := keyring.Open(other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kr.Key("intake-agent"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(other, "intake-agent.key"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "keys", "intake-agent.key"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	err = signAsAgent(t, dir, "intake-agent")
	if sanad.ErrorCode(err) != sanad.CodeIntegrity || !strings.Contains(err.Error(), "registered") {
		t.Fatalf("signing with a replaced key: got %v, want INTEGRITY naming the registered key", err)
	}
	// The runtime's own key replaced: the home does not open.
	if _, err := kr.Key(ledger.DefaultRuntimeIdentity); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(filepath.Join(other, ledger.DefaultRuntimeIdentity+".key"))
	if err := os.WriteFile(filepath.Join(dir, "keys", ledger.DefaultRuntimeIdentity+".key"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ledgertest.OpenErr(t, dir); sanad.ErrorCode(err) != sanad.CodeIntegrity {
		t.Fatalf("open with a replaced runtime key: got %v, want INTEGRITY", err)
	}
}

// Finding 5: a key file that is a link is not followed.
func TestIntegrity5_SymlinkedKeyRefused(t *testing.T) {
	dir, _ := recordTraces(t, 1, 20)
	key := filepath.Join(dir, "keys", "intake-agent.key")
	moved := filepath.Join(t.TempDir(), "intake-agent.key")
	data, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(moved, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(key); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, key); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	err = signAsAgent(t, dir, "intake-agent")
	if sanad.ErrorCode(err) != sanad.CodeIntegrity || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("signing with a linked key file: got %v, want INTEGRITY, not a regular file", err)
	}
}

// Finding 5: verification needs no private key: keys come from the log's
// own registry, and a log whose registry was tampered with fails.
func TestIntegrity5_VerifyWithRegisteredKeysOnly(t *testing.T) {
	ctx := context.Background()
	dir, traces := recordTraces(t, 2, 20)
	h, err := home.Open(ctx, home.Config{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ks, err := ledger.LoadKeys(ctx, h.DB)
	if err != nil {
		t.Fatal(err)
	}
	origin := home.OriginOf(ks.Log)
	h.Close()
	if err := os.RemoveAll(filepath.Join(dir, "keys")); err != nil {
		t.Fatal(err)
	}
	audit := func() error {
		h, err := home.Open(ctx, home.Config{Dir: dir, ReadOnly: true})
		if err != nil {
			return err
		}
		defer h.Close()
		for _, tr := range append([]string{""}, traces...) {
			if _, err := ledger.Audit(ctx, ledger.AuditConfig{Store: h.DB, Types: h.Types, Origin: origin}, tr); err != nil {
				return err
			}
		}
		return nil
	}
	if err := audit(); err != nil {
		t.Fatalf("audit without key files: %v", err)
	}
	// Hiding a key's registration leaves its events unverifiable.
	ledgertest.Tamper(t, dir, func(db *sql.DB) error {
		_, err := db.Exec("UPDATE events SET seq = -seq WHERE trace = ? AND seq = 3", ledger.KeysTrace)
		return err
	})
	if err := audit(); err == nil {
		t.Fatal("audit with a key registration hidden: passed")
	}
}

// Finding 5: a new home is readable by its owner alone.
func TestIntegrity5_HomeModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home")
	h := ledgertest.Open(t, dir)
	ledgertest.Record(t, h, 10)
	ledgertest.Close(t, h)
	for path, want := range map[string]fs.FileMode{
		dir: 0o700, filepath.Join(dir, "keys"): 0o700, filepath.Join(dir, "blobs"): 0o700,
		filepath.Join(dir, "sanad.db"): 0o600, filepath.Join(dir, "checkpoint"): 0o600,
		filepath.Join(dir, "keys", ledger.DefaultRuntimeIdentity+".key"): 0o600,
	} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", path, got, want)
		}
	}
}

// Finding 9: the runs projection is checked against the events it points
// at.
func TestIntegrity9_RunsProjectionChecked(t *testing.T) {
	for name, q := range map[string]string{
		"status":  "UPDATE runs SET status = 'completed' WHERE status = 'failed'",
		"deleted": "DELETE FROM runs WHERE rowid IN (SELECT rowid FROM runs LIMIT 1)",
		"started": "UPDATE runs SET started_idx = started_idx + 1",
	} {
		t.Run(name, func(t *testing.T) {
			dir, _ := recordTraces(t, 1, 40)
			h := ledgertest.Open(t, dir)
			if err := h.DB.CheckRuns(context.Background()); err != nil {
				t.Fatalf("untouched: %v", err)
			}
			ledgertest.Close(t, h)
			ledgertest.Tamper(t, dir, func(db *sql.DB) error {
				if name == "deleted" {
					_, err := db.Exec("DELETE FROM runs WHERE run_id = (SELECT run_id FROM runs ORDER BY run_id LIMIT 1)")
					return err
				}
				_, err := db.Exec(q)
				return err
			})
			h = ledgertest.Open(t, dir)
			if err := h.DB.CheckRuns(context.Background()); sanad.ErrorCode(err) != sanad.CodeIntegrity {
				t.Fatalf("runs projection with %s changed: got %v, want INTEGRITY", name, err)
			}
		})
	}
}

// Finding 9: with --artifacts, every blob an event refers to is checked
// against its hash.
func TestIntegrity9_ArtifactsChecked(t *testing.T) {
	ctx := context.Background()
	dir, _ := recordTraces(t, 1, 20)
	h := ledgertest.Open(t, dir)
	n, err := h.Artifacts.Check(ctx, h.DB)
	if err != nil || n == 0 {
		t.Fatalf("untouched: %d blobs, %v", n, err)
	}
	var blob string
	filepath.WalkDir(filepath.Join(dir, "blobs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && blob == "" {
			blob = p
		}
		return nil
	})
	if err := os.WriteFile(blob, []byte("not what was stored"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Artifacts.Check(ctx, h.DB); sanad.ErrorCode(err) != sanad.CodeIntegrity {
		t.Fatalf("a damaged blob: got %v, want INTEGRITY", err)
	}
}

// Finding 9: an export its process did not finish does not stay running: the
// next open ends it as cancelled.
func TestIntegrity9_InterruptedExportClosedAtOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	h := ledgertest.Open(t, dir)
	run, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindExport, Scope: ledgertest.Scope, Agent: "sanad-export", Role: "export",
		Decision: runs.Decision{Allow: true, Reason: "export"}})
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.Close(t, h) // as if its process died here
	h = ledgertest.Open(t, dir)
	rec, err := h.DB.Run(ctx, run.Record.ID)
	if err != nil || rec.Status != sanad.StatusCancelled {
		t.Fatalf("the interrupted export after the next open: %s (%v), want cancelled", rec.Status, err)
	}
	if _, err := h.Ledger.Verify(ctx, ""); err != nil {
		t.Fatal(err)
	}
}

// A checkpoint row filed under a size other than the one it states (the
// size column is the table's key, which nothing signs) is found. Unfound,
// it would also make the store drop the checkpoint the log later signs at
// that size (a row of that size already exists).
func TestTamperCheckpointFiledUnderAnotherSize(t *testing.T) {
	dir, _ := recordTraces(t, 1, 20)
	ledgertest.Tamper(t, dir, func(db *sql.DB) error {
		_, err := db.Exec("UPDATE checkpoints SET size = size + 1000 WHERE size = (SELECT max(size) FROM checkpoints)")
		return err
	})
	if _, err := ledgertest.OpenErr(t, dir); sanad.ErrorCode(err) != sanad.CodeIntegrity {
		t.Errorf("open: got %v, want INTEGRITY", err)
	}
	h, err := home.Open(context.Background(), home.Config{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ks, err := ledger.LoadKeys(context.Background(), h.DB)
	if err != nil {
		t.Fatal(err)
	}
	origin := home.OriginOf(ks.Log)
	_, err = ledger.Audit(context.Background(), ledger.AuditConfig{Store: h.DB, Types: h.Types, Origin: origin, Mirrors: home.Mirrors(dir, origin, nil)}, "")
	if !isVerifyFailure(err) {
		t.Errorf("Audit: got %v, want a verification failure", err)
	}
}

// A Merkle node row the store keeps, deleted, is found by the whole-log
// verification, though the root does not need it: the inclusion proofs that
// do need it fail.
func TestTamperKeptNodeDeleted(t *testing.T) {
	ctx := context.Background()
	src, trace := smallHome(t) // more than 256 events: the root reads no level-4 node
	dir := ledgertest.CopyLedger(t, src)
	ledgertest.Tamper(t, dir, func(db *sql.DB) error {
		_, err := db.Exec("DELETE FROM tlog_nodes WHERE id = ?", int64(4)<<56)
		return err
	})
	h := ledgertest.Open(t, dir)
	evs, err := h.Ledger.Events(ctx, trace)
	if err != nil {
		t.Fatal(err)
	}
	_, cp, err := h.Ledger.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// An event at leaves 16..31 has the deleted node (leaves 0..15) as a
	// sibling on its path.
	if _, err := h.Ledger.Prove(ctx, evs[20].Hash, cp); sanad.ErrorCode(err) != sanad.CodeIntegrity {
		t.Errorf("Prove of an event whose path needs the deleted node: got %v, want INTEGRITY", err)
	}
	if _, err := h.Ledger.Verify(ctx, ""); !isVerifyFailure(err) {
		t.Errorf("Verify(whole log): got %v, want a verification failure", err)
	}
}
