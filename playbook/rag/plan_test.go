package rag

import (
	"slices"
	"testing"
)

func TestR06_IntentAndDecomposition(t *testing.T) {
	cases := []struct {
		msg     string
		history []string
		intent  string
		subs    []string
	}{
		{"What was revenue in FY2024?", nil, IntentLookup, []string{"What was revenue in FY2024?"}},
		{"Compare the revenue of Acme and Globex", nil, IntentComparison, []string{"the revenue of Acme", "Globex revenue"}},
		{"How does revenue in the management accounts compare with the audited figure?", nil, IntentComparison,
			[]string{"revenue in the management accounts", "the audited revenue"}},
		{"What is the term of the contract and who signed it?", nil, IntentMultiPart, []string{"What is the term of the contract", "who signed it?"}},
		{"Who is the auditor? When was the opinion signed?", nil, IntentMultiPart, []string{"Who is the auditor?", "When was the opinion signed?"}},
		{"thanks!", nil, IntentSmallTalk, nil},
		{"what is it?", nil, IntentClarify, nil},
	}
	for _, c := range cases {
		p := Analyze(c.msg, c.history)
		if p.Intent != c.intent || !slices.Equal(p.SubQueries, c.subs) {
			t.Errorf("Analyze(%q) = %s %q, want %s %q", c.msg, p.Intent, p.SubQueries, c.intent, c.subs)
		}
		for i, s := range p.Steps {
			if s.StepID != i+1 || s.Status == "" || s.ToolCall == "" {
				t.Errorf("Analyze(%q): step %d is %+v", c.msg, i, s)
			}
		}
	}
}

func TestR07_FollowUpResolvedAgainstHistory(t *testing.T) {
	cases := []struct{ msg, prev, want string }{
		{"and in 2023?", "What was revenue in 2024?", "What was revenue in 2023?"},
		{"What about Globex?", "Who audits Acme Holdings?", "Who audits Globex?"},
		{"and the margin?", "What was the revenue of Acme in 2024?", "What was the revenue of Acme in 2024 margin?"},
		{"When was it signed?", "What is the Northwind supply agreement?", "When was Northwind signed?"},
		{"And how much cash did the company hold at that date?", "How much of the facility was drawn at the end of 2024?", "how much cash did the company hold at the end of 2024?"},
		{"And what happens to the agreement after that date?", "When does the initial term end?", "what happens to the agreement after that date? (following: When does the initial term end?)"},
	}
	for _, c := range cases {
		p := Analyze(c.msg, []string{"unrelated first question?", c.prev})
		if p.Question != c.want || p.FollowUpOf != c.prev {
			t.Errorf("Analyze(%q) after %q = %q (follow-up of %q), want %q", c.msg, c.prev, p.Question, p.FollowUpOf, c.want)
		}
	}
	if p := Analyze("What was the EBITDA margin of Acme in 2024?", []string{"What was revenue in 2023?"}); p.FollowUpOf != "" {
		t.Errorf("a question that stands alone was taken as a follow-up of %q", p.FollowUpOf)
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"What was revenue in FY2024?", "and in 2023?", "Compare A and B", "How does X compare with the audited figure?",
		"What is the term and who signed it?", "hi", "", "that date then?", "vs vs vs", "Who? When? Why?"} {
		f.Add(s, "What was revenue in 2024?")
	}
	f.Fuzz(func(t *testing.T, msg, prev string) {
		p := Analyze(msg, []string{prev})
		if p.Intent == "" {
			t.Fatal("no intent")
		}
		if (p.Intent == IntentLookup || p.Intent == IntentComparison || p.Intent == IntentMultiPart) && len(p.SubQueries) == 0 {
			t.Fatalf("%s with nothing to search: %+v", p.Intent, p)
		}
		for i, s := range p.Steps {
			if s.StepID != i+1 {
				t.Fatalf("step %d numbered %d", i, s.StepID)
			}
		}
	})
}
