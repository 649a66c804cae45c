package agent

import (
	"errors"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
)

// profile returns a valid, enabled profile with the given id and tasks.
func profile(id string, examples, notFor []string) Profile {
	return Profile{
		ID:           id,
		Name:         "Agent " + id,
		Description:  "Test agent " + id + ".",
		Role:         "tester",
		ModelClass:   "fast",
		ExampleTasks: examples,
		NotForTasks:  notFor,
		Enabled:      true,
		Version:      "1",
	}
}

// registry returns a registry holding ps besides the standard agent.
func registry(tb testing.TB, ps ...Profile) *Registry {
	tb.Helper()
	r := NewRegistry()
	if err := r.CreateAll(ps...); err != nil {
		tb.Fatalf("CreateAll: %v", err)
	}
	return r
}

// library returns a library of abilities.
func library(tb testing.TB, abilities ...Ability) *Library {
	tb.Helper()
	l, err := NewLibrary(abilities...)
	if err != nil {
		tb.Fatalf("NewLibrary: %v", err)
	}
	return l
}

// wantCode fails tb unless err is a *sanad.Error with code want whose
// message contains each of parts.
func wantCode(tb testing.TB, err error, want sanad.Code, parts ...string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("got no error, want %s", want)
	}
	var se *sanad.Error
	if !errors.As(err, &se) {
		tb.Fatalf("got %T %v, want a *sanad.Error", err, err)
	}
	if se.Code != want {
		tb.Fatalf("got code %s (%v), want %s", se.Code, err, want)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			tb.Errorf("got error %q, want it to contain %q", err, p)
		}
	}
}

// tokens counts the tokens of s. It takes a *testing.T or a *rapid.T.
func tokens(tb interface {
	Helper()
	Fatalf(format string, args ...any)
}, s string) int {
	tb.Helper()
	n, err := CountTokens(s)
	if err != nil {
		tb.Fatalf("CountTokens: %v", err)
	}
	return n
}
