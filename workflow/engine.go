package workflow

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// RunStore reads the projected records of runs.
type RunStore interface {
	Run(ctx context.Context, id string) (sanad.Run, error)
	Runs(ctx context.Context, trace string) ([]sanad.Run, error)
}

// DefaultGateRole is the role that resolves the gate of an interrupted
// effect when Config.GateRole is empty.
const DefaultGateRole = "operator"

// Config configures an Engine.
type Config struct {
	Runs  *runs.Recorder
	Store RunStore
	// Actions are the actions steps use, by name.
	Actions *Actions
	// Gateway makes the tool calls of steps; Tools says which tools are
	// idempotent when an interrupted call is recovered. Both are needed
	// only by workflows that call tools.
	Gateway *tool.Gateway
	Tools   *tool.Registry
	// Artifacts reads recorded tool outputs on resume.
	Artifacts *artifact.Store
	// Gates opens a gate for an interrupted effect that cannot be retried
	// safely. Without it such an effect fails the step with
	// APPROVAL_REQUIRED.
	Gates *gate.Service
	// GateRole must be satisfied by whoever resolves such a gate
	// (DefaultGateRole when empty).
	GateRole string
	// WaitForGates makes a run wait (polling every GateEvery) until an open
	// gate is resolved. Without it the run stops, still running, and
	// reports the gate; a later Resume goes on once it is resolved.
	WaitForGates bool
	GateEvery    time.Duration
	// Roles returns the role an agent acts in (its policy principal); nil
	// gives every agent the role named like it.
	Roles func(agent string) string
	// Crash is called at each named crash point (the Point constants) so
	// that tests can stop the process exactly there; nil does nothing.
	Crash func(point string)
	// Delegate performs tasks steps delegate to other agents
	// (StepContext.Delegate); nil refuses delegation.
	Delegate Delegator
	// OnEvent is called with each step and effect event once it is
	// durable, for progress reports; it must not block. Nil does nothing.
	OnEvent func(*ledger.Event)
}

// Validate reports a missing setting.
func (c *Config) Validate() error {
	const op = "workflow.config"
	switch {
	case c.Runs == nil || c.Runs.Ledger == nil:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "a workflow engine needs a run recorder with a ledger")
	case c.Store == nil:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "a workflow engine needs a run store")
	case c.Actions == nil:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "a workflow engine needs actions")
	}
	return nil
}

// Engine runs workflows durably: every step ends with a signed event that
// holds its change to the checkpoint and the hash of the checkpoint after it,
// committed with it, and every external effect
// is recorded as intent, then result. It is safe for concurrent use.
type Engine struct {
	cfg Config
}

// New returns an engine over cfg.
func New(cfg Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.GateRole == "" {
		cfg.GateRole = DefaultGateRole
	}
	if cfg.GateEvery == 0 {
		cfg.GateEvery = 200 * time.Millisecond
	}
	return &Engine{cfg: cfg}, nil
}

// Options are the settings of one run.
type Options struct {
	Scope         sanad.Scope
	CorrelationID string
	// PolicyVersions and TaxonomyVersions are pinned on the run and on its
	// steps' agent runs (contract v1 §1, §2.1).
	PolicyVersions   map[string]sanad.PolicyVersion
	TaxonomyVersions map[string]string
	// Decision authorizes the run (allowed, "started by the caller", when
	// zero).
	Decision runs.Decision
	// Playbook names the playbook the run belongs to; it is recorded with
	// the definition (see [DefinedBody]).
	Playbook string
	// Started, when set, is called with the run's id once the run is
	// recorded, before its first step runs.
	Started func(run string) error
}

// StepError is the failure of one step.
type StepError struct {
	Step    string     `json:"step"`
	Code    sanad.Code `json:"code"`
	Message string     `json:"message"`
}

// Result is where a run stands when Start, Resume or Replay returns.
type Result struct {
	Run    string          `json:"run"`
	Trace  string          `json:"trace"`
	Status sanad.RunStatus `json:"status"`
	// Outputs are the outputs of the completed steps.
	Outputs map[string]json.RawMessage `json:"outputs,omitempty"`
	Errors  []StepError                `json:"errors,omitempty"`
	// Gates are open gates the run waits on (status running).
	Gates []string `json:"gates,omitempty"`
	// Executed counts the steps this call ran; Resumed is the step index a
	// resume started after (-1 for none).
	Executed    int  `json:"executed"`
	ResumedFrom *int `json:"resumed_from,omitempty"`
}

// Err returns nil for a completed run, else the error that sums it up.
func (r Result) Err() error {
	switch r.Status {
	case sanad.StatusCompleted:
		return nil
	case sanad.StatusRunning:
		return sanad.Errorf(sanad.CodeApprovalRequired, "workflow.run", "run %s waits on gate %s", r.Run, strings.Join(r.Gates, ", "))
	}
	if len(r.Errors) == 0 {
		return sanad.Errorf(sanad.CodeCancelled, "workflow.run", "run %s is %s", r.Run, r.Status)
	}
	msgs := make([]string, len(r.Errors))
	for i, e := range r.Errors {
		msgs[i] = e.Step + ": " + e.Message
	}
	return sanad.Errorf(r.Errors[0].Code, "workflow.run", "run %s %s: %s", r.Run, r.Status, strings.Join(msgs, "; "))
}

// Start records a new workflow run with its definition and input, and runs
// it to its end (or to a gate it must wait on). The run's failure is in the
// Result; the error is for a run that could not be recorded at all.
func (e *Engine) Start(ctx context.Context, d *Definition, input json.RawMessage, opt Options) (Result, error) {
	const op = "workflow.start"
	if err := d.Validate(); err != nil {
		return Result{}, err
	}
	if err := e.cfg.Actions.check(d); err != nil {
		return Result{}, err
	}
	if len(input) == 0 {
		input = d.Input
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	in, err := canon.Transform(input)
	if err != nil || in[0] != '{' {
		return Result{}, sanad.Errorf(sanad.CodeInvalidInput, op, "the workflow input must be a JSON object")
	}
	// The definition is recorded in canonical form, and its digest is that
	// form's hash (what Definition.Digest computes).
	defJSON, err := d.Canonical()
	if err != nil {
		return Result{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, "definition")
	}
	digest := canon.Sum(defJSON)
	agent := d.Agent
	if agent == "" {
		agent = d.Steps[0].Agent
	}
	dec := opt.Decision
	if dec.Reason == "" {
		dec = runs.Decision{Allow: true, Reason: "workflow " + d.Name + " started by its caller"}
	}
	e.crash(PointBeforeStart)
	run, started, err := e.cfg.Runs.Begin(ctx, runs.Spec{
		Kind: sanad.KindWorkflow, Scope: opt.Scope, Agent: agent, Role: e.role(agent),
		CorrelationID: opt.CorrelationID, Request: json.RawMessage(in), Decision: dec,
		PolicyVersions: opt.PolicyVersions, TaxonomyVersions: opt.TaxonomyVersions,
		Also: []runs.Event{{Type: TypeDefined, Body: DefinedBody{
			Name: d.Name, Playbook: opt.Playbook, Version: d.Version, DefinitionHash: digest.String(), Definition: defJSON, Input: in,
		}}},
	})
	if err != nil {
		if run != nil { // denied
			return Result{Run: run.Record.ID, Trace: run.Record.Trace, Status: sanad.StatusDenied}, err
		}
		return Result{}, err
	}
	x := e.newExec(d, run, in, newJournal())
	if x.state, err = genesisState(digest.String(), in); err != nil {
		return Result{}, err
	}
	x.cp.State = x.state.String()
	if started != nil {
		x.pending = append(x.pending, started)
	}
	e.crash(PointAfterStart)
	if opt.Started != nil {
		if err := opt.Started(run.Record.ID); err != nil {
			// The run is recorded and has not begun: a resume begins it.
			if ferr := x.flush(ctx); ferr != nil {
				err = ferr
			}
			return Result{Run: run.Record.ID, Trace: run.Record.Trace, Status: sanad.StatusRunning}, err
		}
	}
	return x.execute(ctx), nil
}

// Resume goes on with a workflow run that stopped before its end (a crash,
// a cancelled context, a gate): from the latest checkpoint, outputs restored,
// never running a completed step again (INV-CP-002). Effects the run left
// without a result are settled first: an idempotent one is retried with its
// key; any other waits on a person (a gate).
func (e *Engine) Resume(ctx context.Context, runID string) (Result, error) {
	const op = "workflow.resume"
	rec, err := e.cfg.Store.Run(ctx, runID)
	if err != nil {
		return Result{}, err
	}
	if rec.Kind != sanad.KindWorkflow {
		return Result{}, sanad.Errorf(sanad.CodeInvalidInput, op, "run %s is a %s run, not a workflow", runID, rec.Kind)
	}
	if rec.Status != sanad.StatusRunning {
		return Result{Run: rec.ID, Trace: rec.Trace, Status: rec.Status}, sanad.Errorf(sanad.CodeConflict, op, "run %s has ended (%s): there is nothing to resume", runID, rec.Status)
	}
	evs, err := e.cfg.Runs.Ledger.Events(ctx, rec.Trace)
	if err != nil {
		return Result{}, err
	}
	st, err := loadState(evs, rec.ID)
	if err != nil {
		return Result{}, err
	}
	e.crash(PointResumeLoaded)
	if err := e.closeOrphans(ctx, rec, evs); err != nil {
		return Result{}, err
	}
	e.crash(PointResumeOrphansClosed)
	run, err := e.cfg.Runs.Attach(rec, e.role(rec.Agent))
	if err != nil {
		return Result{}, err
	}
	x := e.newExec(st.def, run, st.input, st.journal)
	x.cp, x.outputs, x.state = st.cp, st.outputs, st.state
	if st.steps > 0 {
		from := st.cp.StepIndex
		x.resumedFrom = &from
	}
	return x.execute(ctx), nil
}

// Replay runs a finished (or stopped) workflow run again from its recorded
// events, without recording anything and without calling any tool or model:
// every effect's result comes from the record. It returns the outputs, and
// INTEGRITY if a step produces an output other than the recorded one.
func (e *Engine) Replay(ctx context.Context, runID string) (Result, error) {
	rec, err := e.cfg.Store.Run(ctx, runID)
	if err != nil {
		return Result{}, err
	}
	evs, err := e.cfg.Runs.Ledger.Events(ctx, rec.Trace)
	if err != nil {
		return Result{}, err
	}
	st, err := loadState(evs, rec.ID)
	if err != nil {
		return Result{}, err
	}
	run := &runs.Run{Record: rec}
	x := e.newExec(st.def, run, st.input, st.journal)
	x.replay = st.recorded
	res := x.execute(ctx)
	res.Status = rec.Status
	if x.diverged != nil {
		return res, x.diverged
	}
	return res, nil
}

// Cancel ends a workflow run that is not running in any process (stopped by
// a crash, or waiting on a gate) as cancelled.
func (e *Engine) Cancel(ctx context.Context, runID, reason string) error {
	rec, err := e.cfg.Store.Run(ctx, runID)
	if err != nil {
		return err
	}
	if rec.Kind != sanad.KindWorkflow {
		return sanad.Errorf(sanad.CodeInvalidInput, "workflow.cancel", "run %s is a %s run, not a workflow", runID, rec.Kind)
	}
	run, err := e.cfg.Runs.Attach(rec, e.role(rec.Agent))
	if err != nil {
		return sanad.Errorf(sanad.CodeConflict, "workflow.cancel", "run %s has ended (%s)", runID, rec.Status)
	}
	if reason == "" {
		reason = "cancelled by an operator"
	}
	return run.Cancel(ctx, reason)
}

func (e *Engine) role(agent string) string {
	if e.cfg.Roles != nil {
		if r := e.cfg.Roles(agent); r != "" {
			return r
		}
	}
	return agent
}

func (e *Engine) observe(evs []*ledger.Event) {
	if e.cfg.OnEvent != nil {
		for _, ev := range evs {
			e.cfg.OnEvent(ev)
		}
	}
}

func (e *Engine) crash(point string) {
	if e.cfg.Crash != nil {
		e.cfg.Crash(point)
	}
}

// closeOrphans ends the child runs a stopped process left running: an
// interrupted tool attempt gets its tool.failed (see tool.Interrupt); any
// other child run fails as interrupted.
func (e *Engine) closeOrphans(ctx context.Context, rec sanad.Run, evs []*ledger.Event) error {
	all, err := e.cfg.Store.Runs(ctx, rec.Trace)
	if err != nil {
		return err
	}
	open, err := tool.Interrupted(evs)
	if err != nil {
		return err
	}
	byRun := make(map[string]tool.Open, len(open))
	for _, o := range open {
		byRun[o.Run] = o
	}
	// A step's agent run goes on when its step is run again.
	steps := stepRunIDs(evs, rec.ID)
	for _, r := range all {
		if r.ID == rec.ID || r.Status != sanad.StatusRunning || steps[r.ID] {
			continue
		}
		child, err := e.cfg.Runs.Attach(r, "")
		if err != nil {
			return err
		}
		if o, ok := byRun[r.ID]; ok {
			if err := tool.Interrupt(ctx, child, o); err != nil {
				return err
			}
			continue
		}
		cause := sanad.Errorf(sanad.CodeCancelled, "workflow.resume", "run %s was interrupted: the process running it stopped", r.ID)
		if err := child.Fail(ctx, cause); err != nil {
			return err
		}
	}
	return nil
}

// stepRunIDs returns the ids of the agent runs the workflow run started for
// its steps.
func stepRunIDs(evs []*ledger.Event, workflowRun string) map[string]bool {
	agents := map[string]bool{}
	out := map[string]bool{}
	for _, ev := range evs {
		switch ev.Type {
		case runs.TypeStarted:
			var b runs.StartedBody
			if json.Unmarshal(ev.Body, &b) == nil && b.Run.Kind == sanad.KindAgent && b.Run.ParentID == workflowRun {
				agents[ev.Run] = true
			}
		case runs.TypeAuthz:
			var d runs.Decision
			if agents[ev.Run] && json.Unmarshal(ev.Body, &d) == nil && strings.HasPrefix(d.Action, stepAction) {
				out[ev.Run] = true
			}
		}
	}
	return out
}

// state is what a run's events say of it: its definition and input, its
// checkpoint rebuilt from its step events, and its effect journal.
type state struct {
	*fold
	journal *journal
}

type recordedStep struct {
	typ    string
	output json.RawMessage
}

// loadState reads a workflow run's definition, checkpoint and effect journal
// from its trace's events. The checkpoint is the fold of the run's step
// events, each checked against its recorded state (see [Checkpoints]), so
// loading costs the same for each step whatever the run's length.
func loadState(evs []*ledger.Event, runID string) (*state, error) {
	st := &state{journal: newJournal()}
	for _, ev := range evs {
		if err := st.journal.observe(ev); err != nil {
			return nil, err
		}
	}
	f, err := foldRun(evs, runID, nil)
	if err != nil {
		return nil, err
	}
	st.fold = f
	return st, nil
}

// inlineOutputBytes is the largest output a checkpoint holds itself; a
// larger one it holds by reference to its step.completed event, which holds
// it whole.
const inlineOutputBytes = 1 << 10

// recordedForm is how a checkpoint holds out: as is, or for a large one
// {"$output": its hash, "bytes": its size}.
func recordedForm(out json.RawMessage) json.RawMessage {
	if len(out) <= inlineOutputBytes {
		return out
	}
	b, _ := json.Marshal(map[string]any{"$output": canon.Sum(out).String(), "bytes": len(out)})
	return b
}

// exec is one execution of a run: by Start, Resume or Replay.
type exec struct {
	e       *Engine
	def     *Definition
	run     *runs.Run
	input   json.RawMessage
	journal *journal

	// replay, when not nil, holds the recorded steps: nothing is appended
	// and effects come from the journal only.
	replay   map[string]recordedStep
	diverged error

	resumedFrom *int
	// broken is the error of a step event that could not be recorded after
	// the step went on: the run stops and is left to Resume.
	broken error

	// index is each step's index in the definition, by id.
	index map[string]int

	mu sync.Mutex // guards what follows and appends of step events
	cp Checkpoint
	// state is the state of the latest step event (see
	// [CheckpointDelta.State]): the next one chains from it.
	state canon.Digest
	// unrecorded are the failures in cp.FailedSteps that no step event has
	// recorded yet: the next one does.
	unrecorded []string
	// outputs are the completed steps' outputs, whole (the checkpoint may
	// hold large ones by reference).
	outputs map[string]json.RawMessage
	// readers counts the actions running with outputs, cp.Context and
	// cp.MemorySnapshot in their StepContext: while one does, those maps
	// are copied before they change, else they change in place.
	readers  int
	gates    []string
	pending  []*ledger.Pending // step events queued and not yet known durable
	executed int
}

// flush waits until every queued step event is durable. An error means one
// was not: the run cannot go on from its in-memory state, only be resumed
// from what is recorded. The wait is not cut short when ctx ends: a
// cancelled run's steps still commit, and a resume starts after them.
func (x *exec) flush(ctx context.Context) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.flushLocked(ctx)
}

func (x *exec) flushLocked(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	var first error
	for _, p := range x.pending {
		if err := p.Wait(ctx); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		x.e.observe(p.Events())
	}
	x.pending = x.pending[:0]
	if first != nil && x.broken == nil {
		x.broken = first
	}
	return first
}

func (e *Engine) newExec(d *Definition, run *runs.Run, input json.RawMessage, j *journal) *exec {
	index := make(map[string]int, len(d.Steps))
	for i := range d.Steps {
		index[d.Steps[i].ID] = i
	}
	return &exec{
		e: e, def: d, run: run, input: input, journal: j, index: index,
		outputs: map[string]json.RawMessage{}, cp: newCheckpoint(input, canon.Digest{}),
	}
}

// step returns the index of step id, or -1.
func (x *exec) step(id string) int {
	if i, ok := x.index[id]; ok {
		return i
	}
	return -1
}

// release ends a StepContext's reading of the shared maps (see readers).
func (x *exec) release() {
	x.mu.Lock()
	x.readers--
	x.mu.Unlock()
}

// writable makes *m safe to change: a copy while an action may be reading
// it.
func (x *exec) writable(m *map[string]json.RawMessage) {
	if x.readers > 0 {
		*m = maps.Clone(*m)
	}
}

// applyStep changes the checkpoint, and the outputs, by a step event that
// passed checkStep.
func (x *exec) applyStep(typ string, b *StepBody) {
	if len(b.Checkpoint.Context) > 0 {
		x.writable(&x.cp.Context)
	}
	if len(b.Checkpoint.MemorySnapshot) > 0 {
		x.writable(&x.cp.MemorySnapshot)
	}
	x.cp.applyStep(typ, b)
	if typ == TypeStepCompleted {
		x.writable(&x.outputs)
		x.outputs[b.StepID] = b.Output
	}
}

// Step statuses within an execution.
const (
	pending = iota
	running
	done
	failed
	waiting // stopped at a gate; not recorded
)

// execute runs the steps still to run, then settles the run.
func (x *exec) execute(ctx context.Context) Result {
	if x.cp.Phase == PhaseRun {
		x.runSteps(ctx)
	}
	x.mu.Lock()
	stopped := len(x.gates) > 0
	x.mu.Unlock()
	failedSteps := len(x.cp.FailedSteps) > 0
	if !stopped && x.def.Strategy == Rollback && (failedSteps || x.cp.Phase == PhaseRollback) && x.replay == nil {
		x.rollback(ctx)
	}
	return x.finish(ctx)
}

// runSteps schedules the steps not yet settled, ready ones in definition
// order, at most MaxConcurrency at once.
func (x *exec) runSteps(ctx context.Context) {
	steps := x.def.Steps
	status := make([]int, len(steps))
	for i, s := range steps {
		if _, ok := x.cp.StepOutputs[s.ID]; ok {
			status[i] = done
		} else if _, ok := x.cp.FailedSteps[s.ID]; ok {
			status[i] = failed
		}
	}
	type outcome struct {
		i   int
		out json.RawMessage
		err error
	}
	results := make(chan outcome, len(steps))
	inFlight := 0
	stop := false
	// Every step before first is settled or running: the scan for ready
	// steps starts there, so that a long run's steps cost the same.
	first := 0
	for {
		for first < len(steps) && status[first] != pending {
			first++
		}
		for i := first; i < len(steps); i++ {
			if stop || inFlight >= x.def.MaxConcurrency || ctx.Err() != nil {
				break
			}
			if status[i] != pending {
				continue
			}
			ready, blocked := true, ""
			for _, dep := range steps[i].DependsOn {
				switch status[x.step(dep)] {
				case done:
				case failed:
					blocked = dep
				default:
					ready = false
				}
			}
			if blocked != "" {
				status[i] = failed
				err := sanad.Errorf(sanad.CodeCancelled, "workflow.step", "step %s did not run: step %s, which it depends on, failed", steps[i].ID, blocked)
				if rerr := x.record(ctx, i, TypeStepSkipped, nil, err, nil); rerr != nil {
					stop = x.recordFailed(i, rerr)
				}
				continue
			}
			if !ready {
				continue
			}
			status[i] = running
			inFlight++
			if x.def.MaxConcurrency == 1 {
				out, err := x.runStep(ctx, i)
				results <- outcome{i, out, err}
			} else {
				go func(i int) {
					out, err := x.runStep(ctx, i)
					results <- outcome{i, out, err}
				}(i)
			}
		}
		if inFlight == 0 {
			return
		}
		o := <-results
		inFlight--
		var w *waitError
		switch {
		case o.err == nil:
			status[o.i] = done
		case errors.As(o.err, &w):
			status[o.i] = waiting
			stop = true
		case ctx.Err() != nil && x.replay == nil:
			// Stopped, not failed: the run stays resumable.
			status[o.i] = waiting
			stop = true
		default:
			status[o.i] = failed
			if x.def.Strategy != ContinueOnError {
				stop = true
			}
		}
	}
}

// recordFailed handles a step event that could not be recorded: the run
// cannot go on safely.
func (x *exec) recordFailed(i int, err error) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.fail(x.def.Steps[i].ID, err)
	return true
}

// fail notes a failure that no step event of its own records: the next
// step event does. x.mu must be held.
func (x *exec) fail(key string, err error) {
	if x.cp.FailedSteps == nil {
		x.cp.FailedSteps = map[string]sanad.RunError{}
	}
	x.cp.FailedSteps[key] = *sanad.NewRunError(err)
	x.unrecorded = append(x.unrecorded, key)
}

// runStep runs step i's action and records its outcome with the checkpoint
// after it.
func (x *exec) runStep(ctx context.Context, i int) (json.RawMessage, error) {
	step := &x.def.Steps[i]
	sc := x.newStepContext(step, i)
	if err := x.stepRun(ctx, sc); err != nil {
		x.release()
		return nil, err
	}
	x.e.crash(PointBeforeAction)
	out, err := x.e.cfg.Actions.run(ctx, sc)
	x.release()
	if err == nil {
		out, err = canonicalOutput(step.ID, out)
	}
	x.e.crash(PointAfterAction)
	var w *waitError
	if errors.As(err, &w) || (err != nil && ctx.Err() != nil && x.replay == nil) {
		return nil, err // not an outcome of the step: the run stops, resumable
	}
	if x.replay != nil {
		return out, x.compare(step.ID, out, err)
	}
	// The agent run ends before the step is recorded: a crash between the
	// two re-runs the step, whose effects are read back from the record.
	if sc.agentRun != nil {
		var aerr error
		if err != nil {
			aerr = sc.agentRun.Fail(ctx, err)
		} else {
			aerr = sc.agentRun.Complete(ctx, nil, out)
		}
		if aerr != nil {
			x.recordFailed(i, aerr)
			return nil, aerr
		}
		x.journal.mu.Lock()
		x.journal.ended[sc.agentRun.Record.ID] = true
		x.journal.mu.Unlock()
	}
	typ := TypeStepCompleted
	if err != nil {
		typ = TypeStepFailed
	}
	if rerr := x.record(ctx, i, typ, out, err, sc); rerr != nil {
		x.recordFailed(i, rerr)
		return nil, rerr
	}
	x.mu.Lock()
	x.executed++
	x.mu.Unlock()
	return out, err
}

// stepRun finds the step's agent run in the record: after a crash in the
// middle of the step, the step goes on in the same run, still running; in
// a replay, the id is kept for [StepContext.AgentRun]. A step without one
// starts it at its first call (see [StepContext.acting]).
func (x *exec) stepRun(_ context.Context, sc *StepContext) error {
	j := x.journal
	j.mu.Lock()
	id, ok := j.stepRuns[sc.Step.ID]
	rec, ended := j.agentRuns[id], j.ended[id]
	j.mu.Unlock()
	if !ok {
		return nil
	}
	if x.replay != nil {
		sc.runID = id
		return nil
	}
	if ended {
		return nil
	}
	run, err := x.e.cfg.Runs.Attach(rec, x.e.role(cmp.Or(sc.Step.Agent, x.def.Agent)))
	if err != nil {
		return err
	}
	sc.agentRun, sc.runID = run, id
	return nil
}

// compare checks a replayed step against its record.
func (x *exec) compare(id string, out json.RawMessage, err error) error {
	rec, ok := x.replay[id]
	x.mu.Lock()
	defer x.mu.Unlock()
	x.executed++
	var msg string
	switch {
	case !ok:
		msg = "has no recorded outcome"
	case err != nil && rec.typ == TypeStepCompleted:
		msg = "failed on replay (" + sanad.ErrorMessage(err) + ") but completed in the record"
	case err == nil && rec.typ != TypeStepCompleted:
		msg = "completed on replay but " + rec.typ + " in the record"
	case err == nil && string(out) != string(rec.output):
		msg = "produced another output than the recorded one"
	}
	if msg != "" && x.diverged == nil {
		x.diverged = sanad.Errorf(sanad.CodeIntegrity, "workflow.replay", "step %s %s", id, msg)
	}
	if err == nil {
		x.writable(&x.outputs)
		x.outputs[id] = out
		x.cp.StepOutputs[id] = recordedForm(out)
		x.cp.Completed = append(x.cp.Completed, id)
	}
	return err
}

// maxOutputBytes bounds a step's output, which its step event holds.
const maxOutputBytes = 256 << 10

func canonicalOutput(step string, out json.RawMessage) (json.RawMessage, error) {
	if len(out) == 0 {
		return json.RawMessage("null"), nil
	}
	if len(out) > maxOutputBytes {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "workflow.step", "step %s returned %d bytes; at most %d are allowed (store larger results as artifacts)", step, len(out), maxOutputBytes)
	}
	c, err := canon.Transform(out)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, "workflow.step", fmt.Sprintf("step %s returned invalid JSON: %v", step, err))
	}
	return c, nil
}

// record appends a step event with its change to the checkpoint and the
// state after it, in one commit (INV-CP-001), and applies the change. sc
// carries the step's context and memory changes (nil for a skipped step).
// What it costs does not depend on the steps before.
func (x *exec) record(ctx context.Context, i int, typ string, out json.RawMessage, stepErr error, sc *StepContext) error {
	step := &x.def.Steps[i]
	x.mu.Lock()
	defer x.mu.Unlock()
	body := StepBody{StepID: step.ID, StepIndex: i, Agent: step.Agent}
	delta := &body.Checkpoint
	delta.StepIndex, delta.CompletedStepID, delta.Phase = i, step.ID, x.cp.Phase
	signer := ""
	switch typ {
	case TypeStepCompleted:
		if sc != nil {
			var err error
			if delta.Context, err = canonicalValues(step.ID, "context", sc.context); err != nil {
				return err
			}
			if delta.MemorySnapshot, err = canonicalValues(step.ID, "memory", sc.memory); err != nil {
				return err
			}
		}
		body.Output, body.OutputHash = out, canon.Sum(out).String()
		signer = step.Agent
	case TypeStepCompensated:
	default:
		body.Error = sanad.NewRunError(stepErr)
		if x.def.Strategy == Rollback && typ == TypeStepFailed {
			delta.Phase = PhaseRollback
		}
	}
	if len(x.unrecorded) > 0 {
		delta.FailedSteps = make(map[string]sanad.RunError, len(x.unrecorded))
		for _, k := range x.unrecorded {
			delta.FailedSteps[k] = x.cp.FailedSteps[k]
		}
	}
	// Validation before save: the change keeps the checkpoint valid.
	if err := x.cp.checkStep(x.def, typ, &body); err != nil {
		return err
	}
	state, err := stepState(x.state, typ, &body)
	if err != nil {
		return err
	}
	delta.State = state.String()
	x.e.crash(PointBeforeCheckpoint)
	// The event is sealed and queued, not awaited: the next step starts
	// while it commits. Anything that depends on it being durable (an
	// effect, the run's end, a report) waits for it first (flush).
	p, err := x.run.Enqueue(ctx, runs.Event{Type: typ, Agent: signer, Body: json.RawMessage(body.appendJSON(make([]byte, 0, 512+len(out))))})
	if err != nil {
		return err
	}
	x.pending = append(x.pending, p)
	x.e.crash(PointAfterCheckpoint)
	x.state = state
	x.unrecorded = x.unrecorded[:0]
	x.applyStep(typ, &body)
	return nil
}

// canonicalValues returns the values a step set, in canonical form: as its
// step event records them, and so as a resume finds them.
func canonicalValues(step, what string, m map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		if len(v) == 0 {
			out[k] = json.RawMessage("null")
			continue
		}
		c, err := canon.Transform(v)
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInvalidInput, "workflow.step", fmt.Sprintf("step %s set %s %q to invalid JSON", step, what, k))
		}
		out[k] = c
	}
	return out, nil
}

// rollback compensates the completed steps in the reverse order of their
// completion (INV-PE-003); a step without a compensation is recorded as
// compensated with nothing to undo.
func (x *exec) rollback(ctx context.Context) {
	if x.cp.Phase != PhaseRollback {
		// The failure was recorded before the phase existed in its
		// checkpoint (or the failing step could not be recorded).
		x.mu.Lock()
		x.cp.Phase = PhaseRollback
		x.mu.Unlock()
	}
	undone := make(map[string]bool, len(x.cp.Compensated))
	for _, id := range x.cp.Compensated {
		undone[id] = true
	}
	for k := len(x.cp.Completed) - 1; k >= 0; k-- {
		id := x.cp.Completed[k]
		if undone[id] || ctx.Err() != nil {
			continue
		}
		i := x.step(id)
		step := &x.def.Steps[i]
		x.e.crash(PointBeforeCompensate)
		var err error
		if step.Compensate != nil {
			sc := x.newStepContext(step, i)
			sc.compensating = true
			_, err = x.e.cfg.Actions.compensate(ctx, sc, step.Compensate)
			x.release()
		}
		x.e.crash(PointAfterCompensateAction)
		var w *waitError
		if errors.As(err, &w) || ctx.Err() != nil {
			return
		}
		if err != nil {
			x.mu.Lock()
			x.fail(id+"#compensate", err)
			x.mu.Unlock()
			continue
		}
		if rerr := x.record(ctx, i, TypeStepCompensated, nil, nil, nil); rerr != nil {
			return
		}
		x.e.crash(PointAfterCompensate)
	}
}

// finish ends the run when every step is settled and returns the result.
func (x *exec) finish(ctx context.Context) Result {
	x.mu.Lock()
	defer x.mu.Unlock()
	res := Result{
		Run: x.run.Record.ID, Trace: x.run.Record.Trace, Outputs: x.outputs,
		Executed: x.executed, ResumedFrom: x.resumedFrom, Gates: x.gates,
	}
	ids := make([]string, 0, len(x.cp.FailedSteps))
	for id := range x.cp.FailedSteps {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		f := x.cp.FailedSteps[id]
		res.Errors = append(res.Errors, StepError{Step: id, Code: f.Code, Message: f.Message})
	}
	if x.replay != nil {
		return res
	}
	settled := len(x.cp.StepOutputs)+len(x.cp.FailedSteps) >= len(x.def.Steps) || (len(x.cp.FailedSteps) > 0 && x.def.Strategy != ContinueOnError)
	ending := settled && len(x.gates) == 0 && ctx.Err() == nil && x.broken == nil
	// The end is queued behind the steps and all commit together; the
	// run is reported only once everything is durable.
	var end *ledger.Pending
	var endErr error
	if ending {
		x.e.crash(PointBeforeEnd)
		res.Status = sanad.StatusCompleted
		var cause error
		if len(res.Errors) > 0 {
			res.Status = sanad.StatusFailed
			cause = res.Err()
		}
		end, endErr = x.run.Conclude(ctx, res.Status, nil, x.outputs, cause)
	}
	ferr := x.flushLocked(ctx)
	if ferr == nil && end != nil {
		ferr = end.Wait(context.WithoutCancel(ctx))
	}
	if ferr == nil {
		ferr = endErr
	}
	if ferr != nil || x.broken != nil {
		if ferr == nil {
			ferr = x.broken
		}
		res.Status = sanad.StatusRunning
		res.Errors = append(res.Errors, StepError{Code: sanad.ErrorCode(ferr), Message: "the run's record could not be written, so it stopped; resume it: " + sanad.ErrorMessage(ferr)})
		return res
	}
	if !ending {
		res.Status = sanad.StatusRunning
		return res
	}
	x.e.crash(PointAfterEnd)
	return res
}

// waitError stops a step at an open gate.
type waitError struct{ gate string }

func (w *waitError) Error() string {
	return fmt.Sprintf("waiting on gate %s", w.gate)
}
