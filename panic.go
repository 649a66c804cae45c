package sanad

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
)

// MaxStackBytes bounds the stack of a [PanicError], and so what a run
// records of it.
const MaxStackBytes = 8 << 10

// maxPanicValueBytes bounds [PanicError.Value], so that it fits in an
// [Error]'s message beside what failed.
const maxPanicValueBytes = 256

// PanicError is a panic that sanad recovered, in an action, a tool or a
// critic: the value it panicked with and where. It is the cause of the
// *Error the recovery returns, and [NewRunError] records its stack, so a
// run that failed by a panic says why and where.
type PanicError struct {
	// Value is the panic's value formatted with %v, bounded to 256 bytes.
	Value string
	// Stack is the stack of the goroutine that panicked, innermost frame
	// first, from the function that panicked outward: one line with the
	// function and one with its file and line per frame, without the
	// runtime's own frames, bounded to MaxStackBytes at a frame boundary.
	Stack string

	err error // the value, when it is an error
}

// NewPanicError returns the PanicError of r, a value recover returned. Call
// it in the deferred function that recovered, where the goroutine's stack
// still holds the frames that panicked.
func NewPanicError(r any) *PanicError {
	e := &PanicError{Value: boundTo(fmt.Sprint(r), maxPanicValueBytes), Stack: panicStack(2)}
	e.err, _ = r.(error)
	return e
}

// Error returns "panic: " and the value.
func (e *PanicError) Error() string { return "panic: " + e.Value }

// Unwrap returns the panic's value when it is an error, so that errors.Is
// and errors.As see through the panic to it.
func (e *PanicError) Unwrap() error { return e.err }

// panicStack formats the stack of its caller's caller (skip frames up) from
// the frame that panicked: it drops the frames up to the runtime's panic
// machinery (the deferred function that recovered) and every runtime frame.
// Called outside a panic, it formats the whole stack above skip.
func panicStack(skip int) string {
	pcs := make([]uintptr, 128)
	pcs = pcs[:runtime.Callers(skip+1, pcs)]
	var frames []runtime.Frame
	it := runtime.CallersFrames(pcs)
	for {
		f, more := it.Next()
		frames = append(frames, f)
		if !more {
			break
		}
	}
	// The frames below runtime.gopanic are those of the recovery; the
	// runtime frames right above it raised the panic (runtime.sigpanic for
	// a fault, runtime.goPanicIndex for an index out of range…).
	start := 0
	for i := range frames {
		if frames[i].Function == "runtime.gopanic" {
			for start = i; start < len(frames) && isRuntime(frames[start]); start++ {
			}
			break
		}
	}
	var b strings.Builder
	const cut = "…\n"
	for _, f := range frames[start:] {
		if isRuntime(f) {
			continue
		}
		line := f.Function + "\n\t" + f.File + ":" + strconv.Itoa(f.Line) + "\n"
		if b.Len()+len(line) > MaxStackBytes-len(cut) {
			b.WriteString(cut)
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

func isRuntime(f runtime.Frame) bool { return strings.HasPrefix(f.Function, "runtime.") }
