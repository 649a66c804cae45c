package identity

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Forms of a party's name that [Names.Find] reports.
const (
	FormFull         = "full"          // every word of the name as given
	FormGivenSurname = "given_surname" // "Maria Delgado", also with initials between
	FormSurnameGiven = "surname_given" // "Delgado, Maria"
	FormSurname      = "surname"       // "Delgado", "Delgado's"
	FormOrganisation = "organisation"  // "Acme Property" for "Acme Property LLC"
)

// Match is one mention of a party in a text.
type Match struct {
	// Start and End are the byte offsets [Start, End) of the mention.
	Start, End int
	// Party is the index of the party in the list given to [NewNames]:
	// people first, then organisations.
	Party int
	Form  string
}

// Names finds mentions of a case's parties, case-insensitively, at word
// boundaries, with accents ignored ("Jose" finds "José"). For a person it
// finds the full name, the given name and surname in either order (with
// initials between), and every later word of the name alone: a surname,
// a second surname or a middle name. A surname alone counts even when it
// is a common word ("Smith", "Young"): inside a firm, the one case with a
// client called Young is found by that word, so a shared text that says
// "the Young matter" identifies the client. A given name alone is not
// matched; it identifies no one without more. A possessive ("Delgado's")
// is found through its name. For an organisation it finds the full name
// and the name without its legal form ("Acme Property" for "Acme Property
// LLC"), never single words of it.
//
// A Names is read-only once made and safe for concurrent use.
type Names struct {
	parties []string
	// byFirst maps a phrase's first word to the phrases starting with
	// it, longest first.
	byFirst map[string][]phrase
}

type phrase struct {
	words []string
	party int
	form  string
	// initials lets up to two one-letter words stand between the first
	// word and the rest ("Maria T. Delgado").
	initials bool
}

// NewNames returns a matcher of the given people and organisations. A name
// written with a legal form or a word of business ("LLC", "Bank",
// "Management") among people is taken as an organisation. Empty names are
// skipped.
func NewNames(people, organisations []string) *Names {
	n := &Names{byFirst: map[string][]phrase{}}
	for _, p := range people {
		n.parties = append(n.parties, p)
		i := len(n.parties) - 1
		parts := nameParts(p)
		if isOrganisation(slices.Concat(parts...)) {
			n.addOrganisation(i, parts)
			continue
		}
		n.addPerson(i, parts)
	}
	for _, o := range organisations {
		n.parties = append(n.parties, o)
		n.addOrganisation(len(n.parties)-1, nameParts(o))
	}
	for k, ps := range n.byFirst {
		slices.SortStableFunc(ps, func(a, b phrase) int { return len(b.words) - len(a.words) })
		n.byFirst[k] = ps
	}
	return n
}

// Party returns the i-th party's name as given to NewNames.
func (n *Names) Party(i int) string { return n.parties[i] }

// Len returns the number of parties.
func (n *Names) Len() int { return len(n.parties) }

func (n *Names) add(p phrase) {
	if len(p.words) == 0 {
		return
	}
	ps := n.byFirst[p.words[0]]
	for i := range ps {
		if slices.Equal(ps[i].words, p.words) {
			ps[i].initials = ps[i].initials || p.initials
			return
		}
	}
	n.byFirst[p.words[0]] = append(ps, p)
}

// addPerson adds the phrases of a person's name, given as its
// space-separated parts, each the words of one part ("O'Connor" is the
// words "o" and "connor").
func (n *Names) addPerson(i int, parts [][]string) {
	parts = slices.DeleteFunc(parts, func(p []string) bool {
		return len(p) == 1 && (utf8.RuneCountInString(p[0]) < 2 || slices.Contains(honorifics, p[0]) || slices.Contains(nameSuffixes, p[0]))
	})
	if len(parts) == 0 {
		return
	}
	n.add(phrase{words: slices.Concat(parts...), party: i, form: FormFull, initials: len(parts) == 2})
	if len(parts) == 1 {
		return
	}
	given, surname := parts[0], parts[len(parts)-1]
	n.add(phrase{words: slices.Concat(given, surname), party: i, form: FormGivenSurname, initials: true})
	n.add(phrase{words: slices.Concat(surname, given), party: i, form: FormSurnameGiven})
	for _, p := range parts[1:] {
		n.add(phrase{words: p, party: i, form: FormSurname})
	}
}

func (n *Names) addOrganisation(i int, parts [][]string) {
	words := trimAffixes(slices.Concat(parts...), []string{"the"}, nil)
	if len(words) == 0 {
		return
	}
	n.add(phrase{words: words, party: i, form: FormFull})
	short := trimAffixes(words, nil, legalForms)
	if len(short) < len(words) && !(len(short) == 1 && stopwords[short[0]]) {
		n.add(phrase{words: short, party: i, form: FormOrganisation})
	}
}

// Find returns the mentions of parties in text, sorted by start and
// disjoint; where two phrases start at one word, the longer is reported.
func (n *Names) Find(text string) []Match {
	if n == nil || len(n.byFirst) == 0 {
		return nil
	}
	words := Words(text)
	var out []Match
	for i := 0; i < len(words); {
		best, bestEnd := phrase{}, -1
		for _, p := range n.byFirst[words[i].Norm] {
			if end := matchAt(text, words, i, p); end > bestEnd {
				best, bestEnd = p, end
			}
		}
		if bestEnd < 0 {
			i++
			continue
		}
		out = append(out, Match{Start: words[i].Start, End: words[bestEnd-1].End, Party: best.party, Form: best.form})
		i = bestEnd
	}
	return out
}

// matchAt returns the index after the last word of p matched at words[i:],
// or -1.
func matchAt(text string, words []Word, i int, p phrase) int {
	j := i + 1
	for k := 1; k < len(p.words); k++ {
		if p.initials && k == 1 {
			for skipped := 0; skipped < 2 && j < len(words) && utf8.RuneCountInString(words[j].Norm) == 1 && words[j].Norm != p.words[k] && adjacent(text, words[j-1], words[j]); skipped++ {
				j++
			}
		}
		if j >= len(words) || words[j].Norm != p.words[k] || !adjacent(text, words[j-1], words[j]) {
			return -1
		}
		j++
	}
	return j
}

// adjacent reports whether only a short run of spaces and name punctuation
// separates two words, so that "Delgado.\n\nMaria" is not one name.
func adjacent(text string, a, b Word) bool {
	gap := text[a.End:b.Start]
	if len(gap) > 4 {
		return false
	}
	for _, r := range gap {
		if !strings.ContainsRune(" \t,.'’-", r) {
			return false
		}
	}
	return true
}

// Word is a run of letters and digits in a text.
type Word struct {
	Start, End int    // byte offsets [Start, End)
	Norm       string // lower case, accents removed
}

// Words splits text into words: maximal runs of letters, digits and
// combining marks. Everything else separates words, so "Delgado's" is the
// words "delgado" and "s", and "O'Brien" is "o" and "brien".
func Words(text string) []Word {
	var out []Word
	start := -1
	for i, r := range text {
		in := unicode.IsLetter(r) || unicode.IsDigit(r) || (start >= 0 && unicode.Is(unicode.Mn, r))
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, Word{Start: start, End: i, Norm: Fold(text[start:i])})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, Word{Start: start, End: len(text), Norm: Fold(text[start:])})
	}
	return out
}

// Fold returns s in lower case without accents.
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// nameParts returns the space-separated parts of a name, each as its
// folded words. A name written "Surname, Given" is turned round.
func nameParts(name string) [][]string {
	if before, after, ok := strings.Cut(name, ","); ok && !strings.Contains(after, ",") {
		ws := words(after)
		if len(ws) > 0 && !isOrganisation(words(name)) && !slices.Contains(nameSuffixes, ws[0]) {
			name = after + " " + before
		}
	}
	var parts [][]string
	for _, f := range strings.Fields(name) {
		if ws := words(f); len(ws) > 0 {
			parts = append(parts, ws)
		}
	}
	return parts
}

// trimAffixes drops leading words in prefixes and trailing words in
// suffixes.
func trimAffixes(words, prefixes, suffixes []string) []string {
	for len(words) > 1 && slices.Contains(prefixes, words[0]) {
		words = words[1:]
	}
	for len(words) > 1 && slices.Contains(suffixes, words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	return words
}

func isOrganisation(words []string) bool {
	for _, w := range words {
		if slices.Contains(legalForms, w) || slices.Contains(businessWords, w) {
			return true
		}
	}
	return false
}

var (
	honorifics   = []string{"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame", "hon", "judge", "rev"}
	nameSuffixes = []string{"jr", "sr", "ii", "iii", "iv", "esq", "md", "phd"}
	legalForms   = []string{"llc", "inc", "incorporated", "corp", "corporation", "co", "company", "ltd", "limited", "llp", "lp", "pllc", "pc", "plc", "gmbh", "na"}
	// businessWords mark a name as an organisation's.
	businessWords = []string{
		"llc", "inc", "corp", "corporation", "company", "ltd", "llp", "pllc", "plc", "gmbh",
		"bank", "management", "properties", "property", "realty", "associates", "group", "partners",
		"holdings", "trust", "apartments", "housing", "authority", "agency", "services", "insurance",
		"university", "hospital", "clinic", "school", "district", "county", "city", "department", "foundation",
	}
	// stopwords are words too common to stand for an organisation alone.
	stopwords = map[string]bool{"the": true, "a": true, "an": true, "of": true, "and": true, "first": true, "new": true, "national": true, "american": true, "general": true, "united": true}
)

// words returns the folded words of s.
func words(s string) []string {
	var out []string
	for _, w := range Words(s) {
		out = append(out, w.Norm)
	}
	return out
}
