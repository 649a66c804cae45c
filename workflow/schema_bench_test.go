package workflow_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/workflow"
)

func BenchmarkStepBodyValidate(b *testing.B) {
	types, err := ledger.NewTypes(home.Vocabularies()...)
	if err != nil {
		b.Fatal(err)
	}
	cp := workflow.Checkpoint{StepIndex: 9, CompletedStepID: "n9", StepOutputs: map[string]json.RawMessage{},
		Context: map[string]json.RawMessage{"input": json.RawMessage(`{}`)}, MemorySnapshot: map[string]json.RawMessage{}, Phase: "run"}
	for i := range 10 {
		cp.StepOutputs[fmt.Sprintf("n%d", i)] = json.RawMessage(`{}`)
		cp.Completed = append(cp.Completed, fmt.Sprintf("n%d", i))
	}
	body, _ := json.Marshal(workflow.StepBody{StepID: "n9", StepIndex: 9, Agent: "a", Output: json.RawMessage(`{}`), OutputHash: "sha256:00", Checkpoint: cp})
	b.ResetTimer()
	for range b.N {
		if err := types.ValidateBody(workflow.TypeStepCompleted, body); err != nil {
			b.Fatal(err)
		}
	}
}
