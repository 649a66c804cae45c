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
	for _, re := range []*regexp.Regexp{honorificRe, nameFieldRe} {
		if re == honorificRe && !hasTitle(text) || re == nameFieldRe && !strings.Contains(text, "ame") && !strings.Contains(text, "AME") {
			continue
		}
		score := 0.6
		if re == nameFieldRe {
			score = 0.7
		}
		for _, m := range re.FindAllStringSubmatchIndex(text, c.d.max+1) {
			if !c.take() {
				return
			}
			if !alnumAfter(text, m[3]) {
				c.add(TypePerson, m[2], m[3], score)
			}
		}
	}
}

// hasTitle reports whether text may hold one of the titles honorificRe
// looks for, before the expression is run.
func hasTitle(text string) bool {
	for _, t := range []string{"Mr", "Ms", "Mx", "Dr", "Prof", "Sir", "Dame", "Herr", "Frau", "Mme", "Mlle", "Miss"} {
		if strings.Contains(text, t) {
			return true
		}
	}
	return false
}
