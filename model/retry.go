package model

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"
)

// Defaults of [Retry] and of a call's deadline.
const (
	DefaultMaxRetries = 2 // three attempts in all
	DefaultBaseDelay  = 500 * time.Millisecond
	DefaultMaxDelay   = 30 * time.Second
	DefaultTimeout    = 2 * time.Minute
)

// Retry says how a provider call is retried. Adapters retry an attempt that
// failed with 408, 429 or a 5xx status, or that could not reach the
// provider; nothing else. The delay before retry n is BaseDelay·2^(n-1),
// capped at MaxDelay, unless the provider said how long to wait
// (Retry-After, in seconds or as an HTTP date): then that is the delay, and
// a wait longer than MaxDelay ends the call at once instead. The SDKs' own
// retries are turned off, so this policy is the only one.
//
// The zero value is the default policy. Sleep and Now are there for tests.
type Retry struct {
	// MaxRetries is the number of retries after the first attempt: zero
	// means DefaultMaxRetries, a negative value none.
	MaxRetries int
	BaseDelay  time.Duration // DefaultBaseDelay when zero
	MaxDelay   time.Duration // DefaultMaxDelay when zero
	// Sleep waits d or until ctx is done, whichever comes first, and returns
	// ctx.Err() in the second case. Nil uses a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now returns the current time, for Retry-After dates and latencies.
	// Nil uses time.Now.
	Now func() time.Time
}

// WithDefaults returns r with every zero field set to its default. It can
// be applied more than once.
func (r Retry) WithDefaults() Retry {
	if r.MaxRetries == 0 {
		r.MaxRetries = DefaultMaxRetries
	}
	if r.BaseDelay <= 0 {
		r.BaseDelay = DefaultBaseDelay
	}
	if r.MaxDelay <= 0 {
		r.MaxDelay = DefaultMaxDelay
	}
	if r.Sleep == nil {
		r.Sleep = sleep
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	return r
}

// Attempts returns how many attempts a call makes at most.
func (r Retry) Attempts() int { return max(r.WithDefaults().MaxRetries, 0) + 1 }

// Backoff returns the delay before retry n (1 for the first retry) when the
// provider did not say how long to wait.
func (r Retry) Backoff(n int) time.Duration {
	r = r.WithDefaults()
	if n < 1 {
		n = 1
	}
	d := r.BaseDelay
	for i := 1; i < n && d < r.MaxDelay; i++ {
		d *= 2
	}
	return min(d, r.MaxDelay)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// httpDates are the layouts an HTTP date may take (RFC 9110 §5.6.7).
var httpDates = []string{
	"Mon, 02 Jan 2006 15:04:05 GMT", // IMF-fixdate
	time.RFC850,
	time.ANSIC,
}

// maxRetryAfter bounds the waits read from headers, so an absurd value
// cannot overflow a Duration.
const maxRetryAfter = 24 * time.Hour

// ParseRetryAfter reads a Retry-After header value: a number of seconds or
// an HTTP date, which counts from now. It reports false for an empty or
// unreadable value. A date in the past means no wait.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(secs) || secs < 0 {
			return 0, false
		}
		if secs > maxRetryAfter.Seconds() {
			return maxRetryAfter, true
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	for _, layout := range httpDates {
		if t, err := time.Parse(layout, v); err == nil {
			return min(max(t.Sub(now), 0), maxRetryAfter), true
		}
	}
	return 0, false
}

// Secret is a credential such as an API key. It formats, logs and marshals
// as "[redacted]", so printing a struct that holds one does not leak it;
// string(s) is the value.
type Secret string

const redacted = "[redacted]"

// String returns "[redacted]".
func (Secret) String() string { return redacted }

// GoString returns "[redacted]".
func (Secret) GoString() string { return redacted }

// LogValue returns "[redacted]".
func (Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON returns "[redacted]" as a JSON string.
func (Secret) MarshalJSON() ([]byte, error) { return json.Marshal(redacted) }

// Redact returns s with every occurrence of the secret replaced by
// "[redacted]". Values shorter than 8 bytes are placeholders (local servers
// take any key, such as "ollama"), not secrets, and are left alone so that
// ordinary words are not blanked out.
func (s Secret) Redact(text string) string {
	if len(s) < 8 {
		return text
	}
	return strings.ReplaceAll(text, string(s), redacted)
}
