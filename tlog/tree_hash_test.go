package tlog

import (
	"bytes"
	"testing"

	"github.com/transparency-dev/merkle/rfc6962"
)

// FuzzHashesMatchRFC6962: LeafHash and HashChildren give
// rfc6962.DefaultHasher's hashes for inputs of any size.
func FuzzHashesMatchRFC6962(f *testing.F) {
	f.Add([]byte{}, []byte{})
	f.Add(bytes.Repeat([]byte{7}, 32), bytes.Repeat([]byte{9}, 32))
	f.Add(bytes.Repeat([]byte{7}, 40), []byte("x"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if got, want := LeafHash(a), rfc6962.DefaultHasher.HashLeaf(a); !bytes.Equal(got, want) {
			t.Fatalf("LeafHash(%x) = %x, want %x", a, got, want)
		}
		if got, want := HashChildren(a, b), rfc6962.DefaultHasher.HashChildren(a, b); !bytes.Equal(got, want) {
			t.Fatalf("HashChildren(%x, %x) = %x, want %x", a, b, got, want)
		}
	})
}
