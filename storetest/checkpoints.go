package storetest

import (
	"bytes"
	"testing"

	"github.com/sanadhq/sanad/tlog"
)

// testCheckpoints: checkpoint notes come back in increasing size whatever the
// order they were saved in; saving a size twice keeps the first note.
func testCheckpoints(t *testing.T, open Open) {
	ctx := t.Context()
	s := open(t)
	got, err := s.Checkpoints(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("Checkpoints of an empty store: got (%q, %v), want none", got, err)
	}
	saves := []struct {
		size uint64
		note string
	}{
		{3, "three"}, {1, "one"}, {10, "ten"}, {2, "two"}, {3, "three again"}, {0, "zero"}, {10, "ten again"},
	}
	for _, c := range saves {
		if err := s.SaveCheckpoint(ctx, c.size, []byte(c.note)); err != nil {
			t.Fatalf("SaveCheckpoint(%d, %q): %v", c.size, c.note, err)
		}
	}
	want := []string{"zero", "one", "two", "three", "ten"}
	got, err = s.Checkpoints(ctx)
	if err != nil {
		t.Fatalf("Checkpoints: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("Checkpoints: got %q, want %q", got, want)
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Fatalf("Checkpoints: got %q, want %q", got, want)
		}
	}
}

// testLedgerCheckpoints: checkpoints a ledger issues are stored, reissued
// only when the log grows, consistent with each other, and pass Verify.
func testLedgerCheckpoints(t *testing.T, open Open) {
	ctx := t.Context()
	e := newEnv(t, open)
	l := e.ledger(t, e.s)
	appendPattern(t, ctx, l, []string{"c1", "c2"}, 5)
	note1, cp1, err := l.Checkpoint(ctx)
	if err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	if cp1.Size != e.base+5 || cp1.Origin != Origin {
		t.Fatalf("Checkpoint: got size %d origin %q, want %d %q", cp1.Size, cp1.Origin, e.base+5, Origin)
	}
	again, _, err := l.Checkpoint(ctx)
	if err != nil || !bytes.Equal(again, note1) {
		t.Fatalf("Checkpoint of an unchanged log: got (%q, %v), want the stored note %q", again, err, note1)
	}
	appendPattern(t, ctx, l, []string{"c3"}, 3)
	_, cp2, err := l.Checkpoint(ctx)
	if err != nil || cp2.Size != e.base+8 {
		t.Fatalf("Checkpoint after growth: got (size %d, %v), want size %d", cp2.Size, err, e.base+8)
	}
	notes, err := e.s.Checkpoints(ctx)
	if err != nil || len(notes) != 2 {
		t.Fatalf("Checkpoints: got (%d notes, %v), want 2", len(notes), err)
	}
	v, err := l.Verifier()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []tlog.Checkpoint{cp1, cp2} {
		got, err := tlog.Open(notes[i], v)
		if err != nil || !got.Equal(want) {
			t.Fatalf("stored checkpoint %d: got (%+v, %v), want %+v", i, got, err, want)
		}
	}
	prf, err := l.ConsistencyProof(ctx, cp1.Size, cp2.Size)
	if err == nil {
		err = tlog.VerifyConsistency(cp1.Size, cp2.Size, prf, cp1.Hash, cp2.Hash)
	}
	if err != nil {
		t.Fatalf("consistency of the two checkpoints: %v", err)
	}
	if rep := verifyLog(t, ctx, l); rep.Checkpoints != 2 || rep.TreeSize != e.base+8 {
		t.Fatalf("Verify: got %d checkpoints, size %d; want 2, %d", rep.Checkpoints, rep.TreeSize, e.base+8)
	}
	for _, tr := range []string{"c1", "c2", "c3"} {
		if _, err := l.Verify(ctx, tr); err != nil {
			t.Fatalf("Verify(%s): %v", tr, err)
		}
	}
}
