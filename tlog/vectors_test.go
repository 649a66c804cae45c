package tlog

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The transparency-dev/merkle test vectors, shared with the rest of the tree.
// Each top-level folder holds one kind of vector, consumed by one test.
var vectorCounts = map[string]int{
	"inclusion":          98,
	"consistency":        98,
	"subtreeinclusion":   204,
	"subtreeconsistency": 118,
}

const vectorTotal = 518

// outcome holds the fields every vector file has.
type outcome struct {
	Desc    string `json:"desc"`
	WantErr bool   `json:"wantErr"`
}

func (o outcome) wantErr() bool { return o.WantErr }

type inclusionVector struct {
	LeafIdx  uint64   `json:"leafIdx"`
	TreeSize uint64   `json:"treeSize"`
	Root     []byte   `json:"root"`
	LeafHash []byte   `json:"leafHash"`
	Proof    [][]byte `json:"proof"`
	outcome
}

type consistencyVector struct {
	Size1 uint64   `json:"size1"`
	Size2 uint64   `json:"size2"`
	Root1 []byte   `json:"root1"`
	Root2 []byte   `json:"root2"`
	Proof [][]byte `json:"proof"`
	outcome
}

// subtreeInclusionVector is an inclusion proof for the leaf at the absolute
// index LeafIdx in the subtree [Start, End) whose hash is Root. The folders
// 0 to 4, additional and single-entry hold each inclusion vector twice: as
// the subtree [0, treeSize), and shifted right by BIT_CEIL(treeSize) (files
// named "...-subtree.json"). The errors folder holds ranges that are not
// subtrees or leave the index outside: all must be rejected.
type subtreeInclusionVector struct {
	LeafIdx  uint64   `json:"leafIdx"`
	Start    uint64   `json:"start"`
	End      uint64   `json:"end"`
	Root     []byte   `json:"root"`
	LeafHash []byte   `json:"leafHash"`
	Proof    [][]byte `json:"proof"`
	outcome
}

// subtreeConsistencyVector is a consistency proof between the subtree
// [Start, End), whose hash is Root1, and the tree of Size leaves with root
// Root2. The folders 0 to 4 are the consistency vectors with Start 0; the
// additional folder adds invalid subtrees and empty subtrees.
type subtreeConsistencyVector struct {
	Start uint64   `json:"start"`
	End   uint64   `json:"end"`
	Size  uint64   `json:"size"`
	Root1 []byte   `json:"root1"`
	Root2 []byte   `json:"root2"`
	Proof [][]byte `json:"proof"`
	outcome
}

func TestVectorsInclusion(t *testing.T) {
	runVectors(t, "inclusion", func(v inclusionVector) error {
		return VerifyInclusion(v.LeafIdx, v.TreeSize, v.LeafHash, v.Proof, v.Root)
	})
}

func TestVectorsConsistency(t *testing.T) {
	runVectors(t, "consistency", func(v consistencyVector) error {
		return VerifyConsistency(v.Size1, v.Size2, v.Proof, v.Root1, v.Root2)
	})
}

func TestVectorsSubtreeInclusion(t *testing.T) {
	runVectors(t, "subtreeinclusion", func(v subtreeInclusionVector) error {
		return VerifySubtreeInclusion(v.LeafIdx, v.Start, v.End, v.LeafHash, v.Proof, v.Root)
	})
}

func TestVectorsSubtreeConsistency(t *testing.T) {
	runVectors(t, "subtreeconsistency", func(v subtreeConsistencyVector) error {
		return VerifySubtreeConsistency(v.Start, v.End, v.Size, v.Proof, v.Root1, v.Root2)
	})
}

// TestVectorsCount checks that the four tests above consume every vector
// file: each lies in the folder of one of the four kinds.
func TestVectorsCount(t *testing.T) {
	root := vectorRoot(t)
	got := make(map[string]int)
	for _, name := range vectorFiles(t, root) {
		kind, _, _ := strings.Cut(name, "/")
		if _, ok := vectorCounts[kind]; !ok {
			t.Errorf("%s: got kind %q, want one of the four kinds", name, kind)
		}
		got[kind]++
	}
	total := 0
	for kind, want := range vectorCounts {
		if got[kind] != want {
			t.Errorf("%s: got %d files, want %d", kind, got[kind], want)
		}
		total += got[kind]
	}
	if total != vectorTotal {
		t.Errorf("got %d vector files, want %d", total, vectorTotal)
	}
}

// runVectors decodes every file of one kind into a V and checks that verify
// accepts the vector exactly when it wants no error. Each file is a subtest
// named by its path relative to the vector folder.
func runVectors[V interface{ wantErr() bool }](t *testing.T, kind string, verify func(V) error) {
	root := vectorRoot(t)
	names := vectorFiles(t, filepath.Join(root, kind))
	if got, want := len(names), vectorCounts[kind]; got != want {
		t.Errorf("got %d %s files, want %d", got, kind, want)
	}
	for _, name := range names {
		name = kind + "/" + name
		t.Run(name, func(t *testing.T) {
			v := readVector[V](t, filepath.Join(root, filepath.FromSlash(name)))
			wantErr := v.wantErr()
			err := verify(v)
			switch {
			case wantErr && err == nil:
				t.Errorf("got nil error, want an error")
			case !wantErr && err != nil:
				t.Errorf("got error %q, want nil", err)
			}
		})
	}
}

// vectorRoot returns the vector folder. If it is missing the test is
// skipped, or fails when the CI environment variable is set.
func vectorRoot(tb testing.TB) string {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(wd, "..", "..", "shared", "testdata", "merkle", "transparency-dev-merkle", "testdata")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("transparency-dev/merkle test vectors missing, CI must have them: %v", err)
		}
		tb.Skipf("transparency-dev/merkle test vectors missing, skipping: %v", err)
	}
	return dir
}

// vectorFiles returns the paths of the .json files under dir, relative to
// dir, with forward slashes, in lexical order.
func vectorFiles(tb testing.TB, dir string) []string {
	tb.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		names = append(names, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return names
}

// readVector decodes one vector file, refusing fields V does not declare so
// that a file read as the wrong kind fails loudly.
func readVector[V any](tb testing.TB, path string) V {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var v V
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return v
}
