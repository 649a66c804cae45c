package ledger

import (
	"regexp"
	"testing"

	"pgregory.net/rapid"
)

// TestValidIDMatchesPattern: the hand-written check accepts exactly
// ^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$.
func TestValidIDMatchesPattern(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringMatching(`[a-zA-Z0-9._:/ -]{0,135}`).Draw(t, "s")
		if got, want := ValidID(s), re.MatchString(s); got != want {
			t.Fatalf("ValidID(%q) = %v, want %v", s, got, want)
		}
	})
}
