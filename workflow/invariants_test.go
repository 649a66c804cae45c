package workflow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/workflow"
)

// INV-AGT-003: steps run in the order they are defined, one at a time, when
// no concurrency is configured.
func TestINV_AGT_003_StepsRunInDefinitionOrder(t *testing.T) {
	e := openEnv(t)
	rec := &recorder{}
	var running, most atomic.Int32
	var mu sync.Mutex
	var early []string // steps that started before an earlier one completed
	e.actions.Register("rec", func(ctx context.Context, s *workflow.StepContext) (json.RawMessage, error) {
		n := running.Add(1)
		defer running.Add(-1)
		if n > most.Load() {
			most.Store(n)
		}
		// One at a time, in order: a step finds the outputs of exactly the
		// steps before it, so one started while another ran would lack
		// that one's.
		if len(s.Outputs) != s.Index {
			mu.Lock()
			early = append(early, fmt.Sprintf("%s (with %d outputs)", s.Step.ID, len(s.Outputs)))
			mu.Unlock()
		}
		for j := range s.Index {
			if _, ok := s.Outputs[fmt.Sprintf("s%d", j)]; !ok {
				mu.Lock()
				early = append(early, fmt.Sprintf("%s before s%d", s.Step.ID, j))
				mu.Unlock()
			}
		}
		return rec.action(ctx, s)
	})
	d := parse(t, steps(12, ""))
	res, err := e.engine.Start(t.Context(), d, nil, opts)
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("Start: got %v, %v; want completed", res.Status, err)
	}
	want := make([]string, 12)
	for i := range want {
		want[i] = fmt.Sprintf("s%d", i)
	}
	if !slices.Equal(rec.order, want) {
		t.Errorf("order: got %v, want %v", rec.order, want)
	}
	if most.Load() != 1 {
		t.Errorf("concurrent steps: got %d, want 1", most.Load())
	}
	if len(early) > 0 {
		t.Errorf("steps started before the steps defined before them completed: %v", early)
	}
	// The record says the same: step.completed events in definition order.
	evs, err := e.home.Ledger.Events(t.Context(), res.Trace)
	if err != nil {
		t.Fatal(err)
	}
	var recorded []string
	for _, ev := range evs {
		if ev.Type == workflow.TypeStepCompleted {
			var b workflow.StepBody
			if err := json.Unmarshal(ev.Body, &b); err != nil {
				t.Fatal(err)
			}
			recorded = append(recorded, b.StepID)
		}
	}
	if !slices.Equal(recorded, want) {
		t.Errorf("recorded order: got %v, want %v", recorded, want)
	}
}

// INV-CP-001: the checkpoint after each step holds stepIndex,
// completedStepId, stepOutputs, context and memorySnapshot; it is validated
// before it is saved, and it is committed with the step's event: the event
// holds the step's change to it and the hash of the checkpoint after it, and
// the checkpoint is the fold of the run's step events up to it.
func TestINV_CP_001_CheckpointComplete(t *testing.T) {
	e := openEnv(t)
	e.actions.Register("rec", func(_ context.Context, s *workflow.StepContext) (json.RawMessage, error) {
		s.Set("last", json.RawMessage(`"`+s.Step.ID+`"`))
		s.Remember(s.Step.ID, json.RawMessage(`true`))
		return s.Step.With, nil
	})
	def := parse(t, steps(4, ""))
	res, err := e.engine.Start(t.Context(), def, json.RawMessage(`{"deal":"d-42"}`), opts)
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("Start: got %v, %v; want completed", res.Status, err)
	}
	evs, err := e.home.Ledger.Events(t.Context(), res.Trace)
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	states := map[string]bool{}
	err = workflow.Checkpoints(evs, res.Run, func(ev *ledger.Event, cp *workflow.Checkpoint) error {
		if ev.Type != workflow.TypeStepCompleted {
			t.Errorf("step event %s, want only step.completed", ev.Type)
			return nil
		}
		// The event carries the seed's names for the step it follows, and
		// the state that commits to the checkpoint.
		var raw struct {
			Checkpoint map[string]json.RawMessage `json:"checkpoint"`
		}
		if err := json.Unmarshal(ev.Body, &raw); err != nil {
			t.Fatal(err)
		}
		for _, field := range []string{"stepIndex", "completedStepId", "context", "memorySnapshot", "phase", "state"} {
			if _, ok := raw.Checkpoint[field]; !ok {
				t.Errorf("step %d: the event's checkpoint has no %s: %s", k, field, ev.Body)
			}
		}
		var state string
		_ = json.Unmarshal(raw.Checkpoint["state"], &state)
		if state == "" || state != cp.State || states[state] {
			t.Errorf("step %d: event state %q, checkpoint state %q; want the same, new at each step", k, state, cp.State)
		}
		states[state] = true
		// The checkpoint after the step is complete.
		if err := cp.Validate(def); err != nil {
			t.Errorf("step %d: checkpoint does not validate: %v", k, err)
		}
		id := fmt.Sprintf("s%d", k)
		if cp.StepIndex != k || cp.CompletedStepID != id || len(cp.StepOutputs) != k+1 || len(cp.Completed) != k+1 {
			t.Errorf("step %d: got index %d, id %q, %d outputs, %d completed; want %d, %q, %d", k, cp.StepIndex, cp.CompletedStepID, len(cp.StepOutputs), len(cp.Completed), k, id, k+1)
		}
		for j := 0; j <= k; j++ {
			if out := string(cp.StepOutputs[fmt.Sprintf("s%d", j)]); out != fmt.Sprintf(`{"n":%d}`, j) {
				t.Errorf("step %d: output of s%d is %s, want {\"n\":%d}", k, j, out, j)
			}
		}
		if string(cp.Context["input"]) != `{"deal":"d-42"}` || string(cp.Context["last"]) != `"`+id+`"` {
			t.Errorf("step %d: context %v lacks the input or the step's value", k, cp.Context)
		}
		if len(cp.MemorySnapshot) != k+1 || string(cp.MemorySnapshot[id]) != "true" {
			t.Errorf("step %d: memory snapshot has %d entries (%s: %s), want %d", k, len(cp.MemorySnapshot), id, cp.MemorySnapshot[id], k+1)
		}
		if cp.Phase != workflow.PhaseRun || len(cp.FailedSteps) != 0 {
			t.Errorf("step %d: phase %s, failures %v; want run, none", k, cp.Phase, cp.FailedSteps)
		}
		k++
		return nil
	})
	if err != nil {
		t.Fatalf("Checkpoints: %v", err)
	}
	if k != 4 {
		t.Fatalf("step.completed events: got %d, want 4", k)
	}

	// Validation before save refuses an incomplete checkpoint.
	d := parse(t, steps(2, ""))
	good := workflow.Checkpoint{StepIndex: 1, CompletedStepID: "s1", StepOutputs: map[string]json.RawMessage{"s0": nil, "s1": nil},
		Context: map[string]json.RawMessage{}, MemorySnapshot: map[string]json.RawMessage{}, Completed: []string{"s0", "s1"}, Phase: workflow.PhaseRun}
	if err := good.Validate(d); err != nil {
		t.Fatalf("Validate(good): got %v, want nil", err)
	}
	bad := map[string]func(c *workflow.Checkpoint){
		"index out of range": func(c *workflow.Checkpoint) { c.StepIndex = 2 },
		"wrong step id":      func(c *workflow.Checkpoint) { c.CompletedStepID = "s0" },
		"no outputs":         func(c *workflow.Checkpoint) { c.StepOutputs = nil },
		"no context":         func(c *workflow.Checkpoint) { c.Context = nil },
		"no memory":          func(c *workflow.Checkpoint) { c.MemorySnapshot = nil },
		"output missing":     func(c *workflow.Checkpoint) { c.Completed = []string{"s0", "s9"} },
		"bad phase":          func(c *workflow.Checkpoint) { c.Phase = "" },
	}
	for name, breakIt := range bad {
		c := good
		c.StepOutputs = map[string]json.RawMessage{"s0": nil, "s1": nil}
		breakIt(&c)
		if err := c.Validate(d); err == nil {
			t.Errorf("Validate(%s): got nil, want an error", name)
		}
	}
}

// INV-CP-002: a resumed run starts at the step after its checkpoint, with the
// completed outputs restored, not recomputed.
func TestINV_CP_002_ResumeStartsAfterCheckpoint(t *testing.T) {
	for _, point := range []string{workflow.PointAfterCheckpoint, workflow.PointBeforeCheckpoint, workflow.PointAfterAction} {
		t.Run(point, func(t *testing.T) {
			e := openEnv(t)
			ran := map[string]int{}
			var mu sync.Mutex
			e.actions.Register("rec", func(_ context.Context, s *workflow.StepContext) (json.RawMessage, error) {
				mu.Lock()
				ran[s.Step.ID]++
				mu.Unlock()
				// Each output depends on the previous one: a step that saw
				// a recomputed or missing output would produce another.
				prev := "start"
				if s.Index > 0 {
					prev = string(s.Outputs[fmt.Sprintf("s%d", s.Index-1)])
				}
				return json.Marshal(map[string]string{"after": prev})
			})
			e.crashAt(point, 4) // during step s3
			id := e.startCrashing(t, parse(t, steps(8, "")))

			e.reopen(t)
			res, err := e.engine.Resume(t.Context(), id)
			if err != nil || res.Status != sanad.StatusCompleted {
				t.Fatalf("Resume: got %v, %v; want completed", res.Status, err)
			}
			wantFrom, wantRan := 2, 5 // checkpoint of s2: s3..s7 run
			if point == workflow.PointAfterCheckpoint {
				wantFrom, wantRan = 3, 4
			}
			if res.ResumedFrom == nil || *res.ResumedFrom != wantFrom {
				t.Fatalf("ResumedFrom: got %v, want %d", res.ResumedFrom, wantFrom)
			}
			if res.Executed != wantRan {
				t.Errorf("steps executed by the resume: got %d, want %d", res.Executed, wantRan)
			}
			for i := 0; i <= wantFrom; i++ {
				if n := ran[fmt.Sprintf("s%d", i)]; n != 1 {
					t.Errorf("step s%d ran %d times, want 1", i, n)
				}
			}
			// Outputs chain through all eight steps exactly as in a run
			// that never stopped.
			clean := openEnv(t)
			clean.actions.Register("rec", func(_ context.Context, s *workflow.StepContext) (json.RawMessage, error) {
				prev := "start"
				if s.Index > 0 {
					prev = string(s.Outputs[fmt.Sprintf("s%d", s.Index-1)])
				}
				return json.Marshal(map[string]string{"after": prev})
			})
			want, err := clean.engine.Start(t.Context(), parse(t, steps(8, "")), nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range want.Outputs {
				if string(res.Outputs[k]) != string(v) {
					t.Errorf("output %s: got %s, want %s", k, res.Outputs[k], v)
				}
			}
			if rep, err := e.home.Ledger.Verify(t.Context(), res.Trace); err != nil {
				t.Errorf("Verify: got %v (%+v), want nil", err, rep)
			}
		})
	}
}

// INV-PE-001: independent steps run concurrently, never more than
// max_concurrency at once.
func TestINV_PE_001_ConcurrencyLimit(t *testing.T) {
	e := openEnv(t)
	var running, most atomic.Int32
	// full closes when three steps run at once: the first three wait for it,
	// so they overlap whatever the scheduling, and the engine has its
	// chance to start more than three.
	full := make(chan struct{})
	var fullOnce sync.Once
	e.actions.Register("slow", func(ctx context.Context, s *workflow.StepContext) (json.RawMessage, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		if n >= 3 {
			fullOnce.Do(func() { close(full) })
		}
		select {
		case <-full:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return json.RawMessage(`{}`), nil
	})
	src := "name: fan\nagent: worker\nmax_concurrency: 3\nsteps:\n"
	for i := range 10 {
		src += fmt.Sprintf("  - {id: p%d, uses: slow}\n", i)
	}
	// A run that would wait forever fails instead of hanging the test.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := e.engine.Start(ctx, parse(t, src), nil, opts)
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("Start: got %v, %v; want completed", res.Status, err)
	}
	if m := most.Load(); m != 3 {
		t.Errorf("most steps at once: got %d, want 3", m)
	}
	if len(res.Outputs) != 10 {
		t.Errorf("outputs: got %d, want 10", len(res.Outputs))
	}
}

// INV-PE-002: a step starts only after every step it depends on completed,
// with their outputs; cycles are rejected before anything starts.
func TestINV_PE_002_DependenciesHonoured(t *testing.T) {
	e := openEnv(t)
	var mu sync.Mutex
	finished := map[string]bool{}
	var violations []string
	// right-long finishes only after left has, so join, which needs both,
	// is ready by left's side while right-long still runs.
	leftDone := make(chan struct{})
	e.actions.Register("dag", func(ctx context.Context, s *workflow.StepContext) (json.RawMessage, error) {
		mu.Lock()
		for _, dep := range s.Step.DependsOn {
			if !finished[dep] || s.Outputs[dep] == nil {
				violations = append(violations, s.Step.ID+" before "+dep)
			}
		}
		mu.Unlock()
		if s.Step.ID == "right-long" {
			select {
			case <-leftDone:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		mu.Lock()
		finished[s.Step.ID] = true
		mu.Unlock()
		if s.Step.ID == "left" {
			close(leftDone)
		}
		return json.Marshal(s.Step.ID)
	})
	// A diamond with a tail, written with a dependency after its dependent.
	src := `name: diamond
agent: worker
max_concurrency: 4
steps:
  - {id: join, uses: dag, depends_on: [left, right-long]}
  - {id: root, uses: dag}
  - {id: left, uses: dag, depends_on: [root]}
  - {id: right-long, uses: dag, depends_on: [root]}
  - {id: tail, uses: dag, depends_on: [join]}
`
	// A run that would wait forever fails instead of hanging the test.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := e.engine.Start(ctx, parse(t, src), nil, opts)
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("Start: got %v, %v; want completed", res.Status, err)
	}
	if len(violations) > 0 {
		t.Errorf("steps ran before their dependencies: %v", violations)
	}
	if len(res.Outputs) != 5 {
		t.Errorf("outputs: got %d, want 5", len(res.Outputs))
	}

	cycles := map[string]string{
		"two":  "name: c\nagent: w\nsteps:\n  - {id: a, depends_on: [b]}\n  - {id: b, depends_on: [a]}\n",
		"self": "name: c\nagent: w\nsteps:\n  - {id: a, depends_on: [a]}\n",
		"long": "name: c\nagent: w\nsteps:\n  - {id: a, depends_on: [c]}\n  - {id: b, depends_on: [a]}\n  - {id: c, depends_on: [b]}\n  - {id: d}\n",
	}
	for name, src := range cycles {
		_, err := workflow.Parse("cycle.yaml", []byte(src))
		if codeOf(err) != sanad.CodeInvalidInput || !strings.Contains(err.Error(), "depends on") && !strings.Contains(err.Error(), "cycle") {
			t.Errorf("%s: got %v, want INVALID_INPUT naming the cycle", name, err)
		}
	}
	if _, err := workflow.Parse("x.yaml", []byte("name: c\nagent: w\nsteps:\n  - {id: a, depends_on: [nope]}\n")); codeOf(err) != sanad.CodeInvalidInput {
		t.Errorf("unknown dependency: got %v, want INVALID_INPUT", err)
	}
}

// INV-PE-003: failFast stops at the first failure; continueOnError runs
// everything that does not depend on a failure and reports all failures;
// rollback compensates the completed steps in reverse order.
func TestINV_PE_003_FailureStrategies(t *testing.T) {
	src := func(strategy string) string {
		return `name: strat
agent: worker
strategy: ` + strategy + `
steps:
  - {id: a, tool: count, with: {}, compensate: {uses: tool, tool: undo, with: {step: a}}}
  - {id: b, tool: count, with: {}, compensate: {uses: tool, tool: undo, with: {step: b}}}
  - {id: bad, tool: boom, with: {}}
  - {id: after, tool: count, with: {}, compensate: {uses: tool, tool: undo, with: {step: after}}}
  - {id: needs-bad, uses: echo, depends_on: [bad]}
  - {id: other-bad, tool: boom, with: {}}
`
	}
	t.Run("failFast", func(t *testing.T) {
		e := openEnv(t)
		res, err := e.engine.Start(t.Context(), parse(t, src("failFast")), nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != sanad.StatusFailed || len(res.Errors) != 1 || res.Errors[0].Step != "bad" {
			t.Fatalf("got %v %+v, want failed with one error at step bad", res.Status, res.Errors)
		}
		if _, ran := res.Outputs["after"]; ran || e.world.calls["count"] != 2 || e.world.calls["boom"] != 1 {
			t.Errorf("steps after the failure ran: outputs %v, calls %v", res.Outputs, e.world.calls)
		}
		if len(e.world.undone) != 0 {
			t.Errorf("failFast compensated %v, want nothing", e.world.undone)
		}
	})
	t.Run("continueOnError", func(t *testing.T) {
		e := openEnv(t)
		res, err := e.engine.Start(t.Context(), parse(t, src("continueOnError")), nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		var failed []string
		for _, f := range res.Errors {
			failed = append(failed, f.Step)
		}
		if res.Status != sanad.StatusFailed || !slices.Equal(failed, []string{"bad", "needs-bad", "other-bad"}) {
			t.Fatalf("got %v with errors at %v, want failed at [bad needs-bad other-bad]", res.Status, failed)
		}
		if _, ran := res.Outputs["after"]; !ran || e.world.calls["boom"] != 2 {
			t.Errorf("continueOnError did not run the independent steps: outputs %v, calls %v", res.Outputs, e.world.calls)
		}
		if !strings.Contains(res.Err().Error(), "bad") || !strings.Contains(res.Err().Error(), "other-bad") {
			t.Errorf("aggregated error %q does not name every failure", res.Err())
		}
	})
	t.Run("rollback", func(t *testing.T) {
		e := openEnv(t)
		res, err := e.engine.Start(t.Context(), parse(t, src("rollback")), nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != sanad.StatusFailed {
			t.Fatalf("got %v, want failed", res.Status)
		}
		if !slices.Equal(e.world.undone, []string{"b", "a"}) {
			t.Errorf("compensations: got %v, want [b a]", e.world.undone)
		}
		evs, _ := e.home.Ledger.Events(t.Context(), res.Trace)
		var comp []string
		for _, ev := range evs {
			if ev.Type == workflow.TypeStepCompensated {
				var b workflow.StepBody
				_ = json.Unmarshal(ev.Body, &b)
				comp = append(comp, b.StepID)
			}
		}
		if !slices.Equal(comp, []string{"b", "a"}) {
			t.Errorf("step.compensated events: got %v, want [b a]", comp)
		}
	})
	t.Run("rollback resumes after a crash during compensation", func(t *testing.T) {
		e := openEnv(t)
		e.crashAt(workflow.PointAfterCompensate, 1) // b undone, a not yet
		id := e.startCrashing(t, parse(t, src("rollback")))
		e.reopen(t)
		res, err := e.engine.Resume(t.Context(), id)
		if err != nil || res.Status != sanad.StatusFailed {
			t.Fatalf("Resume: got %v, %v; want failed", res.Status, err)
		}
		if !slices.Equal(e.world.undone, []string{"b", "a"}) {
			t.Errorf("compensations: got %v, want [b a], each once", e.world.undone)
		}
	})
}

// A step may call only the tools it lists, and an unknown action or tool
// fails clearly, never with a panic.
func TestStepToolsAreBounded(t *testing.T) {
	e := openEnv(t)
	e.actions.Register("sneaky", func(ctx context.Context, s *workflow.StepContext) (json.RawMessage, error) {
		return s.Call(ctx, "notify", json.RawMessage(`{}`))
	})
	res, err := e.engine.Start(t.Context(), parse(t, "name: x\nagent: worker\nsteps:\n  - {id: a, uses: sneaky, tools: [count]}\n"), nil, opts)
	if err != nil || res.Status != sanad.StatusFailed || res.Errors[0].Code != sanad.CodePolicyDenied {
		t.Fatalf("got %v %+v %v, want failed with POLICY_DENIED", res.Status, res.Errors, err)
	}
	if e.world.calls["notify"] != 0 {
		t.Errorf("notify ran %d times, want 0", e.world.calls["notify"])
	}
	if _, err := e.engine.Start(t.Context(), parse(t, "name: x\nagent: worker\nsteps:\n  - {id: a, uses: nothing}\n"), nil, opts); codeOf(err) != sanad.CodeInvalidInput {
		t.Errorf("unknown action: got %v, want INVALID_INPUT", err)
	}
	res, err = e.engine.Start(t.Context(), parse(t, "name: x\nagent: worker\nsteps:\n  - {id: a, tool: missing, with: {}}\n"), nil, opts)
	if err != nil || res.Status != sanad.StatusFailed || res.Errors[0].Code != sanad.CodeToolNotFound {
		t.Errorf("unknown tool: got %v %+v %v, want failed with TOOL_NOT_FOUND", res.Status, res.Errors, err)
	}
}

// INV-DT-001 and INV-DT-002 within a workflow: a step delegates along a
// chain that carries every agent, at most five deep; delegating to itself or
// an ancestor, or deeper, returns DELEGATION_REFUSED as an error value; each
// delegation is an agent child run, and a replay reuses its result.
func TestINV_DT_DelegationInSteps(t *testing.T) {
	e := openEnv(t)
	var calls atomic.Int32
	chains := map[string]string{}
	var mu sync.Mutex
	e.reopenWith(t, func(c *workflow.Config) {
		c.Delegate = func(ctx context.Context, d workflow.Delegation) (json.RawMessage, error) {
			calls.Add(1)
			mu.Lock()
			chains[d.To()] = d.Chain.String()
			mu.Unlock()
			// Each agent hands on to the next one named in the task.
			if next, rest, ok := strings.Cut(d.Task, ","); ok {
				return d.Delegate(ctx, next, rest, nil)
			} else if d.Task != "" {
				return d.Delegate(ctx, d.Task, "", nil)
			}
			return json.Marshal(map[string]string{"done_by": d.To()})
		}
	})
	var refused []string
	e.actions.Register("hand-on", func(ctx context.Context, s *workflow.StepContext) (json.RawMessage, error) {
		var with struct{ To, Task string }
		_ = json.Unmarshal(s.Step.With, &with)
		out, err := s.Delegate(ctx, with.To, with.Task, nil)
		if err != nil {
			refused = append(refused, s.Step.ID+": "+string(codeOf(err)))
			return json.Marshal(map[string]string{"refused": string(codeOf(err))})
		}
		return out, nil
	})
	src := `name: delegation
agent: a1
steps:
  - {id: ok, uses: hand-on, with: {to: a2, task: "a3,a4,a5"}}
  - {id: deepest, uses: hand-on, with: {to: a2, task: "a3,a4,a5,a6"}}
  - {id: too-deep, uses: hand-on, with: {to: a2, task: "a3,a4,a5,a6,a7"}}
  - {id: self, uses: hand-on, with: {to: a1}}
  - {id: ancestor, uses: hand-on, with: {to: a2, task: "a3,a1"}}
`
	res, err := e.engine.Start(t.Context(), parse(t, src), nil, opts)
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("Start: got %v %+v, %v; want completed", res.Status, res.Errors, err)
	}
	if want := "a1 → a2 → a3 → a4 → a5 → a6"; chains["a6"] != want {
		t.Errorf("chain at a6: got %q, want %q", chains["a6"], want)
	}
	if string(res.Outputs["deepest"]) != `{"done_by":"a6"}` {
		t.Errorf("deepest: got %s, want done by a6 (depth 5)", res.Outputs["deepest"])
	}
	for _, id := range []string{"too-deep", "self", "ancestor"} {
		if string(res.Outputs[id]) != `{"refused":"DELEGATION_REFUSED"}` {
			t.Errorf("%s: got %s, want DELEGATION_REFUSED", id, res.Outputs[id])
		}
	}
	if _, ok := res.Outputs["self"]; !ok || len(refused) != 3 {
		t.Errorf("refused: got %v, want too-deep, self and ancestor", refused)
	}
	before := calls.Load()
	rep, err := e.engine.Replay(t.Context(), res.Run)
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	if calls.Load() != before {
		t.Errorf("replay delegated %d times, want 0", calls.Load()-before)
	}
	if string(rep.Outputs["deepest"]) != string(res.Outputs["deepest"]) {
		t.Errorf("replayed deepest: got %s, want %s", rep.Outputs["deepest"], res.Outputs["deepest"])
	}
}

// A large output is held by later checkpoints by reference to its step's
// event, no later event holds it, and a resume restores it whole.
func TestLargeOutputsByReference(t *testing.T) {
	e := openEnv(t)
	big := json.RawMessage(`{"text":"` + strings.Repeat("x", 5000) + `"}`)
	e.actions.Register("rec", func(_ context.Context, s *workflow.StepContext) (json.RawMessage, error) {
		if s.Index == 0 {
			return big, nil
		}
		if string(s.Outputs["s0"]) != string(big) {
			return nil, fmt.Errorf("step %s sees s0 as %d bytes, want %d", s.Step.ID, len(s.Outputs["s0"]), len(big))
		}
		return s.Step.With, nil
	})
	e.crashAt(workflow.PointAfterCheckpoint, 3)
	id := e.startCrashing(t, parse(t, steps(5, "")))
	res, err := e.engine.Resume(t.Context(), id)
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("Resume: got %v %+v, %v; want completed", res.Status, res.Errors, err)
	}
	if string(res.Outputs["s0"]) != string(big) {
		t.Errorf("restored s0: %d bytes, want %d", len(res.Outputs["s0"]), len(big))
	}
	evs, _ := e.home.Ledger.Events(t.Context(), res.Trace)
	n := 0
	err = workflow.Checkpoints(evs, res.Run, func(ev *ledger.Event, cp *workflow.Checkpoint) error {
		n++
		if cp.CompletedStepID == "s0" {
			return nil
		}
		if len(ev.Body) > 1000 {
			t.Errorf("the event of %s holds %d bytes, want no copy of s0's output", cp.CompletedStepID, len(ev.Body))
		}
		if ref := string(cp.StepOutputs["s0"]); !strings.Contains(ref, `"$output":"sha256:`) || len(ref) > 200 {
			t.Errorf("checkpoint after %s holds s0 as %.80s…, want a reference", cp.CompletedStepID, ref)
		}
		return nil
	})
	if err != nil || n != 5 {
		t.Errorf("Checkpoints: %d step events, %v; want 5, nil", n, err)
	}
}
