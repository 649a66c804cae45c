package pii

import (
	"regexp"
	"strings"
)

// nameWords is one to three capitalised words, after up to two initials.
const nameWords = `((?:\p{Lu}\.[ \t]?){0,2}\p{Lu}[\p{Ll}'’-]+(?:[ \t]+\p{Lu}[\p{Ll}'’-]+){0,2})`

var (
	// honorificRe: a title written before a name.
	honorificRe = regexp.MustCompile(`\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Dame|Herr|Frau|Mme|Mlle)\.?[ \t]+` + nameWords)
	// nameFieldRe: a "Name:" field at the start of a line or table cell.
	nameFieldRe = regexp.MustCompile(`(?m)(?:^|\|)[ \t>*-]*(?i:(?:full|first|last|given|family|patient|customer|client|employee|contact|cardholder|account holder)[ _]?)?(?i:name)[ \t]*[:=][ \t]*` + nameWords)
)

// findPersons finds PERSON in two places only: the capitalised words after
// a title (Mr., Mrs., Ms., Dr., Prof., Sir, …: "Dr. Jane Doe" gives "Jane
// Doe") and the value of a name field at the start of a line or table cell
// ("Name: Jane Doe", "Patient name: Jane Doe"). It does not find names in
// running text without a title, names written in lower case, or names in
// scripts without capital letters; that takes a trained model, and a
// rule that guessed at them would redact half of every sentence. A title
// before a word that is not a name ("Dr. Pepper") is reported all the same.
func findPersons(_ *Detector, text string, c *collector) {
	// Titles: only the text from each title on is searched.
	var lines [][2]int
	for _, t := range titles {
		for i := 0; i < len(text); {
			j := strings.Index(text[i:], t)
			if j < 0 {
				break
			}
			lines = append(lines, [2]int{i + j, min(len(text), i+j+len(t)+120)})
			i += j + len(t)
		}
	}
	for _, sp := range lines {
		if alnumBefore(text, sp[0]) {
			continue
		}
		m := honorificRe.FindStringIndex(text[sp[0]:sp[1]])
		if m == nil || m[0] != 0 {
			continue
		}
		if !c.take() {
			return
		}
		c.addName(text, sp[0], sp[0]+m[1], honorificRe, 0.6)
	}
	lines = nil
	// Name fields: only the lines that hold the word name are searched.
	lower := asciiLower(text)
	lines = lines[:0]
	for i := 0; i < len(lower); {
		j := strings.Index(lower[i:], "name")
		if j < 0 {
			break
		}
		s := strings.LastIndexByte(text[:i+j], '\n') + 1
		e := strings.IndexByte(text[i+j:], '\n')
		if e < 0 {
			e = len(text)
		} else {
			e += i + j
		}
		lines = append(lines, [2]int{s, e})
		i = e
	}
	for _, m := range c.matches(nameFieldRe, lines) {
		if !c.take() {
			return
		}
		c.addName(text, m[0], m[1], nameFieldRe, 0.7)
	}
}

// addName adds the name that re's first group finds in text[s:e].
func (c *collector) addName(text string, s, e int, re *regexp.Regexp, score float64) {
	m := re.FindStringSubmatchIndex(text[s:e])
	if m == nil || m[2] < 0 {
		return
	}
	if !alnumAfter(text, s+m[3]) {
		c.add(TypePerson, s+m[2], s+m[3], score)
	}
}

// titles are the words honorificRe starts with.
var titles = []string{"Mr", "Ms", "Miss", "Mx", "Dr", "Prof", "Sir", "Dame", "Herr", "Frau", "Mme", "Mlle"}
