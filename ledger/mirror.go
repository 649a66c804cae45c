package ledger

import (
	"bytes"
	"context"
	"fmt"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/tlog"
)

// Mirror keeps the latest checkpoint the log signed outside its store: a
// file beside the database, a folder on another disk, a witness. The ledger
// refuses to open over a store that does not extend what a mirror holds (a
// database restored from an older copy, or forked from one), and hands every
// checkpoint it signs to its mirrors. Implementations are safe for
// concurrent use.
type Mirror interface {
	// Name says where the mirror keeps the checkpoint, for messages.
	Name() string
	// Load returns the signed checkpoint the mirror holds, nil if none.
	Load() ([]byte, error)
	// Store keeps signed as the latest checkpoint, durably, before it
	// returns.
	Store(signed []byte) error
}

// checkMirrors refuses a store that does not extend the checkpoints the log
// signed before, as its own table and its mirrors hold them, and returns the
// latest of them.
func (l *Ledger) checkMirrors(ctx context.Context) error {
	const op = "ledger.open"
	v, err := l.Verifier()
	if err != nil {
		return sanad.Wrap(err, sanad.CodeInternal, op, "log verifier key")
	}
	size, err := l.cfg.Store.TreeSize(ctx)
	if err != nil {
		return err
	}
	check := func(signed []byte, source string) error {
		cp, err := tlog.Open(signed, v)
		if err != nil {
			return sanad.Errorf(sanad.CodeIntegrity, op, "the checkpoint in %s is not signed by this log's key (%v): it belongs to another log, or was forged", source, err)
		}
		if size < cp.Size {
			return sanad.Errorf(sanad.CodeIntegrity, op, "rollback: the log signed a checkpoint of %d events (%s) but the database holds %d: it was restored from an older copy or had events removed; restore the database that goes with the checkpoint", cp.Size, source, size)
		}
		root, err := l.prover.RootAt(ctx, cp.Size)
		if err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, op, fmt.Sprintf("the database cannot give its root at size %d: %v", cp.Size, err))
		}
		if !bytes.Equal(root, cp.Hash) {
			return sanad.Errorf(sanad.CodeIntegrity, op, "fork: the database's first %d events are not those of the checkpoint the log signed (%s): its history was rewritten, or it was restored from an older copy and appended to", cp.Size, source)
		}
		if l.latest.Size <= cp.Size {
			l.latest = cp
		}
		return nil
	}
	notes, err := l.cfg.Store.Checkpoints(ctx)
	if err != nil {
		return err
	}
	if n := len(notes); n > 0 {
		if err := check(notes[n-1], "the database's checkpoints"); err != nil {
			return err
		}
	}
	for _, m := range l.cfg.Mirrors {
		signed, err := m.Load()
		if err != nil {
			return sanad.Wrap(err, sanad.CodeUnavailable, op, fmt.Sprintf("cannot read the checkpoint in %s: %v", m.Name(), err))
		}
		if signed == nil {
			continue
		}
		if err := check(signed, m.Name()); err != nil {
			return err
		}
	}
	return nil
}

// publish hands a signed checkpoint to every mirror.
func (l *Ledger) publish(signed []byte) error {
	for _, m := range l.cfg.Mirrors {
		if err := m.Store(signed); err != nil {
			return sanad.Wrap(err, sanad.CodeUnavailable, "ledger.checkpoint", fmt.Sprintf("the checkpoint is signed and stored, but %s could not keep it: %v", m.Name(), err))
		}
	}
	return nil
}
