package workflow

import (
	"encoding/json"
	"fmt"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
)

// Event types of a workflow run.
const (
	// TypeDefined records the definition and input, with the run's start.
	TypeDefined = "workflow.defined"
	// TypeStepCompleted records a step's output and its change to the checkpoint.
	TypeStepCompleted = "step.completed"
	// TypeStepFailed records a step's failure and its change to the checkpoint.
	TypeStepFailed = "step.failed"
	// TypeStepSkipped records a step not run because a dependency failed.
	TypeStepSkipped = "step.skipped"
	// TypeStepCompensated records a step undone during a rollback.
	TypeStepCompensated = "step.compensated"
	// TypeEffectIntent records an external effect about to happen.
	TypeEffectIntent = "effect.intent"
	// TypeEffectResult records the outcome of an effect.
	TypeEffectResult = "effect.result"
	// TypeEffectRetried records that an interrupted effect is run again:
	// because it is idempotent, or a person approved it through a gate.
	TypeEffectRetried = "effect.retried"
)

// RetriedBody is the body of effect.retried.
type RetriedBody struct {
	Key string `json:"key"`
	// Retry counts the re-runs of the effect, from 1.
	Retry int `json:"retry"`
	// Gate is the gate whose approval allows it, for an effect that is
	// not idempotent.
	Gate string `json:"gate,omitempty"`
}

// DefinedBody is the body of workflow.defined.
type DefinedBody struct {
	Name string `json:"name"`
	// Playbook names the playbook the run belongs to, when it was started
	// as one: a resume wires the same agents, tools and policy.
	Playbook       string          `json:"playbook,omitempty"`
	Version        string          `json:"version,omitempty"`
	DefinitionHash string          `json:"definition_hash"`
	Definition     json.RawMessage `json:"definition"`
	Input          json.RawMessage `json:"input"`
}

// Checkpoint is the state of a workflow after a step: everything a resume
// needs (seed 003 INV-CP-001). The first five fields carry the names the
// seed gives them.
//
// A step event does not hold the whole checkpoint, which grows with every
// step: it holds what the step changed ([CheckpointDelta]) and the hash of
// the checkpoint after it. The checkpoint after a step event is the fold of
// the run's step events up to it, each checked against its hash on the way
// (see [Checkpoints]): a resume and a replay rebuild it that way, and a run
// keeps it in memory as it records them.
type Checkpoint struct {
	// StepIndex is the index, in the definition, of the step this
	// checkpoint follows.
	StepIndex       int    `json:"stepIndex"`
	CompletedStepID string `json:"completedStepId"`
	// StepOutputs holds the output of each completed step: itself up to
	// 1 KiB, else {"$output": its hash, "bytes": its size}, the output
	// being in the step's own step.completed event.
	StepOutputs    map[string]json.RawMessage `json:"stepOutputs"`
	Context        map[string]json.RawMessage `json:"context"`
	MemorySnapshot map[string]json.RawMessage `json:"memorySnapshot"`
	// FailedSteps holds the errors of failed and skipped steps.
	FailedSteps map[string]sanad.RunError `json:"failedSteps,omitempty"`
	// Completed lists the completed steps in the order they completed, which
	// a rollback undoes in reverse.
	Completed []string `json:"completed"`
	// Compensated lists the steps a rollback has undone.
	Compensated []string `json:"compensated,omitempty"`
	// Phase is "run", or "rollback" once a rollback has begun.
	Phase string `json:"phase"`
	// State is the hash that commits to this checkpoint: the state of the
	// step event it follows (see [CheckpointDelta.State]).
	State string `json:"state,omitempty"`

	// undone indexes Compensated.
	undone map[string]bool
}

// The phases of a workflow run.
const (
	PhaseRun      = "run"
	PhaseRollback = "rollback"
)

// Validate checks that c is complete and consistent with d. A run checks
// each step's change to its checkpoint before it saves it, in a time that
// does not depend on the steps before (see checkStep): a change that passes
// keeps a valid checkpoint valid. A resume validates the checkpoint it
// rebuilds.
func (c *Checkpoint) Validate(d *Definition) error {
	const op = "workflow.checkpoint"
	switch {
	case c.StepIndex < 0 || c.StepIndex >= len(d.Steps):
		return sanad.Errorf(sanad.CodeInternal, op, "step index %d is outside the %d steps", c.StepIndex, len(d.Steps))
	case d.Steps[c.StepIndex].ID != c.CompletedStepID:
		return sanad.Errorf(sanad.CodeInternal, op, "step index %d is %q, not %q", c.StepIndex, d.Steps[c.StepIndex].ID, c.CompletedStepID)
	case c.StepOutputs == nil || c.Context == nil || c.MemorySnapshot == nil:
		return sanad.Errorf(sanad.CodeInternal, op, "a checkpoint needs stepOutputs, context and memorySnapshot")
	case c.Phase != PhaseRun && c.Phase != PhaseRollback:
		return sanad.Errorf(sanad.CodeInternal, op, "phase %q is not valid", c.Phase)
	case len(c.Completed) != len(c.StepOutputs):
		return sanad.Errorf(sanad.CodeInternal, op, "%d completed steps but %d outputs", len(c.Completed), len(c.StepOutputs))
	}
	for _, id := range c.Completed {
		if _, ok := c.StepOutputs[id]; !ok {
			return sanad.Errorf(sanad.CodeInternal, op, "completed step %q has no output", id)
		}
	}
	done := make(map[string]bool, len(c.Compensated))
	for _, id := range c.Compensated {
		if _, ok := c.StepOutputs[id]; !ok || done[id] {
			return sanad.Errorf(sanad.CodeInternal, op, "step %q is compensated but did not complete, or is compensated twice", id)
		}
		done[id] = true
	}
	return nil
}

// StepBody is the body of step.completed, step.failed, step.skipped and
// step.compensated.
type StepBody struct {
	StepID    string          `json:"step_id"`
	StepIndex int             `json:"step_index"`
	Agent     string          `json:"agent"`
	Output    json.RawMessage `json:"output,omitempty"`
	// OutputHash is the hash of the canonical output.
	OutputHash string          `json:"output_hash,omitempty"`
	Error      *sanad.RunError `json:"error,omitempty"`
	// Checkpoint is the change the step makes to the run's checkpoint, and
	// the hash of the checkpoint after it.
	Checkpoint CheckpointDelta `json:"checkpoint"`
}

// CheckpointDelta is the checkpoint part of a step event: what the event
// changes in the run's [Checkpoint], in a size that depends on the step
// alone, never on the steps before it. The event itself says the rest: a
// step.completed adds its step to the completed ones, with its output (in
// the form [Checkpoint.StepOutputs] describes); a step.failed or
// step.skipped adds its error to the failed steps; a step.compensated adds
// its step to the compensated ones.
type CheckpointDelta struct {
	// StepIndex and CompletedStepID name the step the checkpoint follows:
	// the event's step.
	StepIndex       int    `json:"stepIndex"`
	CompletedStepID string `json:"completedStepId"`
	// Context and MemorySnapshot are the entries the step set, each
	// replacing the value before it.
	Context        map[string]json.RawMessage `json:"context,omitempty"`
	MemorySnapshot map[string]json.RawMessage `json:"memorySnapshot,omitempty"`
	// FailedSteps are failures the checkpoint gained since the step event
	// before, other than the event's own error: a compensation that failed,
	// or a step whose own event could not be recorded.
	FailedSteps map[string]sanad.RunError `json:"failedSteps,omitempty"`
	// Phase is the phase after the event.
	Phase string `json:"phase"`
	// State commits to the checkpoint after the event, and so to
	// everything a resume needs: "sha256:" and the hex SHA-256 of the
	// state of the step event before (its 32 bytes), the event type, a
	// newline and the RFC 8785 form of this body without "output" (which
	// "output_hash" stands for) and "checkpoint.state". Before the first
	// step event, the state is the hash of the RFC 8785 form of
	// {"definition_hash": …, "input": …} as workflow.defined records them.
	// A resume and a replay recompute every state as they fold the run's
	// step events, and refuse a run where one differs (INTEGRITY).
	State string `json:"state"`
}

// IntentBody is the body of effect.intent.
type IntentBody struct {
	Key        string `json:"key"`
	StepID     string `json:"step_id"`
	Kind       string `json:"kind"` // tool, model, …
	Name       string `json:"name"`
	Idempotent bool   `json:"idempotent"`
	InputHash  string `json:"input_hash"`
}

// Effect result statuses.
const (
	EffectOK     = "ok"     // the effect happened; Output is its result
	EffectFailed = "failed" // it failed; Error says why
	// EffectConfirmed: the effect was interrupted, and a person confirmed
	// it had happened; Output is what they recorded.
	EffectConfirmed = "confirmed"
)

// ResultBody is the body of effect.result.
type ResultBody struct {
	Key        string          `json:"key"`
	Status     string          `json:"status"`
	Output     json.RawMessage `json:"output,omitempty"`
	OutputHash string          `json:"output_hash,omitempty"`
	Error      *sanad.RunError `json:"error,omitempty"`
	// Recovered says the effect was interrupted by a crash and settled on
	// resume: retried (idempotent), or through a gate (named by Gate).
	Recovered bool   `json:"recovered,omitempty"`
	Gate      string `json:"gate,omitempty"`
}

// checkpointSchema describes a step event's [CheckpointDelta]; the values
// of context, memory and failures are checked by the engine before every
// save.
const checkpointSchema = `{"type":"object","required":["stepIndex","completedStepId","phase","state"],"additionalProperties":false,"properties":{
 "stepIndex":{"type":"integer","minimum":0},"completedStepId":{"type":"string","minLength":1},
 "context":{"type":"object"},"memorySnapshot":{"type":"object"},"failedSteps":{"type":"object"},
 "phase":{"enum":["run","rollback"]},"state":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}}}`

const stepSchema = `{"type":"object","required":["step_id","step_index","agent","checkpoint"],"additionalProperties":false,"properties":{
 "step_id":{"type":"string","minLength":1},"step_index":{"type":"integer","minimum":0},"agent":{"type":"string","minLength":1},
 "output":true,"output_hash":{"type":"string"},"error":{"type":"object"},"checkpoint":` + checkpointSchema + `}}`

// Vocabulary declares the workflow events and their ordering rule.
func Vocabulary() ledger.Vocabulary {
	return ledger.Vocabulary{
		Types: []ledger.TypeDef{
			{Name: TypeDefined, Signer: ledger.SignedByRuntime, Doc: "a workflow run's definition and input, recorded with its start",
				Schema: `{"type":"object","required":["name","definition_hash","definition","input"],"additionalProperties":false,"properties":{
 "name":{"type":"string","minLength":1},"playbook":{"type":"string","minLength":1,"maxLength":128},"version":{"type":"string"},"definition_hash":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"},
 "definition":{"type":"object"},"input":{"type":"object"}}}`},
			{Name: TypeStepCompleted, Signer: ledger.SignedByEither, Schema: stepSchema, Doc: "a step's output, signed by its agent, with its change to the checkpoint and the checkpoint's hash after it"},
			{Name: TypeStepFailed, Signer: ledger.SignedByRuntime, Schema: stepSchema, Doc: "a step failed: its bounded error, with the checkpoint's change and hash after it"},
			{Name: TypeStepSkipped, Signer: ledger.SignedByRuntime, Schema: stepSchema, Doc: "a step was not run because a step it depends on failed"},
			{Name: TypeStepCompensated, Signer: ledger.SignedByRuntime, Schema: stepSchema, Doc: "a completed step was undone by a rollback"},
			{Name: TypeEffectIntent, Signer: ledger.SignedByEither, Doc: "an external effect (tool or model call) is about to happen: its key, kind and input hash",
				Schema: `{"type":"object","required":["key","step_id","kind","name","idempotent","input_hash"],"additionalProperties":false,"properties":{
 "key":{"type":"string","minLength":1},"step_id":{"type":"string","minLength":1},"kind":{"type":"string","minLength":1},"name":{"type":"string","minLength":1},
 "idempotent":{"type":"boolean"},"input_hash":{"type":"string"}}}`},
			{Name: TypeEffectRetried, Signer: ledger.SignedByRuntime, Doc: "an interrupted effect is run again under its key: idempotent, or approved through a gate",
				Schema: `{"type":"object","required":["key","retry"],"additionalProperties":false,"properties":{
 "key":{"type":"string","minLength":1},"retry":{"type":"integer","minimum":1},"gate":{"type":"string"}}}`},
			{Name: TypeEffectResult, Signer: ledger.SignedByRuntime, Doc: "the outcome of an external effect: output and its hash, or the error",
				Schema: `{"type":"object","required":["key","status"],"additionalProperties":false,"properties":{
 "key":{"type":"string","minLength":1},"status":{"enum":["ok","failed","confirmed"]},"output":{},"output_hash":{"type":"string"},
 "error":{"type":"object"},"recovered":{"type":"boolean"},"gate":{"type":"string"}}}`},
		},
		Rules: []ledger.RuleFunc{func() ledger.Rule { return &ordering{} }},
	}
}

// ordering enforces, within a trace: one workflow.defined per run, before
// its steps; each step of a run completes, fails or is skipped at most once,
// and is compensated only after it completed, at most once; each effect key
// has at most one intent and one result, the result after the intent.
type ordering struct {
	defined map[string]bool
	steps   map[string]string // run/step → last step event type
	effects map[string]bool   // key → has a result
}

func (o *ordering) Check(e *ledger.Event) error {
	switch e.Type {
	case TypeDefined, TypeStepCompleted, TypeStepFailed, TypeStepSkipped, TypeStepCompensated,
		TypeEffectIntent, TypeEffectResult, TypeEffectRetried:
		if o.steps == nil {
			o.defined, o.steps, o.effects = make(map[string]bool), make(map[string]string), make(map[string]bool)
		}
	default:
		return nil
	}
	switch e.Type {
	case TypeDefined:
		if o.defined[e.Run] {
			return fmt.Errorf("run %s has a second workflow.defined", e.Run)
		}
		o.defined[e.Run] = true
	case TypeStepCompleted, TypeStepFailed, TypeStepSkipped, TypeStepCompensated:
		if !o.defined[e.Run] {
			return fmt.Errorf("%s in run %s before its workflow.defined", e.Type, e.Run)
		}
		b := struct{ StepID string }{e.BodyString("step_id")}
		k := e.Run + "/" + b.StepID
		prev := o.steps[k]
		switch {
		case e.Type == TypeStepCompensated && prev != TypeStepCompleted:
			return fmt.Errorf("step %s of run %s is compensated but did not complete (or was already compensated)", b.StepID, e.Run)
		case e.Type != TypeStepCompensated && prev != "":
			return fmt.Errorf("step %s of run %s has a second outcome (%s after %s)", b.StepID, e.Run, e.Type, prev)
		}
		o.steps[k] = e.Type
	case TypeEffectIntent, TypeEffectResult, TypeEffectRetried:
		b := struct{ Key string }{e.BodyString("key")}
		done, seen := o.effects[b.Key]
		switch {
		case e.Type == TypeEffectIntent && seen:
			return fmt.Errorf("effect %s has a second intent", b.Key)
		case e.Type != TypeEffectIntent && !seen:
			return fmt.Errorf("effect %s has %s without an intent", b.Key, e.Type)
		case e.Type != TypeEffectIntent && done:
			return fmt.Errorf("effect %s has %s after its result", b.Key, e.Type)
		}
		o.effects[b.Key] = e.Type == TypeEffectResult
	}
	return nil
}

// Finish accepts runs and effects still in progress: a trace is verified
// while it is written, and a crashed run is resumed later.
func (o *ordering) Finish() error { return nil }
