package claim

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is a word of a text, lower case, with its bytes.
type token struct {
	w          string
	start, end int
}

// tokens splits text into words: runs of letters, digits, hyphens and
// apostrophes.
func tokens(text string) []token {
	var out []token
	start := -1
	for i, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '\'' || r == '’'
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			out = append(out, token{strings.ToLower(text[start:i]), start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, token{strings.ToLower(text[start:]), start, len(text)})
	}
	return out
}

// mention is a metric phrase found in a text.
type mention struct {
	start, end int // bytes
	first      int // index of its first token
	last       int // index of its last token
	metric     *Metric
	qualifier  string
}

// mentions finds the metric phrases of text, longest first, never two
// over the same words.
func mentions(toks []token) []mention {
	var out []mention
	for i := 0; i < len(toks); {
		found := false
		for _, p := range phraseIndex {
			if i+len(p.words) > len(toks) {
				continue
			}
			ok := true
			for j, w := range p.words {
				if toks[i+j].w != w {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, mention{toks[i].start, toks[i+len(p.words)-1].end, i, i + len(p.words) - 1, p.metric, p.qualifier})
				i += len(p.words)
				found = true
				break
			}
		}
		if !found {
			i++
		}
	}
	return out
}

// bounds is a range [start, end) of bytes.
type bounds struct{ start, end int }

// sentences splits text at full stops, question and exclamation marks
// followed by a space and a capital, digit or parenthesis, and at line
// breaks; "Mr." and "B.V." do not end a sentence.
func sentences(text string) []bounds {
	var out []bounds
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := -1
		switch {
		case c == '\n':
			end = i
		case (c == '.' || c == '?' || c == '!') && i+2 < len(text) && text[i+1] == ' ':
			r, _ := utf8.DecodeRuneInString(text[i+2:])
			if (unicode.IsUpper(r) || unicode.IsDigit(r) || r == '(' || r == '"' || r == '“') && !abbreviation(text[start:i]) {
				end = i + 1
			}
		}
		if end >= 0 {
			if strings.TrimSpace(text[start:end]) != "" {
				out = append(out, bounds{start, end})
			}
			start = end
			for start < len(text) && (text[start] == ' ' || text[start] == '\n') {
				start++
			}
			i = start - 1
		}
	}
	if strings.TrimSpace(text[start:]) != "" {
		out = append(out, bounds{start, len(text)})
	}
	return bound(text, out)
}

// maxSentenceBytes bounds a sentence: longer runs of text without a full
// stop are read in pieces, so the work on each figure stays bounded.
const maxSentenceBytes = 2000

// bound cuts the sentences longer than maxSentenceBytes at spaces.
func bound(text string, in []bounds) []bounds {
	var out []bounds
	for _, b := range in {
		for b.end-b.start > maxSentenceBytes {
			cut := b.start + maxSentenceBytes
			if sp := strings.LastIndexByte(text[b.start:cut], ' '); sp > 0 {
				cut = b.start + sp
			}
			for cut > b.start && !utf8.RuneStart(text[cut]) {
				cut--
			}
			if cut == b.start {
				cut = b.start + maxSentenceBytes
			}
			out = append(out, bounds{b.start, cut})
			b.start = cut
		}
		out = append(out, b)
	}
	return out
}

// abbreviation reports whether s ends in a word whose full stop does not end
// a sentence.
func abbreviation(s string) bool {
	s = s[max(0, len(s)-16):]
	i := strings.LastIndexAny(s, " (") + 1
	w := strings.ToLower(s[i:])
	switch w {
	case "mr", "mrs", "ms", "dr", "st", "no", "co", "inc", "approx", "e.g", "i.e", "b.v", "n.v", "vs", "etc":
		return true
	}
	return len(w) == 1 && unicode.IsLetter(rune(w[0])) || strings.Contains(w, ".") && !strings.ContainsAny(w, "0123456789")
}

// clauses splits a sentence at commas, semicolons and dashes that are
// outside parentheses and followed by a space.
func clauses(s string) []bounds {
	var out []bounds
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth = max(depth-1, 0)
		case ',', ';':
			if depth == 0 && i+1 < len(s) && s[i+1] == ' ' {
				out = append(out, bounds{start, i})
				start = i + 1
			}
		}
	}
	return append(out, bounds{start, len(s)})
}

// stopWords never qualify a metric.
var stopWords = set("the a an of for and or our its their his her total group company company's in at to with was were is are by on from that which as year years full reported we this these all also both each per than not no any has had have be been over up down about while when where after before during under into it such")

// linkWords may stand between a metric and its figure: "Headcount at 28
// February 2025 was 419".
var linkWords = set("was were is are of at to in on for the a an year years period by from reached totalled totaled totalling stood rose fell grew increased decreased declined improved amounted approximately about around over under nearly almost some roughly up down ended ending end as with its our their has had have been approx month months quarter now currently of about be will expected st nd rd th")

// leadVerbs begin a clause whose subject is an earlier clause's: "Adjusted
// EBITDA, which excludes …, was £8.9 million".
var leadVerbs = set("was were is are reached totalled totaled stood rose fell grew increased decreased declined improved amounted came up down compared against versus")

// budgetWords make a figure a budget, forecast or target rather than an
// outcome.
var budgetWords = map[string]string{"budget": "budget", "budgeted": "budget", "forecast": "forecast", "forecasted": "forecast", "projected": "forecast", "projection": "forecast", "target": "target", "plan": "budget", "planned": "budget"}

// averageWords make a figure an average over a period ("an average of 94
// people"), not the figure at its end.
var averageWords = map[string]string{"average": "average", "averaged": "average", "mean": "average"}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

func alpha(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '-' {
			return false
		}
	}
	return true
}

// citedRE finds what a text says its figures rest on.
var citedRE = []struct {
	re   *regexp.Regexp
	name string
}{
	{regexp.MustCompile(`(?i)\bunaudited\b`), "unaudited"},
	{regexp.MustCompile(`(?i)\bmanagement(?:'s)? estimates?\b|\bestimated by management\b`), "management estimate"},
	{regexp.MustCompile(`(?i)\bmanagement accounts\b`), "management accounts"},
	{regexp.MustCompile(`(?i)\baudited\b|\bauditor'?s'? report\b`), "audited"},
}

func cited(texts ...string) string {
	for _, t := range texts {
		for _, c := range citedRE {
			if c.re.MatchString(t) {
				return c.name
			}
		}
	}
	return ""
}

var entityRE = regexp.MustCompile(`\b[A-Z][A-Za-z0-9&'’.-]*(?:\s+(?:[A-Z][A-Za-z0-9&'’.-]*|&|of|and))*\s+(?:Ltd|Limited|plc|PLC|Inc|LLC|LLP|B\.V\.|GmbH|AG|S\.A\.|Corp|Corporation)\b\.?`)

// oneLine joins a text's lines with single spaces, as the Markdown renderer
// does.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
