package keyring

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// NoteSigner returns a signed-note signer (C2SP signed-note) named name that
// signs with k. Checkpoints are signed with it.
func (k *Key) NoteSigner(name string) (note.Signer, error) {
	v, err := k.NoteVerifier(name)
	if err != nil {
		return nil, err
	}
	return &noteSigner{name: name, hash: v.KeyHash(), key: k}, nil
}

// NoteVerifierKey returns the verifier key text, "<name>+<hash>+<base64>", as
// note.NewVerifier and [NewNoteVerifier] read it.
func (k *Key) NoteVerifierKey(name string) (string, error) {
	return note.NewEd25519VerifierKey(name, k.Public)
}

// NoteVerifier returns the signed-note verifier for k under name
// ([NewNoteVerifier]).
func (k *Key) NoteVerifier(name string) (note.Verifier, error) {
	vkey, err := k.NoteVerifierKey(name)
	if err != nil {
		return nil, err
	}
	return NewNoteVerifier(vkey)
}

// NewNoteVerifier reads an Ed25519 verifier key, "<name>+<hash>+<base64>",
// as note.NewVerifier reads it (and refuses what it refuses), and returns a
// verifier that checks signatures as sanad checks every signature: by
// [Verify], the ZIP-215 rule (see the package documentation). Checkpoints
// and bundle heads are opened with it. The C2SP signed-note format says an
// Ed25519 note signature is made as RFC 8032 makes it and leaves the
// verification equation to the verifier, as RFC 8032 does; note.NewVerifier
// checks by crypto/ed25519's rule, which accepts a subset of what this
// verifier accepts and every note sanad signs.
func NewNoteVerifier(vkey string) (note.Verifier, error) {
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, err
	}
	// note.NewVerifier has checked the form (a name without '+', '+', eight
	// hex digits, '+', base64 that may hold '+'), the hash and the
	// algorithm byte (1, Ed25519): the key is the 32 bytes after it.
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 {
		return nil, errors.New("keyring: malformed verifier key")
	}
	key, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(key) != 1+ed25519.PublicKeySize || key[0] != 1 {
		return nil, errors.New("keyring: malformed Ed25519 verifier key")
	}
	return &noteVerifier{name: v.Name(), hash: v.KeyHash(), pub: ed25519.PublicKey(key[1:])}, nil
}

type noteSigner struct {
	name string
	hash uint32
	key  *Key
}

func (s *noteSigner) Name() string                    { return s.name }
func (s *noteSigner) KeyHash() uint32                 { return s.hash }
func (s *noteSigner) Sign(msg []byte) ([]byte, error) { return s.key.Sign(msg), nil }

type noteVerifier struct {
	name string
	hash uint32
	pub  ed25519.PublicKey
}

func (v *noteVerifier) Name() string                { return v.name }
func (v *noteVerifier) KeyHash() uint32             { return v.hash }
func (v *noteVerifier) Verify(msg, sig []byte) bool { return Verify(v.pub, msg, sig) }
