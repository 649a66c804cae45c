package tlog

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
)

// Errors returned by [VerifySubtreeInclusion] and [VerifySubtreeConsistency],
// always wrapped with details; test for them with [errors.Is].
var (
	// ErrInvalidSubtree reports a range [start, end) that is not a subtree
	// in the sense of the Merkle Tree Certificates draft, or a subtree that
	// ends beyond the tree it is said to belong to.
	ErrInvalidSubtree = errors.New("tlog: invalid subtree")

	// ErrIndexOutOfRange reports a leaf index outside its subtree.
	ErrIndexOutOfRange = errors.New("tlog: leaf index outside subtree")

	// ErrProofSize reports a proof with the wrong number of hashes, or a
	// proof hash or leaf hash whose length is not that of SHA-256.
	ErrProofSize = errors.New("tlog: wrong proof size")

	// ErrRootMismatch reports a proof that is well formed but recomputes a
	// hash other than the one given: the proof, the leaf or a root is wrong.
	ErrRootMismatch = errors.New("tlog: root mismatch")
)

// VerifySubtreeInclusion checks that proof shows the leaf with hash leafHash
// at index in the subtree [start, end) whose hash is subtreeRoot. The index is
// absolute, counted from the first leaf of the log, so start <= index < end.
// Hashes are RFC 6962 SHA-256 hashes; the proof is the draft's subtree
// inclusion proof, which is the RFC 6962 inclusion proof of leaf index-start
// in the tree made of leaves start to end-1.
//
// [start, end) must be a valid subtree: start < end and start is a multiple
// of the smallest power of two not below end-start. An empty range holds no
// leaf and is always rejected.
//
// The error wraps [ErrInvalidSubtree], [ErrIndexOutOfRange], [ErrProofSize]
// or [ErrRootMismatch]. VerifySubtreeInclusion is safe for concurrent use.
func VerifySubtreeInclusion(index, start, end uint64, leafHash []byte, proof [][]byte, subtreeRoot []byte) error {
	if !validSubtree(start, end) {
		return fmt.Errorf("%w: [%d, %d)", ErrInvalidSubtree, start, end)
	}
	if index < start || index >= end {
		return fmt.Errorf("%w: index %d, subtree [%d, %d)", ErrIndexOutOfRange, index, start, end)
	}
	if len(leafHash) != hasher.Size() {
		return fmt.Errorf("%w: leaf hash has %d bytes, want %d", ErrProofSize, len(leafHash), hasher.Size())
	}
	if err := checkHashSizes(proof); err != nil {
		return err
	}

	// This is the inclusion check of RFC 9162, section 2.1.3.2, run on the
	// subtree as a tree of its own. fn is the node on the leaf's path and sn
	// the subtree's last node, both at the level being climbed.
	fn, sn := index-start, end-start-1
	r := leafHash
	for _, p := range proof {
		if sn == 0 {
			return fmt.Errorf("%w: %d hashes is too many for leaf %d of [%d, %d)", ErrProofSize, len(proof), index, start, end)
		}
		if fn&1 == 1 || fn == sn {
			// p is a left sibling. A last node that is a left child has no
			// sibling and moves up unchanged, so skip to where it is a
			// right child.
			r = HashChildren(p, r)
			for fn&1 == 0 && fn != 0 {
				fn >>= 1
				sn >>= 1
			}
		} else {
			r = HashChildren(r, p)
		}
		fn >>= 1
		sn >>= 1
	}
	if sn != 0 {
		return fmt.Errorf("%w: %d hashes is too few for leaf %d of [%d, %d)", ErrProofSize, len(proof), index, start, end)
	}
	if !bytes.Equal(r, subtreeRoot) {
		return fmt.Errorf("%w: leaf %d of subtree [%d, %d)", ErrRootMismatch, index, start, end)
	}
	return nil
}

// VerifySubtreeConsistency checks that proof shows the subtree [start, end),
// whose hash is subtreeRoot, to be part of the tree of size leaves whose root
// is treeRoot. Hashes are RFC 6962 SHA-256 hashes; the proof is the draft's
// subtree consistency proof. With start 0 it is an RFC 6962 consistency proof
// between tree sizes end and size.
//
// [start, end) must be a valid subtree (see [VerifySubtreeInclusion]) with
// end <= size. As in the transparency-dev/merkle test vectors, an empty
// range [start, start) with start <= size is also accepted, because it is
// part of every tree: its proof must be empty and subtreeRoot must be the
// hash of the empty tree, and treeRoot is not examined.
//
// The error wraps [ErrInvalidSubtree], [ErrProofSize] or [ErrRootMismatch].
// VerifySubtreeConsistency is safe for concurrent use.
func VerifySubtreeConsistency(start, end, size uint64, proof [][]byte, subtreeRoot, treeRoot []byte) error {
	if start > end || end > size {
		return fmt.Errorf("%w: [%d, %d) in a tree of size %d", ErrInvalidSubtree, start, end, size)
	}
	if start == end {
		if len(proof) != 0 {
			return fmt.Errorf("%w: %d hashes for an empty subtree, want 0", ErrProofSize, len(proof))
		}
		if !bytes.Equal(subtreeRoot, hasher.EmptyRoot()) {
			return fmt.Errorf("%w: empty subtree [%d, %d) has a hash other than the empty tree's", ErrRootMismatch, start, end)
		}
		return nil
	}
	if !validSubtree(start, end) {
		return fmt.Errorf("%w: [%d, %d)", ErrInvalidSubtree, start, end)
	}
	if err := checkHashSizes(proof); err != nil {
		return err
	}

	// This follows "Verifying a Subtree Consistency Proof" in the draft. At
	// each level fn, sn and tn are the nodes over the subtree's first leaf,
	// its last leaf and the tree's last leaf. fr rebuilds the subtree hash
	// and sr the tree root, both from the same starting node.
	fn, sn, tn := start, end-1, size-1
	up := func() { fn, sn, tn = fn>>1, sn>>1, tn>>1 }
	if sn == tn {
		// The subtree ends where the tree does: climb to its top node.
		for fn != sn {
			up()
		}
	} else {
		// Climb while the last node is a right child, staying inside the
		// subtree: those levels are covered by a single node.
		for fn != sn && sn&1 == 1 {
			up()
		}
	}

	var fr, sr []byte
	if fn == sn {
		// That node is the whole subtree, whose hash the caller holds.
		fr, sr = subtreeRoot, subtreeRoot
	} else {
		// Otherwise the proof opens with the node's hash.
		if len(proof) == 0 {
			return fmt.Errorf("%w: empty proof for [%d, %d) in a tree of size %d", ErrProofSize, start, end, size)
		}
		fr, sr = proof[0], proof[0]
		proof = proof[1:]
	}

	for _, c := range proof {
		if tn == 0 {
			return fmt.Errorf("%w: too many hashes for [%d, %d) in a tree of size %d", ErrProofSize, start, end, size)
		}
		if sn&1 == 1 || sn == tn {
			// c is a left sibling. It is part of the subtree until the
			// climb has reached the subtree's top node.
			if fn < sn {
				fr = HashChildren(c, fr)
			}
			sr = HashChildren(c, sr)
			for sn&1 == 0 && sn != 0 {
				up()
			}
		} else {
			// c is a right sibling, always outside the subtree.
			sr = HashChildren(sr, c)
		}
		up()
	}
	if tn != 0 {
		return fmt.Errorf("%w: too few hashes for [%d, %d) in a tree of size %d", ErrProofSize, start, end, size)
	}
	if !bytes.Equal(fr, subtreeRoot) {
		return fmt.Errorf("%w: proof does not rebuild the hash of subtree [%d, %d)", ErrRootMismatch, start, end)
	}
	if !bytes.Equal(sr, treeRoot) {
		return fmt.Errorf("%w: proof does not rebuild the root of the tree of size %d", ErrRootMismatch, size)
	}
	return nil
}

// validSubtree reports whether [start, end) is a subtree as the draft defines
// it: not empty, and start a multiple of BIT_CEIL(end - start), the smallest
// power of two not below the subtree's length.
func validSubtree(start, end uint64) bool {
	if start >= end {
		return false
	}
	// BIT_CEIL(n) is 1 << bits.Len64(n-1). For n > 1<<63 the shift by 64
	// gives 0, so the mask has every bit set and only start 0 passes, as it
	// must: no other uint64 is a multiple of 1<<64.
	mask := uint64(1)<<bits.Len64(end-start-1) - 1
	return start&mask == 0
}

// checkHashSizes returns an error wrapping [ErrProofSize] if a proof hash
// does not have the length of a SHA-256 hash.
func checkHashSizes(proof [][]byte) error {
	for i, h := range proof {
		if len(h) != hasher.Size() {
			return fmt.Errorf("%w: proof hash %d has %d bytes, want %d", ErrProofSize, i, len(h), hasher.Size())
		}
	}
	return nil
}
