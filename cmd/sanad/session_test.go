package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionExitCodes: a completed session exits 0; a failed one, one that
// stopped for an operator, and an id that names nothing exit 1; an abort
// that is recorded exits 0; a task file that is not valid, or names a tool
// that does not exist, exits 2.
func TestSessionExitCodes(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	example := func(name string) string { return filepath.Join("..", "..", "examples", "sessions", name+".yaml") }
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stuck := write("stuck.yaml", "name: stuck\nobjectives:\n  - {id: a, objective: A, risk: critical, tool: compute, input: {op: sum, values: [1]}, claim: {text: t, confidence: 0.9}}\n")
	bad := write("bad.yaml", "name: bad\nobjectives: []\n")
	unknown := write("unknown.yaml", "name: u\nobjectives:\n  - {id: a, objective: A, tool: teleport, input: {}, claim: {text: t, confidence: 0.9}}\n")

	session := func(args ...string) (int, map[string]any) {
		t.Helper()
		code, out, errOut := sanadIn(t, home, append(append([]string{"session"}, args...), "--json")...)
		var v map[string]any
		if out != "" {
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("session %v printed %q, stderr %q: %v", args, out, errOut, err)
			}
		}
		return code, v
	}
	code, vendor := session("run", example("vendor-check"))
	if code != exitOK || vendor["state"] != "completed" || vendor["mode"] != "deterministic" {
		t.Fatalf("run vendor-check: exit %d, %v", code, vendor)
	}
	if v, _ := vendor["verification"].(map[string]any); v["status"] != "pass" || !strings.HasPrefix(v["report"].(string), "sha256:") {
		t.Errorf("run vendor-check: verification %v", vendor["verification"])
	}
	code, stopped := session("run", stuck)
	if code != exitFailure || stopped["state"] != "reviewing" {
		t.Fatalf("run stuck: exit %d, %v", code, stopped)
	}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"run", example("risky-transfer")}, exitOK},
		{[]string{"run", example("missing-evidence")}, exitFailure},
		{[]string{"show", vendor["session"].(string)}, exitOK},
		{[]string{"resume", vendor["session"].(string)}, exitFailure},
		{[]string{"abort", vendor["session"].(string)}, exitFailure},
		{[]string{"show", "rnosuch"}, exitFailure},
		{[]string{"resume", "rnosuch"}, exitFailure},
		{[]string{"abort", stopped["session"].(string)}, exitOK},
		{[]string{"run", bad}, exitUsage},
		{[]string{"run", unknown}, exitUsage},
		{[]string{"run", filepath.Join(dir, "missing.yaml")}, exitUsage},
		{[]string{"run"}, exitUsage},
	} {
		if code, out, errOut := sanadIn(t, home, append([]string{"session"}, tc.args...)...); code != tc.want {
			t.Errorf("session %v: exit %d, want %d\nstdout %s\nstderr %s", tc.args, code, tc.want, out, errOut)
		}
	}
	code, aborted := session("show", stopped["session"].(string))
	if code != exitOK || aborted["state"] != "aborted" {
		t.Errorf("show of the aborted session: exit %d, state %v", code, aborted["state"])
	}
}
