package tailor

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word or number of a text, as the analyzer sees it.
type token struct {
	surface string // as written, without surrounding punctuation
	stem    string // lower-cased and stemmed; a number's canonical value
	stop    bool   // a function word
	neg     bool   // a negation cue: not, no, never, n't ...
	num     *number
	upper   bool // begins with an upper-case letter
}

// number is a numeric token with what the text around it says of it.
type number struct {
	value float64 // as written, without its scale
	scale float64 // 1, or 1e3, 1e6, 1e9 for thousand, million, billion
	kind  numKind
	text  string // the surface, with its currency sign, percent sign or scale word
}

type numKind int

const (
	plainNum numKind = iota
	moneyNum
	percentNum
	yearNum
)

// tokens returns the words and numbers of text in order. A word is a run of
// letters, digits and marks, with an apostrophe inside it kept (so that
// "don't" is one word); a number keeps the '.' and ',' between its digits.
func tokens(text string) []token {
	var out []token
	rs := []rune(text)
	for i := 0; i < len(rs); {
		if !isWordRune(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) {
			r := rs[j]
			if isWordRune(r) {
				j++
				continue
			}
			if (r == '.' || r == ',') && unicode.IsDigit(rs[j-1]) && j+1 < len(rs) && unicode.IsDigit(rs[j+1]) {
				j++
				continue
			}
			if (r == '\'' || r == '’') && unicode.IsLetter(rs[j-1]) && j+1 < len(rs) && unicode.IsLetter(rs[j+1]) {
				j++
				continue
			}
			break
		}
		out = append(out, makeToken(rs, i, j))
		i = j
	}
	for k := range out { // a scale word after a number belongs to it
		if out[k].num == nil || k+1 >= len(out) {
			continue
		}
		if s, ok := scaleWords[strings.ToLower(out[k+1].surface)]; ok && out[k].num.scale == 1 {
			if s == 0 { // percent, per cent
				out[k].num.kind = percentNum
			} else {
				out[k].num.scale = s
				if out[k].num.kind == yearNum {
					out[k].num.kind = plainNum
				}
			}
			out[k].num.text += " " + out[k+1].surface
		}
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// scaleWords multiply the number before them; 0 marks a percentage.
var scaleWords = map[string]float64{
	"thousand": 1e3, "million": 1e6, "millions": 1e6, "billion": 1e9, "billions": 1e9, "trillion": 1e12,
	"bn": 1e9, "mn": 1e6, "percent": 0, "pct": 0,
}

func makeToken(rs []rune, i, j int) token {
	surface := string(rs[i:j])
	lower := strings.ToLower(surface)
	t := token{surface: surface, upper: unicode.IsUpper(rs[i])}
	if unicode.IsDigit(rs[i]) {
		if n, ok := parseNumber(lower); ok {
			n.text = surface
			if i > 0 && strings.ContainsRune("$€£¥", rs[i-1]) {
				n.kind = moneyNum
				n.text = string(rs[i-1]) + n.text
			}
			if j < len(rs) && rs[j] == '%' {
				n.kind = percentNum
				n.text += "%"
			}
			t.num = &n
			t.stem = canonical(n.value)
			return t
		}
	}
	t.stem = stem(lower)
	t.stop = stopWords[lower]
	t.neg = negations[lower] || strings.HasSuffix(lower, "n't") || strings.HasSuffix(lower, "n’t")
	return t
}

// parseNumber reads a numeric token: digits with ',' and '.', optionally
// followed by a scale letter (5.2m, 3bn) or an ordinal suffix (3rd).
func parseNumber(s string) (number, bool) {
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.' || s[end] == ',') {
		end++
	}
	digits, suffix := strings.ReplaceAll(s[:end], ",", ""), s[end:]
	v, err := strconv.ParseFloat(digits, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return number{}, false
	}
	n := number{value: v, scale: 1, text: s}
	switch suffix {
	case "":
		if end == 4 && !strings.ContainsAny(s, ".,") && v >= 1800 && v <= 2200 {
			n.kind = yearNum
		}
	case "k":
		n.scale = 1e3
	case "m", "mn", "mm":
		n.scale = 1e6
	case "b", "bn":
		n.scale = 1e9
	case "st", "nd", "rd", "th", "s": // 3rd, 1990s
	default:
		return number{}, false // 10x, 4g: a word with digits
	}
	return n, true
}

// canonical spells a value the same way whatever way it was written.
func canonical(v float64) string { return strconv.FormatFloat(v, 'g', 12, 64) }

// values returns the ways a number may be matched: as written, and scaled.
func (n number) values() []string {
	if n.scale == 1 {
		return []string{canonical(n.value)}
	}
	return []string{canonical(n.value), canonical(n.value * n.scale)}
}

// stem reduces an English word to a stem shared by its inflections
// (revenues, revenue → revenu; increased, increasing → increas). It is a
// light suffix stripper, applied alike to questions and passages.
func stem(w string) string {
	if utf8.RuneCountInString(w) <= 3 {
		return w
	}
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "i"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") && len(w) > 3:
		w = w[:len(w)-1]
	}
	stripped := false
	switch {
	case strings.HasSuffix(w, "ing") && len(w) >= 7:
		w, stripped = w[:len(w)-3], true
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "i"
	case strings.HasSuffix(w, "ed") && len(w) >= 5:
		w, stripped = w[:len(w)-2], true
	}
	if stripped && len(w) >= 3 && w[len(w)-1] == w[len(w)-2] && !strings.ContainsRune("aeiouylsz", rune(w[len(w)-1])) {
		w = w[:len(w)-1]
	}
	if strings.HasSuffix(w, "ly") && len(w) >= 6 {
		w = w[:len(w)-2]
	}
	if strings.HasSuffix(w, "y") && len(w) > 3 {
		w = w[:len(w)-1] + "i"
	}
	if strings.HasSuffix(w, "e") && len(w) > 3 {
		w = w[:len(w)-1]
	}
	return w
}

// stopWords are English function words; they say nothing about what a text
// is about.
var stopWords = wordSet(`a about above after again against all am an and any are as at be because been
	before being below between both but by can could did do does doing down during each few for from
	further had has have having he her here hers herself him himself his how i if in into is it its itself
	just me more most my myself no nor not now of off on once only or other our ours ourselves out over own
	same she should so some such than that the their theirs them themselves then there these they this those
	through to too under until up very was we were what when where which while who whom why will with would
	you your yours yourself yourselves also may might must shall per via within upon`)

// askWords are words of a question that ask rather than name what is asked
// about: a passage need not contain them to answer it.
var askWords = wordSet(`tell explain describe list give show find say says said according please know
	much many document documents information info detail details mention mentioned provide summarize
	summarise happen happened kind type sort exactly approximately roughly overall
	cost costs owe owes keep keeps get gets make makes take takes bring brings mean means quickly soon
	often long`)

// negations are the cues that turn a statement into its opposite.
var negations = wordSet(`not no never none nor neither without cannot nothing nobody`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// content reports whether t names something: a number, or a word that is
// neither a function word nor a negation cue.
func (t token) content() bool { return t.num != nil || !t.stop && !t.neg && t.stem != "" }
