package workflow_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/workflow"
)

//go:noinline
func explodingAction(context.Context, *workflow.StepContext) (json.RawMessage, error) {
	panic("step-bug-9e21")
}

// An action that panics fails its step; the step.failed event keeps the
// panic's value in the error message and, in the error's stack, the
// function that panicked. Its checkpoint keeps the same error.
func TestActionPanicRecorded(t *testing.T) {
	e := openEnv(t)
	e.actions.Register("explode", explodingAction)
	d := parse(t, "name: p\nagent: worker\nsteps:\n  - {id: first, uses: echo}\n  - {id: broken, uses: explode}\n")
	res, err := e.engine.Start(t.Context(), d, nil, opts)
	if err != nil || res.Status != sanad.StatusFailed {
		t.Fatalf("Start: got %v, %v; want failed", res.Status, err)
	}
	const value = "step-bug-9e21"
	if len(res.Errors) != 1 || res.Errors[0].Code != sanad.CodeInternal || !strings.Contains(res.Errors[0].Message, value) {
		t.Errorf("result errors: got %+v, want INTERNAL with %q", res.Errors, value)
	}
	evs, err := e.home.Ledger.Events(t.Context(), res.Trace)
	if err != nil {
		t.Fatal(err)
	}
	var failed *workflow.StepBody
	for _, ev := range evs {
		if ev.Type == workflow.TypeStepFailed {
			failed = new(workflow.StepBody)
			if err := json.Unmarshal(ev.Body, failed); err != nil {
				t.Fatal(err)
			}
		}
	}
	if failed == nil || failed.Error == nil {
		t.Fatalf("no step.failed with an error in %d events", len(evs))
	}
	re := failed.Error
	if re.Code != sanad.CodeInternal || !strings.Contains(re.Message, "the action explode of step broken panicked: "+value) {
		t.Errorf("recorded error: got %s %q, want INTERNAL naming the action and the panic's value", re.Code, re.Message)
	}
	if !strings.HasPrefix(re.Stack, "github.com/sanadhq/sanad/workflow_test.explodingAction\n") {
		t.Errorf("recorded stack does not start at the action:\n%s", re.Stack)
	}
	if strings.Contains(re.Stack, "runtime.") || len(re.Stack) > sanad.MaxStackBytes {
		t.Errorf("recorded stack holds runtime frames or is over %d bytes:\n%s", sanad.MaxStackBytes, re.Stack)
	}
	var last workflow.Checkpoint
	if err := workflow.Checkpoints(evs, res.Run, func(_ *ledger.Event, cp *workflow.Checkpoint) error { last = cp.Clone(); return nil }); err != nil {
		t.Fatalf("Checkpoints: %v", err)
	}
	if cp := last.FailedSteps["broken"]; last.CompletedStepID != "broken" || cp != *re {
		t.Errorf("checkpoint after %s: error %+v, want the event's %+v", last.CompletedStepID, cp, *re)
	}
	if _, err := e.home.Ledger.Verify(t.Context(), res.Trace); err != nil {
		t.Errorf("Verify: %v", err)
	}
}
