package textsim

import "testing"

func TestSimilarity(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 1},
		{"# Title\n\nSome *text*.", "Title some text", 1},
		{"| a | b |\n| - | - |\n| 1,234.5 | 2 |", "a b 1,234.5 2", 1},
		{"one two three four", "one two three five", 0.75},
		{"alpha", "", 0},
	}
	for _, tt := range tests {
		if got := Similarity(tt.a, tt.b); got != tt.want {
			t.Errorf("Similarity(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
