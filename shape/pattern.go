package shape

import (
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// matcher reports whether a string matches a schema's pattern.
type matcher interface{ MatchString(s string) bool }

// compilePattern compiles a pattern as the general validator does (Go's
// regexp), and, when the pattern is an anchored sequence of characters and
// character classes of fixed counts, the last one of any count (the shape
// of hashes and ids, ^sha256:[0-9a-f]{64}$ or ^C-[0-9]+$), into a matcher
// that walks the string once without the regexp machinery.
func compilePattern(p string) (matcher, error) {
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	if seq, ok := sequenceOf(p); ok {
		return seq, nil
	}
	return re, nil
}

// sequence is an anchored run of classes: each class matches between min
// and max characters (max < 0: any number); only the last may vary.
type sequence []class

type class struct {
	ranges   []rune // lo, hi pairs
	min, max int
}

func sequenceOf(p string) (sequence, bool) {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < 2 ||
		re.Sub[0].Op != syntax.OpBeginText || re.Sub[len(re.Sub)-1].Op != syntax.OpEndText {
		return nil, false
	}
	var seq sequence
	for _, sub := range re.Sub[1 : len(re.Sub)-1] {
		if sub.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		switch sub.Op {
		case syntax.OpLiteral:
			for _, r := range sub.Rune {
				seq = append(seq, class{ranges: []rune{r, r}, min: 1, max: 1})
			}
		case syntax.OpCharClass:
			seq = append(seq, class{ranges: sub.Rune, min: 1, max: 1})
		case syntax.OpRepeat, syntax.OpPlus, syntax.OpStar, syntax.OpQuest:
			c, ok := single(sub.Sub[0])
			if !ok {
				return nil, false
			}
			switch sub.Op {
			case syntax.OpRepeat:
				c.min, c.max = sub.Min, sub.Max
			case syntax.OpPlus:
				c.min, c.max = 1, -1
			case syntax.OpStar:
				c.min, c.max = 0, -1
			case syntax.OpQuest:
				c.min, c.max = 0, 1
			}
			seq = append(seq, c)
		default:
			return nil, false
		}
	}
	for _, c := range seq[:max(len(seq)-1, 0)] {
		if c.min != c.max {
			return nil, false
		}
	}
	return seq, true
}

// single returns the class of a one-character expression.
func single(re *syntax.Regexp) (class, bool) {
	if re.Flags&syntax.FoldCase != 0 {
		return class{}, false
	}
	switch {
	case re.Op == syntax.OpLiteral && len(re.Rune) == 1:
		return class{ranges: []rune{re.Rune[0], re.Rune[0]}}, true
	case re.Op == syntax.OpCharClass:
		return class{ranges: re.Rune}, true
	}
	return class{}, false
}

// MatchString implements matcher. Characters are decoded as regexp decodes
// them (an invalid byte is U+FFFD).
func (seq sequence) MatchString(s string) bool {
	i := 0
	for _, c := range seq {
		for k := 0; c.max < 0 || k < c.max; k++ {
			if i >= len(s) {
				if k < c.min {
					return false
				}
				break
			}
			r, n := rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, n = utf8.DecodeRuneInString(s[i:])
			}
			if !c.has(r) {
				if k < c.min {
					return false
				}
				break
			}
			i += n
		}
	}
	return i == len(s)
}

func (c class) has(r rune) bool {
	for j := 0; j+1 < len(c.ranges); j += 2 {
		if c.ranges[j] <= r && r <= c.ranges[j+1] {
			return true
		}
	}
	return false
}
