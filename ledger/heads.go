package ledger

import (
	"sync"
	"sync/atomic"

	"github.com/sanadhq/sanad/canon"
)

// maxCachedTraces bounds the trace heads kept once no append holds them:
// beyond it the least recently used are dropped, and the next append to
// such a trace reads its head again from the store (replaying the trace
// through the ordering rules). Heads that appends hold are never dropped.
const maxCachedTraces = 1 << 14

// traceHead is what appending to a trace needs: its last seq and hash, and
// the ordering rules' state after its events so far.
type traceHead struct {
	mu    sync.Mutex // held by the one appender sealing events of this trace
	trace string
	// refs counts the appends holding the head: the one sealing and those
	// queued until they settle. With none, the head is on the ledger's
	// idle list, between prev and next. All three are guarded by
	// Ledger.tmu.
	refs       int
	prev, next *traceHead
	// epoch counts failed commits of the trace; sealed is the epoch the
	// head was loaded in. A head whose epoch moved on is read again.
	epoch      atomic.Uint64
	sealed     uint64
	loaded     bool
	everLoaded bool
	seq        uint64
	hash       canon.Digest
	rules      []Rule // ordering rules, fed every event of the trace so far
}

// idleHeads lists the trace heads no append holds, most recently released
// first.
type idleHeads struct {
	first, last *traceHead
}

func (q *idleHeads) push(h *traceHead) {
	h.prev, h.next = nil, q.first
	if q.first != nil {
		q.first.prev = h
	} else {
		q.last = h
	}
	q.first = h
}

func (q *idleHeads) remove(h *traceHead) {
	if h.prev != nil {
		h.prev.next = h.next
	} else {
		q.first = h.next
	}
	if h.next != nil {
		h.next.prev = h.prev
	} else {
		q.last = h.prev
	}
	h.prev, h.next = nil, nil
}

// acquire returns the head of trace, locked, holding a reference to it.
func (l *Ledger) acquire(trace string) *traceHead {
	l.tmu.Lock()
	h, ok := l.traces[trace]
	switch {
	case !ok:
		h = &traceHead{trace: trace}
		l.traces[trace] = h
	case h.refs == 0:
		l.idle.remove(h)
	}
	h.refs++
	l.tmu.Unlock()
	h.mu.Lock()
	return h
}

// release unlocks h and lets the caller's reference go.
func (l *Ledger) release(h *traceHead) {
	h.mu.Unlock()
	l.tmu.Lock()
	l.unref(h)
	l.tmu.Unlock()
}

// unref drops a reference to h; the last one puts h on the idle list and
// drops the least recently used idle heads beyond maxCachedTraces. The
// caller holds tmu.
func (l *Ledger) unref(h *traceHead) {
	if h.refs--; h.refs > 0 {
		return
	}
	l.idle.push(h)
	for len(l.traces) > maxCachedTraces && l.idle.last != nil {
		old := l.idle.last
		l.idle.remove(old)
		delete(l.traces, old.trace)
	}
}
