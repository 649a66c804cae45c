package pii

import (
	"unicode"
	"unicode/utf8"
)

// alnumBefore reports whether the character before byte i of s is a letter
// or a digit (in any script), so that a match starting at i would start in
// the middle of a word.
func alnumBefore(s string, i int) bool {
	if i <= 0 || i > len(s) {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// alnumAfter reports whether the character at byte i of s is a letter or a
// digit.
func alnumAfter(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// letterBefore and letterAfter are alnumBefore and alnumAfter for letters
// only.
func letterBefore(s string, i int) bool {
	if i <= 0 || i > len(s) {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(r)
}

func letterAfter(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}

func byteAt(s string, i int) byte {
	if i < 0 || i >= len(s) {
		return 0
	}
	return s[i]
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// digitsOf returns the ASCII digits of s, in order.
func digitsOf(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			out = append(out, s[i])
		}
	}
	return out
}

// luhn reports whether the digits pass the Luhn check.
func luhn(digits []byte) bool {
	if len(digits) == 0 {
		return false
	}
	sum := 0
	for i := range digits {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// allSame reports whether every byte of b is the same.
func allSame(b []byte) bool {
	for i := 1; i < len(b); i++ {
		if b[i] != b[0] {
			return false
		}
	}
	return true
}

// spansOf returns the maximal spans of text whose bytes all satisfy in and
// that are at least min bytes long.
func spansOf(text string, in func(byte) bool, min int) [][2]int {
	var out [][2]int
	for i := 0; i < len(text); {
		if !in(text[i]) {
			i++
			continue
		}
		s := i
		for i < len(text) && in(text[i]) {
			i++
		}
		if i-s >= min {
			out = append(out, [2]int{s, i})
		}
	}
	return out
}

func isHex(b byte) bool { return isDigit(b) || b|0x20 >= 'a' && b|0x20 <= 'f' }
