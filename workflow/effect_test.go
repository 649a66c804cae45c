package workflow_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/workflow"
)

const effectsYAML = `name: effects
agent: worker
steps:
  - {id: one, tool: count, with: {n: 1}}
  - {id: two, tool: notify, with: {to: desk}}
  - {id: three, uses: pair, tools: [count, notify]}
`

// pair calls two tools in one step.
func pair(ctx context.Context, s *workflow.StepContext) (json.RawMessage, error) {
	a, err := s.Call(ctx, "count", json.RawMessage(`{"n":3}`))
	if err != nil {
		return nil, err
	}
	b, err := s.Call(ctx, "notify", json.RawMessage(`{"to":"board"}`))
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]json.RawMessage{"a": a, "b": b})
}

// Replay of a finished trace produces the same outputs with zero tool or
// model calls.
func TestReplayCallsNothing(t *testing.T) {
	e := openEnv(t)
	e.actions.Register("pair", pair)
	res, err := e.engine.Start(t.Context(), parse(t, effectsYAML), nil, opts)
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("Start: got %v %+v, %v; want completed", res.Status, res.Errors, err)
	}
	before := map[string]int{"count": e.world.calls["count"], "notify": e.world.calls["notify"]}
	if before["count"] != 2 || before["notify"] != 2 {
		t.Fatalf("calls: got %v, want 2 of each", before)
	}
	e.reopen(t)
	rep, err := e.engine.Replay(t.Context(), res.Run)
	if err != nil {
		t.Fatalf("Replay: got %v, want nil", err)
	}
	if e.world.calls["count"] != 2 || e.world.calls["notify"] != 2 {
		t.Errorf("replay called tools: %v, want no call beyond %v", e.world.calls, before)
	}
	for k, v := range res.Outputs {
		if string(rep.Outputs[k]) != string(v) {
			t.Errorf("replayed output %s: got %s, want %s", k, rep.Outputs[k], v)
		}
	}
	if rep.Executed != 3 || rep.Status != sanad.StatusCompleted {
		t.Errorf("replay: executed %d steps, status %s; want 3, completed", rep.Executed, rep.Status)
	}
	// Replay records nothing.
	evs, _ := e.home.Ledger.Events(t.Context(), res.Trace)
	n := len(evs)
	if _, err := e.engine.Replay(t.Context(), res.Run); err != nil {
		t.Fatal(err)
	}
	if evs, _ := e.home.Ledger.Events(t.Context(), res.Trace); len(evs) != n {
		t.Errorf("replay appended %d events", len(evs)-n)
	}
}

// A replay whose action no longer produces the recorded output reports the
// divergence.
func TestReplayDetectsDivergence(t *testing.T) {
	e := openEnv(t)
	e.actions.Register("rec", func(_ context.Context, s *workflow.StepContext) (json.RawMessage, error) { return s.Step.With, nil })
	res, err := e.engine.Start(t.Context(), parse(t, steps(3, "")), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.actions.Register("rec", func(_ context.Context, s *workflow.StepContext) (json.RawMessage, error) {
		return json.RawMessage(`"changed"`), nil
	})
	if _, err := e.engine.Replay(t.Context(), res.Run); codeOf(err) != sanad.CodeIntegrity {
		t.Errorf("Replay: got %v, want INTEGRITY", err)
	}
}

// A crash between an effect's intent and the effect, or between the effect
// and its record, never makes the effect happen twice, and never calls a
// tool again for an effect whose outcome is recorded.
func TestEffectRecoveryAtCrashPoints(t *testing.T) {
	cases := []struct {
		point string
		hit   int
		// calls of notify the resume makes
		notifyCalls int
	}{
		// Step three calls notify once more in every case.
		{workflow.PointBeforeIntent, 2, 2},     // before step two's intent: it runs on resume
		{workflow.PointAfterIntent, 2, 2},      // intent durable, no attempt: known not started, runs on resume
		{workflow.PointAfterEffect, 2, 1},      // notify done and recorded by the gateway: reused
		{workflow.PointAfterResult, 2, 1},      // result durable: reused
		{workflow.PointAfterIntent, 3, 1},      // step three's count: not started, runs once
		{workflow.PointAfterEffect, 3, 1},      // step three's count done: reused
		{workflow.PointBeforeCheckpoint, 2, 1}, // step two recorded its effect, not itself: reused
	}
	for _, c := range cases {
		t.Run(c.point, func(t *testing.T) {
			e := openEnv(t)
			e.actions.Register("pair", pair)
			e.crashAt(c.point, c.hit)
			id := e.startCrashing(t, parse(t, effectsYAML))
			callsBefore := e.world.calls["notify"]
			e.reopen(t)
			res, err := e.engine.Resume(t.Context(), id)
			if err != nil || res.Status != sanad.StatusCompleted {
				t.Fatalf("Resume: got %v %+v, %v; want completed", res.Status, res.Errors, err)
			}
			if got := e.world.calls["notify"] - callsBefore; got != c.notifyCalls {
				t.Errorf("notify calls on resume: got %d, want %d", got, c.notifyCalls)
			}
			for key, n := range e.world.applied {
				if n != 1 {
					t.Errorf("effect %s took place %d times, want 1", key, n)
				}
			}
			if len(e.world.applied) != 4 {
				t.Errorf("effects: got %d, want 4", len(e.world.applied))
			}
			if _, err := e.home.Ledger.Verify(t.Context(), res.Trace); err != nil {
				t.Errorf("Verify: %v", err)
			}
		})
	}
}

// An attempt interrupted inside the tool (the process stopped while the tool
// ran): an idempotent tool is retried with the same key; any other opens a
// gate, and the run waits for a person.
func TestInterruptedAttempt(t *testing.T) {
	interrupt := func(t *testing.T, e *env, tool string) string {
		t.Helper()
		started, release, finished := make(chan struct{}), make(chan struct{}), make(chan struct{})
		// The old "process" is let go at the end, and finishes (failing to
		// record anything on the closed home) before the folder goes.
		t.Cleanup(func() {
			close(release)
			<-finished
		})
		first := true
		e.world.during = func(name string) {
			if name == tool && first {
				first = false
				close(started)
				<-release // the process "stops" here, after the effect
			}
		}
		go func() {
			defer close(finished)
			_, _ = e.engine.Start(context.Background(), parse(t, effectsYAML), nil, opts)
		}()
		<-started
		e.world.during = nil
		id := e.onlyRun(t)
		e.reopen(t) // a new process; the old one never returns
		return id
	}
	t.Run("idempotent retried with its key", func(t *testing.T) {
		e := openEnv(t)
		e.actions.Register("pair", pair)
		id := interrupt(t, e, "count")
		res, err := e.engine.Resume(t.Context(), id)
		if err != nil || res.Status != sanad.StatusCompleted {
			t.Fatalf("Resume: got %v %+v, %v; want completed", res.Status, res.Errors, err)
		}
		key := id + "/one.1"
		if e.world.applied[key] != 1 || e.world.calls["count"] != 3 {
			t.Errorf("count: applied %d under %s, %d calls; want 1 and 3 (one retry)", e.world.applied[key], key, e.world.calls["count"])
		}
		if _, err := e.home.Ledger.Verify(t.Context(), res.Trace); err != nil {
			t.Errorf("Verify: %v", err)
		}
	})
	for _, approve := range []bool{false, true} {
		name := map[bool]string{false: "not idempotent: rejected as done", true: "not idempotent: approved, run again"}[approve]
		t.Run(name, func(t *testing.T) {
			e := openEnv(t)
			e.actions.Register("pair", pair)
			id := interrupt(t, e, "notify")
			res, err := e.engine.Resume(t.Context(), id)
			if res.Status != sanad.StatusRunning || len(res.Gates) != 1 || codeOf(err) != "" && err != nil {
				t.Fatalf("Resume: got %v gates %v, %v; want running with one gate", res.Status, res.Gates, err)
			}
			if codeOf(res.Err()) != sanad.CodeApprovalRequired {
				t.Errorf("Result.Err: got %v, want APPROVAL_REQUIRED", res.Err())
			}
			// Resuming again before the gate is resolved opens no second gate.
			again, err := e.engine.Resume(t.Context(), id)
			if err != nil {
				t.Fatalf("second resume: %v", err)
			}
			if len(again.Gates) != 1 || again.Gates[0] != res.Gates[0] {
				t.Fatalf("second resume: gates %v, want %v", again.Gates, res.Gates)
			}
			// Only the operator role may settle it.
			if _, err := e.gates.Resolve(t.Context(), res.Gates[0], runs.Principal{Agent: "w-1", Role: "worker"}, true, ""); codeOf(err) != sanad.CodePolicyDenied {
				t.Fatalf("Resolve by a worker: got %v, want POLICY_DENIED", err)
			}
			note := `{"key":"` + id + `/two.1"}`
			if _, err := e.gates.Resolve(t.Context(), res.Gates[0], runs.Principal{Agent: "ops-1", Role: "operator"}, approve, note); err != nil {
				t.Fatal(err)
			}
			res, err = e.engine.Resume(t.Context(), id)
			if err != nil || res.Status != sanad.StatusCompleted {
				t.Fatalf("Resume after the gate: got %v %+v, %v; want completed", res.Status, res.Errors, err)
			}
			key := id + "/two.1"
			want := 1
			if approve {
				want = 2 // the person said it had not happened; here it had
			}
			if e.world.applied[key] != want {
				t.Errorf("notify applied %d times under %s, want %d", e.world.applied[key], key, want)
			}
			if string(res.Outputs["two"]) != note {
				t.Errorf("output of two: got %s, want %s", res.Outputs["two"], note)
			}
			if _, err := e.home.Ledger.Verify(t.Context(), res.Trace); err != nil {
				t.Errorf("Verify: %v", err)
			}
		})
	}
}

// A run whose context ends during a tool call stops, still running, and a
// resume in the same process retries the call under the same key.
func TestCancelledCallIsResumed(t *testing.T) {
	e := openEnv(t)
	e.world.slowStarted = make(chan struct{})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-e.world.slowStarted
		cancel()
	}()
	src := "name: slow\nagent: worker\nsteps:\n  - {id: a, tool: count, with: {}}\n  - {id: b, tool: slow, with: {}}\n  - {id: c, tool: count, with: {}}\n"
	res, err := e.engine.Start(ctx, parse(t, src), nil, opts)
	if err != nil || res.Status != sanad.StatusRunning {
		t.Fatalf("Start: got %v %+v, %v; want running (stopped by its context)", res.Status, res.Errors, err)
	}
	res, err = e.engine.Resume(t.Context(), res.Run)
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("Resume: got %v %+v, %v; want completed", res.Status, res.Errors, err)
	}
	if e.world.calls["slow"] != 2 || e.world.calls["count"] != 2 {
		t.Errorf("calls: got %v, want slow twice and count twice", e.world.calls)
	}
	if _, err := e.home.Ledger.Verify(t.Context(), res.Trace); err != nil {
		t.Errorf("Verify: %v", err)
	}
}
