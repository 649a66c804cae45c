package keyring

import (
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
// note.NewVerifier reads it.
func (k *Key) NoteVerifierKey(name string) (string, error) {
	return note.NewEd25519VerifierKey(name, k.Public)
}

// NoteVerifier returns the signed-note verifier for k under name.
func (k *Key) NoteVerifier(name string) (note.Verifier, error) {
	vkey, err := k.NoteVerifierKey(name)
	if err != nil {
		return nil, err
	}
	return note.NewVerifier(vkey)
}

type noteSigner struct {
	name string
	hash uint32
	key  *Key
}

func (s *noteSigner) Name() string                    { return s.name }
func (s *noteSigner) KeyHash() uint32                 { return s.hash }
func (s *noteSigner) Sign(msg []byte) ([]byte, error) { return s.key.Sign(msg), nil }
