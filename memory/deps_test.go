package memory_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestNoStoreDependencies: the index reaches its data only through the
// Store interface; the memory package does no database or network I/O of
// its own.
func TestNoStoreDependencies(t *testing.T) {
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "database/sql" || dep == "net/http" || strings.HasPrefix(dep, "modernc.org/sqlite") {
			t.Errorf("memory depends on %s", dep)
		}
	}
}
