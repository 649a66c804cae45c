// Package sharedtest finds the third-party test data that lives beside the
// repository in ../shared/testdata. A test that needs it fails when it is
// missing under CI (CI is set) and skips elsewhere.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the path of ../shared/testdata/<elem...> relative to the module
// root. If it does not exist, Dir fails the test under CI and skips it
// otherwise.
func Dir(tb testing.TB, elem ...string) string {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatalf("sharedtest: %v", err)
	}
	p := filepath.Join(append([]string{root, "..", "shared", "testdata"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("shared test data %s is missing (CI needs ../shared beside the checkout): %v", p, err)
		}
		tb.Skipf("shared test data %s not present: %v", p, err)
	}
	return p
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
