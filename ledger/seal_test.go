package ledger

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"testing"
)

// TestSealMatchesCanonical: the sealed encoding seal lays out from the hash
// preimage, once setSig fills in the signature, is byte for byte the
// canonical encoding of the signed event, and the hash is that of the
// preimage, for events with and without each optional field.
func TestSealMatchesCanonical(t *testing.T) {
	full := benchEvent()
	variants := map[string]*Event{"full": full}
	bare := *full
	bare.Parent, bare.Root, bare.Run, bare.Refs, bare.Actor.Role = "", "", "", nil, ""
	variants["bare"] = &bare
	escaped := *full
	escaped.Actor.Agent, escaped.Trace = "agent \"q\" \\ é \u2028", "t\u00e9\n"
	variants["escaped"] = &escaped
	for name, ev := range variants {
		t.Run(name, func(t *testing.T) {
			ev := *ev
			ev.Hash, ev.Sig, ev.raw = [32]byte{}, nil, nil
			ev.seal(nil)
			if want, _ := ev.computeHash(nil); ev.Hash != want {
				t.Fatalf("hash %s, want %s", ev.Hash, want)
			}
			if ev.Canonical() != nil {
				t.Fatal("an event waiting for its signature has canonical bytes")
			}
			_, priv, _ := ed25519.GenerateKey(rand.Reader)
			ev.setSig(ed25519.Sign(priv, SigningMessage(ev.Hash)))
			if want := ev.appendCanonical(nil, true); !bytes.Equal(ev.Canonical(), want) {
				t.Fatalf("sealed\n%s\nwant\n%s", ev.Canonical(), want)
			}
			if len(ev.Canonical()) != cap(ev.Canonical()) {
				t.Fatalf("sealed encoding has %d bytes in a buffer of %d", len(ev.Canonical()), cap(ev.Canonical()))
			}
			if _, err := Decode(ev.Canonical()); err != nil {
				t.Fatal(err)
			}
		})
	}
}
