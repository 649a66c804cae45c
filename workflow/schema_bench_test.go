package workflow_test

import (
	"encoding/json"
	"strings"
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
	cp := workflow.CheckpointDelta{StepIndex: 9, CompletedStepID: "n9", Phase: "run", State: "sha256:" + strings.Repeat("0", 64)}
	body, _ := json.Marshal(workflow.StepBody{StepID: "n9", StepIndex: 9, Agent: "a", Output: json.RawMessage(`{}`), OutputHash: "sha256:00", Checkpoint: cp})
	b.ResetTimer()
	for range b.N {
		if err := types.ValidateBody(workflow.TypeStepCompleted, body); err != nil {
			b.Fatal(err)
		}
	}
}
