package workflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

const rolesYAML = `version: "1"
roles:
  worker: {kind: agent, description: does the steps}
  operator: {kind: human, description: settles interrupted effects}
`

const toolsYAML = `version: "1"
risk_classes:
  read: {approval: none, description: reads}
  write: {approval: none, description: writes}
tools:
  count: {description: idempotent counter, roles: [worker], risk: write}
  notify: {description: sends a message once per call, roles: [worker], risk: write}
  undo: {description: compensates, roles: [worker], risk: write}
  boom: {description: always fails, roles: [worker], risk: read}
  slow: {description: waits for its caller, roles: [worker], risk: read}
`

// world is the outside world the test tools act on: what each key applied,
// and how many times each tool's code ran.
type world struct {
	mu      sync.Mutex
	applied map[string]int // idempotency key → times its effect took place
	calls   map[string]int // tool → executions
	undone  []string       // compensations, in order
	// slowStarted, when set, is closed as the first call of slow starts.
	slowStarted chan struct{}
	// during is called inside a tool's code, after its effect, before it
	// returns.
	during func(tool string)
}

func newWorld() *world { return &world{applied: map[string]int{}, calls: map[string]int{}} }

func (w *world) tools(tb testing.TB) *tool.Registry {
	tb.Helper()
	obj := json.RawMessage(`{"type":"object"}`)
	fn := func(name string, idempotent bool) tool.Func {
		return func(_ context.Context, c tool.Call) (json.RawMessage, error) {
			defer func() {
				if w.during != nil {
					w.during(name)
				}
			}()
			w.mu.Lock()
			defer w.mu.Unlock()
			w.calls[name]++
			switch {
			case name == "boom":
				return nil, sanad.Errorf(sanad.CodeToolFailed, "boom", "boom always fails")
			case name == "undo":
				var in struct{ Step string }
				_ = json.Unmarshal(c.Input, &in)
				w.undone = append(w.undone, in.Step)
			case idempotent && w.applied[c.Key] > 0:
				// Already applied under this key: do nothing again.
			default:
				w.applied[c.Key]++
			}
			return json.RawMessage(fmt.Sprintf(`{"key":%q}`, c.Key)), nil
		}
	}
	reg, err := tool.NewRegistry(
		tool.Spec{Name: "count", InputSchema: obj, OutputSchema: obj, Risk: "write", SideEffect: tool.SideEffectExternal, Idempotent: true, Func: fn("count", true)},
		tool.Spec{Name: "notify", InputSchema: obj, OutputSchema: obj, Risk: "write", SideEffect: tool.SideEffectExternal, Func: fn("notify", false)},
		tool.Spec{Name: "undo", InputSchema: obj, OutputSchema: obj, Risk: "write", SideEffect: tool.SideEffectExternal, Idempotent: true, Func: fn("undo", true)},
		tool.Spec{Name: "slow", InputSchema: obj, OutputSchema: obj, Risk: "read", SideEffect: tool.SideEffectNone, Func: func(ctx context.Context, c tool.Call) (json.RawMessage, error) {
			w.mu.Lock()
			w.calls["slow"]++
			first := w.calls["slow"] == 1
			w.mu.Unlock()
			if first && w.slowStarted != nil {
				close(w.slowStarted)
				<-ctx.Done() // the first call runs until its caller gives up
				return nil, ctx.Err()
			}
			return json.RawMessage(`{"slow":true}`), nil
		}},
		tool.Spec{Name: "boom", InputSchema: obj, OutputSchema: obj, Risk: "read", SideEffect: tool.SideEffectNone, Func: fn("boom", true)},
	)
	if err != nil {
		tb.Fatalf("tool.NewRegistry: got error %v, want nil", err)
	}
	return reg
}

// env is a home with a gateway, a gate service and a workflow engine.
type env struct {
	dir       string
	home      *home.Home
	world     *world
	actions   *workflow.Actions
	engine    *workflow.Engine
	gates     *gate.Service
	crash     func(point string)
	crashed   bool
	configure func(*workflow.Config)
}

func openEnv(tb testing.TB) *env {
	tb.Helper()
	e := &env{dir: tb.TempDir(), world: newWorld(), actions: workflow.NewActions()}
	e.reopen(tb)
	return e
}

// reopen opens the home again, as a new process would after a crash, with a
// new engine over it.
func (e *env) reopen(tb testing.TB) {
	tb.Helper()
	e.reopenWith(tb, e.configure)
}

// reopenWith reopens with configure applied to every engine's Config from
// now on.
func (e *env) reopenWith(tb testing.TB, configure func(*workflow.Config)) {
	tb.Helper()
	e.configure = configure
	if e.home != nil {
		e.home.Close()
	}
	h, err := home.Open(context.Background(), home.Config{Dir: e.dir})
	if err != nil {
		tb.Fatalf("home.Open: got error %v, want nil", err)
	}
	tb.Cleanup(func() { h.Close() })
	e.home = h
	pol, err := policy.LoadFS(fstest.MapFS{"roles.yaml": {Data: []byte(rolesYAML)}, "tools.yaml": {Data: []byte(toolsYAML)}})
	if err != nil {
		tb.Fatalf("policy.LoadFS: got error %v, want nil", err)
	}
	reg := e.world.tools(tb)
	gw, err := tool.New(tool.Config{Registry: reg, Policy: pol, Runs: h.Runs, Artifacts: h.Artifacts})
	if err != nil {
		tb.Fatalf("tool.New: got error %v, want nil", err)
	}
	e.gates = &gate.Service{Runs: h.Runs, Store: h.DB, Roles: pol}
	cfg := workflow.Config{
		Runs: h.Runs, Store: h.DB, Actions: e.actions, Gateway: gw, Tools: reg,
		Artifacts: h.Artifacts, Gates: e.gates, Roles: func(string) string { return "worker" },
		Crash: func(p string) {
			if e.crash != nil {
				e.crash(p)
			}
		},
	}
	if configure != nil {
		configure(&cfg)
	}
	e.engine, err = workflow.New(cfg)
	if err != nil {
		tb.Fatalf("workflow.New: got error %v, want nil", err)
	}
}

// crashAt makes the n-th pass through point (1-based) stop the goroutine
// running the workflow there, as a crash would stop the process: nothing
// after that point happens.
func (e *env) crashAt(point string, n int) {
	hits := 0
	e.crash = func(p string) {
		if p == point {
			hits++
			if hits == n {
				e.crash = nil
				e.crashed = true
				runtime.Goexit()
			}
		}
	}
}

// startCrashing starts d in a goroutine and expects the simulated crash;
// then it opens the home again, as a new process, and returns the run id.
func (e *env) startCrashing(tb testing.TB, d *workflow.Definition) string {
	tb.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = e.engine.Start(context.Background(), d, nil, opts)
	}()
	<-done
	if !e.crashed {
		tb.Fatalf("Start: returned, want a simulated crash")
	}
	// What the stopped run queued is committed as the ledger closes, as a
	// process's appends reach the store before it dies or not at all.
	e.reopen(tb)
	return e.onlyRun(tb)
}

// onlyRun returns the id of the one workflow run of the home.
func (e *env) onlyRun(tb testing.TB) string {
	tb.Helper()
	traces, err := ledger.WorkTraces(context.Background(), e.home.DB)
	if err != nil || len(traces) != 1 {
		tb.Fatalf("Traces: got %v, %v; want one trace", traces, err)
	}
	return traces[0]
}

// parse parses a workflow definition or fails the test.
func parse(tb testing.TB, src string) *workflow.Definition {
	tb.Helper()
	d, err := workflow.Parse("test.yaml", []byte(src))
	if err != nil {
		tb.Fatalf("Parse: got error %v, want nil", err)
	}
	return d
}

// steps writes a sequential workflow of n echo steps.
func steps(n int, extra string) string {
	s := "name: seq\nagent: worker\n" + extra + "steps:\n"
	for i := range n {
		s += fmt.Sprintf("  - {id: s%d, uses: rec, with: {n: %d}}\n", i, i)
	}
	return s
}

// recorder is an action that notes the order steps run in.
type recorder struct {
	mu    sync.Mutex
	order []string
}

func (r *recorder) action(_ context.Context, s *workflow.StepContext) (json.RawMessage, error) {
	r.mu.Lock()
	r.order = append(r.order, s.Step.ID)
	r.mu.Unlock()
	return s.Step.With, nil
}

func codeOf(err error) sanad.Code {
	var se *sanad.Error
	if errors.As(err, &se) {
		return se.Code
	}
	return ""
}

// opts are the options of the tests' runs: one deal of one fund.
var opts = workflow.Options{Scope: sanad.Scope{Tenant: "fund-1", Case: "deal-42"}}
