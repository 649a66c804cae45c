// Package canon turns values into RFC 8785 canonical JSON (JCS) and hashes
// them. Everything sanad signs or compares by hash goes through here, so two
// parties that agree on a value agree on its bytes.
package canon

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// ErrNotCanonical is returned by [Check] for JSON that is valid but not in
// canonical form.
var ErrNotCanonical = errors.New("canon: json is not in RFC 8785 canonical form")

// Transform returns the canonical form of the JSON document raw.
func Transform(raw []byte) ([]byte, error) {
	return AppendTransform(make([]byte, 0, len(raw)), raw)
}

// Marshal returns the canonical JSON encoding of v: encoding/json's encoding
// (struct tags apply), then RFC 8785 key ordering, number and string forms.
// See [AppendMarshal].
func Marshal(v any) ([]byte, error) {
	return AppendMarshal(nil, v)
}

// Check reports whether raw is already canonical: nil if so, ErrNotCanonical
// if it is valid JSON in another form, or the parse error.
func Check(raw []byte) error {
	c, err := Transform(raw)
	if err != nil {
		return err
	}
	if !bytes.Equal(c, raw) {
		return ErrNotCanonical
	}
	return nil
}

// Digest is a SHA-256 content hash. Its text form is "sha256:" followed by 64
// lower-case hex digits.
type Digest [sha256.Size]byte

// Sum returns the digest of b.
func Sum(b []byte) Digest { return sha256.Sum256(b) }

// Hash returns the digest of the canonical JSON of v.
func Hash(v any) (Digest, error) {
	b, err := Marshal(v)
	if err != nil {
		return Digest{}, err
	}
	return Sum(b), nil
}

const digestPrefix = "sha256:"

// String returns "sha256:<hex>".
func (d Digest) String() string {
	b := make([]byte, 0, len(digestPrefix)+2*len(d))
	return string(d.AppendText(b))
}

// Hex returns the 64 hex digits of d.
func (d Digest) Hex() string { return hex.EncodeToString(d[:]) }

// IsZero reports whether d is the zero digest (no hash).
func (d Digest) IsZero() bool { return d == Digest{} }

// AppendText appends "sha256:<hex>" to b.
func (d Digest) AppendText(b []byte) []byte {
	b = append(b, digestPrefix...)
	return hex.AppendEncode(b, d[:])
}

// MarshalText implements encoding.TextMarshaler.
func (d Digest) MarshalText() ([]byte, error) { return d.AppendText(nil), nil }

// UnmarshalText implements encoding.TextUnmarshaler; it accepts only the
// exact form written by MarshalText.
func (d *Digest) UnmarshalText(b []byte) error {
	p, err := ParseDigest(string(b))
	if err != nil {
		return err
	}
	*d = p
	return nil
}

// ParseDigest parses "sha256:<64 lower-case hex digits>".
func ParseDigest(s string) (Digest, error) {
	var d Digest
	if len(s) != len(digestPrefix)+2*len(d) || s[:len(digestPrefix)] != digestPrefix {
		return d, fmt.Errorf("canon: %q is not a sha256:<hex> digest", truncate(s))
	}
	h := s[len(digestPrefix):]
	for i := 0; i < len(h); i++ {
		if c := h[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return d, fmt.Errorf("canon: %q is not a sha256:<hex> digest", truncate(s))
		}
	}
	if _, err := hex.Decode(d[:], []byte(h)); err != nil {
		return d, fmt.Errorf("canon: %w", err)
	}
	return d, nil
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
