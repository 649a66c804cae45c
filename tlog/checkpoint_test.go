package tlog_test

import (
	"bytes"
	"crypto/rand"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/sanadhq/sanad/tlog"
)

func TestCheckpointSignOpen(t *testing.T) {
	skey, vkey, err := note.GenerateKey(rand.Reader, "example.log/1")
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := note.NewSigner(skey)
	verifier, _ := note.NewVerifier(vkey)
	cp := tlog.Checkpoint{Origin: "example.log/1", Size: 3, Hash: bytes.Repeat([]byte{7}, 32)}
	signed, err := tlog.Sign(cp, signer)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tlog.Open(signed, verifier)
	if err != nil || !got.Equal(cp) {
		t.Fatalf("Open: got %+v, %v; want %+v", got, err, cp)
	}
	if _, err := tlog.Sign(tlog.Checkpoint{Origin: "other", Size: 1, Hash: cp.Hash}, signer); err == nil {
		t.Fatal("Sign with an origin other than the key's name: got nil error, want an error")
	}
	tampered := bytes.Replace(signed, []byte("\n3\n"), []byte("\n4\n"), 1)
	if _, err := tlog.Open(tampered, verifier); err == nil {
		t.Fatal("Open of a checkpoint with a changed size: got nil error, want an error")
	}
}

// A signed checkpoint changed in the padding bits of its signature's last
// base64 character holds the same signature bytes, which the note package
// decodes leniently: Open refuses it, so that no byte of a stored checkpoint
// can change unnoticed.
func TestCheckpointOpenRefusesNonCanonicalSignature(t *testing.T) {
	skey, vkey, err := note.GenerateKey(rand.Reader, "example.log/1")
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := note.NewSigner(skey)
	verifier, _ := note.NewVerifier(vkey)
	signed, err := tlog.Sign(tlog.Checkpoint{Origin: "example.log/1", Size: 3, Hash: bytes.Repeat([]byte{7}, 32)}, signer)
	if err != nil {
		t.Fatal(err)
	}
	last := len(signed) - 3 // the signature's last character, before "=\n"
	if signed[last+1] != '=' {
		t.Fatalf("the signature line %q does not end in one padding character", signed)
	}
	for m := 1; m < 256; m++ {
		b := bytes.Clone(signed)
		b[last] ^= byte(m)
		if _, err := tlog.Open(b, verifier); err == nil {
			t.Errorf("Open with the signature's last character %q changed to %q: got nil error, want an error", signed[last], b[last])
		}
	}
}

func FuzzParseCheckpoint(f *testing.F) {
	f.Add([]byte("example.log/1\n3\nBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=\n"))
	f.Add([]byte("example.log/1\n3\nBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=\next\n"))
	f.Add([]byte("o\n01\nAA==\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, text []byte) {
		cp, err := tlog.ParseCheckpoint(text)
		if err != nil {
			return
		}
		again, err := tlog.ParseCheckpoint(cp.Marshal())
		if err != nil || !again.Equal(cp) {
			t.Fatalf("a parsed checkpoint does not round-trip: %+v, %v", cp, err)
		}
	})
}
