package schemafile

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse, seeded with the example
// policies, agent profiles, abilities and workflows. Parse must never panic,
// must answer every bad file with an *Error that has a reason, and what it
// accepts must be a JSON value with every node placed in the file.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{
		"../examples/policies/*/*.yaml",
		"../examples/agents/*.yaml",
		"../examples/agents/abilities/*.yaml",
		"../examples/workflows/*.yaml",
	} {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			f.Fatalf("no seeds for %s: %v", pattern, err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	for _, seed := range []string{
		"a: &x [*x]\n",
		"id: x\n---\nid: y\n",
		"{id: [[[[[[]]]]]]}",
		"id: !!binary aGVsbG8=\n",
		"? [a]\n: b\n",
		"<<: {a: 1}\n",
		"a: .inf\nb: -.nan\n",
		"a: 0x1F\nb: 0o17\nc: 1e400\n",
		"{\"a\": [1, 2.5, \"x\", null, true]}",
		"a: |-\n  text\nb: >\n  folded\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := Parse("fuzz.yaml", data, Limits{})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v (%T), want an *Error", err, err)
			}
			if e.File != "fuzz.yaml" || e.Line < 0 || e.Column < 0 || e.Reason == "" {
				t.Fatalf("got an error without a file, a place or a reason: %+v", e)
			}
			return
		}
		if _, err := json.Marshal(root.Value()); err != nil {
			t.Fatalf("accepted a file whose value is not JSON: %v", err)
		}
		checkPlaced(t, root)
	})
}

// checkPlaced fails t unless n and every node under it have a position.
func checkPlaced(t *testing.T, n *Node) {
	t.Helper()
	if n.Pos().Line < 1 || n.Pos().Column < 0 {
		t.Fatalf("got a node at %v, want a line", n.Pos())
	}
	for _, k := range n.Keys() {
		if p := n.KeyPos(k); p.Line < 1 {
			t.Fatalf("got key %q at %v, want a line", k, p)
		}
	}
	for _, item := range n.Items() {
		checkPlaced(t, item)
	}
}
