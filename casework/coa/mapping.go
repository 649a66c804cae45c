package coa

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// The statuses of a [CauseMap].
const (
	StatusSupported = "supported" // every element has a fact
	StatusPartial   = "partial"   // every core element has a fact, some other element has none
	StatusWeak      = "weak"      // a core element has no fact: considered, not put forward
)

// DefaultMinScore is the score at or above which a fact supports an
// element when [Options.MinScore] is zero: a telling signal (weight 2) with
// the date, amount or party the element needs, a specific one (weight 3)
// without, or two topical ones.
const DefaultMinScore = 0.55

// Options tune [MapFacts] and [MapWithModel].
type Options struct {
	// MinScore is the score in (0, 1] at or above which a fact supports an
	// element; zero means DefaultMinScore.
	MinScore float64
	// Areas are the areas of law spotted at intake (casework/issues ids).
	// Causes in them rank a little higher; support is not changed.
	Areas []string
}

func (o Options) minScore() float64 {
	if o.MinScore > 0 && o.MinScore <= 1 {
		return o.MinScore
	}
	return DefaultMinScore
}

// Map is the result of mapping a matter's facts to causes of action,
// pinned to the taxonomy it was made with.
type Map struct {
	COAVersion   string         `json:"coa_version"`
	TaxonomyHash string         `json:"taxonomy_sha256"`
	Method       string         `json:"method"` // MethodRules or MethodModel
	Facts        []Fact         `json:"facts"`
	Evidence     []EvidenceLink `json:"evidence_map"`
	Causes       []CauseMap     `json:"coa_map"`
}

// The methods of a [Map].
const (
	MethodRules = "rules" // MapFacts: lexical and rule signals
	MethodModel = "model" // MapWithModel: a model's classification
)

// EvidenceLink says that a fact supports an element of a cause.
type EvidenceLink struct {
	FactID    string   `json:"fact_id"`
	CauseID   string   `json:"cause_id"`
	ElementID string   `json:"element_id"`
	Score     float64  `json:"score"`
	Signals   []string `json:"signals"`             // the signal phrases that fired, or "model"
	NeedsMet  []string `json:"needs_met,omitempty"` // the element's needs the fact gives
	Reason    string   `json:"reason,omitempty"`    // the model's reason, for a model link
}

// CauseMap is one cause of action and how far the facts support it.
type CauseMap struct {
	ID         string       `json:"cause_id"`
	Name       string       `json:"name"`
	Area       string       `json:"area"`
	Score      float64      `json:"score"` // mean of its elements' scores, raised a little for an intake area
	Status     string       `json:"status"`
	Limitation string       `json:"limitation,omitempty"` // the taxonomy's typical limitation note
	Elements   []ElementMap `json:"elements"`
	Gaps       []string     `json:"gaps"` // ids of the elements without facts
}

// ElementMap is one element of a cause and the facts that support it.
type ElementMap struct {
	ElementID string   `json:"element_id"`
	Name      string   `json:"name"`
	Core      bool     `json:"core,omitempty"`
	Supported bool     `json:"supported"`
	Score     float64  `json:"score"` // the best score of its facts
	FactIDs   []string `json:"fact_ids"`
	Missing   []string `json:"missing,omitempty"`    // needs that none of its facts gives
	Gap       string   `json:"gap_reason,omitempty"` // why it is not supported
}

// Scoring constants. A fact's raw score for an element is the sum of the
// weights of the signals that fired, plus needBonus for each need the fact
// gives; it is squashed into [0, 1) by 1 − exp(−raw / scoreScale), and
// multiplied by unmetNeedFactor when the fact gives not all the needs.
const (
	needBonus       = 1.0
	scoreScale      = 2.0
	unmetNeedFactor = 0.8
	areaPrior       = 1.1
)

// documentStems name documents: a fact that mentions one meets NeedDocument.
var documentStems = stemSet(`lease contract agreement letter notice email emails text receipt
	invoice check paystub stub estimate statement message screenshot photo photos record records`)

// MapFacts maps facts to the elements of t's causes by their signals,
// offline and deterministically. A fact supports an element when its score
// reaches opts.MinScore; a cause whose core elements are not all supported
// is weak and keeps no links.
func MapFacts(t *Taxonomy, facts []Fact, opts Options) Map {
	min := opts.minScore()
	var links []EvidenceLink
	around := surroundings(facts)
	for _, f := range facts {
		toks := tokenize(f.Text)
		for ci := range t.Causes {
			c := &t.Causes[ci]
			for ei := range c.Elements {
				e := &c.Elements[ei]
				l, ok := e.score(toks, f, around[f.ID])
				if !ok || l.Score < min {
					continue
				}
				l.FactID, l.CauseID, l.ElementID = f.ID, c.ID, e.ID
				links = append(links, l)
			}
		}
	}
	return assemble(t, facts, links, opts, MethodRules)
}

// score returns the link of a fact with tokens toks to e, without ids, and
// whether any signal fired. around is what the rest of the fact's block
// gives (see [surroundings]).
func (e *Element) score(toks []token, f Fact, around given) (EvidenceLink, bool) {
	var raw float64
	var fired []string
	for i := range e.compiled {
		s := &e.compiled[i]
		if s.match(toks) {
			raw += s.weight
			fired = append(fired, s.phrase)
		}
	}
	if len(fired) == 0 {
		return EvidenceLink{}, false
	}
	met := needsMet(e.Needs, f, toks, around)
	for _, n := range met {
		if needsMet([]string{n}, f, toks, given{}) != nil {
			raw += needBonus
		} else {
			raw += needBonus * aroundFactor
		}
	}
	score := 1 - math.Exp(-raw/scoreScale)
	if len(met) < len(e.Needs) {
		score *= unmetNeedFactor
	}
	return EvidenceLink{Score: round(score), Signals: fired, NeedsMet: met}, true
}

// aroundFactor scales the bonus of a need that the fact's block gives but
// the fact itself does not.
const aroundFactor = 0.5

// given is what the other sentences of a fact's block state: a client who
// names the date in one sentence and what happened in the next has given
// both in one answer.
type given struct{ date, amount, party bool }

// surroundings returns, by fact id, what the other facts of the same block
// of the same source give. Facts without a block (decoded from JSON) get
// nothing from their neighbours.
func surroundings(facts []Fact) map[string]given {
	type key struct {
		source string
		block  int
	}
	byBlock := map[key][]int{}
	for i, f := range facts {
		if f.block > 0 {
			k := key{f.Source, f.block}
			byBlock[k] = append(byBlock[k], i)
		}
	}
	out := make(map[string]given, len(facts))
	for _, idx := range byBlock {
		for _, i := range idx {
			var g given
			for _, j := range idx {
				if j == i {
					continue
				}
				g.date = g.date || len(facts[j].Dates) > 0
				g.amount = g.amount || len(facts[j].Amounts) > 0
				g.party = g.party || len(facts[j].Parties) > 0
			}
			out[facts[i].ID] = g
		}
	}
	return out
}

// needsMet returns the needs of the list that fact f (tokens toks) gives,
// itself or, for a date, an amount or a party, through the rest of its
// block (around).
func needsMet(needs []string, f Fact, toks []token, around given) []string {
	var out []string
	for _, n := range needs {
		ok := false
		switch n {
		case NeedDate:
			ok = len(f.Dates) > 0 || around.date
		case NeedAmount:
			ok = len(f.Amounts) > 0 || around.amount
		case NeedParty:
			ok = len(f.Parties) > 0 || around.party
		case NeedDocument:
			ok = f.Kind == KindDocument || slices.ContainsFunc(toks, func(t token) bool { return documentStems[t.stem] })
		}
		if ok {
			out = append(out, n)
		}
	}
	return out
}

func round(x float64) float64 { return math.Round(x*1000) / 1000 }

// assemble builds the map of facts from candidate links, each at or above
// the minimum score: it sets every element's support, every cause's status
// and score, drops the links of weak causes, and ranks the causes.
func assemble(t *Taxonomy, facts []Fact, links []EvidenceLink, opts Options, method string) Map {
	around := surroundings(facts)
	factIndex := make(map[string]int, len(facts))
	byID := make(map[string]*Fact, len(facts))
	for i := range facts {
		factIndex[facts[i].ID] = i
		byID[facts[i].ID] = &facts[i]
	}
	type key struct{ cause, element string }
	byElement := map[key][]EvidenceLink{}
	for _, l := range links {
		k := key{l.CauseID, l.ElementID}
		byElement[k] = append(byElement[k], l)
	}

	m := Map{COAVersion: t.Version, TaxonomyHash: t.Hash(), Method: method, Facts: facts, Evidence: []EvidenceLink{}}
	order := map[string]int{}
	for ci := range t.Causes {
		c := &t.Causes[ci]
		order[c.ID] = ci
		cm := CauseMap{ID: c.ID, Name: c.Name, Area: c.Area, Limitation: c.Limitation, Gaps: []string{}}
		for ei := range c.Elements {
			e := &c.Elements[ei]
			em := ElementMap{ElementID: e.ID, Name: e.Name, Core: e.Core, FactIDs: []string{}}
			ls := byElement[key{c.ID, e.ID}]
			slices.SortFunc(ls, func(a, b EvidenceLink) int { return cmp.Compare(factIndex[a.FactID], factIndex[b.FactID]) })
			given := map[string]bool{}
			for _, l := range ls {
				em.FactIDs = append(em.FactIDs, l.FactID)
				em.Score = max(em.Score, l.Score)
				for _, n := range needsMet(e.Needs, *byID[l.FactID], tokenize(byID[l.FactID].Text), around[l.FactID]) {
					given[n] = true
				}
			}
			em.Supported = len(em.FactIDs) > 0
			for _, n := range e.Needs {
				if em.Supported && !given[n] {
					em.Missing = append(em.Missing, n)
				}
			}
			cm.Elements = append(cm.Elements, em)
		}
		cm.Status = status(cm.Elements)
		if cm.Status == StatusWeak {
			setAside(&cm)
		} else {
			for ei := range c.Elements {
				m.Evidence = append(m.Evidence, byElement[key{c.ID, c.Elements[ei].ID}]...)
			}
		}
		var sum float64
		for i := range cm.Elements {
			em := &cm.Elements[i]
			sum += em.Score
			if !em.Supported {
				cm.Gaps = append(cm.Gaps, em.ElementID)
				if em.Gap == "" {
					em.Gap = "no fact shows it"
				}
			}
		}
		cm.Score = sum / float64(len(cm.Elements))
		if cm.Score > 0 && c.inAreas(opts.Areas) {
			cm.Score = min(cm.Score*areaPrior, 1)
		}
		cm.Score = round(cm.Score)
		m.Causes = append(m.Causes, cm)
	}
	slices.SortStableFunc(m.Causes, func(a, b CauseMap) int {
		if r := cmp.Compare(statusRank[a.Status], statusRank[b.Status]); r != 0 {
			return r
		}
		if r := cmp.Compare(b.Score, a.Score); r != 0 {
			return r
		}
		return cmp.Compare(order[a.ID], order[b.ID])
	})
	return m
}

var statusRank = map[string]int{StatusSupported: 0, StatusPartial: 1, StatusWeak: 2}

// status is the status of a cause with the given elements: supported when
// all have facts, partial when every core element has (or, without core
// elements, half of them have), weak otherwise.
func status(elements []ElementMap) string {
	supported, core, coreSupported := 0, 0, 0
	for _, e := range elements {
		if e.Supported {
			supported++
		}
		if e.Core {
			core++
			if e.Supported {
				coreSupported++
			}
		}
	}
	switch {
	case supported == len(elements):
		return StatusSupported
	case core > 0 && coreSupported == core:
		return StatusPartial
	case core == 0 && 2*supported >= len(elements):
		return StatusPartial
	}
	return StatusWeak
}

// setAside clears the support of a weak cause's elements, saying why.
func setAside(cm *CauseMap) {
	var lacking []string
	for _, e := range cm.Elements {
		if e.Core && !e.Supported {
			lacking = append(lacking, e.Name)
		}
	}
	why := "set aside: too few of the cause's elements have facts"
	if len(lacking) > 0 {
		why = "set aside: no fact shows " + strings.Join(lacking, "; ")
	}
	for i := range cm.Elements {
		e := &cm.Elements[i]
		if e.Supported {
			e.Gap = why
		}
		e.Supported, e.Score, e.FactIDs, e.Missing = false, 0, []string{}, nil
	}
}
