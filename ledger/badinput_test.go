package ledger_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/runs"
)

// smallHome is a closed home with one recorded trace and a checkpoint.
func smallHome(tb testing.TB) (dir, trace string) {
	tb.Helper()
	h := ledgertest.Home(tb)
	trace = ledgertest.Record(tb, h, 300)
	if _, _, err := h.Ledger.Checkpoint(context.Background()); err != nil {
		tb.Fatalf("Checkpoint: %v", err)
	}
	ledgertest.Close(tb, h)
	return h.Dir, trace
}

// openOrVerify opens the home in dir and verifies its ledger and trace. It
// returns the first error, which must not be a panic (a panic fails the
// test by itself).
func openOrVerify(ctx context.Context, dir, trace string) error {
	h, err := home.Open(ctx, home.Config{Dir: dir})
	if err != nil {
		return err
	}
	defer h.Close()
	if _, err := h.Ledger.Verify(ctx, ""); err != nil {
		return err
	}
	_, err = h.Ledger.Verify(ctx, trace)
	return err
}

// signAs opens the home in dir and has agent sign an event: the end of a run
// it acts in.
func signAs(ctx context.Context, dir, agent string) error {
	h, err := home.Open(ctx, home.Config{Dir: dir})
	if err != nil {
		return err
	}
	defer h.Close()
	run, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Scope: ledgertest.Scope, Agent: agent, Role: "agent",
		Decision: runs.Decision{Allow: true, Reason: "test"}})
	if err != nil {
		return err
	}
	return run.Complete(ctx, nil, map[string]any{"done": true})
}

// isClearStoreError reports whether err tells the user the data is damaged
// or unusable: a *sanad.Error with code INTEGRITY or INVALID_INPUT, or a
// *ledger.VerifyError naming where the damage was found.
func isClearStoreError(err error) bool {
	if errors.Is(err, ledger.ErrVerify) {
		return true
	}
	var se *sanad.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.Code == sanad.CodeIntegrity || se.Code == sanad.CodeInvalidInput
}

// TestBadInputCorruptDatabase: a database file that is not a database, or is
// cut short, or has its pages overwritten, makes home.Open (or Verify) fail
// with a clear *sanad.Error (or Verify with a *ledger.VerifyError where the
// damage is in the data SQLite still reads), never a panic, and the file is
// left exactly as it was.
func TestBadInputCorruptDatabase(t *testing.T) {
	ctx := context.Background()
	src, trace := smallHome(t)
	orig, err := os.ReadFile(filepath.Join(src, ledgertest.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	size := len(orig)
	const page = 4096
	tests := []struct {
		name string
		db   func() []byte
	}{
		{"garbage", func() []byte { return bytes.Repeat([]byte("not a database "), 4096) }},
		{"random bytes", func() []byte {
			b := make([]byte, 64<<10)
			for i := range b {
				b[i] = byte(i*7919 + i>>3)
			}
			return b
		}},
		{"header only", func() []byte { return orig[:100] }},
		{"cut inside the header", func() []byte { return orig[:50] }},
		{"cut after the first page", func() []byte { return orig[:page] }},
		{"cut after two pages", func() []byte { return orig[:2*page] }},
		{"cut in half", func() []byte { return orig[:size/2] }},
		{"cut mid-page", func() []byte { return orig[:size/2+123] }},
		{"last page missing", func() []byte { return orig[:size-page] }},
		{"last byte missing", func() []byte { return orig[:size-1] }},
		{"pages overwritten", func() []byte {
			b := append([]byte(nil), orig...)
			for i := 2 * page; i < size; i++ {
				b[i] = 0xa5
			}
			return b
		}},
		{"header damaged", func() []byte {
			b := append([]byte(nil), orig...)
			copy(b, "SQLite format 2\x00")
			return b
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := ledgertest.CopyLedger(t, src)
			path := filepath.Join(dir, ledgertest.DBFile)
			bad := tt.db()
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			err := openOrVerify(ctx, dir, trace)
			if !isClearStoreError(err) {
				t.Errorf("open and verify: got %v, want a *sanad.Error with code %s or %s, or a *ledger.VerifyError", err, sanad.CodeIntegrity, sanad.CodeInvalidInput)
			}
			after, rerr := os.ReadFile(path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if !bytes.Equal(after, bad) {
				t.Errorf("%s: got %d bytes (sha256 %s) after the failed open, want the %d bytes it had (sha256 %s)",
					ledgertest.DBFile, len(after), canon.Sum(after), len(bad), canon.Sum(bad))
			}
		})
	}
}

// TestBadInputEmptyDatabase: a home whose database was cut to zero bytes
// still has its keys and artifacts; opening it must fail instead of starting
// an empty ledger over it.
//
// It fails today: SQLite takes an empty file for a new database, home.Open
// creates the schema in it and the home carries on with an empty log. Verify
// then passes, the history is gone without a word, and the same log key
// will sign checkpoints of a new, smaller log that is not consistent with
// the ones it signed before (a fork signed by one key).
func TestBadInputEmptyDatabase(t *testing.T) {
	ctx := context.Background()
	src, trace := smallHome(t)
	dir := ledgertest.CopyLedger(t, src)
	path := filepath.Join(dir, ledgertest.DBFile)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	err := openOrVerify(ctx, dir, trace)
	if !isClearStoreError(err) {
		t.Errorf("open and verify of a home with an empty %s: got %v, want a *sanad.Error with code %s or %s", ledgertest.DBFile, err, sanad.CodeIntegrity, sanad.CodeInvalidInput)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Errorf("%s after the open: got size %d (error %v), want it left empty", ledgertest.DBFile, fi.Size(), err)
	}
}

// TestBadInputKeys: a missing, damaged, unreadable or group-readable agent
// key file does not stop verification, which reads keys from the log alone,
// but the agent can sign nothing more: the next event it signs fails with a
// clear error naming the problem, the key is never made anew, and the home
// is not changed. A bad log key is refused at open.
func TestBadInputKeys(t *testing.T) {
	ctx := context.Background()
	src, trace := smallHome(t)
	ids := keyIDs(t, src)
	// Any agent's key will do: take the first, by name, that signed an event.
	var agent, arbiterID string
	for id, identity := range ids {
		if identity == ledger.DefaultRuntimeIdentity || identity == ledger.DefaultLogIdentity {
			continue
		}
		if agent == "" || identity < agent {
			agent, arbiterID = identity, id
		}
	}
	if arbiterID == "" {
		t.Fatal("the recorded trace has no agent key")
	}
	keyFile := func(dir, identity string) string { return filepath.Join(dir, "keys", identity+".key") }
	tests := []struct {
		name     string
		root     bool // the case means nothing to root, who reads any file
		mod      func(dir string) error
		verifyOK func(err error) bool
		want     string
	}{
		{"agent key deleted", false, func(dir string) error { return os.Remove(keyFile(dir, agent)) },
			func(err error) bool {
				return sanad.ErrorCode(err) == sanad.CodeIntegrity && strings.Contains(err.Error(), arbiterID) && strings.Contains(err.Error(), "missing")
			}, "INTEGRITY naming key " + arbiterID + " as missing"},
		{"agent key readable by the group", false, func(dir string) error { return os.Chmod(keyFile(dir, agent), 0o640) },
			func(err error) bool {
				return sanad.ErrorCode(err) == sanad.CodeIntegrity && strings.Contains(err.Error(), "chmod 600")
			},
			"INTEGRITY, telling to chmod 600"},
		{"agent key readable by all", false, func(dir string) error { return os.Chmod(keyFile(dir, agent), 0o644) },
			func(err error) bool {
				return sanad.ErrorCode(err) == sanad.CodeIntegrity && strings.Contains(err.Error(), "chmod 600")
			},
			"INTEGRITY, telling to chmod 600"},
		{"agent key unreadable", true, func(dir string) error { return os.Chmod(keyFile(dir, agent), 0o000) },
			func(err error) bool { return sanad.ErrorCode(err) == sanad.CodeIntegrity }, "INTEGRITY"},
		{"agent key is a folder", false, func(dir string) error {
			if err := os.Remove(keyFile(dir, agent)); err != nil {
				return err
			}
			return os.Mkdir(keyFile(dir, agent), 0o700)
		}, func(err error) bool { return sanad.ErrorCode(err) == sanad.CodeIntegrity }, "INTEGRITY"},
		{"agent key damaged", false, func(dir string) error {
			return os.WriteFile(keyFile(dir, agent), []byte(`{"identity":"arbiter"}`), 0o600)
		},
			func(err error) bool {
				return sanad.ErrorCode(err) == sanad.CodeIntegrity && strings.Contains(err.Error(), "damaged")
			},
			"INTEGRITY, saying the key file is damaged"},
		{"agent key of another identity", false, func(dir string) error {
			b, err := os.ReadFile(keyFile(dir, "mapping-agent"))
			if err != nil {
				return err
			}
			return os.WriteFile(keyFile(dir, agent), b, 0o600)
		}, func(err error) bool { return sanad.ErrorCode(err) == sanad.CodeIntegrity }, "INTEGRITY"},
		{"log key readable by all", false, func(dir string) error { return os.Chmod(keyFile(dir, ledger.DefaultLogIdentity), 0o644) },
			func(err error) bool {
				return sanad.ErrorCode(err) == sanad.CodeIntegrity && strings.Contains(err.Error(), "chmod 600")
			},
			"INTEGRITY, telling to chmod 600"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.root && os.Geteuid() == 0 {
				t.Skip("root reads files whatever their mode")
			}
			dir := ledgertest.CopyLedger(t, src)
			if err := tt.mod(dir); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(dir, ledgertest.DBFile)
			before, _ := os.ReadFile(db)
			keysBefore := listDir(t, filepath.Join(dir, "keys"))
			err := openOrVerify(ctx, dir, trace)
			if err == nil {
				err = signAs(ctx, dir, agent)
			}
			if !tt.verifyOK(err) {
				t.Errorf("open, verify and sign as %s: got %v, want %s", agent, err, tt.want)
			}
			_ = before // the runtime's events of the run are recorded; the agent's is not
			if got := listDir(t, filepath.Join(dir, "keys")); !equalStrings(got, keysBefore) {
				t.Errorf("key files: got %v, want %v unchanged", got, keysBefore)
			}
		})
	}
}

// TestBadInputHomeKeyCode: when the runtime's own key file is damaged or
// readable by others, home.Open fails with the keyring's INTEGRITY error,
// which tells the user what to fix.
//
// It fails today: home.Open wraps every error of ledger.Open — the keyring's
// *sanad.Error included — in a new *sanad.Error with code INTERNAL, so
// sanad.ErrorCode reports a bug in sanad instead of a damaged key file (and
// the CLI and API map it to an internal error).
func TestBadInputHomeKeyCode(t *testing.T) {
	ctx := context.Background()
	src, _ := smallHome(t)
	runtimeKey := func(dir string) string { return filepath.Join(dir, "keys", ledger.DefaultRuntimeIdentity+".key") }
	for _, tt := range []struct {
		name string
		mod  func(dir string) error
	}{
		{"runtime key readable by all", func(dir string) error { return os.Chmod(runtimeKey(dir), 0o644) }},
		{"runtime key damaged", func(dir string) error { return os.WriteFile(runtimeKey(dir), []byte("{}"), 0o600) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := ledgertest.CopyLedger(t, src)
			if err := tt.mod(dir); err != nil {
				t.Fatal(err)
			}
			h, err := home.Open(ctx, home.Config{Dir: dir})
			if err == nil {
				h.Close()
			}
			if got := sanad.ErrorCode(err); got != sanad.CodeIntegrity {
				t.Errorf("home.Open: got error %v (code %s), want code %s", err, got, sanad.CodeIntegrity)
			}
		})
	}
}

// TestBadInputMissingHomeKey: a home whose ledger holds events but whose
// runtime or log key file is gone must not open for writing: a new key would
// be made silently, events would be signed by a key no earlier event knows,
// and — for the log key — the log would get a new name and could never
// issue a checkpoint again (the stored ones no longer verify).
//
// It fails today: keys are created on first use, and home.Open asks for the
// runtime and log keys with Keyring.Key, which creates them.
func TestBadInputMissingHomeKey(t *testing.T) {
	ctx := context.Background()
	src, _ := smallHome(t)
	for _, identity := range []string{ledger.DefaultRuntimeIdentity, ledger.DefaultLogIdentity} {
		t.Run(identity, func(t *testing.T) {
			dir := ledgertest.CopyLedger(t, src)
			path := filepath.Join(dir, "keys", identity+".key")
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			h, err := home.Open(ctx, home.Config{Dir: dir})
			if err == nil {
				_, verr := h.Ledger.Verify(ctx, "")
				_, _, cerr := h.Ledger.Checkpoint(ctx)
				h.Close()
				t.Errorf("home.Open with %s.key missing: got nil, want an error (Verify now says: %v; Checkpoint says: %v)", identity, verr, cerr)
			}
			if _, err := os.Stat(path); err == nil {
				t.Errorf("%s.key: a new key was created, want none", identity)
			}
		})
	}
}

// TestBadInputUnknownTrace: asking for a trace or an event the ledger does
// not have is NOT_FOUND, not a verification failure.
func TestBadInputUnknownTrace(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	ledgertest.Record(t, h, 10)
	_, cp, err := h.Ledger.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []string{"no-such-trace", "not a trace id", "x"} {
		if _, err := h.Ledger.Verify(ctx, tr); sanad.ErrorCode(err) != sanad.CodeNotFound {
			t.Errorf("Verify(%q): got %v, want code %s", tr, err, sanad.CodeNotFound)
		}
		if _, err := h.Ledger.Events(ctx, tr); sanad.ErrorCode(err) != sanad.CodeNotFound {
			t.Errorf("Events(%q): got %v, want code %s", tr, err, sanad.CodeNotFound)
		}
	}
	if _, err := h.Ledger.Prove(ctx, canon.Sum([]byte("no such event")), cp); sanad.ErrorCode(err) != sanad.CodeNotFound {
		t.Errorf("Prove of an unknown event: got %v, want code %s", err, sanad.CodeNotFound)
	}
}
