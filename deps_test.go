package sanad_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDomainPackagesDoNoIO keeps the arrows pointing the right way: the
// domain packages decide and record through interfaces; only adapters
// (sqlite, and later postgres and httpapi) and cmd talk to databases, the
// network or other processes.
func TestDomainPackagesDoNoIO(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	forbidden := map[string]bool{"database/sql": true, "net/http": true, "os/exec": true}
	// The pure packages may not even open a socket.
	strict := map[string]bool{"./policy": true, "./canon": true, "./tlog": true}
	for _, pkg := range []string{"./policy", "./schemafile", "./canon", "./tlog", "./ledger", "./runs", "./tool", "./gate", "./dbwrite", "./keyring", "./artifact", "./bundle", "./workflow", "./delegation", "./playbook/protocol", "./model"} {
		out, err := exec.Command(goTool, "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if forbidden[dep] || strict[pkg] && dep == "net" {
				t.Errorf("%s depends on %s, want no I/O packages", pkg, dep)
			}
		}
	}
}
