package ledger

import (
	"fmt"
	"testing"
)

// TestTraceHeadsLeastRecentlyUsed: once more trace heads are cached than
// maxCachedTraces, the least recently released idle ones are dropped, the
// most recent stay, and a head an append still holds is never dropped.
func TestTraceHeadsLeastRecentlyUsed(t *testing.T) {
	l := &Ledger{traces: make(map[string]*traceHead)}
	held := l.acquire("held") // an append still holds it
	held.mu.Unlock()
	name := func(i int) string { return fmt.Sprint("t", i) }
	n := maxCachedTraces + 100
	for i := range n {
		l.release(l.acquire(name(i)))
	}
	// Cached now: held and t101…t(n-1); t50, dropped, comes back and
	// t101 goes.
	l.release(l.acquire(name(50)))
	if got := len(l.traces); got != maxCachedTraces {
		t.Fatalf("%d heads cached, want %d", got, maxCachedTraces)
	}
	if l.traces["held"] != held {
		t.Fatal("a held head was dropped")
	}
	for _, i := range []int{50, 102, n - 1} {
		if l.traces[name(i)] == nil {
			t.Errorf("recently used head %s was dropped", name(i))
		}
	}
	for _, i := range []int{0, 49, 51, 101} {
		if l.traces[name(i)] != nil {
			t.Errorf("head %s, among the least recently used, is still cached", name(i))
		}
	}
	// The idle list holds exactly the cached heads no append holds, each once.
	seen := 0
	for h := l.idle.first; h != nil; h = h.next {
		if h.refs != 0 || l.traces[h.trace] != h {
			t.Fatalf("idle list holds %s with %d refs", h.trace, h.refs)
		}
		seen++
	}
	if seen != len(l.traces)-1 {
		t.Fatalf("idle list holds %d heads, want %d", seen, len(l.traces)-1)
	}
	held.mu.Lock()
	l.release(held)
	if l.traces["held"] == nil || l.idle.first != l.traces["held"] {
		t.Fatal("a released head is not the most recently used")
	}
}
