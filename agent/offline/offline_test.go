package offline_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/agent/offline"
)

var analyst = agent.Profile{ID: "analyst", Name: "Analyst", Description: "Reads the numbers.", Role: "analyst", Enabled: true, Version: "1"}

func run(t testing.TB, task string, input string, inputs map[string]json.RawMessage) offline.Output {
	t.Helper()
	out, err := offline.New(analyst).Execute(context.Background(), agent.Input{Task: task, Input: json.RawMessage(input), Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	if err := offline.New(analyst).ValidateOutput(out); err != nil {
		t.Fatal(err)
	}
	var o offline.Output
	if err := json.Unmarshal(out.Content, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

func statements(o offline.Output, kind string) []string {
	var out []string
	for _, f := range o.Findings {
		if f.Kind == kind {
			out = append(out, f.Statement)
		}
	}
	return out
}

// The agent finds what sources state about the task's subject, where they
// contradict each other and where they agree, with the source of each.
func TestAnalysisFindsConflictsAndAgreement(t *testing.T) {
	o := run(t, "Reconcile reported revenue with the audited statements", `{
		"documents": {
			"accounts": "Management reported revenue of $12.4m for FY2024. Headcount was 120.",
			"audit": "The audited statements show revenue of $11.9m and net debt of $3m.",
			"lender": "Net debt of $3m is confirmed by the lender on 31 March 2025."
		}}`, nil)
	conflicts := statements(o, offline.KindConflict)
	if len(conflicts) != 1 || !strings.Contains(conflicts[0], "revenue is $12.4m in input $.documents.accounts but $11.9m in input $.documents.audit (4.0% apart)") {
		t.Errorf("conflicts: got %q", conflicts)
	}
	agree := statements(o, offline.KindCorroborated)
	if len(agree) != 1 || !strings.HasPrefix(agree[0], "net debt is $3m in 2 sources") {
		t.Errorf("agreement: got %q", agree)
	}
	if rel := statements(o, offline.KindRelevant); len(rel) == 0 || !strings.Contains(rel[0], "audited statements show revenue") {
		t.Errorf("relevant: got %q, want the audited revenue first", rel)
	}
	if d := statements(o, offline.KindDate); len(d) != 2 {
		t.Errorf("dates: got %q, want FY2024 and 31 March 2025", d)
	}
	if !strings.Contains(o.Text, "Sources disagree:") {
		t.Errorf("the report does not say the sources disagree:\n%s", o.Text)
	}
}

// What the task asks about that no source mentions is reported as a gap,
// instead of being made up.
func TestAnalysisReportsGaps(t *testing.T) {
	o := run(t, "Identify change of control clauses", `{"note": "The lease runs to 2030."}`, nil)
	gaps := statements(o, offline.KindGap)
	if len(gaps) != 1 || !strings.Contains(gaps[0], "change, control, clauses") {
		t.Errorf("gaps: got %q", gaps)
	}
}

// Another agent's output is read for its findings, not as a source: its
// restated figures neither corroborate nor contradict the evidence.
func TestAnalysisReadsAgentsFindingsNotTheirReports(t *testing.T) {
	first := run(t, "Reconcile revenue", `{"a": "Revenue of $10m.", "b": "Revenue of $12m."}`, nil)
	raw, _ := json.Marshal(first)
	second := run(t, "Challenge the revenue finding", `{}`, map[string]json.RawMessage{"analysis": raw})
	if n := len(statements(second, offline.KindFigure)) + len(statements(second, offline.KindCorroborated)); n != 0 {
		t.Errorf("the second agent took %d figures from the first one's report", n)
	}
	rel := statements(second, offline.KindRelevant)
	if len(rel) == 0 || !strings.HasPrefix(rel[0], "analysis found: revenue is $10m") {
		t.Errorf("relevant: got %q, want the first agent's conflict", rel)
	}
}

// The same input gives the same output, whatever the order of its members.
func TestAnalysisDeterministic(t *testing.T) {
	a := run(t, "Review revenue", `{"x": "Revenue of $1m.", "y": "Revenue of $2m."}`, nil)
	b := run(t, "Review revenue", `{"y": "Revenue of $2m.", "x": "Revenue of $1m."}`, nil)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatalf("two runs differ:\n%s\n%s", ja, jb)
	}
}

// FuzzExecute: any JSON input is analysed without a panic, and the output
// is valid and bounded.
func FuzzExecute(f *testing.F) {
	f.Add("Review revenue", `{"a": "Revenue of $12.4m in FY2024, up 8%. Example Holdings Ltd."}`)
	f.Add("x", `{"a": [1, 2.5e300, -0, "£1bn", {"mode": "x", "findings": [{"kind": "conflict", "statement": "s"}]}]}`)
	f.Add("", `{"a": "Ltd. Ltd. Ltd. $ $ % 12 March 2024 FY24 ....."}`)
	f.Fuzz(func(t *testing.T, task, input string) {
		if !json.Valid([]byte(input)) || !strings.HasPrefix(strings.TrimSpace(input), "{") {
			return
		}
		out, err := offline.New(analyst).Execute(context.Background(), agent.Input{Task: task, Input: json.RawMessage(input)})
		if err != nil {
			return
		}
		if err := offline.New(analyst).ValidateOutput(out); err != nil {
			t.Fatalf("invalid output: %v", err)
		}
		if len(out.Content) > 64*len(input)+64*1024 {
			t.Fatalf("output of %d bytes for an input of %d", len(out.Content), len(input))
		}
	})
}
