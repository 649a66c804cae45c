package ledger

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/tlog"
	"golang.org/x/mod/sumdb/note"
)

// Origin returns the log's name, the origin line of its checkpoints.
func (l *Ledger) Origin() string { return l.cfg.Origin }

// VerifierKey returns the checkpoint verifier key, "<origin>+<hash>+<base64>",
// as golang.org/x/mod/sumdb/note.NewVerifier reads it.
func (l *Ledger) VerifierKey() (string, error) { return l.log.NoteVerifierKey(l.cfg.Origin) }

// Verifier returns the checkpoint verifier.
func (l *Ledger) Verifier() (note.Verifier, error) { return l.log.NoteVerifier(l.cfg.Origin) }

// Checkpoint returns a signed checkpoint of the log as it is now: the latest
// stored checkpoint if the log has not grown since, otherwise a new one,
// signed by the log key, stored, and handed to the mirrors. The log never
// signs a checkpoint that does not extend one it signed before: a store that
// was rolled back or rewritten since is INTEGRITY, and nothing is signed.
func (l *Ledger) Checkpoint(ctx context.Context) ([]byte, tlog.Checkpoint, error) {
	const op = "ledger.checkpoint"
	l.cpMu.Lock()
	defer l.cpMu.Unlock()
	size, err := l.cfg.Store.TreeSize(ctx)
	if err != nil {
		return nil, tlog.Checkpoint{}, err
	}
	v, err := l.Verifier()
	if err != nil {
		return nil, tlog.Checkpoint{}, sanad.Wrap(err, sanad.CodeInternal, op, "log verifier key")
	}
	notes, err := l.cfg.Store.Checkpoints(ctx)
	if err != nil {
		return nil, tlog.Checkpoint{}, err
	}
	if n := len(notes); n > 0 {
		stored, err := tlog.Open(notes[n-1], v)
		if err != nil {
			return nil, tlog.Checkpoint{}, sanad.Wrap(err, sanad.CodeIntegrity, op, fmt.Sprintf("stored checkpoint does not verify: %v", err))
		}
		if stored.Size > l.latest.Size {
			l.latest = stored
		}
		if stored.Size == size && stored.Size == l.latest.Size && bytes.Equal(stored.Hash, l.latest.Hash) {
			if err := l.publish(notes[n-1]); err != nil {
				return nil, tlog.Checkpoint{}, err
			}
			return notes[n-1], stored, nil
		}
	}
	root, err := l.prover.RootAt(ctx, size)
	if err != nil {
		return nil, tlog.Checkpoint{}, err
	}
	if prev := l.latest; prev.Size > 0 {
		if prev.Size > size {
			return nil, tlog.Checkpoint{}, sanad.Errorf(sanad.CodeIntegrity, op, "rollback: the log signed a checkpoint of %d events and now holds %d: refusing to sign", prev.Size, size)
		}
		at, err := l.prover.RootAt(ctx, prev.Size)
		if err != nil {
			return nil, tlog.Checkpoint{}, err
		}
		if !bytes.Equal(at, prev.Hash) {
			return nil, tlog.Checkpoint{}, sanad.Errorf(sanad.CodeIntegrity, op, "fork: the log's first %d events are no longer those it signed a checkpoint of: refusing to sign", prev.Size)
		}
	}
	if sy, ok := l.cfg.Store.(Syncer); ok {
		if err := sy.Sync(ctx); err != nil {
			return nil, tlog.Checkpoint{}, err
		}
	}
	cp := tlog.Checkpoint{Origin: l.cfg.Origin, Size: size, Hash: root}
	if n := len(notes); n > 0 {
		cp.Prev = tlog.NoteHash(notes[n-1])
	}
	signer, err := l.log.NoteSigner(l.cfg.Origin)
	if err != nil {
		return nil, tlog.Checkpoint{}, sanad.Wrap(err, sanad.CodeInternal, op, "log signing key")
	}
	signed, err := tlog.Sign(cp, signer)
	if err != nil {
		return nil, tlog.Checkpoint{}, sanad.Wrap(err, sanad.CodeInternal, op, "sign checkpoint")
	}
	if err := l.cfg.Store.SaveCheckpoint(ctx, size, signed); err != nil {
		return nil, tlog.Checkpoint{}, err
	}
	l.latest = cp
	if err := l.publish(signed); err != nil {
		return nil, tlog.Checkpoint{}, err
	}
	return signed, cp, nil
}

// Attest signs text as a signed note with the log key: a statement by the
// log itself, such as the head of an exported trace. The text's first line
// must not be the log's origin, so an attestation can never pass for a
// checkpoint.
func (l *Ledger) Attest(text string) ([]byte, error) {
	const op = "ledger.attest"
	first, _, _ := strings.Cut(text, "\n")
	if first == l.cfg.Origin || !strings.HasSuffix(text, "\n") {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "an attestation must end in a newline and not start with the log origin")
	}
	signer, err := l.log.NoteSigner(l.cfg.Origin)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, "log signing key")
	}
	signed, err := note.Sign(&note.Note{Text: text}, signer)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, err.Error())
	}
	return signed, nil
}

// InclusionProof proves one event is in the log at a checkpoint.
type InclusionProof struct {
	LeafIndex uint64   `json:"leaf_index"`
	TreeSize  uint64   `json:"tree_size"`
	LeafHash  []byte   `json:"leaf_hash"`
	RootHash  []byte   `json:"root_hash"`
	Proof     [][]byte `json:"proof"`
}

// Verify checks the proof against its own root and leaf hash.
func (p InclusionProof) Verify() error {
	return tlog.VerifyInclusion(p.LeafIndex, p.TreeSize, p.LeafHash, p.Proof, p.RootHash)
}

// Prove returns the inclusion proof of the event with hash h against the
// checkpoint cp, which must cover it.
func (l *Ledger) Prove(ctx context.Context, h canon.Digest, cp tlog.Checkpoint) (InclusionProof, error) {
	const op = "ledger.prove"
	st, err := l.cfg.Store.EventByHash(ctx, h)
	if err != nil {
		return InclusionProof{}, err
	}
	return l.proveIndex(ctx, st.Index, h, cp, op)
}

// ProveStored is [Ledger.Prove] for an event whose leaf index is known.
func (l *Ledger) ProveStored(ctx context.Context, index uint64, h canon.Digest, cp tlog.Checkpoint) (InclusionProof, error) {
	return l.proveIndex(ctx, index, h, cp, "ledger.prove")
}

func (l *Ledger) proveIndex(ctx context.Context, index uint64, h canon.Digest, cp tlog.Checkpoint, op string) (InclusionProof, error) {
	if index >= cp.Size {
		return InclusionProof{}, sanad.Errorf(sanad.CodeNotFound, op, "event %s is not covered by the checkpoint of size %d", h, cp.Size)
	}
	prf, err := l.prover.Inclusion(ctx, index, cp.Size)
	if err != nil {
		return InclusionProof{}, err
	}
	p := InclusionProof{LeafIndex: index, TreeSize: cp.Size, LeafHash: tlog.LeafHash(h[:]), RootHash: cp.Hash, Proof: prf}
	if err := p.Verify(); err != nil {
		return InclusionProof{}, sanad.Wrap(err, sanad.CodeIntegrity, op, fmt.Sprintf("stored tree does not prove event %s: %v", h, err))
	}
	return p, nil
}

// ConsistencyProof returns the proof that the log of size1 leaves is a prefix
// of the log of size2 leaves.
func (l *Ledger) ConsistencyProof(ctx context.Context, size1, size2 uint64) ([][]byte, error) {
	return l.prover.Consistency(ctx, size1, size2)
}

// Replay calls fn with each event of trace in order. It checks that the
// events decode, hash, chain and are signed as filed; signatures are checked
// by [Ledger.Verify].
func (l *Ledger) Replay(ctx context.Context, trace string, fn func(*Event) error) error {
	const op = "ledger.replay"
	var prev canon.Digest
	var seq uint64
	buf := make([]byte, 0, 1024)
	err := l.cfg.Store.ReadTrace(ctx, trace, 0, func(s Stored) error {
		ev, err := Decode(s.Raw)
		if err != nil {
			return &VerifyError{Trace: trace, Seq: seq + 1, Reason: err.Error()}
		}
		if err := s.Check(ev); err != nil {
			return err
		}
		var h canon.Digest
		h, buf = ev.computeHash(buf)
		switch {
		case h != ev.Hash:
			return &VerifyError{Trace: trace, Seq: ev.Seq, Reason: "event hash does not match its content"}
		case ev.Seq != seq+1:
			return &VerifyError{Trace: trace, Seq: ev.Seq, Reason: fmt.Sprintf("seq %d follows %d", ev.Seq, seq)}
		case ev.Prev != prev:
			return &VerifyError{Trace: trace, Seq: ev.Seq, Reason: "prev does not match the hash of the event before"}
		}
		seq, prev = ev.Seq, ev.Hash
		return fn(ev)
	})
	if err != nil {
		return err
	}
	if seq == 0 {
		return sanad.Errorf(sanad.CodeNotFound, op, "trace %q has no events", trace)
	}
	return nil
}

// Events returns the events of trace, in order (see [Ledger.Replay]).
func (l *Ledger) Events(ctx context.Context, trace string) ([]*Event, error) {
	var out []*Event
	err := l.Replay(ctx, trace, func(e *Event) error { out = append(out, e); return nil })
	return out, err
}
