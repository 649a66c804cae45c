package tlog_test

import (
	"fmt"

	"github.com/sanadhq/sanad/tlog"
)

// A tree of three leaves, its root, and a checkpoint body.
func ExampleTree() {
	t := tlog.NewTree()
	for _, data := range []string{"a", "b", "c"} {
		if err := t.Append(tlog.LeafHash([]byte(data)), nil); err != nil {
			panic(err)
		}
	}
	root, _ := t.Root()
	cp := tlog.Checkpoint{Origin: "example.log/1", Size: t.Size(), Hash: root}
	parsed, err := tlog.ParseCheckpoint(cp.Marshal())
	fmt.Println(t.Size(), err == nil && parsed.Equal(cp))
	// Output: 3 true
}
