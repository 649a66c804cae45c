package coa

import (
	"github.com/sanadhq/sanad/internal/stem"
	"strings"
	"unicode"
	"unicode/utf8"
)

// negStem is the stem every negator is read as, so that a signal written
// with "not" matches "never", "no", "didn't" and the rest.
const negStem = "not"

// negators are the words read as negStem.
var negators = map[string]bool{
	"no": true, "not": true, "never": true, "without": true, "nor": true, "neither": true,
	"dont": true, "didnt": true, "doesnt": true, "wasnt": true, "werent": true, "isnt": true,
	"arent": true, "havent": true, "hasnt": true, "hadnt": true, "cant": true, "cannot": true,
	"wont": true, "wouldnt": true, "couldnt": true, "shouldnt": true,
}

// determiners do not count towards the negation window.
var determiners = map[string]bool{
	"a": true, "an": true, "the": true, "any": true, "my": true, "his": true, "her": true,
	"their": true, "our": true, "your": true, "its": true, "this": true, "that": true,
}

// spellings maps British and variant spellings to the one the signals use.
var spellings = map[string]string{
	"mould": "mold", "mouldy": "moldy", "licence": "license", "licences": "licenses",
	"labour": "labor", "cheque": "check", "cheques": "checks", "neighbour": "neighbor",
	"neighbours": "neighbors", "behaviour": "behavior", "colour": "color",
	"rumour": "rumor", "rumours": "rumors", "favour": "favor",
}

// negationWindow is how many words after a negator it governs, within a
// clause and not counting determiners: "I did not sign a written contract"
// negates "sign", "written" and "contract".
const negationWindow = 3

// maxGap is how many words, determiners aside, may stand between two words
// of a signal phrase: "not return deposit" matches "did not return my
// $1,800 deposit".
const maxGap = 2

// token is one stemmed word of a text.
type token struct {
	stem    string
	clause  int  // the clause it is in: punctuation starts a new one
	negated bool // a negator governs it
	filler  bool // a determiner: it counts towards neither a gap nor the negation window
}

// tokenize splits text into lower-case stemmed words, with apostrophes
// dropped inside words ("didn't" is "didnt") and negators read as negStem.
// Digits keep their inner commas and points ("1,800.00" is one word).
func tokenize(text string) []token {
	var out []token
	var b strings.Builder
	clause, negLeft := 0, 0
	flush := func() {
		if b.Len() == 0 {
			return
		}
		w := b.String()
		b.Reset()
		neg := negators[w]
		st := fold(w)
		if neg {
			st = negStem
		}
		out = append(out, token{stem: st, clause: clause, negated: negLeft > 0 && !neg, filler: determiners[w]})
		if negLeft > 0 && !determiners[w] {
			negLeft--
		}
		if neg {
			negLeft = negationWindow
		}
	}
	for i, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '\u2019':
			// inside a word: keep going without it
		case (r == ',' || r == '.') && digitBefore(b.String()) && digitAt(text, i+1):
			b.WriteRune(r)
		default:
			flush()
			if strings.ContainsRune(".,;:!?()\"\n\u2014\u2013", r) {
				clause++
				negLeft = 0
			}
		}
	}
	flush()
	return out
}

func digitBefore(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r >= '0' && r <= '9'
}

func digitAt(s string, i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }

// fold strips the common English inflections so that "complained",
// "complains" and "complain" meet, and folds -ise into -ize and British
// spellings into American. It is deliberately light: texts and signals go
// through the same function, so agreement matters more than accuracy.
func fold(w string) string {
	if s, ok := spellings[w]; ok {
		w = s
	}
	if len(w) <= 3 {
		return w
	}
	for _, suf := range []string{"ise", "ised", "ises", "ising", "isation"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			w = w[:len(w)-len(suf)] + "iz" + suf[2:]
			break
		}
	}
	return stem.English(w)
}

// match finds s in toks and reports whether it matched: its words in order,
// each within maxGap words of the one before, inside one clause. A signal
// without a negator of its own does not match where a negator governs its
// first word.
func (s *signal) match(toks []token) bool {
	for i := range toks {
		if toks[i].stem != s.stems[0] {
			continue
		}
		if !s.negates && toks[i].negated {
			continue
		}
		if s.matchFrom(toks, i) {
			return true
		}
	}
	return false
}

func (s *signal) matchFrom(toks []token, i int) bool {
	at := i
	for _, want := range s.stems[1:] {
		found, gap := -1, 0
		for j := at + 1; j < len(toks) && gap <= maxGap; j++ {
			if toks[j].clause != toks[i].clause {
				break
			}
			if toks[j].stem == want {
				found = j
				break
			}
			if !toks[j].filler {
				gap++
			}
		}
		if found < 0 {
			return false
		}
		at = found
	}
	return true
}
