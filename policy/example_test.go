package policy_test

import (
	"fmt"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/policy"
)

func ExampleSet_Decide() {
	set, err := policy.Load("../examples/policies/debate")
	if err != nil {
		fmt.Println(err)
		return
	}
	deal := sanad.Scope{Tenant: "fund-1", Case: "deal-42"}
	advocate := policy.Principal{Agent: "advocate-1", Role: "advocate", Scope: deal}
	breaker := policy.Principal{Agent: "breaker-1", Role: "sanad_breaker", Scope: deal}

	fmt.Println(set.Decide(breaker, policy.ToolCall("flag_defect"), policy.Resource{Scope: deal}))
	fmt.Println(set.Decide(advocate, policy.ToolCall("flag_defect"), policy.Resource{Scope: deal}))
	other := sanad.Scope{Tenant: "fund-1", Case: "deal-7"}
	fmt.Println(set.Decide(breaker, policy.ToolCall("lookup_claim"), policy.Resource{Scope: other}))
	// Output:
	// allow: the tool matrix lets sanad_breaker call flag_defect
	// deny: the tool matrix does not let advocate call flag_defect
	// deny: case isolation: the resource is outside the principal's case
}

func ExampleSet_Decide_lane() {
	set, err := policy.Load("../examples/policies/casework")
	if err != nil {
		fmt.Println(err)
		return
	}
	matter := sanad.Scope{Tenant: "firm-1", Case: "matter-9"}
	mapper := policy.Principal{Agent: "mapping-1", Role: "MAPPING_AGENT", Scope: matter}
	write := policy.LaneAction("WRITE_MAPPING_OUTPUTS", "append:facts")

	d := set.Decide(mapper, write, policy.Resource{Scope: matter, Fields: map[string]string{"run_id": "run-1"}})
	fmt.Println(d.Rule, d)
	d = set.Decide(mapper, write, policy.Resource{Scope: matter, Fields: map[string]string{"run_id": "run-1", "coa_version": "2026.1"}})
	fmt.Println(d.Rule, d)
	// Output:
	// required_scope deny: lane WRITE_MAPPING_OUTPUTS requires the scope field coa_version; the request does not provide it
	// lane_caller allow: MAPPING_AGENT is a caller of lane WRITE_MAPPING_OUTPUTS, which allows append:facts
}

func ExampleSet_CheckAbuse() {
	set, err := policy.Load("../examples/policies/debate")
	if err != nil {
		fmt.Println(err)
		return
	}
	err = set.CheckAbuse("lookup_claim", policy.Usage{Round: 20, Run: 35}, nil)
	fmt.Println(sanad.ErrorCode(err), sanad.ErrorMessage(err))
	err = set.CheckAbuse("flag_defect", policy.Usage{}, map[string]any{
		"evidence_refs": []any{"ev-1"},
		"description":   "too short",
	})
	fmt.Println(sanad.ErrorCode(err), sanad.ErrorMessage(err))
	// Output:
	// TOOL_ABUSE_RULES lookup_claim may be called 20 times per round; this would be call 21
	// TOOL_ABUSE_RULES flag_defect needs a description of at least 50 characters
}
