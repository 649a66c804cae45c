package ledger

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
)

// benchEvent is a run.completed event as the recorder writes it: an agent's
// signature, two output artifacts, a response hash.
func benchEvent() *Event {
	scope := sanad.Scope{Tenant: "acme", Case: "case-7"}
	ref := sanad.ArtifactRef{ID: "sha256:" + hex64, SHA256: hex64, MediaType: "application/json", SizeBytes: 1834,
		URI: "artifacts/sha256/" + hex64, Scope: scope, CreatedByRun: "r019a2b3c4d5e6f708192a3b4c5"}
	return &Event{
		V: Version, Trace: "r019a2b3c4d5e6f708192a3b4c0", Seq: 417, Type: "run.completed",
		Run: "r019a2b3c4d5e6f708192a3b4c5", Parent: "r019a2b3c4d5e6f708192a3b4c0", Root: "r019a2b3c4d5e6f708192a3b4c0",
		Actor: Actor{Agent: "mapping-agent", Role: "mapping", Key: "ed25519:0123456789abcdef"},
		Scope: scope, Time: time.Date(2025, 3, 1, 12, 30, 45, 123456789, time.UTC),
		Body: json.RawMessage(`{"outcome":"success","outputs":[{"artifact_id":"sha256:` + hex64 + `","media_type":"application/json","scope":{"case":"case-7","tenant":"acme"},"sha256":"` + hex64 + `","size_bytes":1834}],"response_hash":"sha256:` + hex64 + `","status":"completed"}`),
		Refs: []sanad.ArtifactRef{ref, ref},
		Sig:  make([]byte, 64),
	}
}

const hex64 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

// BenchmarkCanonicalEncode measures what sealing and checking an event costs
// besides the signature: its canonical encoding and SHA-256 (the event hash),
// the sealed encoding, and strict decoding of the sealed bytes.
func BenchmarkCanonicalEncode(b *testing.B) {
	ev := benchEvent()
	buf := make([]byte, 0, 2048)
	b.Run("hash", func(b *testing.B) {
		for b.Loop() {
			ev.Hash, buf = ev.computeHash(buf)
		}
		b.SetBytes(int64(len(buf)))
	})
	b.Run("seal", func(b *testing.B) {
		for b.Loop() {
			buf = ev.appendCanonical(buf[:0], true)
		}
		b.SetBytes(int64(len(buf)))
	})
	ev.Hash, _ = ev.computeHash(nil)
	raw := ev.appendCanonical(nil, true)
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := Decode(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}
