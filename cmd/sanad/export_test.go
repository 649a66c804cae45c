package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/bundle/bundletest"
)

// runCLI runs the command line in this process and returns its exit code,
// stdout and stderr.
func runCLI(tb testing.TB, args ...string) (int, string, string) {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// quickstart runs quickstart in a new home and returns the home, the bundle
// it exported and its log key.
func quickstart(tb testing.TB) (dir, bundlePath, logKey string) {
	tb.Helper()
	dir = filepath.Join(tb.TempDir(), "home")
	code, out, errOut := runCLI(tb, "--home", dir, "quickstart", "--json")
	if code != 0 {
		tb.Fatalf("quickstart: exit %d: %s", code, errOut)
	}
	var qs struct{ Bundle, LogKey string }
	if err := json.Unmarshal([]byte(out), &struct {
		Bundle *string `json:"bundle"`
		LogKey *string `json:"log_key"`
	}{&qs.Bundle, &qs.LogKey}); err != nil {
		tb.Fatalf("quickstart --json: %v", err)
	}
	return dir, qs.Bundle, qs.LogKey
}

// TestVerifyForgedBundle: a bundle re-signed with fresh agent keys and a
// fresh log key under the same log name is whole and self-consistent. sanad
// verify refuses it (exit 1) when no key is pinned for its log, saying that
// only self-consistency could be checked, accepts it as such only with
// --unpinned, and fails it when the real log key is pinned — by --log-key or
// by the home's trusted-logs file, to which the export added the key.
func TestVerifyForgedBundle(t *testing.T) {
	dir, real, logKey := quickstart(t)
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	forged := filepath.Join(t.TempDir(), "forged.tar.gz")
	if err := os.WriteFile(forged, bundletest.Forge(t, b, func(ev map[string]any) { ev["scope"].(map[string]any)["case"] = "deal-002" }), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty-home")
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"no key pinned", []string{"--home", empty, "verify", forged}, 1, "", "only self-consistency was checked"},
		{"no key pinned, json", []string{"--home", empty, "verify", forged, "--json"}, 1, `"pinned":false`, "only self-consistency was checked"},
		{"unpinned accepted", []string{"--home", empty, "verify", forged, "--unpinned"}, 0, "UNPINNED", "warning: only self-consistency was checked"},
		{"log key", []string{"--home", empty, "verify", forged, "--log-key", logKey}, 1, "", "is not signed by the pinned key"},
		{"home's trusted logs", []string{"--home", dir, "verify", forged}, 1, "", "is not signed by the pinned key"},
		{"home's trusted logs, unpinned allowed", []string{"--home", dir, "verify", forged, "--unpinned"}, 1, "", "is not signed by the pinned key"},
		{"the real bundle", []string{"--home", dir, "verify", real}, 0, "signed by the pinned log key", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.stdout) || !strings.Contains(errOut, tt.stderr) {
				t.Errorf("sanad %s: got exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
					strings.Join(tt.args, " "), code, out, errOut, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}
