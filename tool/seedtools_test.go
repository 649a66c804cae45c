package tool_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/sanadhq/sanad/tool"
)

// The tools of seed 000 §4, with schemas from their signatures and fake code
// that returns outputs of the documented shape. Counts are per tool.
//
// The input schemas check types and required arguments, not the abuse rules
// of tools.yaml (flag_defect's evidence refs and description length): those
// are policy, applied after authorization.

var seedRoles = []string{"advocate", "sanad_breaker", "contradiction_finder", "risk_officer", "arbiter"}

var seedTools = []string{"lookup_claim", "lookup_calc", "search_evidence", "flag_defect", "request_human_review", "query_enrichment"}

// seedMatrix is the permission matrix of seed 000 §5, row by tool, columns
// in the order of seedRoles. It is written out here, not read from the
// policy, so the test checks that the policy encodes the seed.
var seedMatrix = map[string][5]bool{
	"lookup_claim":         {true, true, true, true, true},
	"lookup_calc":          {true, true, true, true, true},
	"search_evidence":      {false, true, true, true, true},
	"flag_defect":          {false, true, false, false, false},
	"request_human_review": {false, false, false, false, true},
	"query_enrichment":     {false, false, true, true, false},
}

// validInput is a valid input of each seed tool.
var validInput = map[string]json.RawMessage{
	"lookup_claim":    json.RawMessage(`{"claim_id":"c-1","include_sanad":true}`),
	"lookup_calc":     json.RawMessage(`{"calc_id":"k-1"}`),
	"search_evidence": json.RawMessage(`{"query":"revenue 2024","deal_id":"deal-42","min_grade":"B","limit":5}`),
	"flag_defect": mustJSON(map[string]any{
		"claim_id": "c-1", "defect_type": "BROKEN_CHAIN", "severity": "MAJOR",
		"description":   "The revenue figure cites a management deck with no audited source behind it.",
		"evidence_refs": []string{"ev-9"}, "cure_protocol": "REQUEST_SOURCE",
	}),
	"request_human_review": json.RawMessage(`{"claim_ids":["c-1"],"reason":"the arbiter cannot rule on conflicting audited figures"}`),
	"query_enrichment":     json.RawMessage(`{"entity_type":"COMPANY","entity_name":"Acme Ltd","data_points":["revenue"]}`),
}

const claimOut = `{"claim":{"claim_id":"c-1","claim_text":"Revenue was 12M in 2024","claim_class":"FINANCIAL","claim_grade":"A","claim_verdict":"VERIFIED"},"sanad":{},"evidence":[]}`

// seedSpecs returns the six seed tools, each counting its runs in counts.
func seedSpecs(counts map[string]*counter) []tool.Spec {
	c := func(name string) *counter {
		if counts == nil {
			return nil
		}
		if counts[name] == nil {
			counts[name] = &counter{}
		}
		return counts[name]
	}
	return []tool.Spec{
		{
			Name: "lookup_claim", Description: "Retrieve claim details by ID (§4.1).",
			InputSchema: json.RawMessage(`{"type":"object","required":["claim_id"],"additionalProperties":false,
				"properties":{"claim_id":{"type":"string","minLength":1},"include_sanad":{"type":"boolean"},"include_evidence":{"type":"boolean"}}}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["claim"],"properties":{"claim":{"type":"object","required":["claim_id"]}}}`),
			Risk:         "read", SideEffect: tool.SideEffectNone, Idempotent: true, Timeout: 5 * time.Second,
			Func: fixed(c("lookup_claim"), claimOut),
		},
		{
			Name: "lookup_calc", Description: "Retrieve calculation details by ID (§4.2).",
			InputSchema: json.RawMessage(`{"type":"object","required":["calc_id"],"additionalProperties":false,
				"properties":{"calc_id":{"type":"string","minLength":1},"include_inputs":{"type":"boolean"}}}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["calc"]}`),
			Risk:         "read", SideEffect: tool.SideEffectNone, Idempotent: true,
			Func: fixed(c("lookup_calc"), `{"calc":{"calc_id":"k-1","calc_type":"IRR","output":{"irr":0.18},"formula_hash":"sha256:00","code_version":"1.2.3"},"inputs":[]}`),
		},
		{
			Name: "search_evidence", Description: "Search for evidence supporting or contradicting a claim (§4.3).",
			InputSchema: json.RawMessage(`{"type":"object","required":["query","deal_id"],"additionalProperties":false,
				"properties":{"query":{"type":"string","minLength":1},"deal_id":{"type":"string","minLength":1},
				 "claim_class":{"type":"string"},"min_grade":{"enum":["A","B","C","D"]},"limit":{"type":"integer","minimum":1,"maximum":100}}}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["results","total_count"]}`),
			Risk:         "read", SideEffect: tool.SideEffectNone, Idempotent: true,
			Func: fixed(c("search_evidence"), `{"results":[{"evidence_id":"ev-9","source_grade":"B","relevance_score":0.85,"text_excerpt":"…"}],"total_count":1}`),
		},
		{
			Name: "flag_defect", Description: "Flag a defect in an evidence chain (§4.4).",
			InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,
				"required":["claim_id","defect_type","severity","description","evidence_refs","cure_protocol"],
				"properties":{"claim_id":{"type":"string","minLength":1},"defect_type":{"type":"string","minLength":1},
				 "severity":{"enum":["FATAL","MAJOR","MINOR"]},"description":{"type":"string"},
				 "evidence_refs":{"type":"array","items":{"type":"string"}},"cure_protocol":{"type":"string"}}}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["defect_id"]}`),
			Risk:         "write", SideEffect: tool.SideEffectInternal, Idempotent: true,
			Func: fixed(c("flag_defect"), `{"defect_id":"d-1","status":"OPEN"}`),
		},
		{
			Name: "request_human_review", Description: "Escalate to human review (§4.5).",
			InputSchema: json.RawMessage(`{"type":"object","required":["claim_ids","reason"],"additionalProperties":false,
				"properties":{"claim_ids":{"type":"array","minItems":1,"items":{"type":"string"}},"reason":{"type":"string","minLength":1},
				 "priority":{"enum":["LOW","NORMAL","HIGH","CRITICAL"]},"required_role":{"type":"string"}}}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["gate_id"]}`),
			Risk:         "write", SideEffect: tool.SideEffectInternal,
			Func: fixed(c("request_human_review"), `{"gate_id":"g-1","status":"PENDING"}`),
		},
		{
			Name: "query_enrichment", Description: "Query external enrichment data (§4.6).",
			InputSchema: json.RawMessage(`{"type":"object","required":["entity_type","entity_name","data_points"],"additionalProperties":false,
				"properties":{"entity_type":{"enum":["COMPANY","PERSON","MARKET"]},"entity_name":{"type":"string","minLength":1},
				 "data_points":{"type":"array","items":{"type":"string"}}}}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["results"]}`),
			Risk:         "external", SideEffect: tool.SideEffectExternal, Idempotent: true,
			Func: fixed(c("query_enrichment"), `{"results":[{"data_point":"revenue","value":"12M","source_grade":"C"}]}`),
		},
	}
}

// approveAll is a critic that approves every intent.
var approveAll = tool.ApproverFunc(func(ctx context.Context, in tool.Intent) (tool.Verdict, error) {
	return tool.Verdict{Approve: true, Critic: "critic-1", Reason: "enrichment of a named company is within the mandate"}, nil
})

// debateEnv opens an env with the seed debate policy, the seed tools and a
// critic that approves everything.
func debateEnv(tb testing.TB, counts map[string]*counter) *env {
	tb.Helper()
	return openEnv(tb, loadPolicy(tb, debateDir), registry(tb, seedSpecs(counts)...), func(c *tool.Config) { c.Approver = approveAll })
}
