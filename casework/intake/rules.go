package intake

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/sanadhq/sanad"
)

//go:embed limitations.yaml
var limitationsYAML []byte

//go:embed expectations.yaml
var expectationsYAML []byte

// Limitations is a versioned set of indicative limitation periods by area
// of law (limitations.yaml). A loaded Limitations is read-only and safe for
// concurrent use.
type Limitations struct {
	Version      int              `yaml:"version"`
	ID           string           `yaml:"id"`
	Jurisdiction string           `yaml:"jurisdiction"`
	Note         string           `yaml:"note"`
	Rules        []LimitationRule `yaml:"rules"`
}

// LimitationRule is one indicative period: for a cause within an area, the
// period, the rule it comes from, and how to find the date it runs from.
type LimitationRule struct {
	Area  string `yaml:"area"`
	Cause string `yaml:"cause"`
	// Period is a number and d, m or y: "2y", "300d".
	Period string `yaml:"period"`
	Rule   string `yaml:"rule"`
	// Mentions, when set, limits the rule to narratives holding one of
	// these phrases.
	Mentions []string `yaml:"mentions,omitempty"`
	// Triggers are the words of a key date's label or description that
	// mark the date the period runs from, the first that matches winning.
	Triggers []string `yaml:"triggers"`

	years, months, days int
}

// LoadLimitations parses and checks limitation periods in YAML. Unknown
// fields, a missing version, id or note, and a rule without an area, cause,
// rule text or a valid period are INVALID_INPUT.
func LoadLimitations(raw []byte) (*Limitations, error) {
	const op = "intake.LoadLimitations"
	var l Limitations
	if err := yaml.UnmarshalWithOptions(raw, &l, yaml.Strict()); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "limitations are not valid YAML of the expected shape")
	}
	if l.Version < 1 || l.ID == "" || strings.TrimSpace(l.Note) == "" {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "limitations: version, id and note are required")
	}
	for i := range l.Rules {
		r := &l.Rules[i]
		if r.Area == "" || r.Cause == "" || r.Rule == "" {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "limitations: rule %d needs an area, a cause and the rule it comes from", i+1)
		}
		y, m, d, ok := parsePeriod(r.Period)
		if !ok {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "limitations: rule %d (%s): period %q is not a number and d, m or y", i+1, r.Cause, r.Period)
		}
		r.years, r.months, r.days = y, m, d
	}
	return &l, nil
}

// parsePeriod reads "300d", "6m" or "2y".
func parsePeriod(s string) (years, months, days int, ok bool) {
	if len(s) < 2 {
		return 0, 0, 0, false
	}
	n, err := strconv.Atoi(s[:len(s)-1])
	if err != nil || n <= 0 || n > 100*366 {
		return 0, 0, 0, false
	}
	switch s[len(s)-1] {
	case 'd':
		return 0, 0, n, true
	case 'm':
		return 0, n, 0, true
	case 'y':
		return n, 0, 0, true
	}
	return 0, 0, 0, false
}

// deadline is the last day of the period that runs from t.
func (r *LimitationRule) deadline(t time.Time) time.Time {
	return t.AddDate(r.years, r.months, r.days)
}

// DefaultLimitations are the periods embedded in the package.
var DefaultLimitations = sync.OnceValue(func() *Limitations {
	return mustLoad(LoadLimitations, limitationsYAML)
})

// Expectations say what intake expects of a form (expectations.yaml): the
// documents and amounts each area usually needs, the shortest narrative it
// can triage, and what makes a matter urgent. A loaded Expectations is
// read-only and safe for concurrent use.
type Expectations struct {
	Version           int      `yaml:"version"`
	MinNarrativeWords int      `yaml:"min_narrative_words"`
	UrgentPhrases     []string `yaml:"urgent_phrases"`
	UpcomingDays      int      `yaml:"upcoming_days"`
	FutureLabels      []string `yaml:"future_labels"`
	// PrimaryRatio is the share of the top area's score at which an area
	// is primary, in (0, 1].
	PrimaryRatio float64                 `yaml:"primary_ratio"`
	Areas        map[string]AreaEvidence `yaml:"areas"`
}

// AreaEvidence is what a matter in one area usually needs.
type AreaEvidence struct {
	// Money says the area is usually about money: the form should say how
	// much.
	Money     bool               `yaml:"money"`
	Documents []ExpectedDocument `yaml:"documents"`
}

// ExpectedDocument is a document an area usually needs. It counts as listed
// when a phrase of AnyOf is in the name or description of a form's
// document. Mentions, when set, expects it only of narratives holding one
// of these phrases.
type ExpectedDocument struct {
	Name     string   `yaml:"name"`
	AnyOf    []string `yaml:"any_of"`
	Mentions []string `yaml:"mentions,omitempty"`
}

// LoadExpectations parses and checks expectations in YAML. Unknown fields,
// a missing version, a minimum narrative length below 1 and a document
// without a name or phrases are INVALID_INPUT.
func LoadExpectations(raw []byte) (*Expectations, error) {
	const op = "intake.LoadExpectations"
	var e Expectations
	if err := yaml.UnmarshalWithOptions(raw, &e, yaml.Strict()); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "expectations are not valid YAML of the expected shape")
	}
	if e.Version < 1 || e.MinNarrativeWords < 1 || e.UpcomingDays < 0 || !(e.PrimaryRatio > 0 && e.PrimaryRatio <= 1) {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "expectations: version and min_narrative_words must be 1 or more, upcoming_days 0 or more, primary_ratio in (0, 1]")
	}
	for area, ev := range e.Areas {
		for i, d := range ev.Documents {
			if d.Name == "" || len(d.AnyOf) == 0 {
				return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "expectations: area %s: document %d needs a name and any_of", area, i+1)
			}
		}
	}
	return &e, nil
}

// DefaultExpectations are the expectations embedded in the package.
var DefaultExpectations = sync.OnceValue(func() *Expectations {
	return mustLoad(LoadExpectations, expectationsYAML)
})

// mustLoad loads an embedded file, which the package's tests check.
func mustLoad[T any](load func([]byte) (*T, error), raw []byte) *T {
	v, err := load(raw)
	if err != nil {
		panic(err)
	}
	return v
}
