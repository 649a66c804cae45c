package tlog

import (
	"bytes"
	"errors"
	"testing"
)

// TestCheckpointPrevLine round-trips the extension line that chains a
// checkpoint to the one before it, and refuses a malformed or repeated one.
func TestCheckpointPrevLine(t *testing.T) {
	c := Checkpoint{Origin: "sanad.log/x", Size: 7, Hash: bytes.Repeat([]byte{1}, HashSize), Prev: NoteHash([]byte("earlier note"))}
	got, err := ParseCheckpoint(c.Marshal())
	if err != nil || !got.Equal(c) {
		t.Fatalf("round trip: got %+v, %v", got, err)
	}
	first := Checkpoint{Origin: c.Origin, Size: 1, Hash: c.Hash}
	if got, err := ParseCheckpoint(first.Marshal()); err != nil || got.Prev != nil {
		t.Fatalf("a first checkpoint: got %+v, %v", got, err)
	}
	for _, bad := range []string{"prev !!\n", "prev AAAA\n", string(c.Marshal()[len(first.Marshal()):])} {
		text := append(c.Marshal(), bad...)
		if _, err := ParseCheckpoint(text); !errors.Is(err, ErrCheckpoint) {
			t.Errorf("extra line %q: got %v, want ErrCheckpoint", bad, err)
		}
	}
}
