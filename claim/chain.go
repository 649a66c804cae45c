package claim

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/document"
)

// Source is a document as evidence: what kind of document it is and the
// grade that earns it.
type Source struct {
	Document string `json:"document"`
	// Kind is what the document is: "audited statements", "bank data",
	// "management accounts", "deck", "press release", "web",
	// "enrichment", or "unknown".
	Kind  string `json:"kind"`
	Grade Grade  `json:"grade"`
	// Inferred marks a source whose kind was read from its own words
	// rather than declared by the deal's manifest.
	Inferred bool `json:"inferred,omitempty"`
	// Origin is who produced the document (the company, its auditor, a
	// bank). Documents of the same non-empty origin are not independent:
	// their agreement corroborates nothing.
	Origin string `json:"origin,omitempty"`
}

// Kinds maps each kind a manifest may declare to its grade.
var Kinds = map[string]Grade{
	"audited statements":  GradeA,
	"audited accounts":    GradeA,
	"bank data":           GradeA,
	"management accounts": GradeB,
	"deck":                GradeC,
	"press release":       GradeC,
	"web":                 GradeD,
	"enrichment":          GradeD,
}

// Declare returns the source a deal manifest declares for a document. An
// unknown kind is CodeInvalidInput.
func Declare(docID, kind, origin string) (Source, error) {
	g, ok := Kinds[strings.ToLower(strings.TrimSpace(kind))]
	if !ok {
		return Source{}, sanad.Errorf(sanad.CodeInvalidInput, "claim.declare", "document %q: unknown kind %q; declare one of audited statements, bank data, management accounts, deck, press release, web, enrichment", docID, kind)
	}
	return Source{Document: docID, Kind: strings.ToLower(strings.TrimSpace(kind)), Grade: g, Origin: origin}, nil
}

// inferRules read a document's kind from its title and first page, in
// order: a press release that quotes audited figures is still a press
// release, and "unaudited" must be read before "audited".
var inferRules = []struct {
	re   *regexp.Regexp
	kind string
}{
	{regexp.MustCompile(`(?i)\b(?:press|news) release\b`), "press release"},
	{regexp.MustCompile(`(?i)\b(?:investor presentation|pitch deck|deck|teaser)\b`), "deck"},
	{regexp.MustCompile(`(?i)\bunaudited\b|\bmanagement accounts\b`), "management accounts"},
	{regexp.MustCompile(`(?i)\bbank statement|\bstatement of account\b`), "bank data"},
	{regexp.MustCompile(`(?i)\baudited\b|\bindependent auditor|\bfinancial statements\b`), "audited statements"},
	{regexp.MustCompile(`(?i)\bwww\.|\bwebsite\b|\bhttps?://`), "web"},
}

// firstPageBytes bounds the text InferSource reads when a format has no
// pages.
const firstPageBytes = 4000

// InferSource infers the kind and grade of a document the manifest does
// not declare, from words of its title and first page ("audited",
// "management accounts", "press release"); a web page is web, a slide deck
// a deck, anything else unknown and graded D. The result is marked
// Inferred.
func InferSource(doc *document.Document, docID string) Source {
	s := Source{Document: docID, Kind: "unknown", Grade: GradeD, Inferred: true}
	if doc == nil {
		return s
	}
	var b strings.Builder
	b.WriteString(doc.Title)
	for _, blk := range doc.Blocks {
		if blk.Page > 1 || b.Len() > firstPageBytes {
			break
		}
		b.WriteString("\n")
		b.WriteString(blk.Markdown())
	}
	text := b.String()
	for _, r := range inferRules {
		if r.re.MatchString(text) {
			s.Kind = r.kind
			break
		}
	}
	if s.Kind == "unknown" {
		switch doc.Format {
		case "html":
			s.Kind = "web"
		case "pptx":
			s.Kind = "deck"
		}
	}
	if g, ok := Kinds[s.Kind]; ok {
		s.Grade = g
	}
	return s
}

// Evidence is what one document states of a fact: its value and the
// claims and spans it states it in.
type Evidence struct {
	Document string   `json:"document"`
	Kind     string   `json:"kind"`
	Grade    Grade    `json:"grade"`
	Inferred bool     `json:"inferred,omitempty"`
	Value    Value    `json:"value"`
	Claims   []string `json:"claim_ids"`
	Spans    []Span   `json:"spans"`
}

// Contradiction is two statements of the same fact whose values differ
// beyond their rounding.
type Contradiction struct {
	A       Evidence `json:"a"`
	B       Evidence `json:"b"`
	RelDiff float64  `json:"rel_diff"`
}

// Fact is one metric of one entity for one period, as the documents state
// it: its evidence chain. A claim whose text says it rests on a weaker
// source than its document ("management accounts" quoted in audited
// statements) is graded as that source.
type Fact struct {
	Metric     string   `json:"metric"`
	Period     string   `json:"period,omitempty"`
	Entity     string   `json:"entity,omitempty"`
	Qualifiers []string `json:"qualifiers,omitempty"`
	// Value is the value the best evidence states.
	Value Value `json:"value"`
	// Grade is the best grade of the sources that state Value, one step
	// up when independent sources agree on it.
	Grade   Grade   `json:"grade"`
	Verdict Verdict `json:"verdict"`
	// Ahad marks a fact whose Value rests on a single source.
	Ahad bool `json:"ahad"`
	// Sources are the statements of the fact, one per document and value.
	Sources        []Evidence      `json:"sources"`
	Contradictions []Contradiction `json:"contradictions,omitempty"`
	// Claims are the fact's claims with their Grade and Verdict set.
	Claims []Claim `json:"claims"`
}

// Chain groups claims into facts (the same metric, period, entity and
// qualifiers), puts together the statements whose values agree
// ([Compare]), and grades each: a claim is VERIFIED when its agreeing
// sources reach grade A, CORROBORATED when two independent sources agree,
// UNVERIFIED when one source below A states it, REFUTED when a better
// source states a different value and CONTRADICTED when an equally good
// one does. sources gives each document's source; a document missing from
// it is graded D, kind unknown. The claims passed in are not modified.
func Chain(claims []Claim, sources map[string]Source) []Fact {
	groups := map[string][]Claim{}
	var keys []string
	for _, c := range claims {
		k := factKey(c.Value)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], c)
	}
	sort.Strings(keys)
	facts := make([]Fact, 0, len(keys))
	for _, k := range keys {
		facts = append(facts, chainFact(groups[k], sources))
	}
	return facts
}

func factKey(v Value) string {
	q := slices.Clone(v.Qualifiers)
	sort.Strings(q)
	return v.Metric + "\x00" + v.Period + "\x00" + normEntity(v.Entity) + "\x00" + strings.Join(q, "\x01")
}

var entitySuffix = regexp.MustCompile(`(?i)[\s,]+(?:ltd|limited|plc|inc|llc|llp|b\.v|gmbh|ag|s\.a|corp|corporation)\.?$`)

// normEntity lets "Tessaro Systems Ltd" and "Tessaro Systems Limited" name
// the same entity.
func normEntity(e string) string {
	e = strings.ToLower(strings.TrimSpace(e))
	for {
		f := entitySuffix.ReplaceAllString(e, "")
		if f == e {
			return strings.Join(strings.Fields(e), " ")
		}
		e = f
	}
}

// citedGrades cap the grade of a claim by what the document says it rests
// on: management accounts quoted in audited statements are as good as
// management accounts.
var citedGrades = map[string]Grade{
	"unaudited":           GradeB,
	"management accounts": GradeB,
	"management estimate": GradeC,
}

// statement is the evidence of one document for one value, and the
// cluster of agreeing statements it belongs to.
type statement struct {
	ev      Evidence
	src     Source
	claims  []int
	cluster int
}

func chainFact(cs []Claim, sources map[string]Source) Fact {
	sourceOf := func(doc string) Source {
		if s, ok := sources[doc]; ok {
			if s.Document == "" {
				s.Document = doc
			}
			return s
		}
		return Source{Document: doc, Kind: "unknown", Grade: GradeD, Inferred: true}
	}
	// Statements: per document, claims that agree.
	var sts []*statement
	for i, c := range cs {
		src := sourceOf(c.Span.Document)
		if g, ok := citedGrades[c.CitedSource]; ok && src.Grade.Better(g) {
			src.Grade = g
		}
		var st *statement
		for _, s := range sts {
			if s.ev.Document == c.Span.Document && s.src.Grade == src.Grade {
				if same, _ := Compare(s.ev.Value, c.Value); same {
					st = s
					break
				}
			}
		}
		if st == nil {
			st = &statement{ev: Evidence{Document: c.Span.Document, Kind: src.Kind, Grade: src.Grade, Inferred: src.Inferred, Value: c.Value}, src: src, cluster: len(sts)}
			sts = append(sts, st)
		}
		st.claims = append(st.claims, i)
		st.ev.Claims = append(st.ev.Claims, c.ID)
		st.ev.Spans = append(st.ev.Spans, c.Span)
	}
	// Clusters: statements that agree, across documents.
	for i := range sts {
		for j := i + 1; j < len(sts); j++ {
			if same, _ := Compare(sts[i].ev.Value, sts[j].ev.Value); same {
				from, to := sts[j].cluster, sts[i].cluster
				for _, s := range sts {
					if s.cluster == from {
						s.cluster = to
					}
				}
			}
		}
	}
	type cluster struct {
		grade       Grade
		independent int
	}
	cl := map[int]*cluster{}
	for id := range sts {
		origins := map[string]bool{}
		best := Grade("")
		for _, s := range sts {
			if s.cluster != id {
				continue
			}
			o := s.src.Origin
			if o == "" {
				o = "document:" + s.ev.Document
			}
			origins[o] = true
			if best == "" || s.src.Grade.Better(best) {
				best = s.src.Grade
			}
		}
		if len(origins) == 0 {
			continue
		}
		if len(origins) > 1 {
			best = best.Up()
		}
		cl[id] = &cluster{best, len(origins)}
	}
	verdictOf := func(id int) Verdict {
		own := cl[id]
		v := Verdict("")
		for oid, o := range cl {
			if oid == id {
				continue
			}
			switch {
			case o.grade.Better(own.grade):
				return Refuted
			case o.grade == own.grade:
				v = Contradicted
			}
		}
		switch {
		case v != "":
			return v
		case own.grade == GradeA:
			return Verified
		case own.independent > 1:
			return Corroborated
		}
		return Unverified
	}
	// The fact's value: the best cluster, then the most sources, then the first.
	bestID := -1
	for _, s := range sts {
		c := cl[s.cluster]
		if bestID < 0 {
			bestID = s.cluster
			continue
		}
		b := cl[bestID]
		if c.grade.Better(b.grade) || c.grade == b.grade && c.independent > b.independent {
			bestID = s.cluster
		}
	}
	f := Fact{Metric: cs[0].Value.Metric, Period: cs[0].Value.Period, Entity: cs[0].Value.Entity, Qualifiers: cs[0].Value.Qualifiers}
	for _, s := range sts {
		if s.cluster == bestID {
			f.Value = s.ev.Value
			break
		}
	}
	f.Grade, f.Verdict, f.Ahad = cl[bestID].grade, verdictOf(bestID), cl[bestID].independent == 1
	f.Claims = make([]Claim, len(cs))
	for _, s := range sts {
		f.Sources = append(f.Sources, s.ev)
		for _, i := range s.claims {
			c := cs[i]
			c.Grade, c.Verdict = cl[s.cluster].grade, verdictOf(s.cluster)
			f.Claims[i] = c
		}
	}
	for i := range sts {
		for j := i + 1; j < len(sts); j++ {
			if sts[i].cluster != sts[j].cluster {
				_, rd := Compare(sts[i].ev.Value, sts[j].ev.Value)
				f.Contradictions = append(f.Contradictions, Contradiction{A: sts[i].ev, B: sts[j].ev, RelDiff: rd})
			}
		}
	}
	return f
}
