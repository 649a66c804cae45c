package model_test

import (
	"context"
	"testing"
	"time"

	"github.com/sanadhq/sanad/model"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1", time.Second, true},
		{" 30 ", 30 * time.Second, true},
		{"0", 0, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"Sun, 01 Mar 2026 12:00:10 GMT", 10 * time.Second, true},
		{"Sunday, 01-Mar-26 12:00:05 GMT", 5 * time.Second, true},
		{"Sun Mar  1 12:00:02 2026", 2 * time.Second, true},
		{"Sun, 01 Mar 2026 11:00:00 GMT", 0, true}, // in the past
		{"99999999999", 24 * time.Hour, true},
		{"", 0, false},
		{"-1", 0, false},
		{"NaN", 0, false},
		{"soon", 0, false},
	}
	for _, tt := range tests {
		got, ok := model.ParseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseRetryAfter(%q): got %v %v, want %v %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		retry model.Retry
		want  []time.Duration // retries 1, 2, 3, …
	}{
		{model.Retry{}, []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}},
		{model.Retry{BaseDelay: time.Second, MaxDelay: 3 * time.Second}, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}},
		{model.Retry{BaseDelay: time.Hour}, []time.Duration{model.DefaultMaxDelay, model.DefaultMaxDelay}},
	}
	for _, tt := range tests {
		for i, want := range tt.want {
			if got := tt.retry.Backoff(i + 1); got != want {
				t.Errorf("%+v: Backoff(%d): got %v, want %v", tt.retry, i+1, got, want)
			}
		}
	}
	if got := (model.Retry{}).Backoff(1000); got != model.DefaultMaxDelay {
		t.Errorf("Backoff(1000): got %v, want the cap", got)
	}
}

func TestAttempts(t *testing.T) {
	for _, tt := range []struct{ max, want int }{{0, 3}, {1, 2}, {5, 6}, {-1, 1}} {
		r := model.Retry{MaxRetries: tt.max}
		if got := r.Attempts(); got != tt.want {
			t.Errorf("MaxRetries %d: got %d attempts, want %d", tt.max, got, tt.want)
		}
		if got := r.WithDefaults().WithDefaults().Attempts(); got != tt.want {
			t.Errorf("MaxRetries %d with defaults applied twice: got %d attempts, want %d", tt.max, got, tt.want)
		}
	}
}

func TestDefaultSleep(t *testing.T) {
	r := model.Retry{}.WithDefaults()
	if err := r.Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("Sleep: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := r.Sleep(ctx, time.Hour); err != context.Canceled || time.Since(start) > time.Second {
		t.Errorf("Sleep on a cancelled context: got %v after %v, want Canceled at once", err, time.Since(start))
	}
}
