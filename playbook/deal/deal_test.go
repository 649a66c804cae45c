package deal_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/diligence"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/playbook/deal"
	"github.com/sanadhq/sanad/playbook/debate"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/workflow"
)

var dealScope = sanad.Scope{Tenant: "fund", Case: "orrery"}

func open(t *testing.T, dir string, crash func(string)) *runner.Runner {
	t.Helper()
	r, err := runner.Open(context.Background(), runner.Config{Dir: dir, Crash: crash})
	if err != nil {
		t.Fatal(err)
	}
	pb, err := deal.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Register(pb); err != nil {
		t.Fatal(err)
	}
	return r
}

func input(t *testing.T) deal.Input {
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "deals", "09-orrery-health"))
	if err != nil {
		t.Fatal(err)
	}
	return deal.Input{Dir: dir}
}

func memoOf(t *testing.T, res runner.Result) diligence.Memo {
	t.Helper()
	var m diligence.Memo
	if err := json.Unmarshal(res.Outputs["memo"], &m); err != nil {
		t.Fatalf("memo: %v", err)
	}
	return m
}

func calls(t *testing.T, r *runner.Runner, trace, tool string) int {
	t.Helper()
	evs, err := r.Home().Ledger.Events(context.Background(), trace)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range evs {
		if ev.Type == "tool.completed" && strings.Contains(string(ev.Body), `"tool":"`+tool+`"`) {
			n++
		}
	}
	return n
}

// TestD19_DebateRoundsAreStepsEveryOutputGated: the debate of a deal whose
// deck overstates revenue runs as a workflow: the analysis once, each
// role's output of each round through a recorded Muḥāsabah check, the
// rounds after the stop not heard, and the memo; a replay gives the same
// memo, and the ledger verifies.
func TestD19_DebateRoundsAreStepsEveryOutputGated(t *testing.T) {
	r := open(t, t.TempDir(), nil)
	defer r.Close()
	res, err := r.Run(context.Background(), deal.Name, input(t), runner.Options{Scope: dealScope})
	if err != nil || res.Err() != nil {
		t.Fatalf("run: %v %v", err, res.Err())
	}
	m := memoOf(t, res)
	if m.Recommendation != diligence.Decline || m.StopReason != "CRITICAL_DEFECT" {
		t.Fatalf("memo: %s %s", m.Recommendation, m.StopReason)
	}
	heard := 0
	for id, raw := range res.Outputs {
		var h deal.Heard
		if strings.HasPrefix(id, "r") && json.Unmarshal(raw, &h) == nil && h.Heard {
			heard++
		}
	}
	if heard == 0 || calls(t, r, res.Trace, deal.ToolCheck) != heard || calls(t, r, res.Trace, deal.ToolAnalyze) != 1 {
		t.Fatalf("%d outputs heard, %d checks, %d analyses", heard, calls(t, r, res.Trace, deal.ToolCheck), calls(t, r, res.Trace, deal.ToolAnalyze))
	}
	if _, err := r.Home().Ledger.Verify(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	rep, err := r.Replay(context.Background(), res.Run)
	if err != nil || rep.Err() != nil {
		t.Fatalf("replay: %v %v", err, rep.Err())
	}
	if memoOf(t, rep).Recommendation != m.Recommendation {
		t.Fatal("the replay gave another memo")
	}
}

// TestD19_CrashedDebateResumesToTheSameMemo kills the debate after a
// round's step is checkpointed, resumes it in a new process, and gets the
// memo of an uninterrupted run, with the data room read once.
func TestD19_CrashedDebateResumesToTheSameMemo(t *testing.T) {
	clean := open(t, t.TempDir(), nil)
	want, err := clean.Run(context.Background(), deal.Name, input(t), runner.Options{Scope: dealScope})
	clean.Close()
	if err != nil || want.Err() != nil {
		t.Fatal(err, want.Err())
	}
	dir := t.TempDir()
	hits := 0
	crashed := false
	r := open(t, dir, func(p string) {
		if p == workflow.PointAfterCheckpoint {
			if hits++; hits == 3 {
				crashed = true
				runtime.Goexit()
			}
		}
	})
	done := make(chan struct{})
	var runID string
	go func() {
		defer close(done)
		res, _ := r.Run(context.Background(), deal.Name, input(t), runner.Options{Scope: dealScope})
		runID = res.Run
	}()
	<-done
	r.Close()
	if !crashed {
		t.Fatal("the debate did not crash")
	}
	r = open(t, dir, nil)
	defer r.Close()
	if runID == "" {
		traces, err := ledger.WorkTraces(context.Background(), r.Home().DB)
		if err != nil || len(traces) != 1 {
			t.Fatalf("traces: %v %v", traces, err)
		}
		runID = traces[0]
	}
	res, err := r.Resume(context.Background(), runID)
	if err != nil || res.Err() != nil {
		t.Fatalf("resume: %v %v", err, res.Err())
	}
	if string(res.Outputs["memo"]) != string(want.Outputs["memo"]) {
		t.Fatal("the resumed debate wrote another memo")
	}
	if n := calls(t, r, res.Trace, deal.ToolAnalyze); n != 1 {
		t.Fatalf("the data room was analysed %d times", n)
	}
}

// TestD01_FiveRolesAreAgentNodes: the playbook's agents are the five roles
// of seed 000 §2.2, each an agent node that executes a task and validates
// its output.
func TestD01_FiveRolesAreAgentNodes(t *testing.T) {
	pb, err := deal.New()
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]bool{}
	for _, p := range pb.Agents {
		roles[p.Role] = true
		fn, ok := pb.Nodes[p.ID]
		if !ok {
			t.Fatalf("agent %s has no node", p.ID)
		}
		n := fn(p)
		if n.Profile().Role != p.Role {
			t.Errorf("node of %s has role %s", p.ID, n.Profile().Role)
		}
		if n.ValidateOutput(agent.Output{Content: json.RawMessage(`{"heard":true}`)}) != nil || n.ValidateOutput(agent.Output{Content: json.RawMessage(`{`)}) == nil {
			t.Errorf("node of %s does not validate its output", p.ID)
		}
	}
	for _, r := range debate.Roles {
		if !roles[r] {
			t.Errorf("no agent of role %s", r)
		}
	}
	if len(pb.Agents) != 5 {
		t.Errorf("%d agents, want 5", len(pb.Agents))
	}
}

// TestD19_GDBSDebateCompletionThroughTheWorkflow runs every golden deal
// through the debate workflow (each cited claim looked up, each output
// through the recorded gate) and checks the stop reason its expected.json
// names.
func TestD19_GDBSDebateCompletionThroughTheWorkflow(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "..", "examples", "deals", "[0-9]*"))
	if len(dirs) < 10 {
		t.Fatalf("%d golden deals", len(dirs))
	}
	r := open(t, t.TempDir(), nil)
	defer r.Close()
	for _, dir := range dirs {
		abs, _ := filepath.Abs(dir)
		want, err := diligence.ReadExpected(abs)
		if err != nil {
			t.Fatal(err)
		}
		m, err := diligence.ReadManifest(abs)
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Run(context.Background(), deal.Name, deal.Input{Dir: abs}, runner.Options{Scope: sanad.Scope{Tenant: "fund", Case: diligence.CaseID(m.Name)}})
		if err != nil || res.Err() != nil {
			t.Errorf("%s: %v %v", filepath.Base(dir), err, res.Err())
			continue
		}
		if got := memoOf(t, res).StopReason; got != want.StopReason {
			t.Errorf("%s: stopped on %s, want %s", filepath.Base(dir), got, want.StopReason)
		}
		if calls(t, r, res.Trace, deal.ToolLookupClaim) == 0 {
			t.Errorf("%s: no claim looked up", filepath.Base(dir))
		}
	}
	if _, err := r.Home().Ledger.Verify(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
}
