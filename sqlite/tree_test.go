package sqlite_test

import (
	"bytes"
	"testing"

	"github.com/sanadhq/sanad/sqlite"
	"github.com/sanadhq/sanad/tlog"
)

// TestSparseNodesProve: the store keeps only every fourth level of Merkle
// nodes; roots, inclusion proofs and consistency proofs it builds from them
// verify against roots computed from the event hashes alone, at sizes around
// every stored level's boundaries. The same holds once every node is stored,
// as an older store did.
func TestSparseNodesProve(t *testing.T) {
	ctx := t.Context()
	evs := runEvents(t, 600)
	path := dbPath(t)
	db := openDB(t, path)
	for lo := 0; lo < len(evs); lo += 37 {
		if _, err := db.AppendEvents(ctx, evs[lo:min(lo+37, len(evs))]); err != nil {
			t.Fatal(err)
		}
	}
	leaves := make([][]byte, len(evs))
	roots := make([][]byte, len(evs)+1) // roots[s]: the tree of the first s leaves
	tree := tlog.NewTree()
	roots[0] = tlog.EmptyRoot()
	var all []tlog.Node
	for i, ev := range evs {
		leaves[i] = tlog.LeafHash(ev.Hash[:])
		if err := tree.Append(leaves[i], func(n tlog.Node) {
			if n.ID.Level > 0 {
				all = append(all, n)
			}
		}); err != nil {
			t.Fatal(err)
		}
		roots[i+1], _ = tree.Root()
	}
	sizes := []uint64{1, 2, 3, 15, 16, 17, 31, 32, 33, 100, 255, 256, 257, 511, 512, 513, 600}
	check := func(t *testing.T, p tlog.Prover) {
		for _, s := range sizes {
			root, err := p.RootAt(ctx, s)
			if err != nil || !bytes.Equal(root, roots[s]) {
				t.Fatalf("RootAt(%d): %x, %v; want %x", s, root, err, roots[s])
			}
			for _, i := range []uint64{0, s / 3, s / 2, s - 1} {
				prf, err := p.Inclusion(ctx, i, s)
				if err != nil {
					t.Fatalf("Inclusion(%d, %d): %v", i, s, err)
				}
				if err := tlog.VerifyInclusion(i, s, leaves[i], prf, roots[s]); err != nil {
					t.Fatalf("inclusion of %d in %d does not verify: %v", i, s, err)
				}
			}
			for _, s2 := range sizes {
				if s2 < s {
					continue
				}
				prf, err := p.Consistency(ctx, s, s2)
				if err != nil {
					t.Fatalf("Consistency(%d, %d): %v", s, s2, err)
				}
				if err := tlog.VerifyConsistency(s, s2, prf, roots[s], roots[s2]); err != nil {
					t.Fatalf("consistency %d → %d does not verify: %v", s, s2, err)
				}
			}
		}
	}
	t.Run("sparse", func(t *testing.T) {
		var stored int
		if err := db.ReadTreeNodes(ctx, func(n tlog.Node) error {
			if n.ID.Level%4 != 0 {
				t.Fatalf("node of level %d stored", n.ID.Level)
			}
			stored++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if want := len(evs)/16 + len(evs)/256; stored != want {
			t.Fatalf("%d nodes stored for %d leaves, want %d", stored, len(evs), want)
		}
		check(t, tlog.Prover{Nodes: db})
	})
	t.Run("every node stored", func(t *testing.T) {
		raw := rawDB(t, path)
		for _, n := range all {
			if _, err := raw.ExecContext(ctx, "INSERT OR IGNORE INTO tlog_nodes (id, hash) VALUES (?, ?)", int64(uint64(n.ID.Level)<<56|n.ID.Index), n.Hash); err != nil {
				t.Fatal(err)
			}
		}
		fresh, err := sqlite.Open(ctx, sqlite.Config{Path: path, ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		check(t, tlog.Prover{Nodes: fresh})
	})
}
