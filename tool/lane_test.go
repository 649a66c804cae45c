package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
)

const caseworkDir = "../examples/policies/casework"

// TestC09_LaneToolCallsJudgedByTheLane: a tool that acts through a lane is
// let through for the lane's callers with the lane's scope fields, and
// refused, with the refusal recorded, for any other role, without a
// required scope field, with a case_id of another case, or with content
// the lane prohibits.
func TestC09_LaneToolCallsJudgedByTheLane(t *testing.T) {
	ran := 0
	spec := tool.Spec{
		Name: "transcription.run", Lane: "TOOL_INTERVIEW_CAPTURE", Risk: "read", SideEffect: tool.SideEffectInternal,
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"client_session_id":{"type":"string"},"case_id":{"type":"string"}}}`),
		OutputSchema: json.RawMessage(`{}`),
		Func: func(context.Context, tool.Call) (json.RawMessage, error) {
			ran++
			return json.RawMessage(`{"ok":true}`), nil
		},
	}
	e := openEnv(t, loadPolicy(t, caseworkDir), registry(t, spec), nil)
	cases := []struct {
		name  string
		role  string
		input string
		tags  []string
		rule  policy.Rule
	}{
		{"the interview agent with its session", "INTERVIEW_AGENT", `{"client_session_id":"s-1"}`, nil, ""},
		{"the mapping agent", "MAPPING_AGENT", `{"client_session_id":"s-1"}`, nil, policy.RuleLaneCaller},
		{"the intake agent", "INTAKE_AGENT", `{"client_session_id":"s-1"}`, nil, policy.RuleLaneCaller},
		{"an attorney", "ATTORNEY", `{"client_session_id":"s-1"}`, nil, policy.RuleLaneCaller},
		{"no client session", "INTERVIEW_AGENT", `{}`, nil, policy.RuleRequiredScope},
		{"another case's id", "INTERVIEW_AGENT", `{"client_session_id":"s-1","case_id":"deal-43"}`, nil, policy.RuleScopeMismatch},
		{"content bound for shared knowledge", "INTERVIEW_AGENT", `{"client_session_id":"s-1"}`, []string{policy.TagSharedKnowledgeWrite}, policy.RuleProhibition},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := policy.Principal{Agent: strings.ToLower(agentOf(c.role)), Role: c.role, Scope: deal}
			parent := e.startParent(t, p)
			before := ran
			res := e.Gateway.Call(t.Context(), parent, p, tool.Request{Tool: spec.Name, CallID: "c" + string(rune('a'+i)), Input: json.RawMessage(c.input), Tags: c.tags})
			evs := e.events(t, parent.Record.Trace)
			if c.rule == "" {
				if res.Code != "" || ran != before+1 {
					t.Fatalf("got %s %q (ran %d), want the call made", res.Code, res.Message, ran-before)
				}
				return
			}
			if res.Code != sanad.CodePolicyDenied || ran != before {
				t.Fatalf("got %q %q (ran %d), want POLICY_DENIED and the tool not run", res.Code, res.Message, ran-before)
			}
			var refused bool
			for _, ev := range evs {
				if ev.Type == tool.TypeRefused {
					b := decode[tool.RefusedBody](t, ev)
					refused = b.Rule == string(c.rule)
				}
			}
			if !refused {
				t.Errorf("no refusal recorded with rule %s: %v", c.rule, typesOf(evs))
			}
		})
	}
}
