// Package textsim measures how alike two texts are, the way parser output is
// scored against ground truth: as word sequences, after the Markdown markup
// that does not change what a reader reads is set aside.
package textsim

import (
	"strings"
	"unicode"
)

// Words returns the words of a Markdown text, lower-cased: runs of letters
// and digits (and the characters within a number such as "1,234.5"), with
// table rules, heading marks, emphasis and list markers dropped.
func Words(s string) []string {
	var words []string
	var w strings.Builder
	flush := func() {
		if w.Len() > 0 {
			words = append(words, w.String())
			w.Reset()
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			w.WriteRune(unicode.ToLower(r))
		case (r == '.' || r == ',') && w.Len() > 0 && i+1 < len(rs) && unicode.IsDigit(rs[i+1]):
			w.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return words
}

// Similarity is 1 minus the word-level edit distance between a and b divided
// by the length of the longer: 1 for the same words in the same order, 0 for
// nothing in common. Two empty texts are alike.
func Similarity(a, b string) float64 {
	x, y := Words(a), Words(b)
	n := max(len(x), len(y))
	if n == 0 {
		return 1
	}
	return 1 - float64(distance(x, y))/float64(n)
}

// distance is the Levenshtein distance between two word sequences, in
// O(len(x)·len(y)) time and O(len(y)) memory.
func distance(x, y []string) int {
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(y)]
}
