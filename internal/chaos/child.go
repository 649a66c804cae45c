package chaos

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
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
  worker: {kind: agent, description: runs the steps}
  operator: {kind: human, description: settles interrupted effects}
`

const toolsYAML = `version: "1"
risk_classes:
  write: {approval: none, description: changes the outside world}
tools:
  count: {description: idempotent counter, roles: [worker], risk: write}
  notify: {description: sends one message per call, roles: [worker], risk: write}
  fail: {description: always fails, roles: [worker], risk: write}
`

// scope is where the harness's runs act.
var scope = sanad.Scope{Tenant: "chaos", Case: "long-run"}

// Definition returns the harness's workflow of n steps, cycling through a
// computed step, the idempotent tool, the other tool, and a step calling
// both. With rollback, its last step fails and the completed steps are
// compensated in reverse order, each through the idempotent tool.
func Definition(n int, rollback bool) *workflow.Definition {
	d := &workflow.Definition{Name: "chaos", Agent: "worker"}
	if rollback {
		d.Name, d.Strategy = "chaos-rollback", workflow.Rollback
	}
	for i := range n {
		s := workflow.Step{ID: fmt.Sprintf("s%03d", i)}
		with := json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))
		switch i % 4 {
		case 0:
			s.Uses = "mix"
		case 1:
			s.Tool, s.With = ToolCount, with
		case 2:
			s.Tool, s.With = ToolNotify, with
		case 3:
			s.Uses, s.Tools = "pair", []string{ToolCount, ToolNotify}
		}
		if rollback {
			s.Compensate = &workflow.Action{Uses: "tool", Tool: ToolCount, With: json.RawMessage(fmt.Sprintf(`{"undo":%d}`, i))}
			if i == n-1 {
				s.Uses, s.Tool, s.Tools, s.With, s.Compensate = "tool", ToolFail, nil, with, nil
			}
		}
		d.Steps = append(d.Steps, s)
	}
	return d
}

// policySet is the harness's policy.
func policySet() (*policy.Set, error) {
	return policy.LoadFS(fstest.MapFS{"roles.yaml": {Data: []byte(rolesYAML)}, "tools.yaml": {Data: []byte(toolsYAML)}})
}

// Child is the process the harness kills: it starts a workflow run (or
// resumes one) in a home, prints "ready" once it is open and an "ack" line
// for every step and effect event as soon as it is durable, and "done" at
// the end. With -crash-at point:n it kills itself with SIGKILL at the n-th
// pass through that crash point, after printing "hit point".
func Child(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("chaos-child", flag.ContinueOnError)
	dir := fs.String("home", "", "home folder")
	worldDir := fs.String("world", "", "world folder")
	runID := fs.String("run", "", "run to resume (empty: start one)")
	crashAt := fs.String("crash-at", "", "point:n")
	steps := fs.Int("steps", DefaultSteps, "steps of a new run")
	rollback := fs.Bool("rollback", false, "start the variant that fails at its end and rolls back")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var out sync.Mutex
	say := func(format string, a ...any) {
		out.Lock()
		fmt.Fprintf(stdout, format+"\n", a...)
		out.Unlock()
	}
	crash, err := KillAt(*crashAt, func(p string) { say("hit %s", p) })
	if err != nil {
		return err
	}
	h, err := home.Open(ctx, home.Config{Dir: *dir, Crash: crash})
	if err != nil {
		return err
	}
	defer h.Close()
	w, err := openWorld(*worldDir, crash)
	if err != nil {
		return err
	}
	defer w.close()
	e, err := newEngine(h, w, crash, func(ev *ledger.Event) {
		var b struct {
			StepID string `json:"step_id"`
		}
		_ = json.Unmarshal(ev.Body, &b)
		say("ack %s %d %s %s %s", ev.Trace, ev.Seq, hex.EncodeToString(ev.Hash[:]), ev.Type, b.StepID)
	})
	if err != nil {
		return err
	}
	say("ready")
	var res workflow.Result
	if *runID == "" {
		res, err = e.Start(ctx, Definition(*steps, *rollback), nil, workflow.Options{Scope: scope})
	} else {
		res, err = e.Resume(ctx, *runID)
	}
	if err != nil {
		return err
	}
	say("done %s %s", res.Run, res.Status)
	return nil
}

// newEngine wires a workflow engine over h acting on w.
func newEngine(h *home.Home, w *world, crash func(string), onEvent func(*ledger.Event)) (*workflow.Engine, error) {
	pol, err := policySet()
	if err != nil {
		return nil, err
	}
	obj := json.RawMessage(`{"type":"object"}`)
	reg, err := tool.NewRegistry(
		tool.Spec{Name: ToolCount, InputSchema: obj, OutputSchema: obj, Risk: "write", SideEffect: tool.SideEffectExternal, Idempotent: true, Func: w.tool(ToolCount, true)},
		tool.Spec{Name: ToolNotify, InputSchema: obj, OutputSchema: obj, Risk: "write", SideEffect: tool.SideEffectExternal, Func: w.tool(ToolNotify, false)},
		tool.Spec{Name: ToolFail, InputSchema: obj, OutputSchema: obj, Risk: "write", SideEffect: tool.SideEffectNone, Func: func(context.Context, tool.Call) (json.RawMessage, error) {
			return nil, sanad.Errorf(sanad.CodeToolFailed, "tool."+ToolFail, "%s always fails", ToolFail)
		}},
	)
	if err != nil {
		return nil, err
	}
	gw, err := tool.New(tool.Config{Registry: reg, Policy: pol, Runs: h.Runs, Artifacts: h.Artifacts})
	if err != nil {
		return nil, err
	}
	actions := workflow.NewActions()
	actions.Register("mix", func(_ context.Context, s *workflow.StepContext) (json.RawMessage, error) {
		w.executed(s.Run(), s.Step.ID)
		// The output chains every earlier output: a step that saw a
		// missing or recomputed output would produce another.
		hash := sha256.New()
		for i := range s.Index {
			hash.Write([]byte(strings.ReplaceAll(string(s.Outputs[fmt.Sprintf("s%03d", i)]), s.Run(), "RUN")))
		}
		return json.Marshal(map[string]string{"mix": hex.EncodeToString(hash.Sum(nil))[:16]})
	})
	actions.Register("pair", func(ctx context.Context, s *workflow.StepContext) (json.RawMessage, error) {
		w.executed(s.Run(), s.Step.ID)
		a, err := s.Call(ctx, ToolCount, json.RawMessage(`{"pair":1}`))
		if err != nil {
			return nil, err
		}
		b, err := s.Call(ctx, ToolNotify, json.RawMessage(`{"pair":2}`))
		if err != nil {
			return nil, err
		}
		return json.Marshal([]json.RawMessage{a, b})
	})
	actions.Register("tool", func(ctx context.Context, s *workflow.StepContext) (json.RawMessage, error) {
		if !s.Compensating() {
			w.executed(s.Run(), s.Step.ID)
		}
		return s.Call(ctx, s.Step.Tool, s.Step.With)
	})
	return workflow.New(workflow.Config{
		Runs: h.Runs, Store: h.DB, Actions: actions, Gateway: gw, Tools: reg, Artifacts: h.Artifacts,
		Gates: &gate.Service{Runs: h.Runs, Store: h.DB, Roles: pol}, Roles: func(string) string { return "worker" },
		Crash: crash, OnEvent: onEvent,
	})
}
