package textcheck

import (
	"strings"
	"testing"
)

func TestBinary(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"plain text\nwith lines\tand tabs", false},
		{"", false},
		{"a\x00b", true},
		{strings.Repeat("\x01\x02ab", 100), true},
		{strings.Repeat("x", 9000) + "\x00", false}, // past the first 8,192 characters
	} {
		if got := Binary(tt.s); got != tt.want {
			t.Errorf("Binary(%.20q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}
