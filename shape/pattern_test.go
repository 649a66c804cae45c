package shape

import (
	"regexp"
	"testing"
)

// TestSequencePatterns: the patterns sanad's schemas use for hashes and ids
// take the one-pass matcher, others keep regexp, and both answer as regexp
// does.
func TestSequencePatterns(t *testing.T) {
	cases := []struct {
		pattern  string
		sequence bool
		strings  []string
	}{
		{`^sha256:[0-9a-f]{64}$`, true, []string{"sha256:" + hex64, "sha256:" + hex64[1:], "sha256:" + hex64 + "0", "SHA256:" + hex64, "sha256:" + hex64[:63] + "g", ""}},
		{`^[0-9a-f]{64}$`, true, []string{hex64, hex64 + "\n", "x" + hex64[1:]}},
		{`^C-[0-9]+$`, true, []string{"C-1", "C-", "C-12a", "c-1", "C-0123456789"}},
		{`^[A-Z]{3}$`, true, []string{"USD", "US", "USDX", "usd", "ÜSD"}},
		{`^[a-z-]+$`, true, []string{"red-team", "", "Red", "a\x80b"}},
		{`^[0-9.]*$`, true, []string{"", "1.2.3", "1,2"}},
		{`^D-[1-9][0-9]{0,5}$`, true, []string{"D-1", "D-123456", "D-1234567", "D-0", "D-"}},
		{`^[^a]{2}$`, true, []string{"bb", "\n\n", "ab", "b"}},
		{`^xé?$`, true, []string{"x", "xé", "xéé", "x\xff"}},
		{`^é?x$`, false, []string{"x", "éx", "ééx"}},
		{`^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+( *;.*)?$`, false, []string{"text/plain", "text/plain; charset=utf-8", "text"}},
		{`^a+b$`, false, []string{"aab", "b"}},
		{`(?i)^abc$`, false, []string{"ABC"}},
		{`abc`, false, []string{"xabcx"}},
		{`^(ab|cd)$`, false, []string{"ab", "cd", "ad"}},
	}
	for _, c := range cases {
		m, err := compilePattern(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.(sequence); ok != c.sequence {
			t.Errorf("%s: one-pass matcher %v, want %v", c.pattern, ok, c.sequence)
		}
		re := regexp.MustCompile(c.pattern)
		for _, s := range c.strings {
			if got, want := m.MatchString(s), re.MatchString(s); got != want {
				t.Errorf("%s: MatchString(%q) = %v, regexp says %v", c.pattern, s, got, want)
			}
		}
	}
}

const hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// FuzzSequence: wherever the one-pass matcher is used, it answers as
// regexp does.
func FuzzSequence(f *testing.F) {
	for _, p := range []string{`^sha256:[0-9a-f]{64}$`, `^C-[0-9]+$`, `^[a-z]{2,4}$`, `^x[^y]*$`, `^é{2}ü?$`} {
		f.Add(p, "sha256:"+hex64)
		f.Add(p, "C-12")
		f.Add(p, "abc")
		f.Add(p, "xéé\xff")
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		seq, ok := sequenceOf(pattern)
		if !ok {
			return
		}
		if got, want := seq.MatchString(s), re.MatchString(s); got != want {
			t.Fatalf("%q: MatchString(%q) = %v, regexp says %v", pattern, s, got, want)
		}
	})
}

func BenchmarkHashPattern(b *testing.B) {
	s := "sha256:" + hex64
	re := regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	seq, _ := sequenceOf(`^sha256:[0-9a-f]{64}$`)
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			re.MatchString(s)
		}
	})
	b.Run("sequence", func(b *testing.B) {
		for b.Loop() {
			seq.MatchString(s)
		}
	})
}
