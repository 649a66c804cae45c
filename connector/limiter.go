package connector

import (
	"context"
	"sync"
	"time"
)

// HostLimiter spaces the requests to each host by at least an interval,
// from the start of one to the start of the next and, when the caller
// reports the end of a request with Done, from its end to the next start.
// It is safe for concurrent use; waiters are served in the order they
// called.
type HostLimiter struct {
	now func() time.Time

	// mu guards next.
	mu sync.Mutex
	// next holds, per host, the earliest time the next request may start.
	next map[string]time.Time
}

// NewHostLimiter returns a limiter reading the time from now (time.Now when
// nil).
func NewHostLimiter(now func() time.Time) *HostLimiter {
	if now == nil {
		now = time.Now
	}
	return &HostLimiter{now: now, next: make(map[string]time.Time)}
}

// Wait blocks until a request to host may start, interval after the one
// before it, and reserves that slot. It returns ctx's error if ctx is done
// first, or context.DeadlineExceeded at once if ctx's deadline comes before
// the slot.
func (l *HostLimiter) Wait(ctx context.Context, host string, interval time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := l.now()
	l.mu.Lock()
	if len(l.next) > 4096 {
		for h, t := range l.next {
			if t.Before(now) {
				delete(l.next, h)
			}
		}
	}
	at := now
	if t, ok := l.next[host]; ok && t.After(at) {
		at = t
	}
	if dl, ok := ctx.Deadline(); ok && dl.Before(at) {
		l.mu.Unlock()
		return context.DeadlineExceeded
	}
	l.next[host] = at.Add(interval)
	l.mu.Unlock()
	if !sleep(ctx, now, at.Sub(now)) {
		if err := ctx.Err(); err != nil {
			return err
		}
		return context.DeadlineExceeded
	}
	return nil
}

// Done records that a request to host has ended: the next may start
// interval from now at the earliest.
func (l *HostLimiter) Done(host string, interval time.Duration) {
	at := l.now().Add(interval)
	l.mu.Lock()
	defer l.mu.Unlock()
	if at.After(l.next[host]) {
		l.next[host] = at
	}
}
