package interview

import (
	"strings"
	"sync"
	"unicode"

	"github.com/sanadhq/sanad/guard/pii"
)

// Entity is a person, organisation, date, amount, place, phone number or
// email address named in a transcript, with every place it is named.
type Entity struct {
	// ID is Kind and the normalized value, "person:tom-becker": the same
	// entity has the same ID in every transcript.
	ID         string `json:"id"`
	Kind       string `json:"kind"` // person|organization|date|amount|place|phone|email
	Text       string `json:"text"` // as first named
	Normalized string `json:"normalized,omitempty"`
	Mentions   []Span `json:"mentions"`
}

// contactDetector finds email addresses and phone numbers.
var contactDetector = sync.OnceValue(func() *pii.Detector {
	d, err := pii.New(pii.Config{Types: []string{pii.TypeEmail, pii.TypePhone}})
	if err != nil {
		return nil // the configuration is fixed; TestEntities catches this
	}
	return d
})

// ExtractEntities returns the entities of t in the order they are first
// named. Mentions of one entity are merged by normalized value; a person
// named by surname alone ("Mr. Becker") joins the one person of that
// surname named in full. Relative dates, having no normalized value, are
// left out. Addresses are places.
func ExtractEntities(t Transcript) []Entity {
	var out []Entity
	index := map[string]int{}
	put := func(kind, norm string, at Span) {
		id := kind + ":" + slug(norm)
		if i, ok := index[id]; ok {
			out[i].Mentions = append(out[i].Mentions, at)
			return
		}
		index[id] = len(out)
		out = append(out, Entity{ID: id, Kind: kind, Text: at.Slice(t.Text), Normalized: norm, Mentions: []Span{at}})
	}
	var surnames []mention
	for _, turn := range t.Turns {
		if turn.Span.Slice(t.Text) != turn.Text {
			continue
		}
		for _, m := range findMentions(turn.Text) {
			at := Span{turn.Span.Start + m.span.Start, turn.Span.Start + m.span.End}
			switch {
			case m.normalized == "":
				continue
			case m.typ == TypePerson && !strings.Contains(m.normalized, " "):
				surnames = append(surnames, mention{span: at, typ: m.typ, normalized: m.normalized})
				continue
			case m.typ == TypeAddress:
				m.typ = TypePlace
			}
			put(m.typ, m.normalized, at)
		}
		if contactDetector() == nil {
			continue
		}
		for _, e := range contactDetector().Find(turn.Text) {
			at := Span{turn.Span.Start + e.Start, turn.Span.Start + e.End}
			if e.Type == pii.TypeEmail {
				put(TypeEmail, strings.ToLower(e.Text), at)
			} else {
				put(TypePhone, phoneDigits(e.Text), at)
			}
		}
	}
	bySurname := map[string]int{} // index in out, -1 for two people of that surname
	for i, e := range out {
		if e.Kind != TypePerson {
			continue
		}
		last := e.Normalized[strings.LastIndexByte(e.Normalized, ' ')+1:]
		if _, taken := bySurname[last]; taken {
			bySurname[last] = -1 // do not guess between two people
		} else {
			bySurname[last] = i
		}
	}
	for _, m := range surnames {
		match, ok := bySurname[m.normalized]
		if ok && match >= 0 {
			out[match].Mentions = append(out[match].Mentions, m.span)
			continue
		}
		put(TypePerson, m.normalized, m.span)
	}
	return out
}

// slug lowercases s and joins its words with hyphens.
func slug(s string) string {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '@' || r == '+' {
			if dash && sb.Len() > 0 {
				sb.WriteByte('-')
			}
			dash = false
			sb.WriteRune(r)
			continue
		}
		dash = true
	}
	return sb.String()
}

// phoneDigits keeps a phone number's digits and its leading +.
func phoneDigits(s string) string {
	var sb strings.Builder
	for i, r := range s {
		if r >= '0' && r <= '9' || r == '+' && i == 0 {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}
