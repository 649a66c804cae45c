package tool

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoStoreImports keeps the arrows pointing the right way: the gateway
// records through runs, ledger and artifact, never through a database or the
// network directly, and no storage adapter is wired in here.
func TestNoStoreImports(t *testing.T) {
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
		case "database/sql", "net/http", "os/exec", "github.com/sanadhq/sanad/sqlite":
			t.Errorf("tool depends on %s, want none of database/sql, net/http, os/exec, sqlite", dep)
		}
	}
}
