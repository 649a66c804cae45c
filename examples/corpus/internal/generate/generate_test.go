package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCommitted checks that the documents in examples/corpus are what the
// generator writes: regenerating gives the same bytes.
func TestCommitted(t *testing.T) {
	for name, want := range files() {
		t.Run(name, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join("..", "..", name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from what the generator writes (%d bytes, want %d): run go run ./examples/corpus/internal/generate", name, len(got), len(want))
			}
		})
	}
}

// TestDeterministic checks that two runs of the generator agree.
func TestDeterministic(t *testing.T) {
	a, b := files(), files()
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s: two runs give different bytes", name)
		}
	}
}
