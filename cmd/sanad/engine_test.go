package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/examples"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/workflow"
)

// openEngine opens a home in a temporary folder and wires the built-in
// engine over it, both closed at cleanup.
func openEngine(t testing.TB, opt engineOptions) *engine {
	t.Helper()
	h, err := home.Open(t.Context(), home.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("home.Open: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	e, err := newEngine(h, opt)
	if err != nil {
		t.Fatalf("newEngine: %v", err)
	}
	return e
}

// TestExampleWorkflows: every workflow built into the binary parses, names
// known agents and tools, runs to completed through the built-in wiring,
// and replays to the same outputs.
func TestExampleWorkflows(t *testing.T) {
	files, err := fs.Glob(examples.FS, "workflows/*.yaml")
	if err != nil || len(files) < 2 {
		t.Fatalf("examples.FS holds %d workflows (%v), want at least 2", len(files), err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(path.Base(file), ".yaml"), func(t *testing.T) {
			ctx := t.Context()
			data, err := fs.ReadFile(examples.FS, file)
			if err != nil {
				t.Fatal(err)
			}
			d, err := workflow.Parse(file, data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			e := openEngine(t, engineOptions{})
			if err := e.check(file, d); err != nil {
				t.Fatalf("check: %v", err)
			}
			res, err := e.start(ctx, d, nil, sanad.Scope{Tenant: "test", Case: "examples"})
			if err != nil {
				t.Fatalf("start: %v", err)
			}
			if res.Status != sanad.StatusCompleted {
				t.Fatalf("got status %s (errors %+v), want completed", res.Status, res.Errors)
			}
			if len(res.Outputs) != len(d.Steps) {
				t.Errorf("got %d outputs, want one per step (%d)", len(res.Outputs), len(d.Steps))
			}
			wf, err := e.workflow()
			if err != nil {
				t.Fatal(err)
			}
			replayed, err := wf.Replay(ctx, res.Run)
			if err != nil {
				t.Fatalf("Replay: %v", err)
			}
			for id, out := range res.Outputs {
				if !bytes.Equal(replayed.Outputs[id], out) {
					t.Errorf("step %s: replay output %s, want %s", id, replayed.Outputs[id], out)
				}
			}
			if rep, err := e.home.Ledger.Verify(ctx, res.Trace); err != nil {
				t.Errorf("Verify(%s): %v (%+v)", res.Trace, err, rep)
			}
		})
	}
}

// TestAgentStepInputs: an agent step reads the outputs it depends on; one
// that names none reads every earlier output in a workflow that runs one step
// at a time.
func TestAgentStepInputs(t *testing.T) {
	const wf = `
name: inputs
agent: analyst
steps:
  - id: first
    task: Analyse the working capital trend over the last three years
  - id: hashed
    tool: hash.sha256
    with: {text: "abc"}
  - id: all
    task: Summarize the findings for the investment committee
    agent: summarizer
  - id: one
    task: Challenge the evidence chain of a finding
    agent: critic
    depends_on: [hashed]
`
	d, err := workflow.Parse("inputs.yaml", []byte(wf))
	if err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, engineOptions{})
	res, err := e.start(t.Context(), d, nil, sanad.Scope{Tenant: "test", Case: "inputs"})
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("start: %v, %+v", err, res)
	}
	steps := func(id string) []string {
		var out offlineOutput
		if err := json.Unmarshal(res.Outputs[id], &out); err != nil {
			t.Fatalf("output of %s: %v", id, err)
		}
		var got []string
		for _, in := range out.Inputs {
			got = append(got, in.Step)
		}
		return got
	}
	for _, tc := range []struct {
		step string
		want []string
	}{
		{"first", nil},
		{"all", []string{"first", "hashed"}},
		{"one", []string{"hashed"}},
	} {
		if got := steps(tc.step); !slices.Equal(got, tc.want) {
			t.Errorf("step %s read %v, want %v", tc.step, got, tc.want)
		}
	}
	var h struct {
		SHA256 string `json:"sha256"`
	}
	if err := json.Unmarshal(res.Outputs["hashed"], &h); err != nil || h.SHA256 != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("hash.sha256 of abc: got %s (%v)", res.Outputs["hashed"], err)
	}
}

// TestAgentStepToolsRefused: a step may list only tools its agent's profile
// permits, or built-in ones; anything else fails the step with
// POLICY_DENIED.
func TestAgentStepToolsRefused(t *testing.T) {
	const wf = `
name: refused
steps:
  - id: grab
    agent: summarizer
    task: Summarize the red flags raised so far
    tools: [query_enrichment]
`
	d, err := workflow.Parse("refused.yaml", []byte(wf))
	if err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, engineOptions{})
	res, err := e.start(t.Context(), d, nil, sanad.Scope{Tenant: "test", Case: "refused"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != sanad.StatusFailed || len(res.Errors) != 1 || res.Errors[0].Code != sanad.CodePolicyDenied {
		t.Fatalf("got %s %+v, want failed with POLICY_DENIED", res.Status, res.Errors)
	}
}

// TestOfflineNodeDeterministic: the offline node's output depends only on
// what it is given: the same input twice gives the same bytes, whatever the
// order the inputs map was built in.
func TestOfflineNodeDeterministic(t *testing.T) {
	reg, lib, err := loadAgents("")
	if err != nil {
		t.Fatal(err)
	}
	p, err := reg.Get("analyst")
	if err != nil {
		t.Fatal(err)
	}
	const system = "You are the analyst"
	node := &offlineNode{profile: p, library: lib, budget: abilityBudget, system: system}
	input := func(order []string) agent.Input {
		in := agent.Input{Task: "Reconcile reported revenue with the audited financial statements", SystemPrompt: system, Inputs: map[string]json.RawMessage{}}
		for _, k := range order {
			in.Inputs[k] = json.RawMessage(`{"step": "` + k + `", "n": [1, 2.50, "x"]}`)
		}
		return in
	}
	first, _, err := agent.Run(t.Context(), node, lib, input([]string{"a", "b", "c"}), abilityBudget)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	second, _, err := agent.Run(t.Context(), node, lib, input([]string{"c", "a", "b"}), abilityBudget)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !bytes.Equal(first.Content, second.Content) || first.Summary != second.Summary {
		t.Fatalf("two runs on the same input differ:\n%s\n%s", first.Content, second.Content)
	}
	var out offlineOutput
	if err := json.Unmarshal(first.Content, &out); err != nil {
		t.Fatal(err)
	}
	if out.Agent != "analyst" || out.Role != "analyst" || len(out.Inputs) != 3 || out.Inputs[0].Step != "a" || out.PromptTokens <= 0 ||
		!slices.Contains(out.Abilities, "financial-analysis") {
		t.Errorf("got %+v, want the analyst with financial-analysis and inputs a, b, c", out)
	}
	if err := node.ValidateOutput(agent.Output{Content: json.RawMessage(`{"agent":"analyst"}`), Summary: "s"}); err == nil {
		t.Errorf("ValidateOutput accepted an output without its keys")
	}
}

// stopAfterFirstStep makes e's runs stop as an interrupted process would:
// the context of the run ends once its first step is recorded.
func stopAfterFirstStep(t testing.TB, e *engine) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	var once sync.Once
	e.crash = func(point string) {
		if point == workflow.PointAfterCheckpoint {
			once.Do(cancel)
		}
	}
	return ctx
}

// TestResumeAndCancelStoppedRun: a run stopped between steps resumes to
// completed without running its first step again, or is cancelled; either
// way it has ended, and can be neither resumed nor cancelled again.
func TestResumeAndCancelStoppedRun(t *testing.T) {
	const wf = `
name: stops
agent: analyst
steps:
  - id: one
    task: Analyse the working capital trend over the last three years
  - id: two
    task: Check the EBITDA adjustments in the quality of earnings report
  - id: three
    tool: hash.sha256
    with: {text: done}
`
	for _, resume := range []bool{true, false} {
		name := map[bool]string{true: "resume", false: "cancel"}[resume]
		t.Run(name, func(t *testing.T) {
			d, err := workflow.Parse("stops.yaml", []byte(wf))
			if err != nil {
				t.Fatal(err)
			}
			e := openEngine(t, engineOptions{})
			res, err := e.start(stopAfterFirstStep(t, e), d, nil, sanad.Scope{Tenant: "test", Case: name})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != sanad.StatusRunning || len(res.Outputs) != 1 {
				t.Fatalf("stopped run: got %s with %d outputs, want running with 1", res.Status, len(res.Outputs))
			}
			e.crash = nil
			ctx := t.Context()
			want := sanad.StatusCancelled
			if resume {
				want = sanad.StatusCompleted
				got, err := e.resume(ctx, res.Run)
				if err != nil || got.Status != want || got.Executed != 2 || len(got.Outputs) != 3 {
					t.Fatalf("resume: got %s, %d executed, %d outputs (%v, %+v), want completed, 2, 3", got.Status, got.Executed, len(got.Outputs), err, got.Errors)
				}
			} else if err := e.cancel(ctx, res.Run, "the deal fell through"); err != nil {
				t.Fatalf("cancel: %v", err)
			}
			v, err := showRun(ctx, e.home, res.Run)
			if err != nil || v.Run.Status != want {
				t.Fatalf("showRun: got %s (%v), want %s", v.Run.Status, err, want)
			}
			if _, err := e.resume(ctx, res.Run); sanad.ErrorCode(err) != sanad.CodeConflict {
				t.Errorf("resume of an ended run: got %v, want CONFLICT", err)
			}
			if err := e.cancel(ctx, res.Run, ""); sanad.ErrorCode(err) != sanad.CodeConflict {
				t.Errorf("cancel of an ended run: got %v, want CONFLICT", err)
			}
		})
	}
}

// TestKYCRollback: when a step of kyc-screening fails, the steps completed
// before it are compensated in reverse order, the KYC file through its
// compensation's tool call.
func TestKYCRollback(t *testing.T) {
	data, err := fs.ReadFile(examples.FS, "workflows/kyc-screening.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := workflow.Parse("kyc-screening.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	// A wait longer than time.wait allows: the gateway refuses its input.
	d.Steps = append(d.Steps, workflow.Step{ID: "too-long", Tool: toolTimeWait, With: json.RawMessage(`{"ms": 60000}`)})
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, engineOptions{})
	ctx := t.Context()
	res, err := e.start(ctx, d, nil, sanad.Scope{Tenant: "test", Case: "kyc"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != sanad.StatusFailed || len(res.Errors) != 1 || res.Errors[0].Step != "too-long" || res.Errors[0].Code != sanad.CodeInvalidInput {
		t.Fatalf("got %s %+v, want failed at too-long with INVALID_INPUT", res.Status, res.Errors)
	}
	v, err := showRun(ctx, e.home, res.Run)
	if err != nil {
		t.Fatal(err)
	}
	var compensated []string
	for _, s := range v.Steps {
		if s.Status == "compensated" {
			compensated = append(compensated, s.Step)
		}
	}
	if want := []string{"release-audit", "screening", "open-file", "fingerprint", "owners"}; !slices.Equal(compensated, want) {
		t.Errorf("compensated %v, want %v", compensated, want)
	}
	// Two artifact.put calls: the file opened, then withdrawn.
	puts := 0
	for _, c := range v.Children {
		if c.Kind == sanad.KindToolGateway && c.Agent == "auditor" && c.Status == sanad.StatusCompleted {
			puts++
		}
	}
	if puts != 2 {
		t.Errorf("got %d completed tool calls by the auditor, want 2 (open, withdraw)", puts)
	}
}
