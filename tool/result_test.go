package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
)

var errQuota = errors.New("quota exhausted")

// Result.Err keeps the error the call failed with: errors.Is and errors.As
// reach the tool's own error, a panic's value, or the caller's context
// through it, under the result's code.
func TestResultErrKeepsItsCause(t *testing.T) {
	var pe *sanad.PanicError
	cases := []struct {
		name string
		fn   func(cancel context.CancelFunc) tool.Func
		code sanad.Code
		is   error
		as   any // also reached with errors.As, when not nil
	}{
		{"the tool's error", func(context.CancelFunc) tool.Func {
			return func(context.Context, tool.Call) (json.RawMessage, error) {
				return nil, fmt.Errorf("lookup: %w", errQuota)
			}
		}, sanad.CodeToolFailed, errQuota, nil},
		{"a panic with an error", func(context.CancelFunc) tool.Func {
			return func(context.Context, tool.Call) (json.RawMessage, error) { panic(fs.ErrClosed) }
		}, sanad.CodeToolFailed, fs.ErrClosed, &pe},
		{"the caller cancelled", func(cancel context.CancelFunc) tool.Func {
			return func(ctx context.Context, _ tool.Call) (json.RawMessage, error) {
				cancel() // the caller gives up while the tool runs
				<-ctx.Done()
				return nil, ctx.Err()
			}
		}, sanad.CodeCancelled, context.Canceled, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			spec := tool.Spec{Name: "lookup", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{}`), Func: c.fn(cancel)}
			e := openEnv(t, policyOf(t, rolesYAML, toolsYAML(toolEntry("lookup", "read", []string{"worker"}))), registry(t, spec), nil)
			p := policy.Principal{Agent: "worker-1", Role: "worker", Scope: deal}
			r := e.Gateway.Call(ctx, e.startParent(t, p), p, tool.Request{Tool: "lookup", CallID: "l1", Input: json.RawMessage(`{}`)})
			err := r.Err()
			if sanad.ErrorCode(err) != c.code || !errors.Is(err, c.is) {
				t.Errorf("Err: got %v, want %s wrapping %v", err, c.code, c.is)
			}
			if c.as != nil && !errors.As(err, c.as) {
				t.Errorf("errors.As(%T) through %v: not found", c.as, err)
			}
		})
	}
	t.Run("a refusal", func(t *testing.T) {
		e := openEnv(t, policyOf(t, rolesYAML, toolsYAML(toolEntry("lookup", "read", []string{"worker"}))), registry(t), nil)
		p := policy.Principal{Agent: "worker-1", Role: "worker", Scope: deal}
		r := e.Gateway.Call(t.Context(), e.startParent(t, p), p, tool.Request{Tool: "nothing", CallID: "n1", Input: json.RawMessage(`{}`)})
		if err := r.Err(); sanad.ErrorCode(err) != sanad.CodeToolNotFound || errors.Unwrap(err) != nil {
			t.Errorf("Err: got %v (cause %v), want %s with no cause", err, errors.Unwrap(err), sanad.CodeToolNotFound)
		}
	})
}
