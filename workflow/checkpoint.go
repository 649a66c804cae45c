package workflow

import (
	"crypto/sha256"
	"encoding/json"
	"maps"
	"slices"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/ledger"
)

// A run's checkpoint changes with each of its step events by what the event
// says (its [CheckpointDelta] and its type), and each event commits to the
// checkpoint after it by a hash chain: its state is the hash of the state
// before and of the event's body. A run advances its checkpoint that way as
// it records its steps; a resume, a replay and [Checkpoints] advance one the
// same way over the recorded events, from the run's start, and check every
// event's state on the way. Each step costs the same whatever the run's
// length: its event holds only its own change, and the checks and updates
// do not look at the steps before.

// genesisState is the state of a run before its first step event: the hash
// of the RFC 8785 form of {"definition_hash": …, "input": …}.
func genesisState(definitionHash string, input json.RawMessage) (canon.Digest, error) {
	b := append([]byte(`{"definition_hash":`), canon.AppendString(nil, definitionHash)...)
	b = append(b, `,"input":`...)
	b = append(b, input...)
	b = append(b, '}')
	c, err := canon.Transform(b)
	if err != nil {
		return canon.Digest{}, sanad.Wrap(err, sanad.CodeInvalidInput, "workflow.state", "the workflow input is not JSON")
	}
	return canon.Sum(c), nil
}

// stepState returns the state after a step event of type typ and body b,
// prev being the state before it: the SHA-256 of prev's 32 bytes, typ, a
// newline and the RFC 8785 form of b without its output and its state.
func stepState(prev canon.Digest, typ string, b *StepBody) (canon.Digest, error) {
	raw := b.appendFields(make([]byte, 0, 512), false)
	c, err := canon.AppendTransform(make([]byte, 0, len(raw)), raw)
	if err != nil {
		return canon.Digest{}, sanad.Wrap(err, sanad.CodeInvalidInput, "workflow.state", "step "+b.StepID+": its event is not JSON")
	}
	h := sha256.New()
	h.Write(prev[:])
	h.Write([]byte(typ))
	h.Write([]byte{'\n'})
	h.Write(c)
	var d canon.Digest
	h.Sum(d[:0])
	return d, nil
}

// newCheckpoint returns the checkpoint of a run before its first step.
func newCheckpoint(input json.RawMessage, state canon.Digest) Checkpoint {
	cp := Checkpoint{
		StepIndex: -1, StepOutputs: map[string]json.RawMessage{},
		Context:        map[string]json.RawMessage{"input": input},
		MemorySnapshot: map[string]json.RawMessage{}, Phase: PhaseRun, Completed: []string{},
	}
	if !state.IsZero() {
		cp.State = state.String()
	}
	return cp
}

// Clone returns a copy of c that shares nothing with it.
func (c *Checkpoint) Clone() Checkpoint {
	out := *c
	out.StepOutputs = maps.Clone(c.StepOutputs)
	out.Context = maps.Clone(c.Context)
	out.MemorySnapshot = maps.Clone(c.MemorySnapshot)
	out.FailedSteps = maps.Clone(c.FailedSteps)
	out.Completed = slices.Clone(c.Completed)
	out.Compensated = slices.Clone(c.Compensated)
	out.undone = nil
	return out
}

// isCompensated reports whether step id is in c.Compensated, through an
// index built once.
func (c *Checkpoint) isCompensated(id string) bool {
	if c.undone == nil || len(c.undone) != len(c.Compensated) {
		c.undone = make(map[string]bool, len(c.Compensated))
		for _, s := range c.Compensated {
			c.undone[s] = true
		}
	}
	return c.undone[id]
}

// checkStep reports what is wrong with a step event of type typ and body b
// as the next change to c, without looking at the steps before: a change
// that passes keeps a valid checkpoint valid (see [Checkpoint.Validate]).
// It does not check the state.
func (c *Checkpoint) checkStep(d *Definition, typ string, b *StepBody) error {
	const op = "workflow.checkpoint"
	i, id, delta := b.StepIndex, b.StepID, &b.Checkpoint
	switch {
	case i < 0 || i >= len(d.Steps):
		return sanad.Errorf(sanad.CodeInternal, op, "step index %d is outside the %d steps", i, len(d.Steps))
	case d.Steps[i].ID != id:
		return sanad.Errorf(sanad.CodeInternal, op, "step index %d is %q, not %q", i, d.Steps[i].ID, id)
	case delta.StepIndex != i || delta.CompletedStepID != id:
		return sanad.Errorf(sanad.CodeInternal, op, "the checkpoint follows step %d %q, not the event's step %d %q", delta.StepIndex, delta.CompletedStepID, i, id)
	case delta.Phase != PhaseRun && delta.Phase != PhaseRollback:
		return sanad.Errorf(sanad.CodeInternal, op, "phase %q is not valid", delta.Phase)
	case c.Phase == PhaseRollback && delta.Phase != PhaseRollback:
		return sanad.Errorf(sanad.CodeInternal, op, "step %s goes back to phase %s after a rollback began", id, delta.Phase)
	}
	_, completed := c.StepOutputs[id]
	_, failed := c.FailedSteps[id]
	switch typ {
	case TypeStepCompleted:
		switch {
		case completed || failed:
			return sanad.Errorf(sanad.CodeInternal, op, "step %s completes but has already completed or failed", id)
		case len(b.Output) == 0 || b.Error != nil:
			return sanad.Errorf(sanad.CodeInternal, op, "completed step %s needs an output and no error", id)
		}
	case TypeStepFailed, TypeStepSkipped:
		switch {
		case completed || failed:
			return sanad.Errorf(sanad.CodeInternal, op, "step %s fails but has already completed or failed", id)
		case b.Error == nil:
			return sanad.Errorf(sanad.CodeInternal, op, "failed step %s needs an error", id)
		}
	case TypeStepCompensated:
		switch {
		case !completed || c.isCompensated(id):
			return sanad.Errorf(sanad.CodeInternal, op, "step %s is compensated but did not complete, or is compensated twice", id)
		case delta.Phase != PhaseRollback:
			return sanad.Errorf(sanad.CodeInternal, op, "step %s is compensated outside a rollback", id)
		}
	default:
		return sanad.Errorf(sanad.CodeInternal, op, "%s is not a step event", typ)
	}
	return nil
}

// applyStep changes c by a step event that passed checkStep. It changes c's
// maps in place.
func (c *Checkpoint) applyStep(typ string, b *StepBody) {
	id, delta := b.StepID, &b.Checkpoint
	c.StepIndex, c.CompletedStepID, c.Phase, c.State = b.StepIndex, id, delta.Phase, delta.State
	switch typ {
	case TypeStepCompleted:
		c.StepOutputs[id] = recordedForm(b.Output)
		c.Completed = append(c.Completed, id)
	case TypeStepCompensated:
		c.isCompensated(id) // builds the index
		c.Compensated = append(c.Compensated, id)
		c.undone[id] = true
	default:
		if c.FailedSteps == nil {
			c.FailedSteps = map[string]sanad.RunError{}
		}
		c.FailedSteps[id] = *b.Error
	}
	for k, v := range delta.Context {
		c.Context[k] = v
	}
	for k, v := range delta.MemorySnapshot {
		c.MemorySnapshot[k] = v
	}
	if len(delta.FailedSteps) > 0 && c.FailedSteps == nil {
		c.FailedSteps = make(map[string]sanad.RunError, len(delta.FailedSteps))
	}
	for k, v := range delta.FailedSteps {
		c.FailedSteps[k] = v
	}
}

// fold rebuilds a run's checkpoint from its recorded step events.
type fold struct {
	def   *Definition
	input json.RawMessage
	cp    Checkpoint
	state canon.Digest
	// outputs are the completed steps' outputs, whole.
	outputs map[string]json.RawMessage
	// recorded is each step's outcome, for a replay to compare with.
	recorded map[string]recordedStep
	steps    int // step events folded
}

func newFold(d *Definition, definitionHash string, input json.RawMessage) (*fold, error) {
	st, err := genesisState(definitionHash, input)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeIntegrity, "workflow.load", "recorded input")
	}
	return &fold{def: d, input: input, cp: newCheckpoint(input, st), state: st,
		outputs: map[string]json.RawMessage{}, recorded: map[string]recordedStep{}}, nil
}

// add folds the step event ev, whose body is b: it checks the event as a
// change to the checkpoint so far, its output against its hash and its
// state against the state the events before it give. A step event
// changed, removed or reordered is INTEGRITY.
func (f *fold) add(ev *ledger.Event, b *StepBody) error {
	const op = "workflow.load"
	what := func() string { return "the " + ev.Type + " event of step " + b.StepID }
	if err := f.cp.checkStep(f.def, ev.Type, b); err != nil {
		return sanad.Wrap(err, sanad.CodeIntegrity, op, what())
	}
	if ev.Type == TypeStepCompleted && canon.Sum(b.Output).String() != b.OutputHash {
		return sanad.Errorf(sanad.CodeIntegrity, op, "%s: its output does not match its output_hash", what())
	}
	st, err := stepState(f.state, ev.Type, b)
	if err != nil {
		return sanad.Wrap(err, sanad.CodeIntegrity, op, what())
	}
	if st.String() != b.Checkpoint.State {
		return sanad.Errorf(sanad.CodeIntegrity, op, "%s (seq %d) records checkpoint state %s, but the run's step events up to it give %s: a step event was changed, removed or reordered",
			what(), ev.Seq, b.Checkpoint.State, st)
	}
	f.cp.applyStep(ev.Type, b)
	f.state = st
	f.steps++
	if ev.Type == TypeStepCompleted {
		f.outputs[b.StepID] = b.Output
	}
	if ev.Type != TypeStepCompensated {
		f.recorded[b.StepID] = recordedStep{typ: ev.Type, output: b.Output}
	}
	return nil
}

// Checkpoints rebuilds the checkpoints of run from evs, the events of its
// trace: it folds the run's step events in order, checking each as
// Resume does, and calls fn with each step event and the checkpoint after
// it. cp is the fold's own: it is valid until fn returns, and Clone keeps a
// copy. A step event that does not fit the ones before it is INTEGRITY; a
// run with no workflow.defined is NOT_FOUND; an error from fn is returned.
func Checkpoints(evs []*ledger.Event, run string, fn func(ev *ledger.Event, cp *Checkpoint) error) error {
	_, err := foldRun(evs, run, fn)
	return err
}

// foldRun reads the definition of run from evs and folds its step events,
// calling each (when not nil) after each.
func foldRun(evs []*ledger.Event, run string, each func(*ledger.Event, *Checkpoint) error) (*fold, error) {
	const op = "workflow.load"
	var f *fold
	for _, ev := range evs {
		if ev.Run != run {
			continue
		}
		switch ev.Type {
		case TypeDefined:
			if f != nil {
				return nil, sanad.Errorf(sanad.CodeIntegrity, op, "run %s has a second workflow.defined", run)
			}
			var b DefinedBody
			if err := json.Unmarshal(ev.Body, &b); err != nil {
				return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, "workflow.defined body")
			}
			var d Definition
			if err := json.Unmarshal(b.Definition, &d); err != nil {
				return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, "recorded definition")
			}
			if err := d.Validate(); err != nil {
				return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, "recorded definition")
			}
			if dg, err := d.Digest(); err != nil || dg.String() != b.DefinitionHash {
				return nil, sanad.Errorf(sanad.CodeIntegrity, op, "the recorded definition does not match its hash %s", b.DefinitionHash)
			}
			var err error
			if f, err = newFold(&d, b.DefinitionHash, b.Input); err != nil {
				return nil, err
			}
		case TypeStepCompleted, TypeStepFailed, TypeStepSkipped, TypeStepCompensated:
			var b StepBody
			if err := json.Unmarshal(ev.Body, &b); err != nil {
				return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, ev.Type+" body")
			}
			if f == nil {
				return nil, sanad.Errorf(sanad.CodeIntegrity, op, "%s before workflow.defined", ev.Type)
			}
			if err := f.add(ev, &b); err != nil {
				return nil, err
			}
			if each != nil {
				if err := each(ev, &f.cp); err != nil {
					return nil, err
				}
			}
		}
	}
	if f == nil {
		return nil, sanad.Errorf(sanad.CodeNotFound, op, "run %s has no recorded workflow definition", run)
	}
	if f.steps > 0 {
		if err := f.cp.Validate(f.def); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, "checkpoint after step "+f.cp.CompletedStepID)
		}
	}
	return f, nil
}
