package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/workflow"
)

// sanadIn runs the command line args against the home dir and returns its
// exit code and output.
func sanadIn(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"--home", dir}, args...), nil, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestRunExitCodes: a completed run exits 0; a run that did not complete and
// a run id that names nothing exit 1; a workflow that is not valid, or a name
// that is neither a file nor a playbook, exit 2.
func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cycle := write("cycle.yaml", "name: loop\nagent: analyst\nsteps:\n  - {id: a, depends_on: [b]}\n  - {id: b, depends_on: [a]}\n")
	denied := write("denied.yaml", "name: denied\nsteps:\n  - {id: grab, agent: summarizer, task: x, tools: [query_enrichment]}\n")
	noAction := write("no-action.yaml", "name: odd\nagent: analyst\nsteps:\n  - {id: a, uses: teleport}\n")

	code, out, errOut := sanadIn(t, home, "run", "kyc-screening", "--json")
	if code != exitOK {
		t.Fatalf("run kyc-screening: exit %d, stderr %q", code, errOut)
	}
	var res struct{ Run string }
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Run == "" {
		t.Fatalf("run --json printed %q (%v)", out, err)
	}

	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"run", "red-flags"}, exitOK},
		{[]string{"runs", "show", res.Run}, exitOK},
		{[]string{"runs", "list", "--limit", "1"}, exitOK},
		{[]string{"run", denied}, exitFailure},
		{[]string{"runs", "resume", res.Run}, exitFailure},
		{[]string{"runs", "cancel", res.Run}, exitFailure},
		{[]string{"runs", "show", "rnosuchrun"}, exitFailure},
		{[]string{"runs", "resume", "rnosuchrun"}, exitFailure},
		{[]string{"runs", "cancel", "rnosuchrun"}, exitFailure},
		{[]string{"run", cycle}, exitUsage},
		{[]string{"run", noAction}, exitUsage},
		{[]string{"run", "no-such-playbook"}, exitUsage},
		{[]string{"run", "../workflows/due-diligence"}, exitUsage},
		{[]string{"run", "due-diligence", "--input", "[]"}, exitUsage},
		{[]string{"run", "due-diligence", "--policy", filepath.Join(dir, "nowhere")}, exitUsage},
		{[]string{"runs", "list", "--limit", "-1"}, exitUsage},
		{[]string{"agents", "list", "--agents", filepath.Join(dir, "nowhere")}, exitUsage},
		{[]string{"agents", "select"}, exitUsage},
		{[]string{"ledger", "verfy"}, exitUsage},
		{[]string{"runs", "shwo", res.Run}, exitUsage},
		{[]string{"ledger", "show", "rnosuchtrace"}, exitFailure},
		{[]string{"gates", "approve", "gnosuchgate", "--as", "ann", "--role", "operator"}, exitFailure},
		{[]string{"session", "show", "rnosuchrun"}, exitFailure},
		{[]string{"artifacts", "cat", "sha256:" + strings.Repeat("0", 64)}, exitFailure},
		{[]string{"artifacts", "cat", "nothex"}, exitUsage},
	} {
		if code, _, errOut := sanadIn(t, home, tc.args...); code != tc.want {
			t.Errorf("sanad %v: got exit %d, want %d (stderr %q)", tc.args, code, tc.want, errOut)
		}
	}
}

// TestReportRun: what run and runs resume say, and how they exit, for each
// way a run can stand.
func TestReportRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  runner.Result
		want int
		says string
	}{
		{"completed", runner.Result{Mode: runner.ModeDeterministic, Result: workflow.Result{Run: "r1", Trace: "r1", Status: sanad.StatusCompleted}}, exitOK, ""},
		{"gate", runner.Result{Mode: runner.ModeDeterministic, Result: workflow.Result{Run: "r1", Trace: "r1", Status: sanad.StatusRunning, Gates: []string{"g1"}}}, exitFailure,
			"run r1 waits on gate g1: approve it with `sanad gates approve g1 --as NAME --role operator` (it then resumes), or reject it"},
		{"stopped", runner.Result{Mode: runner.ModeDeterministic, Result: workflow.Result{Run: "r1", Trace: "r1", Status: sanad.StatusRunning}}, exitFailure, "resume it with `sanad runs resume r1`"},
		{"failed", runner.Result{Mode: runner.ModeDeterministic, Result: workflow.Result{Run: "r1", Trace: "r1", Status: sanad.StatusFailed,
			Errors: []workflow.StepError{{Step: "s", Code: sanad.CodeInvalidInput, Message: "bad"}}}}, exitFailure, "run r1 failed: s: bad"},
		{"cancelled", runner.Result{Mode: runner.ModeDeterministic, Result: workflow.Result{Run: "r1", Trace: "r1", Status: sanad.StatusCancelled}}, exitFailure, "run r1 is cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			a := &app{stdout: &out, jsonOut: true}
			err := a.reportRun(tc.res, nil)
			code := exitOK
			if err != nil {
				code = exitCode(err)
			}
			if code != tc.want || (tc.says != "" && !strings.Contains(message(err), tc.says)) {
				t.Errorf("got exit %d, %v; want exit %d saying %q", code, err, tc.want, tc.says)
			}
			var got map[string]json.RawMessage
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("--json printed %q: %v", out.String(), err)
			}
			if string(got["mode"]) != `"deterministic"` {
				t.Errorf("--json printed %s: mode %s, want \"deterministic\"", out.String(), got["mode"])
			}
			if _, ok := got["gates"]; ok != (len(tc.res.Gates) > 0) {
				t.Errorf("--json printed %s: gates present %v, want %v", out.String(), ok, len(tc.res.Gates) > 0)
			}
		})
	}
}
