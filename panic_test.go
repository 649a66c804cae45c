package sanad_test

import (
	"errors"
	"io/fs"
	"runtime"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
)

//go:noinline
func explodeWith(v any) { panic(v) }

//go:noinline
func indexOutOfRange(i int) int { return []int{1, 2}[i] }

//go:noinline
func nilDeref(p *int) int { return *p }

//go:noinline
func recurseThenExplode(n int) {
	if n == 0 {
		panic("deep")
	}
	recurseThenExplode(n - 1)
}

// recovered runs f and returns the PanicError of its panic.
func recovered(f func()) (pe *sanad.PanicError) {
	defer func() { pe = sanad.NewPanicError(recover()) }()
	f()
	return nil
}

// A recovered panic keeps its value and the stack from the function that
// panicked outward, without the runtime's frames or the recovery's; a run
// records both.
func TestPanicError(t *testing.T) {
	cases := []struct {
		name    string
		f       func()
		value   string
		top     string // the first frame's function
		unwraps bool   // the value is an error, which errors.As reaches
	}{
		{"string", func() { explodeWith("ledger-bug-7f3a") }, "ledger-bug-7f3a", "sanad_test.explodeWith", false},
		{"error", func() { explodeWith(fs.ErrClosed) }, fs.ErrClosed.Error(), "sanad_test.explodeWith", true},
		{"runtime error", func() { indexOutOfRange(5) }, "runtime error: index out of range [5] with length 2", "sanad_test.indexOutOfRange", true},
		{"fault", func() { nilDeref(nil) }, "runtime error: invalid memory address or nil pointer dereference", "sanad_test.nilDeref", true},
		{"long value", func() { explodeWith(strings.Repeat("é", 1000)) }, strings.Repeat("é", 126) + "…", "sanad_test.explodeWith", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pe := recovered(c.f)
			if pe.Value != c.value {
				t.Errorf("Value: got %q, want %q", pe.Value, c.value)
			}
			first, _, _ := strings.Cut(pe.Stack, "\n")
			if !strings.HasSuffix(first, c.top) {
				t.Errorf("first frame: got %q, want %s\nstack:\n%s", first, c.top, pe.Stack)
			}
			if !strings.Contains(pe.Stack, "sanad_test.recovered") || !strings.Contains(pe.Stack, "panic_test.go:") {
				t.Errorf("stack does not reach the caller:\n%s", pe.Stack)
			}
			for _, not := range []string{"runtime.", "NewPanicError", "recovered.func1"} {
				if strings.Contains(pe.Stack, not) {
					t.Errorf("stack holds %s:\n%s", not, pe.Stack)
				}
			}
			if got := errors.Unwrap(pe); (got != nil) != c.unwraps || got != nil && got.Error() != c.value {
				t.Errorf("Unwrap: got %v, want the value as an error: %v", got, c.unwraps)
			}
			err := sanad.Wrap(pe, sanad.CodeInternal, "test.op", "the step panicked: "+pe.Value)
			re := sanad.NewRunError(err)
			if re.Stack != pe.Stack || !strings.Contains(re.Message, c.value) {
				t.Errorf("NewRunError: got %+v, want the value in its message and the stack", re)
			}
			var got *sanad.PanicError
			if !errors.As(err, &got) || got != pe {
				t.Errorf("errors.As(*PanicError): got %v, want the PanicError", got)
			}
			var rt runtime.Error
			if errors.As(err, &rt) != (c.name == "runtime error" || c.name == "fault") {
				t.Errorf("errors.As(runtime.Error): got %v", rt)
			}
			if c.name == "error" && !errors.Is(err, fs.ErrClosed) {
				t.Errorf("errors.Is(err, fs.ErrClosed): got false, want true")
			}
		})
	}
	t.Run("deep", func(t *testing.T) {
		pe := recovered(func() { recurseThenExplode(1000) })
		if len(pe.Stack) > sanad.MaxStackBytes || !strings.HasSuffix(pe.Stack, "…\n") {
			t.Errorf("stack of a deep panic: got %d bytes ending %q, want at most %d ending with …", len(pe.Stack), pe.Stack[max(0, len(pe.Stack)-20):], sanad.MaxStackBytes)
		}
		if !strings.HasPrefix(pe.Stack, "github.com/sanadhq/sanad_test.recurseThenExplode\n") {
			t.Errorf("stack of a deep panic starts %q", pe.Stack[:min(len(pe.Stack), 80)])
		}
	})
	t.Run("outside a panic", func(t *testing.T) {
		pe := sanad.NewPanicError("not recovered")
		if !strings.HasPrefix(pe.Stack, "github.com/sanadhq/sanad_test.TestPanicError.func") || strings.Contains(pe.Stack, "runtime.") {
			t.Errorf("stack of a PanicError made outside a panic: got\n%s\nwant the caller's frames", pe.Stack)
		}
	})
	if re := sanad.NewRunError(sanad.Errorf(sanad.CodeToolFailed, "op", "no panic")); re.Stack != "" {
		t.Errorf("NewRunError without a panic: got stack %q, want none", re.Stack)
	}
}
