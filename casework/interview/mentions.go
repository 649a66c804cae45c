package interview

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Mention types, the finer kinds of [Note.Type] and [Entity.Kind].
const (
	TypePerson       = "person"
	TypeOrganization = "organization"
	TypeDate         = "date"
	TypeAmount       = "amount"
	TypePlace        = "place"
	TypeAddress      = "address"
	TypePhone        = "phone"
	TypeEmail        = "email"
)

// mention is a thing named in one turn: its absolute span in the
// transcript text, its type and its normalized value.
type mention struct {
	span       Span
	typ        string
	normalized string
	turn       int
}

const month = `(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)`

var (
	dateMDY      = regexp.MustCompile(`\b(` + month + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4})\b)?`)
	dateDMY      = regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(` + month + `)\.?(?:,?\s+(\d{4})\b)?`)
	dateMY       = regexp.MustCompile(`\b(` + month + `)\.?,?\s+(?:of\s+)?(\d{4})\b`)
	dateNumeric  = regexp.MustCompile(`\b(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})\b`)
	dateISO      = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	dateRelative = regexp.MustCompile(`(?i)\b(?:yesterday|the day before yesterday|last (?:week|month|year|night|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?:a|one|two|three|four|five|six|seven|eight|nine|ten|a few|several|\d{1,3}) (?:days?|weeks?|months?|years?) ago)\b`)

	amountSymbol = regexp.MustCompile(`([$£€])\s?(\d{1,3}(?:,\d{3})+|\d{1,12})(?:\.(\d{1,2}))?(?:\s?(k|K|thousand|million)\b|\b)`)
	amountWord   = regexp.MustCompile(`\b(\d{1,3}(?:,\d{3})+|\d{1,12})(?:\.(\d{1,2}))?\s+(?:(thousand|million)\s+)?(dollars|bucks|euros|pounds sterling|USD|EUR|GBP)\b`)

	address = regexp.MustCompile(`\b\d{1,6}\s+(?:[A-Z][A-Za-z'’-]*\.?\s+){1,4}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Place|Pl|Way|Terrace|Circle|Parkway|Pkwy|Highway|Hwy)\b\.?(?:,?\s+(?:Apt|Apartment|Unit|Suite|Ste)\.?\s*#?[A-Za-z0-9-]{1,6}\b)?(?:,\s+[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\b(?:,\s+[A-Z]{2}\b(?:\s+\d{5}(?:-\d{4})?\b)?)?)?`)
)

var months = map[string]time.Month{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}

func monthOf(s string) time.Month { return months[strings.ToLower(s[:min(3, len(s))])] }

// isoDate formats a date, "--MM-DD" when the year is unknown (ISO 8601's
// form for a day of an unspecified year), or "" when no such day exists.
func isoDate(y int, m time.Month, d int) string {
	ref := y
	if y == 0 {
		ref = 2000 // a leap year, so that February 29 is a day
	}
	if m < 1 || m > 12 || d < 1 || time.Date(ref, m, d, 0, 0, 0, 0, time.UTC).Day() != d {
		return ""
	}
	if y == 0 {
		return fmt.Sprintf("--%02d-%02d", m, d)
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// findDates finds dates in s. Numeric dates are read month first (3/8/2024
// is March 8) unless the first number cannot be a month. Relative dates
// are kept with an empty normalized value: the text has no reference date.
func findDates(s string, add func(start, end int, typ, norm string)) {
	if strings.IndexByte(s, '-') >= 0 {
		findISODates(s, add)
	}
	if strings.IndexByte(s, '/') >= 0 {
		findNumericDates(s, add)
	}
	if containsAny(s, monthStems) {
		findNamedDates(s, add)
	}
	if lower := strings.ToLower(s); containsAny(lower, relativeStems) {
		for _, m := range dateRelative.FindAllStringIndex(s, -1) {
			add(m[0], m[1], TypeDate, "")
		}
	}
}

var (
	monthStems    = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	relativeStems = []string{"yesterday", "last ", " ago"}
)

func findISODates(s string, add func(start, end int, typ, norm string)) {
	for _, m := range dateISO.FindAllStringSubmatchIndex(s, -1) {
		if v := isoDate(atoi(s[m[2]:m[3]]), time.Month(atoi(s[m[4]:m[5]])), atoi(s[m[6]:m[7]])); v != "" {
			add(m[0], m[1], TypeDate, v)
		}
	}
}

func findNumericDates(s string, add func(start, end int, typ, norm string)) {
	for _, m := range dateNumeric.FindAllStringSubmatchIndex(s, -1) {
		a, b, y := atoi(s[m[2]:m[3]]), atoi(s[m[4]:m[5]]), atoi(s[m[6]:m[7]])
		if m[7]-m[6] == 2 {
			y += 2000
			if y > 2069 {
				y -= 100
			}
		}
		if a > 12 {
			a, b = b, a
		}
		if v := isoDate(y, time.Month(a), b); v != "" {
			add(m[0], m[1], TypeDate, v)
		}
	}
}

func findNamedDates(s string, add func(start, end int, typ, norm string)) {
	for _, m := range dateMDY.FindAllStringSubmatchIndex(s, -1) {
		y := 0
		if m[6] >= 0 {
			y = atoi(s[m[6]:m[7]])
		}
		if v := isoDate(y, monthOf(s[m[2]:m[3]]), atoi(s[m[4]:m[5]])); v != "" {
			add(m[0], m[1], TypeDate, v)
		}
	}
	for _, m := range dateDMY.FindAllStringSubmatchIndex(s, -1) {
		y := 0
		if m[6] >= 0 {
			y = atoi(s[m[6]:m[7]])
		}
		if v := isoDate(y, monthOf(s[m[4]:m[5]]), atoi(s[m[2]:m[3]])); v != "" {
			add(m[0], m[1], TypeDate, v)
		}
	}
	for _, m := range dateMY.FindAllStringSubmatchIndex(s, -1) {
		y := atoi(s[m[4]:m[5]])
		if y >= 1900 && y <= 2100 {
			add(m[0], m[1], TypeDate, fmt.Sprintf("%04d-%02d", y, monthOf(s[m[2]:m[3]])))
		}
	}
}

var currencies = map[string]string{"$": "USD", "£": "GBP", "€": "EUR", "dollars": "USD", "bucks": "USD", "euros": "EUR", "pounds sterling": "GBP", "USD": "USD", "EUR": "EUR", "GBP": "GBP"}

// findAmounts finds sums of money: "$1,250", "$2.5k", "1,250 dollars",
// "£300", normalized "1250.00 USD".
func findAmounts(s string, add func(start, end int, typ, norm string)) {
	if !strings.ContainsAny(s, "0123456789") {
		return
	}
	if !strings.ContainsAny(s, "$£€") {
		goto words
	}
	for _, m := range amountSymbol.FindAllStringSubmatchIndex(s, -1) {
		mult := ""
		if m[8] >= 0 {
			mult = s[m[8]:m[9]]
		}
		if v := money(s[m[4]:m[5]], group(s, m, 3), mult, currencies[s[m[2]:m[3]]]); v != "" {
			add(m[0], m[1], TypeAmount, v)
		}
	}
words:
	if !containsAny(s, currencyWords) {
		return
	}
	for _, m := range amountWord.FindAllStringSubmatchIndex(s, -1) {
		if v := money(s[m[2]:m[3]], group(s, m, 2), group(s, m, 3), currencies[s[m[8]:m[9]]]); v != "" {
			add(m[0], m[1], TypeAmount, v)
		}
	}
}

var currencyWords = []string{"dollars", "bucks", "euros", "pounds", "USD", "EUR", "GBP"}

func group(s string, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return s[m[2*i]:m[2*i+1]]
}

// money formats an amount in cents as "units.cents CUR"; "" when it
// overflows.
func money(whole, frac, mult, cur string) string {
	units, err := strconv.ParseInt(strings.ReplaceAll(whole, ",", ""), 10, 64)
	if err != nil || cur == "" {
		return ""
	}
	if len(frac) == 1 {
		frac += "0"
	}
	cents := units*100 + int64(atoi(frac))
	switch mult {
	case "k", "K", "thousand":
		cents *= 1_000
	case "million":
		cents *= 1_000_000
	}
	if cents < 0 || cents > 1e17 {
		return ""
	}
	return fmt.Sprintf("%d.%02d %s", cents/100, cents%100, cur)
}

// Words for telling names from other capitalised words.
var (
	titles      = set("mr", "mrs", "ms", "miss", "dr", "prof", "professor", "judge", "officer", "detective", "sgt", "sergeant", "mx", "sir", "dame", "rev")
	orgSuffixes = set("inc", "llc", "llp", "ltd", "limited", "corp", "corporation", "company", "co", "bank", "council", "management",
		"properties", "realty", "group", "associates", "agency", "hospital", "clinic", "university", "college", "school",
		"department", "authority", "services", "insurance", "partners", "holdings", "trust", "union", "motors", "market",
		"store", "stores", "foods", "logistics", "sales", "apartments", "homes", "housing", "court", "plc", "gmbh",
		"foundation", "association", "society", "ministry", "office", "police", "committee", "board", "parliament", "assembly")
	streetSuffixes = set("street", "avenue", "road", "boulevard", "lane", "drive", "way", "terrace", "parkway", "highway", "square", "park")
	connectors     = set("of", "and", "&", "de", "del", "van", "von", "la", "da", "du", "the", "for")
	placeCues      = set("in", "at", "near", "from")
	personCues     = set("landlord", "landlady", "manager", "boss", "supervisor", "owner", "named", "called", "husband", "wife",
		"ex", "ex-husband", "ex-wife", "partner", "son", "daughter", "brother", "sister", "neighbor", "neighbour", "friend",
		"coworker", "co-worker", "attorney", "lawyer", "doctor", "agent", "officer", "mr", "ms", "mrs", "dr")
	dayNames   = set("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
	monthNames = set("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
		"november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec")
	// stopwords are capitalised at the start of a sentence far more often
	// than they begin a name.
	stopwords = set("i", "i'm", "i've", "i'd", "i'll", "a", "an", "the", "my", "our", "your", "his", "her", "their", "its",
		"he", "she", "they", "we", "you", "it", "this", "that", "these", "those", "there", "here", "then", "when", "where",
		"what", "who", "why", "how", "which", "and", "but", "or", "so", "if", "because", "after", "before", "since", "on",
		"in", "at", "to", "for", "from", "with", "by", "of", "yes", "no", "not", "ok", "okay", "well", "yeah", "yep", "um",
		"uh", "mm", "hmm", "mm-hmm", "uh-huh", "oh", "ah", "right", "thanks", "thank", "please", "hi", "hello", "dear",
		"can", "could", "would", "should", "will", "did", "do", "does", "is", "are", "was", "were", "has", "have", "had",
		"be", "been", "also", "just", "now", "all", "any", "some", "every", "each", "one", "two", "three", "first",
		"second", "next", "last", "as", "like", "about", "maybe", "actually", "really", "sure", "good", "great", "fine",
		"let", "let's", "it's", "that's", "there's", "what's", "don't", "didn't", "can't", "we're", "they're", "you're",
		"we've", "you've", "they", "them", "him", "me", "us", "apt", "apartment", "unit", "suite", "chair", "chairman",
		"speaker", "client", "attorney", "interviewer", "paralegal", "q", "a", "mister", "other", "another", "both",
		"no", "yes", "alright", "anyway", "although", "though", "while", "until", "into", "during", "over", "under",
		"very", "much", "more", "most", "many", "only", "even", "still", "again", "already", "always", "never", "perhaps",
		"however", "therefore", "thus", "okay", "hey", "wow", "huh", "english", "welsh", "covid", "covid-19")
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

type word struct{ start, end int }

// words splits s into words of letters and digits, joined by apostrophes,
// hyphens or ampersands.
func words(s string) []word {
	var out []word
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '&' {
			i += n
			continue
		}
		j := i + n
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				j += n
				continue
			}
			if r == '\'' || r == '’' || r == '-' {
				if r2, _ := utf8.DecodeRuneInString(s[j+n:]); j+n < len(s) && (unicode.IsLetter(r2) || unicode.IsDigit(r2)) {
					j += n
					continue
				}
			}
			break
		}
		out = append(out, word{i, j})
		i = j
	}
	return out
}

func capitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// findNames finds people, organisations and places named by runs of
// capitalised words that no earlier mention covers.
func findNames(s string, covered func(start, end int) bool, add func(start, end int, typ, norm string)) {
	ws := words(s)
	for i := 0; i < len(ws); {
		w := s[ws[i].start:ws[i].end]
		lw := strings.ToLower(w)
		if !capitalised(w) || covered(ws[i].start, ws[i].end) || monthNames[lw] || dayNames[lw] {
			i++
			continue
		}
		// Grow the run: capitalised words, and connectors between them,
		// separated by spaces (or ". " after a title or an initial).
		j := i + 1
		for j < len(ws) {
			gap := s[ws[j-1].end:ws[j].start]
			prev := strings.ToLower(s[ws[j-1].start:ws[j-1].end])
			if strings.TrimSpace(gap) != "" && !(strings.TrimSpace(gap) == "." && (titles[prev] || ws[j-1].end-ws[j-1].start == 1)) {
				break
			}
			nw := s[ws[j].start:ws[j].end]
			lnw := strings.ToLower(nw)
			if covered(ws[j].start, ws[j].end) || monthNames[lnw] || dayNames[lnw] {
				break
			}
			if capitalised(nw) && !stopwords[lnw] {
				j++
				continue
			}
			if connectors[lnw] && j+1 < len(ws) && capitalised(s[ws[j+1].start:ws[j+1].end]) && strings.TrimSpace(s[ws[j].end:ws[j+1].start]) == "" {
				j += 2
				continue
			}
			break
		}
		run := ws[i:j]
		before := ""
		if i > 0 {
			before = strings.ToLower(s[ws[i-1].start:ws[i-1].end])
		}
		i = j
		// Drop the sentence-opening words.
		for len(run) > 0 && stopwords[strings.ToLower(s[run[0].start:run[0].end])] {
			run = run[1:]
			before = ""
		}
		for len(run) > 0 && connectors[strings.ToLower(s[run[len(run)-1].start:run[len(run)-1].end])] {
			run = run[:len(run)-1]
		}
		if len(run) == 0 {
			continue
		}
		classifyRun(s, run, before, add)
	}
}

// classifyRun decides what a run of capitalised words names.
func classifyRun(s string, run []word, before string, add func(start, end int, typ, norm string)) {
	first := strings.ToLower(s[run[0].start:run[0].end])
	last := strings.ToLower(s[run[len(run)-1].start:run[len(run)-1].end])
	start, end := run[0].start, run[len(run)-1].end
	switch {
	case titles[first] && len(run) > 1:
		add(start, end, TypePerson, joinWords(s, run[1:]))
	case orgSuffixes[last] && len(run) > 1:
		if (last == "inc" || last == "co" || last == "corp" || last == "ltd") && end < len(s) && s[end] == '.' {
			end++
		}
		add(start, end, TypeOrganization, joinWords(s, run))
	case streetSuffixes[last] && len(run) > 1:
		add(start, end, TypePlace, joinWords(s, run))
	case placeCues[before]:
		add(start, end, TypePlace, joinWords(s, run))
	case len(run) >= 2 && len(run) <= 4:
		for _, w := range run {
			if strings.ToUpper(s[w.start:w.end]) == s[w.start:w.end] && w.end-w.start > 1 {
				return // an acronym: not a person's name
			}
		}
		add(start, end, TypePerson, joinWords(s, run))
	case len(run) == 1 && personCues[before]:
		add(start, end, TypePerson, joinWords(s, run))
	}
}

func joinWords(s string, run []word) string {
	parts := make([]string, len(run))
	for i, w := range run {
		parts[i] = s[w.start:w.end]
	}
	return strings.Join(parts, " ")
}

// findMentions finds the things named in one turn's text, at most one
// mention on any byte: addresses first, then dates, amounts and names.
func findMentions(s string) []mention {
	var out []mention
	taken := make([]bool, len(s)) // bytes some mention holds
	overlaps := func(start, end int) bool {
		for i := max(start, 0); i < end && i < len(taken); i++ {
			if taken[i] {
				return true
			}
		}
		return false
	}
	add := func(start, end int, typ, norm string) {
		if start < end && end <= len(s) && !overlaps(start, end) {
			for i := start; i < end; i++ {
				taken[i] = true
			}
			out = append(out, mention{span: Span{start, end}, typ: typ, normalized: norm})
		}
	}
	if strings.ContainsAny(s, "0123456789") && containsAny(s, streetStems) {
		findAddresses(s, add)
	}
	findDates(s, add)
	findAmounts(s, add)
	findNames(s, overlaps, add)
	slices.SortFunc(out, func(a, b mention) int { return a.span.Start - b.span.Start })
	return out
}

var streetStems = []string{"Street", "St", "Ave", "Road", "Rd", "Boulevard", "Blvd", "Lane", "Ln", "Dr", "Court", "Ct", "Place", "Pl", "Way", "Terrace", "Circle", "Parkway", "Pkwy", "Highway", "Hwy"}

func findAddresses(s string, add func(start, end int, typ, norm string)) {
	for _, m := range address.FindAllStringIndex(s, -1) {
		end := m[0] + len(strings.TrimRight(s[m[0]:m[1]], ".,"))
		add(m[0], end, TypeAddress, collapse(s[m[0]:end]))
	}
}

// DatesAndAmounts returns the calendar dates (ISO: "2024-03-15", or
// "2024-03" for a month) and the sums of money ("1800.00 USD") s states,
// each once, in order of first appearance. Dates without a year and
// relative ones ("last week") are left out: they name no day on their own.
func DatesAndAmounts(s string) (dates, amounts []string) {
	type hit struct {
		at       int
		typ, val string
	}
	var hits []hit
	taken := make([]bool, len(s))
	add := func(start, end int, typ, norm string) {
		if start >= end || end > len(s) || slices.Contains(taken[start:end], true) {
			return
		}
		for i := start; i < end; i++ {
			taken[i] = true
		}
		hits = append(hits, hit{start, typ, norm})
	}
	findDates(s, add)
	findAmounts(s, add)
	slices.SortStableFunc(hits, func(a, b hit) int { return a.at - b.at })
	for _, h := range hits {
		switch {
		case h.val == "" || strings.HasPrefix(h.val, "--"):
		case h.typ == TypeDate && !slices.Contains(dates, h.val):
			dates = append(dates, h.val)
		case h.typ == TypeAmount && !slices.Contains(amounts, h.val):
			amounts = append(amounts, h.val)
		}
	}
	return dates, amounts
}
