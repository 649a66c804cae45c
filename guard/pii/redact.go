package pii

import (
	"slices"
	"strconv"
	"strings"
)

// Mapping maps each placeholder [Redact] wrote to the text it replaced.
// It holds the personal data itself: callers keep it only where policy
// allows the redaction to be reversed.
type Mapping map[string]string

// Redact replaces each entity of text with a placeholder naming its type
// and its rank among the distinct values of that type, in order of first
// appearance: "[EMAIL_ADDRESS_1]", "[PHONE_NUMBER_2]". The same value of
// the same type always gets the same placeholder. A placeholder that the
// text already contains is never handed out, so [Mapping.Restore] gives the
// text back exactly. Entities out of bounds, empty or overlapping one
// before them are left out; the text of an entity is read from text, not
// from Entity.Text.
func Redact(text string, ents []Entity) (string, Mapping) {
	ents = slices.Clone(ents)
	slices.SortStableFunc(ents, func(a, b Entity) int { return a.Start - b.Start })
	m := Mapping{}
	byValue := map[[2]string]string{} // type, value -> placeholder
	next := map[string]int{}          // type -> last number handed out
	var b strings.Builder
	at := 0
	for _, e := range ents {
		if e.Start < at || e.End > len(text) || e.Start >= e.End || !typeName.MatchString(e.Type) {
			continue
		}
		v := text[e.Start:e.End]
		key := [2]string{e.Type, v}
		ph, ok := byValue[key]
		if !ok {
			for {
				next[e.Type]++
				ph = "[" + e.Type + "_" + strconv.Itoa(next[e.Type]) + "]"
				if !strings.Contains(text, ph) {
					break
				}
			}
			byValue[key] = ph
			m[ph] = v
		}
		b.WriteString(text[at:e.Start])
		b.WriteString(ph)
		at = e.End
	}
	if at == 0 {
		return text, m
	}
	b.WriteString(text[at:])
	return b.String(), m
}

// Restore replaces every placeholder of m in s with the text it stands
// for. Text that is not one of m's placeholders is left as it is.
func (m Mapping) Restore(s string) string {
	if len(m) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for i := 0; i < len(s); {
		open := strings.IndexByte(s[i:], '[')
		if open < 0 {
			break
		}
		open += i
		end := strings.IndexAny(s[open+1:], "[]")
		if end < 0 {
			break
		}
		end += open + 1
		if s[end] == '[' {
			i = end
			continue
		}
		if v, ok := m[s[open:end+1]]; ok {
			b.WriteString(s[at:open])
			b.WriteString(v)
			at = end + 1
		}
		i = end + 1
	}
	if at == 0 {
		return s
	}
	b.WriteString(s[at:])
	return b.String()
}
