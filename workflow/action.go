package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/sanadhq/sanad"
)

// ActionFunc is the code a step runs. It returns the step's output as JSON.
// It must cause external effects only through s.Call or s.Effect, in a
// deterministic order, and must honour ctx. An error that is a *sanad.Error
// keeps its code.
type ActionFunc func(ctx context.Context, s *StepContext) (json.RawMessage, error)

// Actions holds the actions steps can use, by name. The zero value is not
// usable; NewActions returns one with the built-in actions. It is safe for
// concurrent use.
type Actions struct {
	mu sync.RWMutex // guards m
	m  map[string]ActionFunc
}

// NewActions returns the built-in actions:
//   - "tool" calls the step's tool with the step's "with" as input;
//   - "echo" returns the step's "with" (or {}), touching nothing: a step
//     that only records.
func NewActions() *Actions {
	a := &Actions{m: map[string]ActionFunc{}}
	a.m["tool"] = func(ctx context.Context, s *StepContext) (json.RawMessage, error) {
		return s.Call(ctx, s.Step.Tool, s.Step.With)
	}
	a.m["echo"] = func(_ context.Context, s *StepContext) (json.RawMessage, error) {
		if len(s.Step.With) == 0 {
			return json.RawMessage("{}"), nil
		}
		return s.Step.With, nil
	}
	return a
}

// Register adds or replaces the action name.
func (a *Actions) Register(name string, fn ActionFunc) {
	a.mu.Lock()
	a.m[name] = fn
	a.mu.Unlock()
}

// Names lists the registered actions, sorted.
func (a *Actions) Names() []string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := make([]string, 0, len(a.m))
	for k := range a.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (a *Actions) lookup(name string) (ActionFunc, bool) {
	a.mu.RLock()
	fn, ok := a.m[name]
	a.mu.RUnlock()
	return fn, ok
}

// check reports a step or compensation that uses an unknown action, before a
// run starts.
func (a *Actions) check(d *Definition) error {
	for _, s := range d.Steps {
		if _, ok := a.lookup(s.Uses); !ok {
			return sanad.Errorf(sanad.CodeInvalidInput, "workflow.start", "step %s uses %q, which is not a known action (known: %v)", s.ID, s.Uses, a.Names())
		}
		if s.Compensate != nil {
			if _, ok := a.lookup(s.Compensate.Uses); !ok {
				return sanad.Errorf(sanad.CodeInvalidInput, "workflow.start", "the compensation of step %s uses %q, which is not a known action", s.ID, s.Compensate.Uses)
			}
		}
	}
	return nil
}

// run runs the step's action, turning a panic into an error whose message
// carries the panic's value and whose cause, a *sanad.PanicError, its stack:
// the step.failed event records both.
func (a *Actions) run(ctx context.Context, s *StepContext) (out json.RawMessage, err error) {
	fn, ok := a.lookup(s.Step.Uses)
	if !ok {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "workflow.step", "step %s uses %q, which is not a known action", s.Step.ID, s.Step.Uses)
	}
	defer func() {
		if r := recover(); r != nil {
			pe := sanad.NewPanicError(r)
			out, err = nil, sanad.Wrap(pe, sanad.CodeInternal, "workflow.step", fmt.Sprintf("the action %s of step %s panicked: %s", s.Step.Uses, s.Step.ID, pe.Value))
		}
	}()
	return fn(ctx, s)
}

// compensate runs a step's compensation: its action with its own tool and
// input in place of the step's.
func (a *Actions) compensate(ctx context.Context, s *StepContext, c *Action) (json.RawMessage, error) {
	undo := *s.Step
	undo.Uses, undo.Tool, undo.With = c.Uses, c.Tool, c.With
	if c.Tool != "" {
		undo.Tools = []string{c.Tool}
	}
	sc := *s
	sc.Step = &undo
	return a.run(ctx, &sc)
}
