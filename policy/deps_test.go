package policy

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoIOImports keeps the arrows pointing the right way: policy decides,
// it never talks to a database or the network.
func TestNoIOImports(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "database/sql", "net/http", "net", "os/exec":
			t.Errorf("policy depends on %s, want no I/O packages", dep)
		}
	}
}
