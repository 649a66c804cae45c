package coa

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/sanadhq/sanad/casework/interview"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
)

// The kinds of a [Source].
const (
	KindDocument   = "document"
	KindTranscript = "transcript"
)

// Source is a text a matter's facts are drawn from: a document converted to
// Markdown or plain text, or an interview transcript. Spans of its facts are
// byte offsets into Text.
type Source struct {
	ID   string `json:"id"`
	Kind string `json:"kind"` // KindDocument or KindTranscript
	Name string `json:"name"`
	Text string `json:"text"`
}

// Span is the half-open byte range [Start, End) of a fact in its source.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Fact is a sentence of a source that states something: an event, a date,
// an amount or a party.
type Fact struct {
	ID      string   `json:"fact_id"` // FactID of the source and span
	Text    string   `json:"text"`    // the sentence, exactly as in the source
	Source  string   `json:"source"`  // Source.ID
	Kind    string   `json:"source_kind"`
	Span    Span     `json:"span"`              // Source.Text[Start:End] == Text
	Dates   []string `json:"dates,omitempty"`   // ISO 8601: 2024-03-01, or 2024-03 for a month
	Amounts []string `json:"amounts,omitempty"` // "1800.00 USD"
	Parties []string `json:"parties,omitempty"` // names as written, roles in lower case

	// block numbers, from 1, the paragraph, list item, transcript turn or
	// table row of its source the fact was cut from; 0 when not known (a
	// fact decoded from JSON).
	block int
}

// FactID returns the stable id of the fact at span of source: the same
// source and span always give the same id.
func FactID(source string, span Span) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d:%d", source, span.Start, span.End))
	return "fact-" + hex.EncodeToString(h[:8])
}

// MaxSourceBytes bounds how much of a source is read for facts; the rest
// is ignored.
const MaxSourceBytes = 1 << 20

// ExtractFacts cuts each source into sentences and keeps those that state
// something, in source order and then text order. Markdown headings,
// questions, greetings and filler are dropped; the speaker label of a
// transcript turn and the marker of a list item are not part of a fact.
func ExtractFacts(sources []Source) []Fact {
	var out []Fact
	for _, src := range sources {
		text := src.Text
		if len(text) > MaxSourceBytes {
			text = text[:MaxSourceBytes]
		}
		for bi, b := range blocks(text) {
			for _, sp := range sentences(text, b) {
				sentence := text[sp.Start:sp.End]
				dates, amounts := interview.DatesAndAmounts(sentence)
				f := Fact{
					ID:      FactID(src.ID, sp),
					Text:    sentence,
					Source:  src.ID,
					Kind:    src.Kind,
					Span:    sp,
					Dates:   dates,
					Amounts: amounts,
					Parties: findParties(sentence),
					block:   bi + 1,
				}
				if states(f) {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

var (
	headingLine   = regexp.MustCompile(`^\s{0,3}#{1,6}(\s|$)`)
	listMarker    = regexp.MustCompile(`^\s*(?:[-*+]|\d{1,3}[.)])\s+`)
	speakerLabel  = regexp.MustCompile(`^\s*(?:\[[0-9:.]+\]\s*)?(?:\*\*)?[A-Z][A-Za-z.'\- ]{0,30}(?:\*\*)?:(?:\*\*)?\s+`)
	tableRule     = regexp.MustCompile(`^\s*\|?[\s:|-]+\|?\s*$`)
	tableRow      = regexp.MustCompile(`^\s*\|`)
	horizontalBar = regexp.MustCompile(`^\s*(?:-{3,}|\*{3,}|_{3,})\s*$`)
)

// blocks returns the spans of text's paragraphs, list items, transcript
// turns and table rows, without their markers. Headings are left out.
func blocks(text string) []Span {
	var out []Span
	cur := Span{Start: -1}
	end := func() {
		if cur.Start >= 0 && cur.End > cur.Start {
			out = append(out, cur)
		}
		cur = Span{Start: -1}
	}
	for off := 0; off < len(text); {
		nl := strings.IndexByte(text[off:], '\n')
		lineEnd := len(text)
		if nl >= 0 {
			lineEnd = off + nl
		}
		line := text[off:lineEnd]
		next := lineEnd + 1
		switch {
		case strings.TrimSpace(line) == "", horizontalBar.MatchString(line), tableRule.MatchString(line) && strings.Contains(line, "|"):
			end()
		case headingLine.MatchString(line):
			end()
		case tableRow.MatchString(line):
			end()
			out = append(out, Span{off, lineEnd})
		default:
			start := off
			if m := listMarker.FindStringIndex(line); m != nil {
				end()
				start = off + m[1]
			} else if m := speakerLabel.FindStringIndex(line); m != nil && !strings.Contains(line[:m[1]], "http") {
				end()
				start = off + m[1]
			}
			if cur.Start < 0 {
				cur.Start = start
			}
			cur.End = lineEnd
		}
		off = next
	}
	end()
	return out
}

// keepTogether are abbreviations after which a sentence never ends.
var keepTogether = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true, "mt": true, "ft": true,
	"sen": true, "rep": true, "gov": true, "gen": true, "capt": true, "lt": true, "sgt": true,
	"nos": true, "vs": true, "v": true, "e.g": true, "i.e": true, "u.s": true, "u.s.a": true,
	"approx": true, "dept": true, "apt": true, "ste": true, "jan": true, "feb": true, "mar": true,
	"apr": true, "jun": true, "jul": true, "aug": true, "sep": true, "sept": true, "oct": true,
	"nov": true, "dec": true, "cf": true, "al": true, "fig": true, "p": true, "pp": true, "para": true,
}

// endOnCapital are abbreviations that end a sentence only when the next
// word is capitalised ("Acme Inc. They left" but "Acme Inc. for years").
var endOnCapital = map[string]bool{
	"inc": true, "ltd": true, "co": true, "corp": true, "llc": true, "jr": true, "sr": true,
	"etc": true, "a.m": true, "p.m": true, "esq": true, "bros": true,
}

// sentences splits the block b of text into trimmed sentence spans.
func sentences(text string, b Span) []Span {
	var out []Span
	start := b.Start
	emit := func(end int) {
		s, e := start, end
		for s < e && isSpace(text[s]) {
			s++
		}
		for e > s && isSpace(text[e-1]) {
			e--
		}
		if e > s {
			out = append(out, Span{s, e})
		}
	}
	for i := b.Start; i < b.End; i++ {
		c := text[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i + 1
		for j < b.End && (text[j] == '.' || text[j] == '!' || text[j] == '?') {
			j++
		}
		for j < b.End && strings.IndexByte("\"')]*\u201d", text[j]) >= 0 {
			j++
		}
		// Closing curly quotes are three bytes: take the rest of them.
		for j < b.End && text[j]&0xC0 == 0x80 {
			j++
		}
		if j < b.End && !isSpace(text[j]) {
			continue
		}
		if c == '.' && j == i+1 && !endsSentence(text, b, i, j) {
			continue
		}
		emit(j)
		start = j
		i = j - 1
	}
	emit(b.End)
	return out
}

// endsSentence says whether the full stop at i, followed by whitespace at
// j, ends a sentence.
func endsSentence(text string, b Span, i, j int) bool {
	w := i
	for w > b.Start && !isSpace(text[w-1]) && text[w-1] != '(' && text[w-1] != '"' {
		w--
	}
	word := strings.ToLower(strings.Trim(text[w:i], "\"'("))
	if keepTogether[word] || word == "no" && !capitalisedWordAt(text, j+1) {
		return false // "No. 5" and "No. HIC-1" but "No. They never paid."
	}
	if len(word) == 1 && word[0] >= 'a' && word[0] <= 'z' {
		return false // an initial
	}
	if endOnCapital[word] || strings.Contains(word, ".") {
		k := j
		for k < b.End && isSpace(text[k]) {
			k++
		}
		return k < b.End && text[k] >= 'A' && text[k] <= 'Z'
	}
	return true
}

// capitalisedWordAt says whether a word of a capital and a small letter
// starts at i.
func capitalisedWordAt(s string, i int) bool {
	return i+1 < len(s) && s[i] >= 'A' && s[i] <= 'Z' && s[i+1] >= 'a' && s[i+1] <= 'z'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// filler are whole sentences that state nothing.
var filler = map[string]bool{
	"ok": true, "okay": true, "yes": true, "no": true, "yeah": true, "right": true, "sure": true,
	"thank you": true, "thanks": true, "hello": true, "hi": true, "good morning": true,
	"good afternoon": true, "i see": true, "got it": true, "uh huh": true, "mm hmm": true,
	"go ahead": true, "take your time": true, "that is all": true, "okay thank you": true,
}

// eventStems are words that make a sentence state an event.
var eventStems = stemSet(`paid pay sign signed sent send told tell fired terminated
		complained reported evicted moved returned kept withheld refused worked hired agreed promised
		received called wrote lost left changed locked damaged started stopped owed claimed said
		gave took bought sold lied cashed filed served asked emailed texted posted deposited charged
		threatened quit vacated rented leased leaked injured hit fell broke found discovered
		disappeared vanished ignored demanded notified completed finished failed collected owe owes
		work works rent pays keeps leaks got get take came went made saw became grew began
		happened`)

// stemSet returns the stems of the words of list.
func stemSet(list string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(list) {
		out[fold(w)] = true
	}
	return out
}

// states says whether f states something worth mapping.
func states(f Fact) bool {
	t := strings.TrimSpace(f.Text)
	if strings.HasSuffix(t, "?") {
		return false
	}
	toks := tokenize(t)
	var words []string
	for _, tk := range toks {
		words = append(words, tk.stem)
	}
	plain := strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if r == '\'' || r == '\u2019' {
			return -1
		}
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == ' ' {
			return r
		}
		return ' '
	}, strings.ToLower(t))), " ")
	if filler[plain] {
		return false
	}
	if len(toks) < 4 || words[0] == "thank" || words[0] == "thanks" || words[0] == "pleas" {
		return false
	}
	if len(f.Amounts) > 0 || slices.ContainsFunc(words, func(w string) bool { return eventStems[w] }) || pastTense(t) {
		return true
	}
	return (len(f.Dates) > 0 || len(f.Parties) > 0) && len(toks) >= 6
}

// pastTense says whether s has a word that looks like a regular past tense.
func pastTense(s string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) > 4 && strings.HasSuffix(w, "ed") && w[0] >= 'a' && w[0] <= 'z' {
			return true
		}
	}
	return false
}

var monthNames = map[string]time.Month{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9,
	"september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}

// roles are the words that name a party by its role.
var roles = []string{
	"property manager", "landlord", "tenant", "employer", "supervisor", "manager", "boss",
	"contractor", "human resources", "debt collector", "collection agency", "owner", "seller",
	"buyer", "insurer", "adjuster", "agent", "roommate", "neighbor", "coworker",
}

var (
	titledName  = regexp.MustCompile(`\b(?:Mr|Mrs|Ms|Dr)\.?\s+[A-Z][a-zA-Z'\-]+(?:\s+[A-Z][a-zA-Z'\-]+)?`)
	company     = regexp.MustCompile(`\b(?:[A-Z][A-Za-z0-9&'\-]*\s+){1,4}(?:Inc\.?|LLC|L\.L\.C\.|Corp\.?|Co\.|Ltd\.?|Company|Properties|Property Management|Management|Construction|Builders|Logistics|Services|Realty|Group)(?:\W|$)`)
	capitalRun  = regexp.MustCompile(`\b[A-Z][a-z'\-]+(?:\s+[A-Z][a-z'\-]+)+`)
	roleMatcher = regexp.MustCompile(`(?i)\b(?:` + strings.Join(roles, "|") + `)s?\b`)
)

// notNames are capitalised words that do not start or make a name.
var notNames = map[string]bool{
	"The": true, "A": true, "An": true, "I": true, "On": true, "In": true, "At": true, "After": true,
	"Before": true, "When": true, "My": true, "He": true, "She": true, "We": true, "They": true,
	"It": true, "This": true, "That": true, "Then": true, "So": true, "And": true, "But": true,
	"Yes": true, "No": true, "Okay": true, "Also": true, "Our": true, "His": true, "Her": true,
	"Their": true, "If": true, "From": true, "To": true, "For": true, "By": true, "Of": true,
	"Monday": true, "Tuesday": true, "Wednesday": true, "Thursday": true, "Friday": true,
	"Saturday": true, "Sunday": true, "Dear": true, "Re": true, "Subject": true, "Date": true,
	"Hi": true, "Hello": true, "Thanks": true, "Thank": true, "Security": true, "Deposit": true, "Notice": true, "Please": true, "Total": true,
}

// findParties returns the people, businesses and roles s names.
func findParties(s string) []string {
	var out []string
	add := func(p string) {
		p = strings.TrimSpace(strings.TrimRight(p, " ,;:"))
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	taken := map[int]bool{}
	for _, m := range company.FindAllStringIndex(s, -1) {
		name := strings.TrimRight(s[m[0]:m[1]], " ,;:)")
		words := strings.Fields(name)
		for len(words) > 0 && notNames[words[0]] {
			words = words[1:]
		}
		if len(words) >= 2 {
			add(strings.Join(words, " "))
			for i := m[0]; i < m[1]; i++ {
				taken[i] = true
			}
		}
	}
	for _, m := range titledName.FindAllStringIndex(s, -1) {
		add(s[m[0]:m[1]])
		for i := m[0]; i < m[1]; i++ {
			taken[i] = true
		}
	}
	for _, m := range capitalRun.FindAllStringIndex(s, -1) {
		if taken[m[0]] {
			continue
		}
		words := strings.Fields(s[m[0]:m[1]])
		for len(words) > 0 && notNames[words[0]] {
			words = words[1:]
		}
		for len(words) > 0 && notNames[words[len(words)-1]] {
			words = words[:len(words)-1]
		}
		if len(words) < 2 || monthNames[strings.ToLower(words[0])] != 0 || monthNames[strings.ToLower(words[len(words)-1])] != 0 {
			continue
		}
		add(strings.Join(words, " "))
	}
	for _, m := range roleMatcher.FindAllString(s, -1) {
		role := strings.ToLower(m)
		if !slices.Contains(roles, role) {
			role = strings.TrimSuffix(role, "s")
		}
		add(role)
	}
	return out
}
