package connector

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/sanadhq/sanad"
)

// Defaults of RetryPolicy.
const (
	DefaultMaxAttempts   = 4
	DefaultBaseDelay     = 500 * time.Millisecond
	DefaultMaxDelay      = 30 * time.Second
	DefaultMaxRetryAfter = 60 * time.Second
)

// RetryPolicy says how often and how long to wait before a request that
// failed transiently (429, 5xx, a network error, a timeout) is tried again.
// Without a Retry-After header, the wait before retry n is drawn from
// [d/2, d) with d = BaseDelay·2^(n-1) capped at MaxDelay ("equal jitter").
// With one, the wait is what the server asked, capped at MaxRetryAfter.
type RetryPolicy struct {
	// MaxAttempts counts the first try (DefaultMaxAttempts; 1 for no retry).
	MaxAttempts int
	// BaseDelay is the backoff before the first retry (DefaultBaseDelay).
	BaseDelay time.Duration
	// MaxDelay caps a backoff (DefaultMaxDelay).
	MaxDelay time.Duration
	// MaxRetryAfter caps a wait a server asks for (DefaultMaxRetryAfter).
	MaxRetryAfter time.Duration
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	return p
}

// Validate reports a policy that cannot work.
func (p RetryPolicy) Validate() error {
	if p.MaxAttempts > 100 {
		return sanad.Errorf(sanad.CodeInvalidInput, "connector", "retry policy: %d attempts is more than 100", p.MaxAttempts)
	}
	if p.MaxDelay > 0 && p.BaseDelay > p.MaxDelay {
		return sanad.Errorf(sanad.CodeInvalidInput, "connector", "retry policy: base delay %v is above the maximum %v", p.BaseDelay, p.MaxDelay)
	}
	return nil
}

// Backoff returns the wait before retry n (1 for the first retry), given a
// jitter in [0,1).
func (p RetryPolicy) Backoff(n int, jitter float64) time.Duration {
	p = p.withDefaults()
	d := p.BaseDelay
	for i := 1; i < n && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	jitter = min(max(jitter, 0), 1)
	return d/2 + time.Duration(jitter*float64(d/2))
}

// ParseRetryAfter reads a Retry-After header value: a number of seconds or
// an HTTP date (RFC 9110 §10.2.3), relative to now. A date in the past is a
// wait of 0. ok is false for an empty or malformed value.
func ParseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if isDigits(v) {
		const maxSeconds = 1 << 31 // any longer is "forever" to a caller that caps
		var n int64
		for i := 0; i < len(v); i++ {
			n = n*10 + int64(v[i]-'0')
			if n > maxSeconds {
				n = maxSeconds
				break
			}
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// sleep waits d or until ctx is done. It returns false, without waiting,
// when ctx's deadline comes before d has passed.
func sleep(ctx context.Context, now time.Time, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	if dl, ok := ctx.Deadline(); ok && dl.Before(now.Add(d)) {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
