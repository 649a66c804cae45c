package coa

import (
	"slices"

	"github.com/sanadhq/sanad"
)

const opCheck = "coa.Check"

// Check verifies m against the taxonomy it claims and the sources its facts
// came from: the version and hash are t's; every fact's id is FactID of its
// source and span and its span slices that source to its text; every link
// names a known fact and a known element of a known cause; every cause of t
// appears once with all its elements; an element is supported exactly when
// it has facts, each backed by a link; and each cause's status and gaps
// follow from its elements, so that no cause is called supported with an
// element that lacks facts. The first problem is returned as
// CodeIntegrity; nil means the map holds together.
func (m Map) Check(t *Taxonomy, sources []Source) error {
	fail := func(format string, args ...any) error {
		return sanad.Errorf(sanad.CodeIntegrity, opCheck, format, args...)
	}
	if m.COAVersion != t.Version {
		return fail("the map pins coa_version %q, the taxonomy is %q", m.COAVersion, t.Version)
	}
	if m.TaxonomyHash != t.Hash() {
		return fail("the map pins taxonomy %s, the taxonomy hashes to %s", m.TaxonomyHash, t.Hash())
	}
	bySource := make(map[string]*Source, len(sources))
	for i := range sources {
		bySource[sources[i].ID] = &sources[i]
	}
	facts := make(map[string]bool, len(m.Facts))
	for _, f := range m.Facts {
		src, ok := bySource[f.Source]
		switch {
		case facts[f.ID]:
			return fail("fact %s appears twice", f.ID)
		case !ok:
			return fail("fact %s names source %q, which is not among the sources", f.ID, f.Source)
		case f.Kind != src.Kind:
			return fail("fact %s says its source is a %s, source %q is a %s", f.ID, f.Kind, f.Source, src.Kind)
		case f.Span.Start < 0 || f.Span.End < f.Span.Start || f.Span.End > len(src.Text):
			return fail("fact %s: span [%d, %d) is outside source %q", f.ID, f.Span.Start, f.Span.End, f.Source)
		case src.Text[f.Span.Start:f.Span.End] != f.Text:
			return fail("fact %s: span [%d, %d) of source %q is not the fact's text", f.ID, f.Span.Start, f.Span.End, f.Source)
		case f.ID != FactID(f.Source, f.Span):
			return fail("fact %s: the id is not the id of its source and span", f.ID)
		}
		facts[f.ID] = true
	}
	type key struct{ fact, cause, element string }
	linked := map[key]bool{}
	for _, l := range m.Evidence {
		c, ok := t.Cause(l.CauseID)
		if !ok {
			return fail("evidence link of fact %s names unknown cause %q", l.FactID, l.CauseID)
		}
		if _, ok := c.Element(l.ElementID); !ok {
			return fail("evidence link of fact %s names unknown element %q of cause %q", l.FactID, l.ElementID, l.CauseID)
		}
		if !facts[l.FactID] {
			return fail("evidence link to %s/%s names unknown fact %q", l.CauseID, l.ElementID, l.FactID)
		}
		if !(l.Score >= 0 && l.Score <= 1) {
			return fail("evidence link of fact %s to %s/%s has score %v, outside [0, 1]", l.FactID, l.CauseID, l.ElementID, l.Score)
		}
		linked[key{l.FactID, l.CauseID, l.ElementID}] = true
	}
	seen := map[string]bool{}
	for _, cm := range m.Causes {
		c, ok := t.Cause(cm.ID)
		if !ok {
			return fail("the coa map names unknown cause %q", cm.ID)
		}
		if seen[cm.ID] {
			return fail("cause %q appears twice in the coa map", cm.ID)
		}
		seen[cm.ID] = true
		if len(cm.Elements) != len(c.Elements) {
			return fail("cause %q lists %d elements, the taxonomy has %d", cm.ID, len(cm.Elements), len(c.Elements))
		}
		var gaps []string
		for i, em := range cm.Elements {
			e := &c.Elements[i]
			if em.ElementID != e.ID {
				return fail("cause %q: element %d is %q, the taxonomy's is %q", cm.ID, i+1, em.ElementID, e.ID)
			}
			if em.Core != e.Core {
				return fail("cause %q: element %q is marked core %v, the taxonomy says %v", cm.ID, em.ElementID, em.Core, e.Core)
			}
			if em.Supported != (len(em.FactIDs) > 0) {
				return fail("cause %q: element %q is marked supported %v with %d facts", cm.ID, em.ElementID, em.Supported, len(em.FactIDs))
			}
			for _, id := range em.FactIDs {
				if !facts[id] {
					return fail("cause %q: element %q names unknown fact %q", cm.ID, em.ElementID, id)
				}
				if !linked[key{id, cm.ID, em.ElementID}] {
					return fail("cause %q: element %q names fact %s, which no evidence link backs", cm.ID, em.ElementID, id)
				}
			}
			if !em.Supported {
				gaps = append(gaps, em.ElementID)
			}
		}
		if want := status(cm.Elements); cm.Status != want {
			return fail("cause %q is marked %s, its elements make it %s", cm.ID, cm.Status, want)
		}
		if !slices.Equal(gaps, cm.Gaps) {
			return fail("cause %q lists gaps %v, its unsupported elements are %v", cm.ID, cm.Gaps, gaps)
		}
	}
	for _, c := range t.Causes {
		if !seen[c.ID] {
			return fail("the coa map leaves out cause %q", c.ID)
		}
	}
	return nil
}
