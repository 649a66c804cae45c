package agent

import (
	"reflect"
	"testing"
)

// selectionRegistry holds agents whose tasks exercise every signal.
func selectionRegistry(tb testing.TB) *Registry {
	tb.Helper()
	off := profile("disabled", []string{"review the share purchase agreement"}, nil)
	off.Enabled = false
	return registry(tb,
		profile("legal-reviewer", []string{"Review the share purchase agreement", "List pending litigation"}, []string{"reconcile revenue"}),
		profile("analyst", []string{"Reconcile reported revenue with the audited accounts"}, []string{"review the share purchase agreement"}),
		profile("researcher", []string{"Find the beneficial owners"}, nil),
		profile("summarizer", []string{"Summarize the findings"}, nil),
		profile("critic", []string{"Review the findings"}, []string{"summarize"}),
		off,
	)
}

func TestINV_AGT_SEL_001_Deterministic(t *testing.T) {
	tasks := []string{"review the share purchase agreement", "summarize the findings", "review", "nothing at all", ""}
	for _, task := range tasks {
		first := selectionRegistry(t).Select(task)
		for range 20 {
			// A new registry each time: map order differs between them.
			if got := selectionRegistry(t).Select(task); !reflect.DeepEqual(got, first) {
				t.Fatalf("Select(%q): got %+v, want %+v as the first time", task, got, first)
			}
		}
	}
}

func TestINV_AGT_SEL_002_ConfidenceRange(t *testing.T) {
	tests := []struct{ in, want float64 }{
		{-0.1, 0}, {-5, 0}, {0, 0}, {0.4, 0.4}, {1, 1}, {1.2, 1}, {7, 1},
	}
	for _, tt := range tests {
		if got := clamp(tt.in); got != tt.want {
			t.Errorf("clamp(%v): got %v, want %v", tt.in, got, tt.want)
		}
	}
	// The one score Select can reach below 0 is 0.4 - 0.5: it is clamped
	// to 0, so the agent is left out.
	r := registry(t, profile("x", []string{"audit the ledger"}, []string{"audit"}))
	if got := r.Select("audit the ledger entries"); len(got) != 1 || got[0].Agent != StandardID {
		t.Errorf("got %+v, want only the standard fallback", got)
	}
	for _, task := range []string{"review the share purchase agreement", "review", "summarize the findings", "list pending litigation."} {
		for _, m := range selectionRegistry(t).Select(task) {
			if m.Confidence < 0 || m.Confidence > 1 {
				t.Errorf("Select(%q): got confidence %v for %s, want it in [0, 1]", task, m.Confidence, m.Agent)
			}
		}
	}
}

func TestINV_AGT_SEL_003_Ordering(t *testing.T) {
	// "review" is inside three example tasks (0.4 each); critic's example
	// "Review the findings" also overlaps "review the findings" exactly.
	got := selectionRegistry(t).Select("Review the findings")
	want := []Match{
		{Agent: "critic", Confidence: 0.6, Reasons: []string{`task is example task "Review the findings" (+0.6)`}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	got = selectionRegistry(t).Select("review")
	var ids []string
	for i, m := range got {
		ids = append(ids, m.Agent)
		if i > 0 && (got[i-1].Confidence < m.Confidence || got[i-1].Confidence == m.Confidence && got[i-1].Agent > m.Agent) {
			t.Errorf("got %s (%v) before %s (%v), want confidence descending then id ascending", got[i-1].Agent, got[i-1].Confidence, m.Agent, m.Confidence)
		}
	}
	// analyst: no example overlaps "review", and its not-for task contains
	// it: out. disabled: out.
	if want := []string{"critic", "legal-reviewer"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("got %q, want %q (ties sorted by id)", ids, want)
	}
}

func TestINV_AGT_SEL_003_MixedScores(t *testing.T) {
	r := registry(t,
		profile("z", []string{"the contract"}, nil),
		profile("y", []string{"review the contract"}, nil),
		profile("x", []string{"contract"}, nil),
	)
	got := r.Select("Review the contract")
	var ids []string
	var conf []float64
	for _, m := range got {
		ids, conf = append(ids, m.Agent), append(conf, m.Confidence)
	}
	if want := []string{"y", "x", "z"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("got agents %q, want %q", ids, want)
	}
	if want := []float64{0.6, 0.4, 0.4}; !reflect.DeepEqual(conf, want) {
		t.Errorf("got confidences %v, want %v", conf, want)
	}
}

func TestINV_AGT_SEL_004_Fallback(t *testing.T) {
	want := []Match{{Agent: StandardID, Confidence: 0.5, Reasons: []string{"no agent matched the task; standard is the fallback"}}}
	for _, r := range []*Registry{NewRegistry(), selectionRegistry(t)} {
		if got := r.Select("bake a cake"); !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	}
	for _, task := range []string{"", "   ", "?!."} {
		got := selectionRegistry(t).Select(task)
		if len(got) != 1 || got[0].Agent != StandardID || got[0].Confidence != 0.5 {
			t.Errorf("Select(%q): got %+v, want standard at 0.5", task, got)
		}
	}
}

func TestINV_AGT_SEL_005_ExampleBoost(t *testing.T) {
	r := registry(t, profile("legal-reviewer", []string{"Review the share purchase agreement", "Review the"}, nil))
	tests := []struct {
		task string
		want float64
	}{
		{"Review the share purchase agreement", 0.6},
		{"  REVIEW   the share purchase agreement?! ", 0.6}, // normalized: still exact
		{"review the share purchase agreement for the buyer", 0.4},
		{"share purchase agreement", 0.4},   // the task inside an example
		{"review the", 0.6},                 // exact with one example, substring of the other: 0.6, not 1.0
		{"purchase the share agreement", 0}, // same words, no substring
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			got := r.Select(tt.task)
			if tt.want == 0 {
				if got[0].Agent != StandardID {
					t.Errorf("got %+v, want the fallback", got)
				}
				return
			}
			if got[0].Agent != "legal-reviewer" || got[0].Confidence != tt.want {
				t.Errorf("got %s at %v, want legal-reviewer at %v", got[0].Agent, got[0].Confidence, tt.want)
			}
		})
	}
}

func TestINV_AGT_SEL_006_NotForReduces(t *testing.T) {
	r := registry(t,
		profile("a", []string{"draft the report"}, []string{"draft the report"}),     // exact - not-for
		profile("b", []string{"draft the report for the client"}, []string{"draft"}), // substring - not-for
		profile("c", nil, []string{"draft the report"}),                              // not-for alone
		profile("d", []string{"draft the report"}, []string{"draft", "report"}),      // two not-for hits count once
	)
	got := r.Select("Draft the report.")
	want := []Match{
		{Agent: "a", Confidence: 0.1, Reasons: []string{`task is example task "draft the report" (+0.6)`, `task overlaps not-for task "draft the report" (-0.5)`}},
		{Agent: "d", Confidence: 0.1, Reasons: []string{`task is example task "draft the report" (+0.6)`, `task overlaps not-for task "draft" (-0.5)`}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  Review\tthe\n\nAgreement?! ", "review the agreement"},
		{"what is 2.5?", "what is 2.5"},
		{"...", ""},
		{"Ünïcode  Straße.", "ünïcode straße"},
	}
	for _, tt := range tests {
		if got := normalize(tt.in); got != tt.want {
			t.Errorf("normalize(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}
