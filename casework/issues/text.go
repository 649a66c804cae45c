package issues

import (
	"github.com/sanadhq/sanad/internal/stem"
	"strings"
	"unicode"
)

// MaxTextBytes bounds how much of a text is scored: the rest is ignored, so
// scoring a pasted document costs no more than scoring its first 64 KiB.
const MaxTextBytes = 64 << 10

// negators turn off the signal that follows them within negationWindow
// tokens ("I was not injured"), in part: the topic is still raised.
var negators = map[string]bool{
	"no": true, "not": true, "never": true, "without": true, "nor": true, "neither": true,
	"dont": true, "didnt": true, "doesnt": true, "wasnt": true, "werent": true, "isnt": true,
	"arent": true, "havent": true, "hasnt": true, "hadnt": true, "cant": true, "cannot": true,
	"wont": true, "wouldnt": true,
}

const (
	negationWindow = 3
	negatedWeight  = 0.25
)

// stopwords are left out of the content words of a description.
var stopwords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true,
	"can": true, "for": true, "from": true, "has": true, "have": true, "in": true, "into": true,
	"is": true, "it": true, "its": true, "of": true, "on": true, "or": true, "other": true,
	"out": true, "own": true, "person": true, "someone": true, "that": true, "the": true,
	"their": true, "them": true, "they": true, "this": true, "to": true, "what": true,
	"when": true, "who": true, "with": true, "come": true, "no": true, "longer": true,
	"between": true, "about": true, "after": true, "any": true, "all": true, "do": true,
	"does": true, "one": true, "over": true, "such": true, "there": true, "these": true,
	"those": true, "up": true, "were": true, "was": true, "which": true, "while": true,
	"will": true, "would": true, "you": true, "your": true, "problems": true, "questions": true,
}

// token is one stemmed word of a text, and whether a negator precedes it.
type token struct {
	stem    string
	negated bool
}

// tokenize splits text into lower-case stemmed words, dropping apostrophes
// inside words ("didn't" is "didnt") and marking the words a negator
// precedes within negationWindow tokens. Sentence punctuation ends a
// negation's reach.
func tokenize(text string) []token {
	if len(text) > MaxTextBytes {
		text = text[:MaxTextBytes]
	}
	var out []token
	var b strings.Builder
	negLeft := 0
	flush := func() {
		if b.Len() == 0 {
			return
		}
		w := b.String()
		b.Reset()
		out = append(out, token{stem: stem.English(w), negated: negLeft > 0})
		if negLeft > 0 {
			negLeft--
		}
		if negators[w] {
			negLeft = negationWindow
		}
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '\u2019':
			// inside a word: keep going without it
		default:
			flush()
			if r == '.' || r == '!' || r == '?' || r == ';' || r == ',' || r == '\n' {
				negLeft = 0
			}
		}
	}
	flush()
	return out
}

// stems tokenizes a signal phrase without negation marks.
func stems(phrase string) []string {
	toks := tokenize(phrase)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.stem
	}
	return out
}
