package deal

import (
	"encoding/json"
	"testing"

	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/playbook/debate"
)

// FuzzParseOutput: whatever a model replies, parseOutput either refuses it
// or returns an AgentOutput of the step's agent, role and round that
// matches the agent_output schema.
func FuzzParseOutput(f *testing.F) {
	f.Add(`{"agent_id":"someone","role":"arbiter","round_number":9,"content":"No defect found.","claim_refs":[],"muhasabah_record":{"supported_claim_ids":[],"confidence":0.4}}`)
	f.Add("```json\n{\"content\":\"x\",\"claim_refs\":[\"c1\"],\"muhasabah_record\":{\"supported_claim_ids\":[\"c1\"],\"confidence\":1.5}}\n```")
	f.Add(`{"content":"x","claim_refs":null,"muhasabah_record":{}}`)
	f.Add(`not json`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, text string) {
		out, err := parseOutput(model.Response{Text: text}, debate.RoleSanadBreaker, 2)
		if err != nil {
			return
		}
		if out.AgentID != "sanad-breaker" || out.Role != debate.RoleSanadBreaker || out.RoundNumber != 2 || out.ToolCalls != nil || out.Timestamp != "" {
			t.Fatalf("got %s %s round %d", out.AgentID, out.Role, out.RoundNumber)
		}
		raw, _ := json.Marshal(out)
		if err := debate.ValidateJSON(debate.SchemaOutput, raw); err != nil {
			t.Fatalf("a parsed output does not match agent_output: %v", err)
		}
	})
}
