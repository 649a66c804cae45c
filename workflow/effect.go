package workflow

import (
	"cmp"
	"context"
	"encoding/json"
	"strconv"
	"strings"
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
	// agentRuns are the agent runs of the trace by id, stepRuns the agent
	// run of each step by step id, and ended the runs that have ended.
	agentRuns map[string]sanad.Run
	stepRuns  map[string]string
	ended     map[string]bool
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
		agentRuns: map[string]sanad.Run{}, stepRuns: map[string]string{}, ended: map[string]bool{},
	}
}

// observe takes in one event of the trace.
func (j *journal) observe(ev *ledger.Event) error {
	const op = "workflow.journal"
	bad := func(err error) error { return sanad.Wrap(err, sanad.CodeIntegrity, op, ev.Type+" body") }
	switch ev.Type {
	case runs.TypeStarted:
		var b runs.StartedBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return bad(err)
		}
		if b.Run.Kind == sanad.KindAgent {
			j.agentRuns[ev.Run] = b.Run
		}
	case runs.TypeAuthz:
		if _, ok := j.agentRuns[ev.Run]; ok {
			var d runs.Decision
			if err := json.Unmarshal(ev.Body, &d); err != nil {
				return bad(err)
			}
			if step, ok := strings.CutPrefix(d.Action, stepAction); ok {
				j.stepRuns[step] = ev.Run
			}
		}
	case runs.TypeCompleted, runs.TypeFailed, runs.TypeDenied, runs.TypeCancelled:
		j.ended[ev.Run] = true
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
		if b.Subject != "" && (b.Kind == gate.KindAmbiguousEffect || b.Kind == gate.KindToolApproval) {
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
	// agentRun is the run the step's agent acts in: started at its first
	// call (nil in a replay, in a step that calls nothing, and for a
	// compensation), or the run a crash interrupted, attached; runID its
	// id, also in a replay when the record has one.
	agentRun *runs.Run
	runID    string
	runOnce  *sync.Mutex
}

// stepAction is the action of the decision that starts a step's agent run:
// "step:" and the step id.
const stepAction = "step:"

// acting returns the run the step's calls are children of: its agent run,
// started now if it has none yet (contract v1 §1: each agent acts in a run
// of its own), or the workflow run for a compensation.
func (s *StepContext) acting(ctx context.Context) (*runs.Run, error) {
	if s.compensating || s.x.replay != nil {
		return s.x.run, nil
	}
	s.runOnce.Lock()
	defer s.runOnce.Unlock()
	if s.agentRun != nil {
		return s.agentRun, nil
	}
	x, step := s.x, s.Step
	agent := cmp.Or(step.Agent, x.def.Agent)
	run, err := x.e.cfg.Runs.Start(ctx, runs.Spec{
		Kind: sanad.KindAgent, Parent: x.run, Scope: x.run.Record.Scope, Agent: agent, Role: x.e.role(agent),
		PolicyVersions: x.run.Record.PolicyVersions, TaxonomyVersions: x.run.Record.TaxonomyVersions,
		Request:  map[string]any{"workflow": x.def.Name, "step": step.ID, "task": step.Task},
		Decision: runs.Decision{Allow: true, Reason: "step " + step.ID + " of workflow " + x.def.Name + " runs its agent", Action: stepAction + step.ID},
	})
	if err != nil {
		return nil, err
	}
	j := x.journal
	j.mu.Lock()
	j.agentRuns[run.Record.ID], j.stepRuns[step.ID] = run.Record, run.Record.ID
	j.mu.Unlock()
	s.agentRun, s.runID = run, run.Record.ID
	return run, nil
}

// parentID returns the id of the run the step's calls were or are made in.
func (s *StepContext) parentID() string {
	if s.runID != "" && !s.compensating {
		return s.runID
	}
	return s.x.run.Record.ID
}

// AgentRun is the id of the run the step's agent acts in: its own agent
// run, a child of the workflow run (the workflow run's id for a step
// recorded before steps had agent runs).
func (s *StepContext) AgentRun() string { return s.parentID() }

func (x *exec) newStepContext(step *Step, i int) *StepContext {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.readers++ // until release
	return &StepContext{
		x: x, Step: step, Index: i, Input: x.input, runOnce: new(sync.Mutex),
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
// effect. The tool must be among the step's tools (or be its compensation's,
// during a rollback); see [StepContext.CallTool] for the rest.
func (s *StepContext) Call(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, error) {
	if !contains(s.Step.Tools, name) && !(s.compensating && s.Step.Compensate != nil && s.Step.Compensate.Tool == name) {
		return nil, sanad.Errorf(sanad.CodePolicyDenied, "workflow.call", "step %s may not call tool %q: its tools are %v", s.Step.ID, name, s.Step.Tools)
	}
	return s.CallTool(ctx, ToolCall{Tool: name, Input: input})
}

// ToolCall is a tool call made in a step.
type ToolCall struct {
	Tool  string
	Input json.RawMessage
	// Justification says why the call is made; it is recorded in the
	// call's signed intent when the tool needs approval. Empty gives one
	// that names the step and its agent.
	Justification string
}

// CallTool calls a tool through the gateway as the step's agent, recorded as
// an effect: a resume or a replay reads the recorded result instead of
// calling again. Unlike [StepContext.Call] it does not hold the call to the
// step's tools: it is how an agent's own choice of tool (a model's function
// call) reaches the gateway, whose policy decides and records every
// refusal (TOOL_NOT_FOUND for an unknown tool, POLICY_DENIED for one the
// agent's role may not use, INVALID_INPUT for arguments its schema refuses).
//
// A tool that policy says a person must approve first opens a gate in the
// workflow run (kind tool_approval) and stops the run, which waits on it;
// once the gate is approved, a resume makes the call, with the approval in
// its record, and once it is rejected the call is blocked.
func (s *StepContext) CallTool(ctx context.Context, c ToolCall) (json.RawMessage, error) {
	callID, key := s.nextKey()
	return s.callTool(ctx, s.Step.Agent, callID, key, c)
}

// callTool makes the tool call c as agent, under the call id callID and the
// effect key key (the workflow run's id, "/", callID).
func (s *StepContext) callTool(ctx context.Context, agent, callID, key string, c ToolCall) (json.RawMessage, error) {
	const op = "workflow.call"
	e := s.x.e
	name, input := c.Tool, c.Input
	if e.cfg.Gateway == nil {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "step %s calls tool %s, but the engine has no tool gateway", s.Step.ID, name)
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	justification := c.Justification
	if justification == "" {
		justification = "step " + s.Step.ID + " of workflow " + s.x.def.Name + ": " + agent + " calls " + name
		if s.Step.Description != "" {
			justification += " (" + s.Step.Description + ")"
		}
	}
	spec := EffectSpec{Kind: "tool", Name: name, Input: input}
	approval := policy.ApprovalNone
	if e.cfg.Tools != nil {
		if t, ok := e.cfg.Tools.Lookup(name); ok {
			approval = e.cfg.Gateway.Approval(name)
			spec.Idempotent = (t.Idempotent || t.SideEffect == tool.SideEffectNone) && approval == policy.ApprovalNone
		}
	}
	x := s.x
	// The gateway keys its records by its own idempotency key, which is
	// the effect's key except within a delegation.
	gwKey := x.run.Record.ID + "/" + callID
	if approval == policy.ApprovalHuman && x.replay == nil {
		if err := x.approval(ctx, agent, key, gwKey, name, justification); err != nil {
			return nil, err
		}
	}
	spec.Settled = func(string) (json.RawMessage, error, bool, bool) {
		x.journal.mu.Lock()
		o, finished := x.journal.tools[gwKey]
		started := x.journal.attempts[gwKey] > 0
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
		prior := x.journal.attempts[gwKey]
		x.journal.mu.Unlock()
		p := policy.Principal{Agent: agent, Role: e.role(agent), Scope: x.run.Record.Scope}
		req := tool.Request{Tool: name, CallID: callID, Key: gwKey, Input: input, PriorAttempts: prior, Justification: justification}
		if s.Step.Round > 0 {
			req.Round, req.DebateID = s.Step.Round, x.run.Record.ID
		}
		parent, err := s.acting(ctx)
		if err != nil {
			return nil, err
		}
		r := e.cfg.Gateway.Call(ctx, parent, p, req)
		if err := r.Err(); err != nil {
			return nil, err
		}
		return r.Output(), nil
	})
}

// approvalSubject is the subject of the gate that asks a person to approve
// the tool call whose idempotency key is key.
func approvalSubject(key string) string { return "approve:" + key }

// approval makes sure a person has decided on the tool call of effect key
// (idempotency key gwKey) before it is made: it opens the call's gate the first time, and stops the
// step (a waitError) while the gate is open. A decided gate lets the call go
// to the gateway, whose human approver ([ApprovalsOf]) reads the decision
// from the trace.
func (x *exec) approval(ctx context.Context, agent, key, gwKey, name, justification string) error {
	const op = "workflow.call"
	j := x.journal
	subject := approvalSubject(gwKey)
	j.mu.Lock()
	g, ok := j.gates[subject]
	_, haveResult := j.results[key]
	j.mu.Unlock()
	if haveResult || (ok && g.resolved) {
		return nil
	}
	if !ok {
		svc := x.e.cfg.Gates
		if svc == nil {
			return sanad.Errorf(sanad.CodeApprovalRequired, op, "tool %s needs a person's approval, and the engine has no gate service to ask one", name)
		}
		if err := x.flush(ctx); err != nil {
			return err
		}
		role := x.e.cfg.GateRole
		if x.e.cfg.Tools != nil {
			if t, ok := x.e.cfg.Tools.Lookup(name); ok && t.Approver != "" {
				role = t.Approver
			}
		}
		id, err := svc.Open(ctx, x.run, gate.Spec{
			Kind: gate.KindToolApproval, RequiredRole: role, Priority: "normal", Subject: subject,
			Reason: clipReason(agent + " asks to call " + name + " (" + key + "): " + justification),
		})
		if err != nil {
			return err
		}
		g = gateState{id: id}
		j.mu.Lock()
		j.gates[subject] = g
		j.mu.Unlock()
	}
	if x.e.cfg.WaitForGates {
		got, err := x.e.cfg.Gates.Wait(ctx, g.id, x.e.cfg.GateEvery)
		if err != nil {
			return err
		}
		j.mu.Lock()
		j.gates[subject] = gateState{id: g.id, resolved: true, approved: got.Status == gate.StatusApproved}
		j.mu.Unlock()
		return nil
	}
	x.mu.Lock()
	x.gates = append(x.gates, g.id)
	x.mu.Unlock()
	return &waitError{gate: g.id}
}

// clipReason bounds a gate's reason to what its event accepts.
func clipReason(s string) string {
	const max = 2000
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut]
}

// readOutput reads a tool output artifact.
func (e *Engine) readOutput(ref sanad.ArtifactRef) (json.RawMessage, error) {
	if e.cfg.Artifacts == nil {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "workflow.call", "the engine has no artifact store to read recorded tool outputs")
	}
	return e.cfg.Artifacts.Read(ref.SHA256)
}
