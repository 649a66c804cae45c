package stem

import "testing"

func TestEnglish(t *testing.T) {
	for in, want := range map[string]string{
		"injured": "injur", "injures": "injur", "injure": "injur", "stopped": "stop", "running": "run",
		"parties": "party", "classes": "class", "status": "status", "analysis": "analysis", "fall": "fall",
		"called": "call", "buzzing": "buzz", "car": "car",
	} {
		if got := English(in); got != want {
			t.Errorf("English(%q) = %q, want %q", in, got, want)
		}
	}
}
