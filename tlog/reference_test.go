package tlog_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/transparency-dev/merkle/compact"

	"github.com/sanadhq/sanad/internal/sharedtest"
	"github.com/sanadhq/sanad/tlog"
)

type referenceTree struct {
	Leaves       []string   `json:"leaf_inputs_hex"`
	NodesByLevel [][]string `json:"node_hashes_by_level_hex"`
	Roots        []string   `json:"root_hashes_by_tree_size_hex"`
}

// nodeMap is an in-memory NodeReader.
type nodeMap map[compact.NodeID][]byte

func (m nodeMap) ReadNodes(_ context.Context, ids []compact.NodeID) ([][]byte, error) {
	out := make([][]byte, len(ids))
	for i, id := range ids {
		out[i] = m[id]
	}
	return out, nil
}

// TestReferenceTreeRoots builds the RFC 6962 reference tree of 8 leaves with
// Tree and checks the root at every size 0..8, every complete node, and that
// a Prover over the stored nodes gives the same roots.
func TestReferenceTreeRoots(t *testing.T) {
	path := filepath.Join(sharedtest.Dir(t, "merkle"), "rfc6962_reference_tree.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ref referenceTree
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Leaves) != 8 || len(ref.Roots) != 9 {
		t.Fatalf("got %d leaves and %d roots, want 8 and 9", len(ref.Leaves), len(ref.Roots))
	}
	unhex := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tree := tlog.NewTree()
	nodes := nodeMap{}
	check := func(size int) {
		root, err := tree.Root()
		if err != nil {
			t.Fatal(err)
		}
		if want := unhex(ref.Roots[size]); !bytes.Equal(root, want) {
			t.Errorf("size %d: got root %x, want %x", size, root, want)
		}
		stored, err := tlog.Prover{Nodes: nodes}.RootAt(context.Background(), uint64(size))
		if err != nil || !bytes.Equal(stored, root) {
			t.Errorf("size %d: Prover.RootAt got %x, %v; want %x", size, stored, err, root)
		}
	}
	check(0)
	for i, leaf := range ref.Leaves {
		err := tree.Append(tlog.LeafHash(unhex(leaf)), func(n tlog.Node) { nodes[n.ID] = n.Hash })
		if err != nil {
			t.Fatal(err)
		}
		check(i + 1)
	}
	for level, hashes := range ref.NodesByLevel {
		for index, h := range hashes {
			id := compact.NewNodeID(uint(level), uint64(index))
			if got := nodes[id]; !bytes.Equal(got, unhex(h)) {
				t.Errorf("node (%d, %d): got %x, want %s", level, index, got, h)
			}
		}
	}
}
