package tlog

import (
	"bytes"
	"errors"
	"math/bits"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzVerifySubtreeInclusion(f *testing.F) {
	for _, v := range seedVectors[subtreeInclusionVector](f, "subtreeinclusion", "errors/") {
		f.Add(v.LeafIdx, v.Start, v.End, v.LeafHash, bytes.Join(v.Proof, nil), v.Root)
	}
	f.Fuzz(func(t *testing.T, index, start, end uint64, leafHash, proof, subtreeRoot []byte) {
		err := VerifySubtreeInclusion(index, start, end, leafHash, splitHashes(proof), subtreeRoot)
		checkKnownError(t, err)
	})
}

func FuzzVerifySubtreeConsistency(f *testing.F) {
	for _, v := range seedVectors[subtreeConsistencyVector](f, "subtreeconsistency", "additional/") {
		f.Add(v.Start, v.End, v.Size, bytes.Join(v.Proof, nil), v.Root1, v.Root2)
	}
	f.Fuzz(func(t *testing.T, start, end, size uint64, proof, subtreeRoot, treeRoot []byte) {
		err := VerifySubtreeConsistency(start, end, size, splitHashes(proof), subtreeRoot, treeRoot)
		checkKnownError(t, err)
	})
}

// TestSubtreeRoundTrip checks both verifiers against proofs built from the
// draft's definitions for every subtree of trees up to 33 leaves, including
// subtrees that do not start at 0, which the vectors leave out for
// consistency. A proof, subtree hash or tree root with one bit flipped, or a
// proof one hash short or long, must be rejected.
func TestSubtreeRoundTrip(t *testing.T) {
	const maxSize = 33
	var tree refTree
	for i := range maxSize {
		tree = append(tree, hasher.HashLeaf([]byte{byte(i)}))
	}
	for end := uint64(1); end <= maxSize; end++ {
		for start := range end {
			if !validSubtree(start, end) {
				continue
			}
			subRoot := tree.hash(start, end)
			for index := start; index < end; index++ {
				p := tree.path(index, start, end)
				verify := func(p [][]byte, subRoot []byte) error {
					return VerifySubtreeInclusion(index, start, end, tree[index], p, subRoot)
				}
				checkRoundTrip(t, "inclusion", verify, p, subRoot)
			}
			for size := end; size <= maxSize; size++ {
				p := tree.subtreeProof(start, end, 0, size, true)
				treeRoot := tree.hash(0, size)
				verify := func(p [][]byte, subRoot []byte) error {
					return VerifySubtreeConsistency(start, end, size, p, subRoot, treeRoot)
				}
				checkRoundTrip(t, "consistency", verify, p, subRoot)
				if err := VerifySubtreeConsistency(start, end, size, p, subRoot, flipped(treeRoot)); !errors.Is(err, ErrRootMismatch) {
					t.Errorf("[%d, %d) in %d, wrong tree root: got %v, want %v", start, end, size, err, ErrRootMismatch)
				}
			}
		}
	}
}

// checkRoundTrip checks that verify accepts proof p for subRoot, and
// rejects it once damaged.
func checkRoundTrip(t *testing.T, kind string, verify func(p [][]byte, subRoot []byte) error, p [][]byte, subRoot []byte) {
	t.Helper()
	if err := verify(p, subRoot); err != nil {
		t.Fatalf("%s: got %v, want nil", kind, err)
	}
	if err := verify(p, flipped(subRoot)); err == nil {
		t.Fatalf("%s: wrong subtree hash: got nil, want an error", kind)
	}
	for i := range p {
		bad := append([][]byte(nil), p...)
		bad[i] = flipped(bad[i])
		if err := verify(bad, subRoot); err == nil {
			t.Fatalf("%s: proof hash %d flipped: got nil, want an error", kind, i)
		}
	}
	if len(p) > 0 {
		if err := verify(p[:len(p)-1], subRoot); err == nil {
			t.Fatalf("%s: proof one short: got nil, want an error", kind)
		}
	}
	if err := verify(append(p[:len(p):len(p)], subRoot), subRoot); err == nil {
		t.Fatalf("%s: proof one long: got nil, want an error", kind)
	}
}

// refTree holds leaf hashes and computes hashes and proofs straight from
// the recursive definitions of RFC 6962 and the draft, slowly but plainly.
type refTree [][]byte

// hash returns MTH(D[lo:hi]).
func (t refTree) hash(lo, hi uint64) []byte {
	if hi-lo == 1 {
		return t[lo]
	}
	k := lo + splitPoint(hi-lo)
	return hasher.HashChildren(t.hash(lo, k), t.hash(k, hi))
}

// path returns PATH(m, D[lo:hi]), the inclusion proof of leaf m.
func (t refTree) path(m, lo, hi uint64) [][]byte {
	if hi-lo == 1 {
		return nil
	}
	k := lo + splitPoint(hi-lo)
	if m < k {
		return append(t.path(m, lo, k), t.hash(k, hi))
	}
	return append(t.path(m, k, hi), t.hash(lo, k))
}

// subtreeProof returns SUBTREE_SUBPROOF for the subtree [start, end) of the
// tree D[lo:hi], with absolute indices.
func (t refTree) subtreeProof(start, end, lo, hi uint64, known bool) [][]byte {
	if start == lo && end == hi {
		if known {
			return nil
		}
		return [][]byte{t.hash(lo, hi)}
	}
	k := lo + splitPoint(hi-lo)
	switch {
	case end <= k:
		return append(t.subtreeProof(start, end, lo, k, known), t.hash(k, hi))
	case k <= start:
		return append(t.subtreeProof(start, end, k, hi, known), t.hash(lo, k))
	default: // start == lo for a valid subtree
		return append(t.subtreeProof(k, end, k, hi, false), t.hash(lo, k))
	}
}

// splitPoint returns the largest power of two smaller than n, for n > 1.
func splitPoint(n uint64) uint64 { return 1 << (bits.Len64(n-1) - 1) }

// flipped returns a copy of h with its first bit flipped.
func flipped(h []byte) []byte {
	h = append([]byte(nil), h...)
	h[0] ^= 1
	return h
}

// seedVectors returns the vectors of kind that are happy paths or lie in
// the folder errorDir, which holds the error cases specific to subtrees.
func seedVectors[V interface{ wantErr() bool }](f *testing.F, kind, errorDir string) []V {
	f.Helper()
	dir := filepath.Join(vectorRoot(f), kind)
	var seeds []V
	for _, name := range vectorFiles(f, dir) {
		v := readVector[V](f, filepath.Join(dir, filepath.FromSlash(name)))
		if !v.wantErr() || strings.HasPrefix(name, errorDir) {
			seeds = append(seeds, v)
		}
	}
	return seeds
}

// splitHashes cuts b into SHA-256-sized hashes; a shorter remainder becomes
// a last, short hash.
func splitHashes(b []byte) [][]byte {
	var hashes [][]byte
	for len(b) > 0 {
		n := min(len(b), hasher.Size())
		hashes = append(hashes, b[:n])
		b = b[n:]
	}
	return hashes
}

// checkKnownError fails the test if err is set but wraps none of the
// package's sentinel errors.
func checkKnownError(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, known := range []error{ErrInvalidSubtree, ErrIndexOutOfRange, ErrProofSize, ErrRootMismatch} {
		if errors.Is(err, known) {
			return
		}
	}
	t.Errorf("got error %q, want one wrapping a tlog sentinel", err)
}
