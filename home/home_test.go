package home_test

import (
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
)

// One writer at a time: a home open for writing is Locked, a second Open is
// UNAVAILABLE, and Close releases it. A read-only Open takes no lock.
func TestWriterLock(t *testing.T) {
	dir := t.TempDir()
	locked := func() bool {
		t.Helper()
		l, err := home.Locked(dir)
		if err != nil {
			t.Fatalf("Locked: %v", err)
		}
		return l
	}
	if locked() {
		t.Errorf("Locked before any Open: got true, want false")
	}
	h, err := home.Open(t.Context(), home.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !locked() {
		t.Errorf("Locked while open: got false, want true")
	}
	if _, err := home.Open(t.Context(), home.Config{Dir: dir}); sanad.ErrorCode(err) != sanad.CodeUnavailable {
		t.Errorf("second Open: got %v, want %s", err, sanad.CodeUnavailable)
	}
	ro, err := home.Open(t.Context(), home.Config{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only Open while open for writing: %v", err)
	}
	ro.Close()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if locked() {
		t.Errorf("Locked after Close: got true, want false")
	}
	h, err = home.Open(t.Context(), home.Config{Dir: dir})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	h.Close()
}
