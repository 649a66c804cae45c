// Package issues spots the areas of law a layperson's intake story raises
// (family, crime, torts, …), offline, from a versioned taxonomy of weighted
// signals: the words and phrases people use when they describe a problem.
// It gives intake a first triage to route a matter for attorney review; it
// is a screen, not legal advice.
package issues

import (
	_ "embed"
	"math"
	"slices"
	"sync"

	"github.com/goccy/go-yaml"

	"github.com/sanadhq/sanad"
)

//go:embed taxonomy.yaml
var taxonomyYAML []byte

// Taxonomy is a versioned set of areas of law and the threshold at which
// Classify says an area is raised. A loaded Taxonomy is read-only and safe
// for concurrent use.
type Taxonomy struct {
	Version   int     `yaml:"version"`
	Threshold float64 `yaml:"threshold"`
	Areas     []Spec  `yaml:"areas"`

	byID map[string]*compiled
}

// Spec describes one area of law.
type Spec struct {
	ID          string `yaml:"id"`
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Signals maps a word or phrase to its weight. Empty means the
	// content words of Description, each of weight 1.
	Signals map[string]float64 `yaml:"signals"`
	// Threshold overrides the taxonomy's threshold for this area if set.
	Threshold float64 `yaml:"threshold,omitempty"`
}

// Area is an area a text raises, with its score in [0, 1) and the signals
// that matched, sorted.
type Area struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Score   float64  `json:"score"`
	Likely  bool     `json:"likely"` // Score is at or above the area's threshold
	Signals []string `json:"signals"`
}

type signal struct {
	phrase string
	stems  []string
	weight float64
}

type compiled struct {
	spec      *Spec
	threshold float64
	// first maps a signal's first stem to the signals starting with it.
	first map[string][]int
	sigs  []signal
}

// Load parses and checks a taxonomy in YAML. Unknown fields, a missing
// version, a duplicate or empty id, a negative weight and a threshold
// outside (0, 1) are CodeInvalidInput.
func Load(raw []byte) (*Taxonomy, error) {
	const op = "issues.Load"
	var t Taxonomy
	if err := yaml.UnmarshalWithOptions(raw, &t, yaml.Strict()); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "taxonomy is not valid YAML of the expected shape")
	}
	if t.Version < 1 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "taxonomy: version must be 1 or more")
	}
	if !(t.Threshold > 0 && t.Threshold < 1) {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "taxonomy: threshold %v is outside (0, 1)", t.Threshold)
	}
	t.byID = make(map[string]*compiled, len(t.Areas))
	for i := range t.Areas {
		s := &t.Areas[i]
		if s.ID == "" {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "taxonomy: area %d has no id", i+1)
		}
		if _, dup := t.byID[s.ID]; dup {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "taxonomy: area %q appears twice", s.ID)
		}
		if s.Threshold < 0 || s.Threshold >= 1 {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "taxonomy: area %q: threshold %v is outside (0, 1)", s.ID, s.Threshold)
		}
		c := &compiled{spec: s, threshold: t.Threshold, first: map[string][]int{}}
		if s.Threshold > 0 {
			c.threshold = s.Threshold
		}
		sigs := s.Signals
		if len(sigs) == 0 {
			sigs = contentWords(s.Description)
		}
		phrases := make([]string, 0, len(sigs))
		for p := range sigs {
			phrases = append(phrases, p)
		}
		slices.Sort(phrases)
		for _, p := range phrases {
			w := sigs[p]
			st := stems(p)
			if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
				return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "taxonomy: area %q: signal %q has weight %v", s.ID, p, w)
			}
			if len(st) == 0 || w == 0 {
				continue
			}
			c.first[st[0]] = append(c.first[st[0]], len(c.sigs))
			c.sigs = append(c.sigs, signal{phrase: p, stems: st, weight: w})
		}
		if len(c.sigs) == 0 {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "taxonomy: area %q has neither signals nor a description", s.ID)
		}
		t.byID[s.ID] = c
	}
	return &t, nil
}

// contentWords are a description's words less stopwords, each of weight 1.
func contentWords(desc string) map[string]float64 {
	out := map[string]float64{}
	for _, tok := range tokenize(desc) {
		if len(tok.stem) < 3 || stopwords[tok.stem] {
			continue
		}
		out[tok.stem] = 1
	}
	return out
}

// Default is the taxonomy embedded in the package.
var Default = sync.OnceValue(func() *Taxonomy {
	t, err := Load(taxonomyYAML)
	if err != nil {
		// The embedded file is checked by the package's tests.
		panic(err)
	}
	return t
})

// Spot scores text against every area of the embedded taxonomy.
func Spot(text string) []Area { return Default().Spot(text) }

// Classify says whether text raises area, by the embedded taxonomy.
func Classify(text, area string) (bool, float64) { return Default().Classify(text, area) }

// Spot returns the areas text raises, highest score first (ties by id),
// leaving out areas with no matching signal.
func (t *Taxonomy) Spot(text string) []Area {
	toks := tokenize(text)
	var out []Area
	for i := range t.Areas {
		c := t.byID[t.Areas[i].ID]
		score, matched := c.score(toks)
		if score == 0 {
			continue
		}
		out = append(out, Area{ID: c.spec.ID, Name: c.spec.Name, Score: score, Likely: score >= c.threshold, Signals: matched})
	}
	slices.SortStableFunc(out, func(a, b Area) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		if a.ID < b.ID {
			return -1
		}
		return 1
	})
	return out
}

// Classify says whether text raises the area with id area, and its score in
// [0, 1). An unknown area is (false, 0).
func (t *Taxonomy) Classify(text, area string) (bool, float64) {
	c, ok := t.byID[area]
	if !ok {
		return false, 0
	}
	s, _ := c.score(tokenize(text))
	return s >= c.threshold, s
}

// Scoring constants. A text's raw score sums, over the signals it matches,
// weight × (1 + ln count), a negated match counting negatedWeight of one;
// it is divided by sqrt(tokens / normTokens) for texts longer than
// normTokens, so a long story does not win by length, and squashed into
// [0, 1) by 1 − exp(−raw / scale).
const (
	normTokens = 60
	scale      = 4.0
)

func (c *compiled) score(toks []token) (float64, []string) {
	counts := make(map[int]float64)
	for i, tok := range toks {
		for _, si := range c.first[tok.stem] {
			st := c.sigs[si].stems
			if i+len(st) > len(toks) {
				continue
			}
			match := true
			for j := 1; j < len(st); j++ {
				if toks[i+j].stem != st[j] {
					match = false
					break
				}
			}
			if !match {
				continue
			}
			if tok.negated {
				counts[si] += negatedWeight
			} else {
				counts[si]++
			}
		}
	}
	if len(counts) == 0 {
		return 0, nil
	}
	var raw float64
	matched := make([]string, 0, len(counts))
	for si, n := range counts {
		raw += c.sigs[si].weight * (1 + math.Log(math.Max(n, 1))) * math.Min(n, 1)
		matched = append(matched, c.sigs[si].phrase)
	}
	slices.Sort(matched)
	if n := float64(len(toks)); n > normTokens {
		raw /= math.Sqrt(n / normTokens)
	}
	return 1 - math.Exp(-raw/scale), matched
}
