// Package home opens a sanad home folder: the SQLite store, the keyring, the
// blob folder, and the ledger and run recorder over them. Commands, servers
// and tests share this one way of wiring the kernel.
//
// Layout of a home folder:
//
//	sanad.db        events, Merkle tree, checkpoints, runs, artifact index
//	keys/           one ed25519 key file per identity (0600)
//	blobs/sha256/   artifact content by SHA-256
//	lock            held by the one process that writes
package home

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/dbwrite"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/internal/lockfile"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/playbook/debate"
	"github.com/sanadhq/sanad/playbook/protocol"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/sqlite"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

// Config says which home to open and how.
type Config struct {
	Dir string
	// Synchronous is passed to the SQLite store (sqlite.SyncNormal by default).
	Synchronous string
	// ReadOnly opens an existing home without taking the writer lock; nothing
	// can be appended and no key is created.
	ReadOnly bool
	// Crash is passed to the store and the ledger (see their crash
	// points); nil does nothing.
	Crash func(point string)
	// CheckpointDirs are folders, besides the home itself, that keep a copy
	// of the latest checkpoint the log signed (a folder on another disk, or
	// one synced elsewhere): a home whose database does not extend any of
	// them refuses to open.
	CheckpointDirs []string
}

// Home is an open home folder.
type Home struct {
	Dir       string
	DB        *sqlite.DB
	Keys      *keyring.Keyring
	Artifacts *artifact.Store
	Ledger    *ledger.Ledger // nil when read-only
	Runs      *runs.Recorder // nil when read-only
	Types     *ledger.Types
	unlock    func() error // releases the writer lock; nil when read-only
	closed    bool
}

// Vocabularies returns the event vocabularies of every built-in package.
func Vocabularies() []ledger.Vocabulary {
	return []ledger.Vocabulary{runs.Vocabulary(), bundle.Vocabulary(), gate.Vocabulary(), dbwrite.Vocabulary(), tool.Vocabulary(), workflow.Vocabulary(), protocol.Vocabulary(), model.Vocabulary(), debate.Vocabulary()}
}

// Types compiles the built-in vocabularies.
func Types() (*ledger.Types, error) { return ledger.NewTypes(Vocabularies()...) }

// Origin returns the log name for a log key: "sanad.log/" and the key id's hex.
func Origin(logKey *keyring.Key) string {
	return "sanad.log/" + strings.TrimPrefix(logKey.ID, keyring.Algorithm+":")
}

// Open opens (creating if needed, unless read-only) the home in cfg.Dir.
func Open(ctx context.Context, cfg Config) (*Home, error) {
	const op = "home.open"
	if cfg.Dir == "" {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "no home folder given")
	}
	types, err := Types()
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, err.Error())
	}
	h := &Home{Dir: cfg.Dir, Types: types}
	dbPath := filepath.Join(cfg.Dir, "sanad.db")
	if cfg.ReadOnly {
		if _, err := os.Stat(dbPath); err != nil {
			return nil, sanad.Errorf(sanad.CodeNotFound, op, "%s is not a sanad home (no sanad.db): run `sanad quickstart` or pass --home", cfg.Dir)
		}
	} else {
		if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, fmt.Sprintf("cannot create home %s: %v", cfg.Dir, err))
		}
		if h.unlock, err = lockHome(cfg.Dir); err != nil {
			return nil, err
		}
	}
	keysDir := filepath.Join(cfg.Dir, "keys")
	if !cfg.ReadOnly {
		if err := checkNotReset(dbPath, keysDir); err != nil {
			h.Close()
			return nil, err
		}
	}
	if !cfg.ReadOnly {
		// The database is created readable by its owner alone; SQLite gives
		// its journal files the database's mode.
		if f, err := os.OpenFile(dbPath, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
			f.Close()
		}
	}
	if h.DB, err = sqlite.Open(ctx, sqlite.Config{Path: dbPath, Synchronous: cfg.Synchronous, ReadOnly: cfg.ReadOnly, Crash: cfg.Crash}); err != nil {
		h.Close()
		return nil, err
	}
	if h.Keys, err = keyring.Open(keysDir); err != nil {
		h.Close()
		return nil, err
	}
	if h.Artifacts, err = artifact.Open(filepath.Join(cfg.Dir, "blobs"), h.DB); err != nil {
		h.Close()
		return nil, err
	}
	// Blobs are as durable as the ledger that refers to them.
	h.Artifacts.NoSync = cfg.Synchronous != sqlite.SyncFull
	if cfg.ReadOnly {
		return h, nil
	}
	// A ledger that has records must keep its keys: recreating the runtime or
	// log key would leave every earlier signature unverifiable and make the
	// log sign a history that contradicts its own checkpoints.
	size, err := h.DB.TreeSize(ctx)
	if err != nil {
		h.Close()
		return nil, err
	}
	key := h.Keys.Key
	if size > 0 {
		key = h.Keys.Existing
	}
	var logKey *keyring.Key
	for _, id := range []string{ledger.DefaultRuntimeIdentity, ledger.DefaultLogIdentity} {
		k, err := key(id)
		if err != nil {
			h.Close()
			if sanad.ErrorCode(err) == sanad.CodeNotFound {
				return nil, sanad.Errorf(sanad.CodeIntegrity, op, "the %s key of %s is missing but its ledger has %d events: restore keys/%s.key from backup", id, cfg.Dir, size, id)
			}
			return nil, err
		}
		logKey = k
	}
	origin := Origin(logKey)
	mirrors := Mirrors(cfg.Dir, origin, cfg.CheckpointDirs)
	h.Ledger, err = ledger.Open(ledger.Config{Store: h.DB, Keys: h.Keys, Types: types, Origin: origin, Crash: cfg.Crash, Mirrors: mirrors})
	if err != nil {
		h.Close()
		var se *sanad.Error
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, err.Error())
	}
	h.Runs = &runs.Recorder{Ledger: h.Ledger}
	// This process alone writes the home: an export still running is one a
	// killed process left.
	if err := bundle.CloseInterrupted(ctx, h.Runs, h.DB); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// checkNotReset refuses a home whose database is gone or empty while its log
// key exists: opening it would silently start a new, shorter ledger under the
// same key.
func checkNotReset(dbPath, keysDir string) error {
	if _, err := os.Stat(filepath.Join(keysDir, ledger.DefaultLogIdentity+".key")); err != nil {
		return nil // a new home
	}
	info, err := os.Stat(dbPath)
	if err == nil && info.Size() > 0 {
		return nil
	}
	return sanad.Errorf(sanad.CodeIntegrity, "home.open", "%s is missing or empty but the home has a log key: restore it from backup (refusing to start a new ledger under the same key)", dbPath)
}

// Close closes everything the home opened.
func (h *Home) Close() error {
	if h.closed {
		return nil
	}
	h.closed = true
	var errs []error
	if h.Ledger != nil {
		// Everything queued commits before the store closes.
		errs = append(errs, h.Ledger.Close(context.Background()))
	}
	if h.DB != nil {
		errs = append(errs, h.DB.Close())
	}
	if h.unlock != nil {
		errs = append(errs, h.unlock())
		h.unlock = nil
	}
	return errors.Join(errs...)
}

// Locked reports whether a process has the home in dir open for writing:
// whether it holds the home's writer lock, which the operating system
// releases when that process exits, however it exits. It does not open the
// home. For the instant it tests the lock it holds it, so an Open racing
// with it may find the home in use and must be tried again.
func Locked(dir string) (bool, error) {
	held, err := lockfile.Held(lockPath(dir))
	if err != nil {
		return false, sanad.Wrap(err, sanad.CodeInvalidInput, "home.locked", fmt.Sprintf("cannot test the lock of home %s: %v", dir, err))
	}
	return held, nil
}

func lockPath(dir string) string { return filepath.Join(dir, "lock") }

// lockHome takes the home's writer lock, so that one process appends at a
// time, and returns the function that releases it.
func lockHome(dir string) (unlock func() error, err error) {
	const op = "home.lock"
	unlock, ok, err := lockfile.TryLock(lockPath(dir))
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, fmt.Sprintf("cannot lock home %s: %v", dir, err))
	}
	if !ok {
		return nil, sanad.Errorf(sanad.CodeUnavailable, op, "home %s is in use by another sanad process", dir)
	}
	return unlock, nil
}

// OriginOf returns the log name for the log key of id ("ed25519:<hex>"), as
// [Origin] does for the key itself.
func OriginOf(keyID string) string {
	return "sanad.log/" + strings.TrimPrefix(keyID, keyring.Algorithm+":")
}
