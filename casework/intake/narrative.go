package intake

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// summaryNarrative writes what the matter is about for the attorney: who,
// against whom, the areas, the key dates and the client's story, cut at a
// sentence to at most MaxSummaryChars characters. Contact details are left
// out.
func summaryNarrative(f Form, areas []AreaFlag) string {
	var parts []string
	who := fmt.Sprintf("%s seeks advice", nameOf(f.Client))
	if mt := strings.TrimSpace(f.MatterType); mt != "" {
		who += " on " + mt
	}
	if j := strings.TrimSpace(f.Jurisdiction); j != "" {
		who += " (" + j + ")"
	}
	parts = append(parts, who+".")
	var opposing []string
	for _, p := range f.Parties {
		if p.Role == RoleOpposing {
			opposing = append(opposing, nameOf(p))
		}
	}
	if len(opposing) > 0 {
		parts = append(parts, "Against: "+strings.Join(opposing, "; ")+".")
	}
	var primary, possible []string
	for _, a := range areas {
		if a.Primary {
			primary = append(primary, a.Name)
		} else {
			possible = append(possible, a.Name)
		}
	}
	if len(primary) > 0 {
		parts = append(parts, "Areas spotted: "+strings.Join(primary, ", ")+".")
	}
	if len(possible) > 0 {
		parts = append(parts, "Possibly also: "+strings.Join(possible, ", ")+".")
	}
	if len(f.KeyDates) > 0 {
		dates := make([]string, 0, len(f.KeyDates))
		for _, d := range f.KeyDates {
			dates = append(dates, d.Date+" "+d.Label)
		}
		parts = append(parts, "Key dates: "+strings.Join(dates, "; ")+".")
	}
	if story := strings.Join(strings.Fields(f.Narrative), " "); story != "" {
		parts = append(parts, "In the client's words: "+story)
	}
	if o := strings.TrimSpace(f.DesiredOutcome); o != "" {
		parts = append(parts, "Wants: "+o)
	}
	return cutAtSentence(strings.Join(parts, " "), MaxSummaryChars)
}

// nameOf is a party's name and organisation.
func nameOf(p Party) string {
	switch {
	case p.Name != "" && p.Organisation != "":
		return p.Name + " (" + p.Organisation + ")"
	case p.Name != "":
		return p.Name
	}
	return p.Organisation
}

// cutAtSentence returns s if it has at most max characters, else its
// longest prefix of at most max characters that ends a sentence; failing
// that, at a word, with "…".
func cutAtSentence(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	// byte offset of the max-th character
	cut, n := 0, 0
	for i := range s {
		if n == max {
			cut = i
			break
		}
		n++
	}
	head := s[:cut]
	best := -1
	for i := 0; i < len(head); i++ {
		if c := head[i]; (c == '.' || c == '!' || c == '?') && (i+1 == len(head) || head[i+1] == ' ') {
			best = i + 1
		}
	}
	if best > max/2 {
		return head[:best]
	}
	// "…" is one character: drop at least one to make room for it.
	if i := strings.LastIndexByte(head, ' '); i > 0 {
		head = head[:i]
	} else {
		_, size := utf8.DecodeLastRuneInString(head)
		head = head[:len(head)-size]
	}
	return strings.TrimRight(head, " ,;:") + "…"
}
