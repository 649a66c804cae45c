package tlog

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// Checkpoint is the body of a C2SP tlog-checkpoint: the log's origin, its
// size and its root hash.
type Checkpoint struct {
	Origin string
	Size   uint64
	Hash   []byte
}

// Marshal returns the checkpoint body: three lines, origin, decimal size and
// base64 root hash, each ending in a newline.
func (c Checkpoint) Marshal() []byte {
	return fmt.Appendf(nil, "%s\n%d\n%s\n", c.Origin, c.Size, base64.StdEncoding.EncodeToString(c.Hash))
}

// ErrCheckpoint reports a malformed checkpoint body.
var ErrCheckpoint = errors.New("tlog: malformed checkpoint")

// ParseCheckpoint parses a checkpoint body. Extension lines after the third
// are allowed by the format and ignored.
func ParseCheckpoint(text []byte) (Checkpoint, error) {
	lines := strings.SplitAfter(string(text), "\n")
	if len(lines) < 4 || !strings.HasSuffix(string(text), "\n") {
		return Checkpoint{}, fmt.Errorf("%w: want origin, size and hash lines", ErrCheckpoint)
	}
	origin := strings.TrimSuffix(lines[0], "\n")
	sizeText := strings.TrimSuffix(lines[1], "\n")
	hashText := strings.TrimSuffix(lines[2], "\n")
	if origin == "" {
		return Checkpoint{}, fmt.Errorf("%w: empty origin", ErrCheckpoint)
	}
	size, err := strconv.ParseUint(sizeText, 10, 64)
	if err != nil || strconv.FormatUint(size, 10) != sizeText {
		return Checkpoint{}, fmt.Errorf("%w: size %q", ErrCheckpoint, sizeText)
	}
	hash, err := base64.StdEncoding.Strict().DecodeString(hashText)
	if err != nil || len(hash) != HashSize {
		return Checkpoint{}, fmt.Errorf("%w: root hash %q", ErrCheckpoint, hashText)
	}
	return Checkpoint{Origin: origin, Size: size, Hash: hash}, nil
}

// Sign returns the signed note of c.
func Sign(c Checkpoint, signer note.Signer) ([]byte, error) {
	if signer.Name() != c.Origin {
		return nil, fmt.Errorf("tlog: signer %q does not match origin %q", signer.Name(), c.Origin)
	}
	return note.Sign(&note.Note{Text: string(c.Marshal())}, signer)
}

// Open verifies a signed checkpoint note with verifier and parses it. The
// note must carry a valid signature by verifier, whose name must be the origin,
// and be opened as [OpenNote] opens it.
func Open(signed []byte, verifier note.Verifier) (Checkpoint, error) {
	n, err := OpenNote(signed, verifier)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("tlog: checkpoint signature: %w", err)
	}
	c, err := ParseCheckpoint([]byte(n.Text))
	if err != nil {
		return Checkpoint{}, err
	}
	if c.Origin != verifier.Name() {
		return Checkpoint{}, fmt.Errorf("%w: origin %q signed by key %q", ErrCheckpoint, c.Origin, verifier.Name())
	}
	return c, nil
}

// OpenNote verifies a signed note with verifier, as note.Open does, and
// requires each of its signatures in strict base64: the note package decodes
// them leniently, so that a note whose last signature character was changed
// in its padding bits would otherwise still open, the same note in other
// bytes.
func OpenNote(signed []byte, verifier note.Verifier) (*note.Note, error) {
	n, err := note.Open(signed, note.VerifierList(verifier))
	if err != nil {
		return nil, err
	}
	for _, sig := range append(n.Sigs, n.UnverifiedSigs...) {
		if _, err := base64.StdEncoding.Strict().DecodeString(sig.Base64); err != nil {
			return nil, fmt.Errorf("the signature of %s is not in strict base64", sig.Name)
		}
	}
	return n, nil
}

// Equal reports whether two checkpoints state the same tree.
func (c Checkpoint) Equal(o Checkpoint) bool {
	return c.Origin == o.Origin && c.Size == o.Size && bytes.Equal(c.Hash, o.Hash)
}
