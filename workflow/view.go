package workflow

import (
	"encoding/json"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
)

// StepOutcome is what a workflow run's record says of one of its steps: the
// step event, the output a completed step produced, or the error of one that
// failed or was skipped.
type StepOutcome struct {
	Step   string `json:"step"`
	Event  string `json:"event"`
	Status string `json:"status"` // completed, failed, skipped or compensated
	Agent  string `json:"agent,omitempty"`
	Seq    uint64 `json:"seq"`
	// Output is the step's output, canonical JSON; OutputHash its hash.
	Output     json.RawMessage `json:"output,omitempty"`
	OutputHash string          `json:"output_hash,omitempty"`
	Error      *sanad.RunError `json:"error,omitempty"`
}

// stepStatus is the status each step event records.
var stepStatus = map[string]string{
	TypeStepCompleted:   "completed",
	TypeStepFailed:      "failed",
	TypeStepSkipped:     "skipped",
	TypeStepCompensated: "compensated",
}

// Outcomes returns the step outcomes of run in evs, the events of its trace,
// in the order they were recorded. A step event whose body does not decode
// is INTEGRITY.
func Outcomes(evs []*ledger.Event, run string) ([]StepOutcome, error) {
	var out []StepOutcome
	for _, ev := range evs {
		status, ok := stepStatus[ev.Type]
		if !ok || ev.Run != run {
			continue
		}
		var b StepBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, "workflow.outcomes", ev.Type+" body")
		}
		out = append(out, StepOutcome{Step: b.StepID, Event: ev.Type, Status: status, Agent: b.Agent, Seq: ev.Seq,
			Output: b.Output, OutputHash: b.OutputHash, Error: b.Error})
	}
	return out, nil
}

// Defined returns the workflow.defined body of run in evs, the events of its
// trace: its definition, input and playbook. A run with none is NOT_FOUND.
func Defined(evs []*ledger.Event, run string) (DefinedBody, error) {
	const op = "workflow.defined"
	for _, ev := range evs {
		if ev.Type != TypeDefined || ev.Run != run {
			continue
		}
		var b DefinedBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return DefinedBody{}, sanad.Wrap(err, sanad.CodeIntegrity, op, "workflow.defined body")
		}
		return b, nil
	}
	return DefinedBody{}, sanad.Errorf(sanad.CodeNotFound, op, "run %s has no workflow.defined event: it is not a workflow run", run)
}
