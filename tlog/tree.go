package tlog

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
)

// HashSize is the size of every node hash.
const HashSize = 32

var hasher = rfc6962.DefaultHasher

var factory = &compact.RangeFactory{Hash: HashChildren}

// LeafHash returns the RFC 6962 leaf hash of data (0x00 || data, SHA-256).
// It is rfc6962.DefaultHasher's, computed with one allocation (the result)
// for data of up to a hash's size, the leaves of sanad's log.
func LeafHash(data []byte) []byte {
	if len(data) > HashSize {
		return hasher.HashLeaf(data)
	}
	var b [1 + HashSize]byte // b[0] = 0x00, the leaf prefix
	n := copy(b[1:], data)
	h := sha256.Sum256(b[:1+n])
	return h[:]
}

// HashChildren returns the hash of the node whose children have the hashes
// left and right (RFC 6962 §2.1: SHA-256 of 0x01 || left || right), with
// one allocation (the result) where rfc6962.DefaultHasher makes three: a
// commit hashes a few dozen nodes, a verification every node of the log.
func HashChildren(left, right []byte) []byte {
	if len(left)+len(right) > 2*HashSize {
		return hasher.HashChildren(left, right)
	}
	var b [1 + 2*HashSize]byte
	b[0] = 0x01
	n := copy(b[1:], left)
	n += copy(b[1+n:], right)
	h := sha256.Sum256(b[:1+n])
	return h[:]
}

// EmptyRoot is the root hash of the tree with no leaves.
func EmptyRoot() []byte { return hasher.EmptyRoot() }

// Node is a hash of the tree at a level (0 for leaves) and index within it.
type Node struct {
	ID   compact.NodeID
	Hash []byte
}

// Tree is the right edge of the log: enough state to append leaves and to
// compute the root. It is not safe for concurrent use.
type Tree struct {
	rng *compact.Range
}

// NewTree returns an empty tree.
func NewTree() *Tree { return &Tree{rng: factory.NewEmptyRange(0)} }

// RestoreTree rebuilds a tree of size leaves from the hashes of the nodes
// named by [EdgeNodes](size), in that order.
func RestoreTree(size uint64, edge [][]byte) (*Tree, error) {
	rng, err := factory.NewRange(0, size, edge)
	if err != nil {
		return nil, fmt.Errorf("tlog: restore tree of size %d: %w", size, err)
	}
	return &Tree{rng: rng}, nil
}

// EdgeNodes returns the ids of the perfect subtrees that make up a tree of
// size leaves, left to right: the nodes [RestoreTree] needs.
func EdgeNodes(size uint64) []compact.NodeID { return compact.RangeNodes(0, size, nil) }

// Size returns the number of leaves.
func (t *Tree) Size() uint64 { return t.rng.End() }

// Append adds a leaf hash and calls visit for every node that became
// complete, the leaf itself included (level 0).
func (t *Tree) Append(leafHash []byte, visit func(Node)) error {
	return t.rng.Append(leafHash, func(id compact.NodeID, hash []byte) {
		if visit != nil {
			visit(Node{ID: id, Hash: hash})
		}
	})
}

// Root returns the root hash.
func (t *Tree) Root() ([]byte, error) {
	if t.Size() == 0 {
		return EmptyRoot(), nil
	}
	return t.rng.GetRootHash(nil)
}

// Clone returns an independent copy.
func (t *Tree) Clone() *Tree {
	hashes := t.rng.Hashes()
	cp := make([][]byte, len(hashes))
	copy(cp, hashes)
	rng, _ := factory.NewRange(0, t.rng.End(), cp)
	return &Tree{rng: rng}
}

// NodeReader reads stored node hashes, in the order of ids. Every id is a
// complete subtree of a tree no larger than the store's. A missing node is an
// error.
type NodeReader interface {
	ReadNodes(ctx context.Context, ids []compact.NodeID) ([][]byte, error)
}

// ErrBadRange is returned for a proof request outside the tree.
var ErrBadRange = errors.New("tlog: index or size outside the tree")

// Prover builds proofs and roots from stored nodes.
type Prover struct {
	Nodes NodeReader
}

// RootAt returns the root hash of the tree of size leaves.
func (p Prover) RootAt(ctx context.Context, size uint64) ([]byte, error) {
	if size == 0 {
		return EmptyRoot(), nil
	}
	ids := EdgeNodes(size)
	hashes, err := p.Nodes.ReadNodes(ctx, ids)
	if err != nil {
		return nil, err
	}
	t, err := RestoreTree(size, hashes)
	if err != nil {
		return nil, err
	}
	return t.Root()
}

// Inclusion returns the inclusion proof of leaf index in the tree of size leaves.
func (p Prover) Inclusion(ctx context.Context, index, size uint64) ([][]byte, error) {
	if index >= size {
		return nil, fmt.Errorf("%w: leaf %d, size %d", ErrBadRange, index, size)
	}
	nodes, err := proof.Inclusion(index, size)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRange, err)
	}
	return p.rehash(ctx, nodes)
}

// Consistency returns the consistency proof between trees of size1 and size2 leaves.
func (p Prover) Consistency(ctx context.Context, size1, size2 uint64) ([][]byte, error) {
	if size1 > size2 {
		return nil, fmt.Errorf("%w: size %d > %d", ErrBadRange, size1, size2)
	}
	nodes, err := proof.Consistency(size1, size2)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRange, err)
	}
	return p.rehash(ctx, nodes)
}

func (p Prover) rehash(ctx context.Context, nodes proof.Nodes) ([][]byte, error) {
	hashes, err := p.Nodes.ReadNodes(ctx, nodes.IDs)
	if err != nil {
		return nil, err
	}
	return nodes.Rehash(hashes, HashChildren)
}

// VerifyInclusion checks that leafHash is leaf index of the tree of size
// leaves with the given root.
func VerifyInclusion(index, size uint64, leafHash []byte, prf [][]byte, root []byte) error {
	return proof.VerifyInclusion(hasher, index, size, leafHash, prf, root)
}

// ErrEmptyConsistency is returned for a consistency proof from the empty
// tree, which RFC 9162 §2.1.4.2 does not define: every tree extends the empty
// one, so a caller compares roots instead.
var ErrEmptyConsistency = errors.New("tlog: no consistency proof from the empty tree")

// VerifyConsistency checks that the tree of size1 leaves with root1 is a
// prefix of the tree of size2 leaves with root2. size1 must not be 0.
func VerifyConsistency(size1, size2 uint64, prf [][]byte, root1, root2 []byte) error {
	if size1 == 0 {
		return ErrEmptyConsistency
	}
	return proof.VerifyConsistency(hasher, size1, size2, prf, root1, root2)
}
