package protocol_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/playbook/protocol"
)

// TestParseTask: the example tasks parse; bad ones are refused with an
// INVALID_INPUT error that names the file and what to fix.
func TestParseTask(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "sessions", "*.yaml"))
	if err != nil || len(files) < 3 {
		t.Fatalf("examples: %v, %v", files, err)
	}
	for _, f := range files {
		exampleTask(t, strings.TrimSuffix(filepath.Base(f), ".yaml"))
	}
	const ok = "- {id: a, objective: A, tool: lookup, input: {key: k}, claim: {text: t, confidence: 0.5}}"
	tests := []struct{ name, yaml, want string }{
		{"bad_yaml", "name: [", "not valid YAML"},
		{"bad_no_objectives", "name: x\nobjectives: []", "at /objectives"},
		{"bad_unknown_key", "name: x\nsurprise: 1\nobjectives:\n  " + ok, "surprise"},
		{"bad_confidence", "name: x\nobjectives:\n  - {id: a, objective: A, tool: lookup, input: {}, claim: {text: t, confidence: 2}}", "at /objectives/0/claim/confidence"},
		{"bad_input", "name: x\nobjectives:\n  - {id: a, objective: A, tool: lookup, input: [1], claim: {text: t, confidence: 0.5}}", "at /objectives/0/input"},
		{"bad_duplicate", "name: x\nobjectives:\n  " + ok + "\n  " + ok, `two objectives are named "a"`},
		{"bad_cite", "name: x\nobjectives:\n  - {id: a, objective: A, tool: lookup, input: {}, evidence: {cite: [w9]}, claim: {text: t, confidence: 0.5}}", `cites attachment "w9"`},
		{"bad_attachment", "name: x\nattachments: [{name: w9, media_type: text/plain}]\nobjectives:\n  " + ok, "at /attachments/0"},
		{"bad_field_without_equals", "name: x\nobjectives:\n  - {id: a, objective: A, tool: lookup, input: {}, claim: {text: t, confidence: 0.5, field: f}}", "at /objectives/0/claim"},
		{"bad_policy_risk", "name: x\npolicy: {max_risk: extreme}\nobjectives:\n  " + ok, "at /policy/max_risk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := protocol.ParseTask("task.yaml", []byte(tt.yaml))
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput || !strings.Contains(err.Error(), "task.yaml") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want INVALID_INPUT naming task.yaml and %q", err, tt.want)
			}
		})
	}
}

// TestThresholdsTighten: a task's policy makes the thresholds stricter and
// never looser.
func TestThresholdsTighten(t *testing.T) {
	yes, no, zero := true, false, 0
	base := protocol.DefaultThresholds
	got := base.Tighten(&protocol.TaskPolicy{MaxRisk: protocol.RiskCritical, MinEvidence: 3, MinConfidence: 0.1, AllowFallback: &yes, MaxRetries: &zero})
	want := base
	want.MinEvidence, want.MaxRetries = 3, 0
	if got != want {
		t.Errorf("Tighten: got %+v, want %+v", got, want)
	}
	got = base.Tighten(&protocol.TaskPolicy{MaxRisk: protocol.RiskLow, MinConfidence: 0.9, AllowFallback: &no})
	if got.MaxRisk != protocol.RiskLow || got.MinConfidence != 0.9 || got.AllowFallback {
		t.Errorf("Tighten: got %+v, want max_risk low, min_confidence 0.9, no fallback", got)
	}
	if err := (protocol.Thresholds{MaxRisk: "low", ReviewFrom: "low", MinEvidence: 0}).Validate(); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("Validate of min_evidence 0: got %v, want INVALID_INPUT", err)
	}
}

// TestStartRefusesUnknownTool: a task naming a tool the engine does not have
// is refused before anything is recorded.
func TestStartRefusesUnknownTool(t *testing.T) {
	h := openHome(t)
	_, err := newEngine(t, h).Start(context.Background(), parseTask(t, `
name: x
objectives:
  - {id: a, objective: A, tool: teleport, input: {}, claim: {text: t, confidence: 0.5}}
`), protocol.Options{Scope: scope})
	if sanad.ErrorCode(err) != sanad.CodeInvalidInput || !strings.Contains(err.Error(), `"teleport"`) {
		t.Errorf("got %v, want INVALID_INPUT naming the tool", err)
	}
	if traces, _ := ledger.WorkTraces(context.Background(), h.DB); len(traces) != 0 {
		t.Errorf("traces: got %d, want none", len(traces))
	}
}

// FuzzParseTask: ParseTask never panics, and what it accepts validates.
func FuzzParseTask(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "sessions", "*.yaml"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(crashTask))
	f.Fuzz(func(t *testing.T, data []byte) {
		task, err := protocol.ParseTask("fuzz.yaml", data)
		if err != nil {
			return
		}
		if err := task.Validate(); err != nil {
			t.Errorf("ParseTask accepted a task that does not validate: %v", err)
		}
	})
}
