// Package stem strips the common English inflections from a lower-case word,
// so that "injured", "injures" and "injure" meet. It is deliberately light:
// texts and the signals they are matched against go through the same
// function, so agreement matters more than linguistic accuracy.
package stem

import "strings"

// English returns w without its plural, -ing, -ed and final -e endings, a
// doubled final consonant undone ("stopped" to "stop"). Words of three
// bytes or fewer are returned as they are.
func English(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		w = undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// undouble drops one of a doubled final consonant ("stopp" to "stop"),
// except the l, s and z English keeps doubled.
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouylsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}
