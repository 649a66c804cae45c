package keyring

import (
	"regexp"
	"testing"

	"pgregory.net/rapid"
)

// TestValidIdentityMatchesPattern: the hand-written check accepts exactly
// ^[a-z0-9][a-z0-9._-]{0,63}$.
func TestValidIdentityMatchesPattern(t *testing.T) {
	re := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringMatching(`[a-zA-Z0-9._:/ -]{0,70}`).Draw(t, "s")
		if got, want := ValidIdentity(s), re.MatchString(s); got != want {
			t.Fatalf("ValidIdentity(%q) = %v, want %v", s, got, want)
		}
	})
}
