package coa

import (
	"fmt"
	"strings"
)

// maxQuotes is how many facts Summary quotes for one element.
const maxQuotes = 4

// Summary renders m as Markdown for an attorney: each plausible cause
// (supported or partial), its elements with the facts that support them,
// quoted with their source and byte span, and its gaps; then the causes
// considered and not supported, with what they lack. It says that it is a
// screening aid, not legal advice.
func Summary(m Map) string {
	facts := make(map[string]*Fact, len(m.Facts))
	for i := range m.Facts {
		facts[m.Facts[i].ID] = &m.Facts[i]
	}
	var b strings.Builder
	b.WriteString("# Causes of action: mapping summary\n\n")
	b.WriteString("*Screening aid, not legal advice.* It matches the words of the facts to the elements of common causes of action; an attorney decides what to plead. Limitation periods are typical ones: check the governing statute.\n\n")
	hash := m.TaxonomyHash
	if len(hash) > 12 {
		hash = hash[:12]
	}
	fmt.Fprintf(&b, "Taxonomy %s (sha256 %s…), method %s: %d facts, %d evidence links.\n", m.COAVersion, hash, m.Method, len(m.Facts), len(m.Evidence))

	var plausible, others []CauseMap
	for _, c := range m.Causes {
		if c.Status == StatusWeak {
			others = append(others, c)
		} else {
			plausible = append(plausible, c)
		}
	}
	b.WriteString("\n## Plausible causes of action\n")
	if len(plausible) == 0 {
		b.WriteString("\nNone: no cause has facts for each of its core elements.\n")
	}
	for i, c := range plausible {
		fmt.Fprintf(&b, "\n### %d. %s: %s (score %.2f)\n\n", i+1, c.Name, c.Status, c.Score)
		if c.Limitation != "" {
			fmt.Fprintf(&b, "Limitation: %s\n\n", c.Limitation)
		}
		for _, e := range c.Elements {
			core := ""
			if e.Core {
				core = " (core)"
			}
			if !e.Supported {
				fmt.Fprintf(&b, "- **%s**%s: **gap**, %s.\n", e.Name, core, e.Gap)
				continue
			}
			fmt.Fprintf(&b, "- **%s**%s: %d fact(s)", e.Name, core, len(e.FactIDs))
			if len(e.Missing) > 0 {
				fmt.Fprintf(&b, "; none gives the %s it needs", strings.Join(e.Missing, " or "))
			}
			b.WriteString(".\n")
			for j, id := range e.FactIDs {
				if j == maxQuotes {
					fmt.Fprintf(&b, "  - and %d more.\n", len(e.FactIDs)-maxQuotes)
					break
				}
				f := facts[id]
				if f == nil {
					continue
				}
				fmt.Fprintf(&b, "  - “%s” (%s, bytes %d–%d, %s)\n", oneLine(f.Text), f.Source, f.Span.Start, f.Span.End, f.ID)
			}
		}
		if len(c.Gaps) > 0 {
			fmt.Fprintf(&b, "\nGaps to fill: %s.\n", strings.Join(c.Gaps, ", "))
		}
	}
	if len(others) > 0 {
		b.WriteString("\n## Considered, not supported\n\n")
		for _, c := range others {
			var lacking []string
			for _, e := range c.Elements {
				if e.Core && !e.Supported {
					lacking = append(lacking, e.Name)
				}
			}
			if len(lacking) == 0 {
				fmt.Fprintf(&b, "- %s: too few of its elements have facts.\n", c.Name)
				continue
			}
			fmt.Fprintf(&b, "- %s: no fact for %s.\n", c.Name, strings.Join(lacking, "; "))
		}
	}
	return b.String()
}

// oneLine returns s with its line breaks as spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
