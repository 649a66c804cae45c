package tlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// Checkpoint is the body of a C2SP tlog-checkpoint: the log's origin, its
// size and its root hash, and, in an extension line, the hash of the
// checkpoint the log signed before it.
type Checkpoint struct {
	Origin string
	Size   uint64
	Hash   []byte
	// Prev is the SHA-256 of the signed note of the log's previous
	// checkpoint, nil for its first: the checkpoints a log signs form a
	// chain, so that one removed from its store is missed by the next.
	Prev []byte
}

// prevPrefix starts the extension line that holds Prev.
const prevPrefix = "prev "

// Marshal returns the checkpoint body: three lines, origin, decimal size and
// base64 root hash, then, when Prev is set, the extension line "prev
// <base64 SHA-256>", each ending in a newline.
func (c Checkpoint) Marshal() []byte {
	b := fmt.Appendf(nil, "%s\n%d\n%s\n", c.Origin, c.Size, base64.StdEncoding.EncodeToString(c.Hash))
	if c.Prev != nil {
		b = fmt.Appendf(b, "%s%s\n", prevPrefix, base64.StdEncoding.EncodeToString(c.Prev))
	}
	return b
}

// NoteHash is what a checkpoint's Prev holds of the one before it: the
// SHA-256 of its signed note.
func NoteHash(signed []byte) []byte {
	sum := sha256.Sum256(signed)
	return sum[:]
}

// ErrCheckpoint reports a malformed checkpoint body.
var ErrCheckpoint = errors.New("tlog: malformed checkpoint")

// ParseCheckpoint parses a checkpoint body. Extension lines after the third
// are allowed by the format; a "prev" line sets Prev, others are ignored.
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
	c := Checkpoint{Origin: origin, Size: size, Hash: hash}
	for _, line := range lines[3:] {
		text, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), prevPrefix)
		if !ok {
			continue
		}
		prev, err := base64.StdEncoding.Strict().DecodeString(text)
		if err != nil || len(prev) != sha256.Size || c.Prev != nil {
			return Checkpoint{}, fmt.Errorf("%w: prev line %q", ErrCheckpoint, text)
		}
		c.Prev = prev
	}
	return c, nil
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
	return c.Origin == o.Origin && c.Size == o.Size && bytes.Equal(c.Hash, o.Hash) && bytes.Equal(c.Prev, o.Prev)
}
