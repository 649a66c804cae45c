package casework_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ingest"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/playbook/casework"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

const casesDir = "../../examples/cases"

// env is a runner over a fresh home with the casework playbooks.
type env struct {
	t   *testing.T
	r   *runner.Runner
	h   *home.Home
	pol *policy.Set
}

func newEnv(t *testing.T) *env {
	t.Helper()
	r, err := runner.Open(t.Context(), runner.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	pbs, err := casework.Playbooks(casework.Config{Now: func() time.Time { return time.Date(2025, 11, 10, 0, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, pb := range pbs {
		if err := r.Register(pb); err != nil {
			t.Fatal(err)
		}
	}
	pol, err := casework.Policy()
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, r: r, h: r.Home(), pol: pol}
}

func scopeOf(caseID string) sanad.Scope { return sanad.Scope{Tenant: "firm", Case: caseID} }

func read(t *testing.T, parts ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{casesDir}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// run runs a casework playbook in the case and fails the test unless it
// completes or waits on a gate.
func (e *env) run(name, caseID string, input any) runner.Result {
	e.t.Helper()
	res, err := e.r.Run(e.t.Context(), name, input, runner.Options{Scope: scopeOf(caseID), Caller: "test"})
	if err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
	if res.Status != sanad.StatusCompleted && len(res.Gates) == 0 {
		e.t.Fatalf("%s: status %s, errors %+v", name, res.Status, res.Errors)
	}
	return res
}

// approve resolves each gate as a person with role and returns the resumed
// run.
func (e *env) approve(res runner.Result, role string) runner.Result {
	e.t.Helper()
	for len(res.Gates) > 0 {
		got, err := e.r.ResolveGate(e.t.Context(), res.Gates[0], runs.Principal{Agent: "helen", Role: role}, true, "reviewed", true)
		if err != nil {
			e.t.Fatalf("approve %s: %v", res.Gates[0], err)
		}
		if got.Resumed == nil {
			e.t.Fatalf("approve %s: nothing resumed", res.Gates[0])
		}
		res = *got.Resumed
	}
	if res.Status != sanad.StatusCompleted {
		e.t.Fatalf("after approval: status %s, errors %+v", res.Status, res.Errors)
	}
	return res
}

// openMatter opens an example matter as caseID, approves its triage,
// interviews the client and adds its documents (and privileged notes).
func (e *env) openMatter(matter, caseID string) {
	e.t.Helper()
	res := e.run(casework.Open, caseID, casework.OpenInput{Form: read(e.t, matter, "intake.json"), ClientSessionID: "intake-1", AsOf: "2025-11-10"})
	e.approve(res, casework.RoleAttorney)
	files, _ := filepath.Glob(filepath.Join(casesDir, matter, "interview.*"))
	if len(files) != 1 {
		e.t.Fatalf("%s: want one interview file, got %v", matter, files)
	}
	e.interview(caseID, files[0])
	e.add(caseID, filepath.Join(casesDir, matter, "documents"), false)
	if _, err := os.Stat(filepath.Join(casesDir, matter, "privileged")); err == nil {
		e.add(caseID, filepath.Join(casesDir, matter, "privileged"), true)
	}
}

func (e *env) interview(caseID, path string) runner.Result {
	e.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatal(err)
	}
	ref, err := e.h.Artifacts.Put(e.t.Context(), scopeOf(caseID), "", "text/plain", data)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.run(casework.Interview, caseID, casework.InterviewInput{ClientSessionID: "interview-1", Artifact: "sha256:" + ref.SHA256, Name: filepath.Base(path)})
}

func (e *env) add(caseID, dir string, privileged bool) {
	e.t.Helper()
	p, err := ingest.ForHome(e.h, ingest.HomeOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	opt := ingest.Options{Scope: scopeOf(caseID)}
	if privileged {
		opt.Metadata = map[string]any{"tags": []any{"privileged"}}
	}
	rep, err := p.Ingest(e.t.Context(), []connector.Input{ingest.Source(dir, true)}, opt)
	if err != nil || len(rep.Errors) > 0 {
		e.t.Fatalf("ingest %s: %v %+v", dir, err, rep.Errors)
	}
}

// gateway is a gateway over the runner's home with the casework policy and
// tools, for calling a tool as any principal.
func (e *env) gateway() *tool.Gateway {
	e.t.Helper()
	specs, err := e.r.Tools(casework.Map)
	if err != nil {
		e.t.Fatal(err)
	}
	reg, err := tool.NewRegistry(specs...)
	if err != nil {
		e.t.Fatal(err)
	}
	g, err := tool.New(tool.Config{Registry: reg, Policy: e.pol, Runs: e.h.Runs, Artifacts: e.h.Artifacts})
	if err != nil {
		e.t.Fatal(err)
	}
	return g
}

// agentRun starts an agent run of role in caseID, to call tools from.
func (e *env) agentRun(role, caseID string) *runs.Run {
	e.t.Helper()
	r, err := e.h.Runs.Start(context.Background(), runs.Spec{Kind: sanad.KindAgent, Scope: scopeOf(caseID), Agent: agentID(role), Role: role,
		PolicyVersions: e.pol.Versions(), Decision: runs.Decision{Allow: true, Reason: "a test acts as " + role}})
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func agentID(role string) string {
	b := []byte(role)
	for i, c := range b {
		switch {
		case c == '_':
			b[i] = '-'
		case c >= 'A' && c <= 'Z':
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b) + "-test"
}

// events returns the verified events of trace.
func (e *env) events(trace string) []*ledger.Event {
	e.t.Helper()
	if _, err := e.h.Ledger.Verify(e.t.Context(), trace); err != nil {
		e.t.Fatalf("Verify(%s): %v", trace, err)
	}
	evs, err := e.h.Ledger.Events(e.t.Context(), trace)
	if err != nil {
		e.t.Fatal(err)
	}
	return evs
}

// runsOf returns the runs of trace by id.
func (e *env) runsOf(trace string) map[string]sanad.Run {
	e.t.Helper()
	rs, err := e.h.DB.Runs(e.t.Context(), trace)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]sanad.Run{}
	for _, r := range rs {
		out[r.ID] = r
	}
	return out
}

// allRoles are the roles of the casework policy.
var allRoles = []string{casework.RoleOrchestrator, casework.RoleIntake, casework.RoleInterview, casework.RoleMapping,
	casework.RoleGovernance, casework.RoleExport, casework.RoleAttorney, casework.RoleAttorneyAdmin}

// others returns every role but allowed.
func others(allowed ...string) []string {
	var out []string
	for _, r := range allRoles {
		if !slices.Contains(allowed, r) {
			out = append(out, r)
		}
	}
	return out
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
