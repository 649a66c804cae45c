package workflow

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// journal is what a trace records of effects, by key: intents, results,
// the tool calls behind them and the gates opened for them.
type journal struct {
	mu      sync.Mutex // guards everything below
	intents map[string]IntentBody
	results map[string]ResultBody
	// tools holds the final outcome of gateway calls by idempotency key;
	// attempts the last attempt each call started.
	tools    map[string]toolOutcome
	attempts map[string]int
	// gates holds the gates of interrupted effects by subject: the key,
	// "#", and the number of re-runs the effect had when the gate opened,
	// so that an approval allows one re-run only.
	gates   map[string]gateState
	retries map[string]int // effect key → re-runs recorded
}

type toolOutcome struct {
	completed *tool.CompletedBody
	failed    *tool.FailedBody
}

type gateState struct {
	id       string
	resolved bool
	approved bool
	note     string
}

func newJournal() *journal {
	return &journal{
		intents: map[string]IntentBody{}, results: map[string]ResultBody{},
		tools: map[string]toolOutcome{}, attempts: map[string]int{}, gates: map[string]gateState{}, retries: map[string]int{},
	}
}

// observe takes in one event of the trace.
func (j *journal) observe(ev *ledger.Event) error {
	const op = "workflow.journal"
	bad := func(err error) error { return sanad.Wrap(err, sanad.CodeIntegrity, op, ev.Type+" body") }
	switch ev.Type {
	case TypeEffectIntent:
		var b IntentBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return bad(err)
		}
		j.intents[b.Key] = b
	case TypeEffectRetried:
		var b RetriedBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return bad(err)
		}
		j.retries[b.Key] = b.Retry
	case TypeEffectResult:
		var b ResultBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return bad(err)
		}
		j.results[b.Key] = b
	case tool.TypeStarted:
		var b tool.StartedBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return bad(err)
		}
		j.attempts[b.Key] = b.Attempt
	case tool.TypeCompleted:
		var b tool.CompletedBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return bad(err)
		}
		j.tools[b.Key] = toolOutcome{completed: &b}
	case tool.TypeFailed:
		var b tool.FailedBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return bad(err)
		}
		if !b.Retry {
			j.tools[b.Key] = toolOutcome{failed: &b}
		}
	case gate.TypeCreated:
		var b gate.Created
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return bad(err)
		}
		if b.Kind == gate.KindAmbiguousEffect && b.Subject != "" {
			j.gates[b.Subject] = gateState{id: b.GateID}
		}
	case gate.TypeResolved:
		var b gate.Resolved
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return bad(err)
		}
		for k, g := range j.gates {
			if g.id == b.GateID {
				j.gates[k] = gateState{id: g.id, resolved: true, approved: b.Decision == gate.StatusApproved, note: b.Note}
			}
		}
	}
	return nil
}

// EffectSpec describes an external effect.
type EffectSpec struct {
	// Kind is what the effect is ("tool", "model", …); Name which one.
	Kind string
	Name string
	// Input is hashed into the intent.
	Input any
	// Idempotent says that repeating the effect with the same key has the
	// effect of doing it once: an interrupted one may be retried.
	Idempotent bool
	// Settled, when not nil, reports what is known of an interrupted
	// effect from other records: its outcome (done), or that it certainly
	// did not happen (notStarted). Tool calls know this from the gateway's
	// events.
	Settled func(key string) (out json.RawMessage, err error, done, notStarted bool)
}

// StepContext is what a step's action works with: the step, the outputs it
// may read, the workflow's context and memory, and the recorded way to cause
// effects. It is used by one step at a time.
type StepContext struct {
	x     *exec
	Step  *Step
	Index int
	// Input is the workflow's input; Outputs the outputs of the steps
	// completed so far (read only).
	Input   json.RawMessage
	Outputs map[string]json.RawMessage
	// Context and Memory are the workflow's shared values as the step
	// found them (read only); Set and Remember change them when the step
	// completes.
	Context map[string]json.RawMessage
	Memory  map[string]json.RawMessage

	context, memory map[string]json.RawMessage
	seq             int
	compensating    bool
}

func (x *exec) newStepContext(step *Step, i int) *StepContext {
	x.mu.Lock()
	defer x.mu.Unlock()
	return &StepContext{
		x: x, Step: step, Index: i, Input: x.input,
		Outputs: x.outputs, Context: x.cp.Context, Memory: x.cp.MemorySnapshot,
	}
}

// Run is the id of the workflow run.
func (s *StepContext) Run() string { return s.x.run.Record.ID }

// Compensating reports whether the action runs as a step's compensation
// during a rollback.
func (s *StepContext) Compensating() bool { return s.compensating }

// Set records a context value, saved with the step's checkpoint.
func (s *StepContext) Set(key string, v json.RawMessage) {
	if s.context == nil {
		s.context = map[string]json.RawMessage{}
	}
	s.context[key] = v
}

// Remember records a memory value, saved with the step's checkpoint.
func (s *StepContext) Remember(key string, v json.RawMessage) {
	if s.memory == nil {
		s.memory = map[string]json.RawMessage{}
	}
	s.memory[key] = v
}

// nextKey returns the key of the step's next effect: the run id, "/", the
// step id, "." and the effect's ordinal in the step. An action must cause
// its effects in a deterministic order, so that a re-execution finds the
// recorded ones under the same keys.
func (s *StepContext) nextKey() (callID, key string) {
	s.seq++
	callID = s.Step.ID + "." + strconv.Itoa(s.seq)
	if s.compensating {
		callID = s.Step.ID + ".undo." + strconv.Itoa(s.seq)
	}
	return callID, s.x.run.Record.ID + "/" + callID
}

// Effect causes an external effect through fn, recorded as effect.intent
// then effect.result. If the record already has its result (a resume or a
// replay), that result is returned and fn is not called. If it has the
// intent but no result (a crash in between), the effect is retried with the
// same key only when it is idempotent, or known not to have happened;
// otherwise a person decides through a gate.
func (s *StepContext) Effect(ctx context.Context, spec EffectSpec, fn func(ctx context.Context, key string) (json.RawMessage, error)) (json.RawMessage, error) {
	_, key := s.nextKey()
	return s.x.effect(ctx, s, key, spec, fn)
}

func (x *exec) effect(ctx context.Context, s *StepContext, key string, spec EffectSpec, fn func(ctx context.Context, key string) (json.RawMessage, error)) (json.RawMessage, error) {
	const op = "workflow.effect"
	j := x.journal
	j.mu.Lock()
	res, haveResult := j.results[key]
	_, haveIntent := j.intents[key]
	j.mu.Unlock()
	if haveResult {
		return resultOf(res)
	}
	if x.replay != nil {
		return nil, sanad.Errorf(sanad.CodeIntegrity, "workflow.replay", "effect %s has no recorded result: replay calls nothing", key)
	}
	// Nothing leaves the process before what led to it is durable.
	if err := x.flush(ctx); err != nil {
		return nil, err
	}
	result := ResultBody{Key: key}
	var out json.RawMessage
	var err error
	if !haveIntent {
		h, herr := canon.RequestHash(spec.Input)
		if herr != nil {
			return nil, sanad.Wrap(herr, sanad.CodeInvalidInput, op, "effect input is not hashable JSON")
		}
		intent := IntentBody{Key: key, StepID: s.Step.ID, Kind: spec.Kind, Name: spec.Name, Idempotent: spec.Idempotent, InputHash: h.String()}
		x.e.crash(PointBeforeIntent)
		evs, aerr := x.run.AppendAll(ctx, runs.Event{Type: TypeEffectIntent, Agent: s.Step.Agent, Body: intent})
		if aerr != nil {
			return nil, aerr
		}
		x.e.observe(evs)
		j.mu.Lock()
		j.intents[key] = intent
		j.mu.Unlock()
		x.e.crash(PointAfterIntent)
		out, err = fn(ctx, key)
	} else {
		result.Recovered = true
		var done, notStarted bool
		if spec.Settled != nil {
			out, err, done, notStarted = spec.Settled(key)
		}
		switch {
		case done:
		case notStarted:
			out, err = fn(ctx, key)
		case spec.Idempotent:
			if err = x.retried(ctx, key, ""); err != nil {
				return nil, err
			}
			x.e.crash(PointBeforeRetry)
			out, err = fn(ctx, key)
		default:
			var g gateState
			if g, err = x.gate(ctx, s, key, spec); err != nil {
				return nil, err
			}
			result.Gate = g.id
			if g.approved {
				// The approval allows this one re-run: if it is
				// interrupted too, a new gate asks again.
				if err = x.retried(ctx, key, g.id); err != nil {
					return nil, err
				}
				out, err = fn(ctx, key)
			} else {
				result.Status = EffectConfirmed
				out = confirmedOutput(g.note)
			}
		}
	}
	x.e.crash(PointAfterEffect)
	if ctx.Err() != nil && err != nil {
		return nil, err // stopped: the effect stays unsettled, and is settled on resume
	}
	switch {
	case result.Status == EffectConfirmed:
	case err != nil:
		result.Status, result.Error = EffectFailed, sanad.NewRunError(err)
	default:
		result.Status = EffectOK
	}
	if err == nil {
		if out, err = canonicalOutput(s.Step.ID, out); err != nil {
			result.Status, result.Error = EffectFailed, sanad.NewRunError(err)
		} else {
			result.Output, result.OutputHash = out, canon.Sum(out).String()
		}
	}
	evs, aerr := x.run.AppendAll(ctx, runs.Event{Type: TypeEffectResult, Body: result})
	if aerr != nil {
		return nil, aerr
	}
	x.e.observe(evs)
	j.mu.Lock()
	j.results[key] = result
	j.mu.Unlock()
	x.e.crash(PointAfterResult)
	return out, err
}

// retried records, durably, that the interrupted effect of key is run again.
func (x *exec) retried(ctx context.Context, key, gateID string) error {
	j := x.journal
	j.mu.Lock()
	n := j.retries[key] + 1
	j.mu.Unlock()
	evs, err := x.run.AppendAll(ctx, runs.Event{Type: TypeEffectRetried, Body: RetriedBody{Key: key, Retry: n, Gate: gateID}})
	if err != nil {
		return err
	}
	x.e.observe(evs)
	j.mu.Lock()
	j.retries[key] = n
	j.mu.Unlock()
	return nil
}

// confirmedOutput is the output of an effect a person confirmed: their note
// when it is a JSON value, else the note as a string.
func confirmedOutput(note string) json.RawMessage {
	if c, err := canon.Transform([]byte(note)); err == nil {
		return c
	}
	b, _ := json.Marshal(map[string]string{"confirmed": note})
	return b
}

func resultOf(r ResultBody) (json.RawMessage, error) {
	if r.Status == EffectFailed {
		if r.Error == nil {
			return nil, sanad.Errorf(sanad.CodeToolFailed, "workflow.effect", "effect %s failed", r.Key)
		}
		return nil, &sanad.Error{Code: r.Error.Code, Op: "workflow.effect", Message: r.Error.Message}
	}
	return append(json.RawMessage(nil), r.Output...), nil
}

// gate opens (or finds) the gate of an interrupted effect and, if the
// engine waits for gates, waits for its resolution. Otherwise an unresolved
// gate stops the step with a waitError.
func (x *exec) gate(ctx context.Context, s *StepContext, key string, spec EffectSpec) (gateState, error) {
	const op = "workflow.effect"
	j := x.journal
	j.mu.Lock()
	subject := key + "#" + strconv.Itoa(j.retries[key])
	g, ok := j.gates[subject]
	j.mu.Unlock()
	if ok && g.resolved {
		return g, nil
	}
	svc := x.e.cfg.Gates
	if svc == nil {
		return g, sanad.Errorf(sanad.CodeApprovalRequired, op,
			"%s %s (%s) was interrupted and is not idempotent: whether it took effect is unknown, and no gate service is configured to ask a person", spec.Kind, spec.Name, key)
	}
	if !ok {
		id, err := svc.Open(ctx, x.run, gate.Spec{
			Kind: gate.KindAmbiguousEffect, RequiredRole: x.e.cfg.GateRole, Priority: "high", Subject: subject,
			Reason: "the " + spec.Kind + " call " + spec.Name + " (" + key + ") was interrupted by a crash, and it is not idempotent: " +
				"approve to run it again if it did not take effect; reject if it did, with its output as JSON in the note",
		})
		if err != nil {
			return g, err
		}
		g = gateState{id: id}
		j.mu.Lock()
		j.gates[subject] = g
		j.mu.Unlock()
		x.e.crash(PointAfterGateOpen)
	}
	if !x.e.cfg.WaitForGates {
		x.mu.Lock()
		x.gates = append(x.gates, g.id)
		x.mu.Unlock()
		return g, &waitError{gate: g.id}
	}
	got, err := svc.Wait(ctx, g.id, x.e.cfg.GateEvery)
	if err != nil {
		return g, err
	}
	g = gateState{id: g.id, resolved: true, approved: got.Status == gate.StatusApproved}
	if got.Resolved != nil {
		g.note = got.Resolved.Note
	}
	return g, nil
}

// Call calls a tool through the gateway as the step's agent, recorded as an
// effect. The tool must be among the step's tools.
func (s *StepContext) Call(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, error) {
	const op = "workflow.call"
	e := s.x.e
	if !contains(s.Step.Tools, name) && !(s.compensating && s.Step.Compensate != nil && s.Step.Compensate.Tool == name) {
		return nil, sanad.Errorf(sanad.CodePolicyDenied, op, "step %s may not call tool %q: its tools are %v", s.Step.ID, name, s.Step.Tools)
	}
	if e.cfg.Gateway == nil {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "step %s calls tool %s, but the engine has no tool gateway", s.Step.ID, name)
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	spec := EffectSpec{Kind: "tool", Name: name, Input: input}
	if e.cfg.Tools != nil {
		if t, ok := e.cfg.Tools.Lookup(name); ok {
			spec.Idempotent = (t.Idempotent || t.SideEffect == tool.SideEffectNone) && t.Approval == policy.ApprovalNone
		}
	}
	callID, key := s.nextKey()
	x := s.x
	spec.Settled = func(key string) (json.RawMessage, error, bool, bool) {
		x.journal.mu.Lock()
		o, finished := x.journal.tools[key]
		started := x.journal.attempts[key] > 0
		x.journal.mu.Unlock()
		switch {
		case finished && o.completed != nil:
			out, err := e.readOutput(o.completed.Output)
			return out, err, true, false
		case finished:
			return nil, &sanad.Error{Code: o.failed.Error.Code, Op: op, Message: o.failed.Error.Message}, true, false
		}
		// Started with no outcome: interrupted, unknown. Never started:
		// certainly did not happen.
		return nil, nil, false, !started
	}
	return x.effect(ctx, s, key, spec, func(ctx context.Context, _ string) (json.RawMessage, error) {
		x.journal.mu.Lock()
		prior := x.journal.attempts[key]
		x.journal.mu.Unlock()
		p := policy.Principal{Agent: s.Step.Agent, Role: e.role(s.Step.Agent), Scope: x.run.Record.Scope}
		r := e.cfg.Gateway.Call(ctx, x.run, p, tool.Request{Tool: name, CallID: callID, Input: input, PriorAttempts: prior})
		if err := r.Err(); err != nil {
			return nil, err
		}
		return r.Output(), nil
	})
}

// readOutput reads a tool output artifact.
func (e *Engine) readOutput(ref sanad.ArtifactRef) (json.RawMessage, error) {
	if e.cfg.Artifacts == nil {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "workflow.call", "the engine has no artifact store to read recorded tool outputs")
	}
	return e.cfg.Artifacts.Read(ref.SHA256)
}
