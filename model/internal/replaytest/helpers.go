package replaytest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
)

// NoSleep is a Retry that records the waits it is asked for instead of
// waiting.
type NoSleep struct{ Waits []time.Duration }

// Retry returns the retry policy that records into n.
func (n *NoSleep) Retry() model.Retry {
	return model.Retry{Sleep: func(ctx context.Context, d time.Duration) error {
		n.Waits = append(n.Waits, d)
		return ctx.Err()
	}}
}

// Text returns recorded message content as text: a string, null, or a list
// of text parts. ok is false when a part is not text.
func Text(v any) (s string, ok bool) {
	switch v := v.(type) {
	case nil:
		return "", true
	case string:
		return v, true
	case []any:
		var b strings.Builder
		for _, p := range v {
			part, _ := p.(map[string]any)
			if Str(part, "type") != "text" {
				return "", false
			}
			b.WriteString(Str(part, "text"))
		}
		return b.String(), true
	}
	return "", false
}

// SameReply reports how got differs from want, or "". With generatedIDs, a
// tool call the provider sent without an id must have been given one
// ("call_…"); without, ids must match exactly.
func SameReply(got, want model.Response, generatedIDs bool) string {
	var diffs []string
	add := func(field string, g, w any) {
		if g != w {
			diffs = append(diffs, fmt.Sprintf("%s: got %v, want %v", field, g, w))
		}
	}
	add("Text", got.Text, want.Text)
	add("FinishReason", got.FinishReason, want.FinishReason)
	add("Usage", got.Usage, want.Usage)
	add("Model", got.Model, want.Model)
	add("ID", got.ID, want.ID)
	add("Provider", got.Provider, want.Provider)
	if len(got.ToolCalls) != len(want.ToolCalls) {
		diffs = append(diffs, fmt.Sprintf("got %d tool calls, want %d", len(got.ToolCalls), len(want.ToolCalls)))
	} else {
		for i, w := range want.ToolCalls {
			g := got.ToolCalls[i]
			idOK := g.ID == w.ID || (generatedIDs && w.ID == "" && strings.HasPrefix(g.ID, "call_"))
			if !idOK || g.Name != w.Name || !SameJSON(g.Arguments, w.Arguments) {
				diffs = append(diffs, fmt.Sprintf("tool call %d: got %s %s(%s), want %s %s(%s)", i, g.ID, g.Name, g.Arguments, w.ID, w.Name, w.Arguments))
			}
		}
	}
	return strings.Join(diffs, "; ")
}

// WantCause fails tb unless err is a *sanad.Error of code whose cause is a
// *sanad.Error of the same code from operation op: an error that kept the
// one it was built on.
func WantCause(tb testing.TB, err error, code sanad.Code, op string) {
	tb.Helper()
	if sanad.ErrorCode(err) != code {
		tb.Fatalf("got %v, want %s", err, code)
	}
	var cause *sanad.Error
	if !errors.As(errors.Unwrap(err), &cause) || cause.Code != code || cause.Op != op {
		tb.Errorf("got cause %#v of %v, want the %s error of %s", cause, err, code, op)
	}
}
