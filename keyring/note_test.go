package keyring_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/internal/sigtest"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledgertest"
	"golang.org/x/mod/sumdb/note"
)

// TestNoteSignerRoundTrip: a note signed with a key's NoteSigner opens with
// golang.org/x/mod/sumdb/note and the key's verifier key text, and not with
// another key's or after a change.
func TestNoteSignerRoundTrip(t *testing.T) {
	kr := open(t, t.TempDir())
	k := key(t, kr, "sanad-log")
	const name = "example.com/log"
	signer, err := k.NoteSigner(name)
	if err != nil {
		t.Fatalf("NoteSigner: %v", err)
	}
	msg, err := note.Sign(&note.Note{Text: "hello\nworld\n"}, signer)
	if err != nil {
		t.Fatalf("note.Sign: %v", err)
	}
	vkey, err := k.NoteVerifierKey(name)
	if err != nil {
		t.Fatalf("NoteVerifierKey: %v", err)
	}
	if !strings.HasPrefix(vkey, name+"+") {
		t.Errorf("NoteVerifierKey: got %q, want it to start with %q", vkey, name+"+")
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		t.Fatalf("note.NewVerifier(%q): %v", vkey, err)
	}
	if v.Name() != name || v.KeyHash() != signer.KeyHash() {
		t.Errorf("verifier: got name %q hash %08x, want %q %08x", v.Name(), v.KeyHash(), name, signer.KeyHash())
	}
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil || n.Text != "hello\nworld\n" {
		t.Fatalf("note.Open: got %v, %v; want the text", n, err)
	}
	if _, err := note.Open(bytes.Replace(msg, []byte("world"), []byte("World"), 1), note.VerifierList(v)); err == nil {
		t.Error("note.Open of a changed note: got nil, want an error")
	}
	_, otherV, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		t.Fatal(err)
	}
	ov, err := note.NewVerifier(otherV)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := note.Open(msg, note.VerifierList(ov)); err == nil {
		t.Error("note.Open with another key of the same name: got nil, want an error")
	}
}

// TestCheckpointVerifiesWithNote: a checkpoint the ledger issues is a C2SP
// tlog-checkpoint signed note that golang.org/x/mod/sumdb/note opens with the
// ledger's verifier key alone, and says the log's origin, size and root.
func TestCheckpointVerifiesWithNote(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	ledgertest.Record(t, h, 30)
	signed, cp, err := h.Ledger.Checkpoint(ctx)
	if err != nil {
		t.Fatalf("Checkpoint: got error %v, want nil", err)
	}
	vkey, err := h.Ledger.VerifierKey()
	if err != nil {
		t.Fatalf("VerifierKey: %v", err)
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		t.Fatalf("note.NewVerifier(%q): %v", vkey, err)
	}
	n, err := note.Open(signed, note.VerifierList(v))
	if err != nil {
		t.Fatalf("note.Open: got error %v, want nil", err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "" {
		t.Fatalf("checkpoint text: got %q, want origin, size and root lines", n.Text)
	}
	size, err := strconv.ParseUint(lines[1], 10, 64)
	if err != nil {
		t.Fatalf("checkpoint size line %q: %v", lines[1], err)
	}
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil {
		t.Fatalf("checkpoint root line %q: %v", lines[2], err)
	}
	tree, err := h.DB.TreeSize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if lines[0] != h.Ledger.Origin() || lines[0] != v.Name() || size != tree || size != cp.Size || !bytes.Equal(root, cp.Hash) || len(root) != 32 {
		t.Errorf("checkpoint: got origin %q size %d root %x; want origin %q (the verifier's %q), size %d, root %x",
			lines[0], size, root, h.Ledger.Origin(), v.Name(), tree, cp.Hash)
	}
	if len(n.Sigs) != 1 || n.Sigs[0].Name != v.Name() || n.Sigs[0].Hash != v.KeyHash() {
		t.Errorf("signatures: got %+v, want one by %s %08x", n.Sigs, v.Name(), v.KeyHash())
	}
	// The same log key, asked again without new events, gives the same note.
	again, _, err := h.Ledger.Checkpoint(ctx)
	if err != nil || !bytes.Equal(again, signed) {
		t.Errorf("Checkpoint again: got %q, %v; want the stored note", again, err)
	}
	// A changed size, or another home's key, does not verify.
	forged := bytes.Replace(signed, []byte("\n"+lines[1]+"\n"), []byte("\n"+strconv.FormatUint(size+1, 10)+"\n"), 1)
	if _, err := note.Open(forged, note.VerifierList(v)); err == nil {
		t.Error("note.Open of a checkpoint with a changed size: got nil, want an error")
	}
	other := ledgertest.Home(t)
	ov, err := other.Ledger.Verifier()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := note.Open(signed, note.VerifierList(ov)); err == nil {
		t.Error("note.Open with another home's log key: got nil, want an error")
	}
}

// craftedSigner signs notes with signatures that only the cofactored
// equation accepts.
type craftedSigner struct {
	note.Signer
	priv ed25519.PrivateKey
}

func (s craftedSigner) Sign(msg []byte) ([]byte, error) { return sigtest.MixedR(s.priv, msg), nil }

// Finding 7: signed notes are checked by the rule events are: a note
// signed as sanad signs opens with NewNoteVerifier and with
// golang.org/x/mod/sumdb/note's verifier alike; one whose signature only
// ZIP-215 accepts opens with NewNoteVerifier alone. NewNoteVerifier reads
// the verifier keys note.NewVerifier reads, and refuses the others.
func TestIntegrity7_NotesFollowTheRule(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k := keyring.NewKey("sanad-log", priv)
	const name = "sanad.log/test"
	vkey, err := k.NoteVerifierKey(name)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := keyring.NewNoteVerifier(vkey)
	if err != nil {
		t.Fatalf("NewNoteVerifier(%q): %v", vkey, err)
	}
	std, err := note.NewVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	if ours.Name() != std.Name() || ours.KeyHash() != std.KeyHash() {
		t.Fatalf("NewNoteVerifier: %s %08x, note.NewVerifier %s %08x", ours.Name(), ours.KeyHash(), std.Name(), std.KeyHash())
	}
	signer, err := k.NoteSigner(name)
	if err != nil {
		t.Fatal(err)
	}
	text := "sanad.log/test\n3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"
	honest, err := note.Sign(&note.Note{Text: text}, signer)
	if err != nil {
		t.Fatal(err)
	}
	crafted, err := note.Sign(&note.Note{Text: text}, craftedSigner{signer, priv})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what      string
		msg       []byte
		v         note.Verifier
		wantValid bool
	}{
		{"a note signed by sanad, ZIP-215", honest, ours, true},
		{"a note signed by sanad, crypto/ed25519", honest, std, true},
		{"a crafted note, ZIP-215", crafted, ours, true},
		{"a crafted note, crypto/ed25519", crafted, std, false},
		{"a changed note, ZIP-215", bytes.Replace(honest, []byte("\n3\n"), []byte("\n4\n"), 1), ours, false},
	} {
		_, err := note.Open(tc.msg, note.VerifierList(tc.v))
		if (err == nil) != tc.wantValid {
			t.Errorf("%s: note.Open error %v, want valid %v", tc.what, err, tc.wantValid)
		}
	}
	for range 64 { // base64 keys with '+' and '/' among them
		_, vk, err := note.GenerateKey(rand.Reader, name)
		if err != nil {
			t.Fatal(err)
		}
		v, err := keyring.NewNoteVerifier(vk)
		if err != nil || v.Name() != name {
			t.Fatalf("NewNoteVerifier(%q): %v", vk, err)
		}
	}
	_, otherKey, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", name, name + "+00000000+AQ==", vkey[:len(vkey)-4], strings.Replace(vkey, "+", "+0", 1), otherKey} {
		_, errStd := note.NewVerifier(bad)
		_, errOurs := keyring.NewNoteVerifier(bad)
		if (errStd == nil) != (errOurs == nil) {
			t.Errorf("verifier key %q: note.NewVerifier error %v, NewNoteVerifier error %v", bad, errStd, errOurs)
		}
	}
}
