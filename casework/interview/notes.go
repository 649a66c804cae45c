package interview

import (
	"regexp"
	"slices"
	"strings"
)

// Kinds of [Note].
const (
	KindWho      = "who"
	KindWhat     = "what"
	KindWhen     = "when"
	KindWhere    = "where"
	KindAmount   = "amount"
	KindDocument = "document"
)

// Notes are the structured notes of an interview.
type Notes struct {
	Items []Note `json:"items"`
}

// Note is one thing the client said: who, what happened, when, where, how
// much, or which document exists.
type Note struct {
	Kind string `json:"kind"` // who|what|when|where|amount|document
	// Type is the finer kind: person or organization (who), date (when),
	// place or address (where), amount, the event of a what note
	// (termination, eviction, payment, …; see [Items]) or the document's
	// type (lease, letter, …).
	Type string `json:"type"`
	// Value is the words that say it; they lie at Mention.
	Value string `json:"value"`
	// Normalized is an ISO 8601 date ("2023-06-01"; "2023-06" for a month,
	// "--06-01" without a year), an amount "1250.00 USD", a name without
	// its title; empty for a relative date such as "last Tuesday", which
	// the transcript gives nothing to resolve against.
	Normalized string `json:"normalized,omitempty"`
	Speaker    string `json:"speaker"`
	Turn       int    `json:"turn"`
	// Span is the sentence that says it, Quote its text:
	// Transcript.Text[Span.Start:Span.End] == Quote.
	Span    Span   `json:"span"`
	Quote   string `json:"quote"`
	Mention Span   `json:"mention"`
}

// Events of what notes, as [Note.Type], each found by its verbs.
//
// Each has stems, lower-case words one of which every match contains, so
// that the expression only runs on sentences that may match.
var events = []struct {
	typ   string
	stems []string
	re    *regexp.Regexp
}{
	{"termination", []string{"fire", "laid", "let ", "terminat", "dismiss", "sacked"}, regexp.MustCompile(`(?i)\b(?:fired|laid (?:me |us |them )?off|let (?:me |us |him |her )?go|terminated|dismissed|sacked)\b`)},
	{"eviction", []string{"evict", "out", "lockout", "locks"}, regexp.MustCompile(`(?i)\b(?:evict(?:ed|ion|ing)?|kicked (?:me |us )?out|locked (?:me |us )?out|lockout|changed the locks)\b`)},
	{"notice", []string{"notice", "served"}, regexp.MustCompile(`(?i)\b(?:served(?: (?:me|us|him|her))?(?: with)? (?:a |an |the )?(?:notice|papers|summons|eviction)|(?:gave|give|sent|received|got|get) (?:me |us |him |her )?(?:a |an |the )?(?:\d+[- ]day |written |eviction )?notice|notice to (?:quit|vacate|pay)|served notice)\b`)},
	{"signing", []string{"sign"}, regexp.MustCompile(`(?i)\bsign(?:ed|ing)\b`)},
	{"nonpayment", []string{"pay", "paid", "behind", "missed"}, regexp.MustCompile(`(?i)\b(?:stopped paying|didn't pay|did not pay|never paid|unpaid|behind on (?:the |my )?(?:rent|payments)|missed (?:a |the |my )?payments?)\b`)},
	{"payment", []string{"paid", "payed", "paying"}, regexp.MustCompile(`(?i)\b(?:paid|payed|paying)\b`)},
	{"withholding", []string{"withh", "kept", "return", "refund", "give back"}, regexp.MustCompile(`(?i)\b(?:withh[oe]ld(?:ing)?|kept (?:my|the|our|it|all)|(?:didn't|did not|never|refused to|won't|wouldn't) (?:return|give back|refund))\b`)},
	{"refusal", []string{"refus", "denied", "declined", "won't", "wouldn't", "will not"}, regexp.MustCompile(`(?i)\b(?:refused|refuses|refusing|denied|declined|won't|wouldn't|will not)\b`)},
	{"injury", []string{"injur", "hurt", "broke", "slipped", "tripped", "fell", "crash", "collision", "hit ", "bit"}, regexp.MustCompile(`(?i)\b(?:injured|injury|injuries|hurt|broke (?:my|his|her|their)|slipped|tripped|fell|crashed|collision|hit (?:me|my|us)|bit(?:ten)? (?:me|my))\b`)},
	{"threat", []string{"threat"}, regexp.MustCompile(`(?i)\bthreat(?:en|ened|ening|ens|s)?\b`)},
	{"damage", []string{"damage", "broken", "mold", "mould", "leak", "infest", "failed", "defective"}, regexp.MustCompile(`(?i)\b(?:damaged?|broken|mou?ld|leak(?:ed|ing|s)?|infest(?:ed|ation)|failed|defective)\b`)},
	{"harassment", []string{"harass", "discriminat", "retaliat"}, regexp.MustCompile(`(?i)\b(?:harass(?:ed|ment|ing)?|discriminat(?:ed|ion|ing)|retaliat(?:ed|ion|ing))\b`)},
	{"legal_action", []string{"sued", "suing", "lawsuit", "filed", "garnish", "reposs", "foreclos"}, regexp.MustCompile(`(?i)\b(?:sued|suing|lawsuit|filed (?:a |for )|garnish(?:ed|ment)?|repossess(?:ed|ion)?|foreclos(?:e|ed|ure))\b`)},
	{"debt", []string{"owe", "owing", "borrowed", "debt", "overdue"}, regexp.MustCompile(`(?i)\b(?:owe[sd]?|owing|borrowed|debt|overdue)\b`)},
	{"report", []string{"report", "complain", "request", "asked"}, regexp.MustCompile(`(?i)\b(?:reported|complained|complaint|requested|asked (?:them|him|her|the \w+) to)\b`)},
}

// Documents, as [Note.Type] of document notes.
var documents = []struct {
	typ   string
	stems []string
	re    *regexp.Regexp
}{
	{"lease", []string{"lease", "agreement"}, regexp.MustCompile(`(?i)\b(?:lease|rental agreement|tenancy agreement)\b`)},
	{"contract", []string{"contract", "agreement", "warranty"}, regexp.MustCompile(`(?i)\b(?:contract|agreement|warranty)\b`)},
	{"letter", []string{"letter", "written"}, regexp.MustCompile(`(?i)\b(?:letters?|written notice)\b`)},
	{"notice", []string{"notice"}, regexp.MustCompile(`(?i)\b(?:notice to (?:quit|vacate|pay)|eviction notice|\d+[- ]day notice)\b`)},
	{"messages", []string{"text", "email", "voicemail", "messages"}, regexp.MustCompile(`(?i)\b(?:text messages|texts|emails|voicemails?|messages)\b`)},
	{"receipts", []string{"receipt", "statement", "check", "money order"}, regexp.MustCompile(`(?i)\b(?:receipts?|bank statements?|cancell?ed checks?|money orders?)\b`)},
	{"paystubs", []string{"stub", "payslip", "w-2", "sheet"}, regexp.MustCompile(`(?i)\b(?:pay ?stubs?|payslips?|W-2s?|timesheets?|time sheets?)\b`)},
	{"medical", []string{"medical", "hospital", "doctor"}, regexp.MustCompile(`(?i)\b(?:medical records?|medical bills?|hospital bills?|doctor's note)\b`)},
	{"bills", []string{"bill", "invoice", "statement"}, regexp.MustCompile(`(?i)\b(?:bills?|invoices?|statements?)\b`)},
	{"photos", []string{"photo", "picture", "video"}, regexp.MustCompile(`(?i)\b(?:photos?|photographs?|pictures?|videos?)\b`)},
	{"court", []string{"summons", "court", "order", "judgment", "complaint", "petition"}, regexp.MustCompile(`(?i)\b(?:summons|court papers|court order|custody order|judgment|complaint form|petition)\b`)},
	{"report", []string{"report"}, regexp.MustCompile(`(?i)\b(?:police report|incident report|accident report)\b`)},
}

// ExtractNotes finds, sentence by sentence, who is named, what happened,
// when, where, how much and which documents exist. It is deterministic and
// offline; every note's Span slices t.Text to its Quote.
func ExtractNotes(t Transcript) Notes {
	notes := Notes{Items: []Note{}}
	for _, turn := range t.Turns {
		if turn.Span.Slice(t.Text) != turn.Text {
			continue // a transcript edited after parsing: its spans cannot be trusted
		}
		sents := sentences(turn.Text)
		note := func(kind, typ, norm string, at Span) {
			s := sentenceAt(sents, at)
			span := Span{turn.Span.Start + s.Start, turn.Span.Start + s.End}
			mention := Span{turn.Span.Start + at.Start, turn.Span.Start + at.End}
			notes.Items = append(notes.Items, Note{
				Kind: kind, Type: typ, Value: mention.Slice(t.Text), Normalized: norm,
				Speaker: turn.Speaker, Turn: turn.Index, Span: span, Quote: span.Slice(t.Text), Mention: mention,
			})
		}
		for _, m := range findMentions(turn.Text) {
			note(kindOf(m.typ), m.typ, m.normalized, m.span)
		}
		for _, s := range sents {
			text := turn.Text[s.Start:s.End]
			lower := strings.ToLower(text)
			nonpayment := false
			for _, e := range events {
				if e.typ == "payment" && nonpayment || !containsAny(lower, e.stems) {
					continue
				}
				if loc := e.re.FindStringIndex(text); loc != nil {
					note(KindWhat, e.typ, "", Span{s.Start + loc[0], s.Start + loc[1]})
					nonpayment = nonpayment || e.typ == "nonpayment"
				}
			}
			for _, d := range documents {
				if !containsAny(lower, d.stems) {
					continue
				}
				if loc := d.re.FindStringIndex(text); loc != nil {
					note(KindDocument, d.typ, "", Span{s.Start + loc[0], s.Start + loc[1]})
				}
			}
		}
	}
	slices.SortStableFunc(notes.Items, func(a, b Note) int { return a.Mention.Start - b.Mention.Start })
	return notes
}

func kindOf(typ string) string {
	switch typ {
	case TypePerson, TypeOrganization:
		return KindWho
	case TypeDate:
		return KindWhen
	case TypePlace, TypeAddress:
		return KindWhere
	case TypeAmount:
		return KindAmount
	}
	return KindWhat
}

// abbreviations end in a period that does not end a sentence.
var abbreviations = set("mr", "mrs", "ms", "dr", "st", "apt", "inc", "ltd", "co", "corp", "jr", "sr", "no", "vs", "etc",
	"ave", "rd", "blvd", "prof", "sgt", "mt", "ft", "e.g", "i.e", "a.m", "p.m", "approx", "dept", "jan", "feb", "mar",
	"apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "u.s")

// sentences splits s at ".", "!" and "?" followed by a space or the end,
// except after an abbreviation or an initial. Spans are trimmed.
func sentences(s string) []Span {
	var out []Span
	start := 0
	emit := func(end int) {
		a, b := start, end
		for a < b && s[a] == ' ' {
			a++
		}
		for b > a && s[b-1] == ' ' {
			b--
		}
		if a < b {
			out = append(out, Span{a, b})
		}
		start = end
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		if i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '"' && s[i+1] != '\'' && s[i+1] != ')' {
			continue
		}
		if c == '.' {
			w := i
			for w > 0 && s[w-1] != ' ' {
				w--
			}
			prev := strings.ToLower(strings.Trim(s[w:i], `"'(`))
			if abbreviations[prev] || (len(prev) == 1 && prev[0] >= 'a' && prev[0] <= 'z') {
				continue
			}
		}
		end := i + 1
		for end < len(s) && (s[end] == '"' || s[end] == '\'' || s[end] == ')') {
			end++
		}
		emit(end)
		i = end - 1
	}
	emit(len(s))
	return out
}

// sentenceAt returns the sentences around at, joined when at crosses a
// sentence's end. sents are sorted and do not overlap.
func sentenceAt(sents []Span, at Span) Span {
	out := at
	// The first sentence that ends after at starts.
	i, _ := slices.BinarySearchFunc(sents, at.Start, func(s Span, start int) int {
		if s.End <= start {
			return -1
		}
		return 1
	})
	for ; i < len(sents) && sents[i].Start < max(at.End, at.Start+1); i++ {
		out.Start = min(out.Start, sents[i].Start)
		out.End = max(out.End, sents[i].End)
	}
	return out
}

// containsAny reports whether s contains one of the substrings.
func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
