package coa

import (
	_ "embed"
	"math"
	"slices"
	"sync"

	"github.com/goccy/go-yaml"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
)

//go:embed taxonomy.yaml
var taxonomyYAML []byte

// The needs an [Element] may name: what a fact supporting it should also
// give.
const (
	NeedDate     = "date"     // the fact states a date
	NeedAmount   = "amount"   // the fact states a sum of money
	NeedParty    = "party"    // the fact names a person, business or role
	NeedDocument = "document" // the fact comes from, or names, a document
)

var knownNeeds = map[string]bool{NeedDate: true, NeedAmount: true, NeedParty: true, NeedDocument: true}

// Taxonomy is a versioned set of civil causes of action and their elements.
// A loaded Taxonomy is read-only and safe for concurrent use.
type Taxonomy struct {
	Version string  `yaml:"version" json:"version"`
	Causes  []Cause `yaml:"causes" json:"causes"`

	hash   string
	causes map[string]*Cause
}

// Cause is one cause of action.
type Cause struct {
	ID           string    `yaml:"id" json:"id"`
	Name         string    `yaml:"name" json:"name"`
	Area         string    `yaml:"area" json:"area"`
	RelatedAreas []string  `yaml:"related_areas,omitempty" json:"related_areas,omitempty"`
	Description  string    `yaml:"description" json:"description"`
	Limitation   string    `yaml:"limitation" json:"limitation"`
	Elements     []Element `yaml:"elements" json:"elements"`

	elements map[string]*Element
}

// Element is what a plaintiff must prove for a [Cause]. Signals maps a word
// or phrase to its weight; Needs lists what a supporting fact should also
// give (NeedDate, NeedAmount, NeedParty, NeedDocument). Core elements are
// the heart of the claim: a cause is put forward only when each has a fact.
type Element struct {
	ID          string             `yaml:"id" json:"id"`
	Name        string             `yaml:"name" json:"name"`
	Description string             `yaml:"description" json:"description"`
	Core        bool               `yaml:"core,omitempty" json:"core,omitempty"`
	Needs       []string           `yaml:"needs,omitempty" json:"needs,omitempty"`
	Signals     map[string]float64 `yaml:"signals" json:"signals"`

	compiled []signal
}

// signal is one compiled phrase of an element.
type signal struct {
	phrase  string
	stems   []string
	weight  float64
	negates bool // the phrase itself holds a negator
}

// LoadTaxonomy parses and checks a taxonomy in YAML. Unknown fields, a
// missing version, an empty or duplicate cause or element id, a cause with
// fewer than two elements, an element without a description or signals, an
// unknown need and a weight that is not positive and finite are
// CodeInvalidInput.
func LoadTaxonomy(raw []byte) (*Taxonomy, error) {
	const op = "coa.LoadTaxonomy"
	var t Taxonomy
	if err := yaml.UnmarshalWithOptions(raw, &t, yaml.Strict()); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "the taxonomy is not valid YAML of the expected shape")
	}
	if t.Version == "" {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "the taxonomy has no version")
	}
	if len(t.Causes) == 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "the taxonomy has no causes")
	}
	t.causes = make(map[string]*Cause, len(t.Causes))
	for i := range t.Causes {
		c := &t.Causes[i]
		switch {
		case c.ID == "":
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "cause %d has no id", i+1)
		case t.causes[c.ID] != nil:
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "cause %q appears twice", c.ID)
		case c.Name == "" || c.Area == "":
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "cause %q needs a name and an area", c.ID)
		case len(c.Elements) < 2:
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "cause %q has %d elements; a cause needs at least 2", c.ID, len(c.Elements))
		}
		t.causes[c.ID] = c
		c.elements = make(map[string]*Element, len(c.Elements))
		for j := range c.Elements {
			e := &c.Elements[j]
			switch {
			case e.ID == "":
				return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "cause %q: element %d has no id", c.ID, j+1)
			case c.elements[e.ID] != nil:
				return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "cause %q: element %q appears twice", c.ID, e.ID)
			case e.Name == "" || e.Description == "":
				return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "cause %q: element %q needs a name and a description", c.ID, e.ID)
			}
			for _, n := range e.Needs {
				if !knownNeeds[n] {
					return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "cause %q: element %q: unknown need %q (date, amount, party or document)", c.ID, e.ID, n)
				}
			}
			if err := e.compile(); err != nil {
				return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "cause %q: element %q: %s", c.ID, e.ID, err)
			}
			c.elements[e.ID] = e
		}
	}
	d, err := canon.Hash(&t)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, "the taxonomy could not be hashed")
	}
	t.hash = d.Hex()
	return &t, nil
}

type taxonomyError string

func (e taxonomyError) Error() string { return string(e) }

// compile turns e's signals into stem sequences, in phrase order.
func (e *Element) compile() error {
	if len(e.Signals) == 0 {
		return taxonomyError("no signals")
	}
	phrases := make([]string, 0, len(e.Signals))
	for p := range e.Signals {
		phrases = append(phrases, p)
	}
	slices.Sort(phrases)
	for _, p := range phrases {
		w := e.Signals[p]
		if !(w > 0) || math.IsInf(w, 0) {
			return taxonomyError("signal " + p + " has a weight that is not positive")
		}
		toks := tokenize(p)
		if len(toks) == 0 {
			return taxonomyError("signal " + p + " has no words")
		}
		s := signal{phrase: p, weight: w}
		for _, tk := range toks {
			// An article is optional: "ran a red light" matches "ran the
			// red light" and "ran the light" does not need one.
			if articles[tk.stem] && len(toks) > 1 {
				continue
			}
			s.stems = append(s.stems, tk.stem)
			if tk.stem == negStem {
				s.negates = true
			}
		}
		// Two phrases that stem alike ("texts", "texting") are one signal,
		// of the higher weight: a fact should not count the same words twice.
		if i := slices.IndexFunc(e.compiled, func(c signal) bool { return slices.Equal(c.stems, s.stems) }); i >= 0 {
			if s.weight > e.compiled[i].weight {
				e.compiled[i] = s
			}
			continue
		}
		e.compiled = append(e.compiled, s)
	}
	return nil
}

// articles are left out of a signal's words.
var articles = map[string]bool{"a": true, "an": true, "the": true}

// Default returns the taxonomy embedded in the package.
func Default() *Taxonomy { return defaultTaxonomy() }

var defaultTaxonomy = sync.OnceValue(func() *Taxonomy {
	t, err := LoadTaxonomy(taxonomyYAML)
	if err != nil {
		// The embedded file is checked by the package's tests.
		panic(err)
	}
	return t
})

// Hash returns the hex SHA-256 of the taxonomy's canonical JSON: two
// taxonomies with the same content have the same hash, whatever their YAML
// looked like.
func (t *Taxonomy) Hash() string { return t.hash }

// Cause returns the cause with the given id.
func (t *Taxonomy) Cause(id string) (*Cause, bool) {
	c, ok := t.causes[id]
	return c, ok
}

// Element returns the element of c with the given id.
func (c *Cause) Element(id string) (*Element, bool) {
	e, ok := c.elements[id]
	return e, ok
}

// inAreas reports whether c's area or one of its related areas is in areas.
func (c *Cause) inAreas(areas []string) bool {
	if slices.Contains(areas, c.Area) {
		return true
	}
	for _, a := range c.RelatedAreas {
		if slices.Contains(areas, a) {
			return true
		}
	}
	return false
}
