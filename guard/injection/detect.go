package injection

// DefaultThreshold is the classifier probability at or above which
// [Detector] calls a text an injection.
const DefaultThreshold = 0.5

// Texts longer than windowBytes (of folded text) are scored in windows of
// that size, windowStep apart, and the highest score counts: an injection
// in a long document is not diluted by the rest of it.
const (
	windowBytes = 4096
	windowStep  = 2048
)

// Detector finds prompt injections and jailbreaks: a text is one when a
// rule that is not a signal matches it, or when the classifier's
// probability reaches Threshold. A Detector is safe for concurrent use.
type Detector struct {
	Model     *Model  // nil: rules alone
	Threshold float64 // DefaultThreshold when 0
}

// Result is what [Detector.Detect] found.
type Result struct {
	Matches []Match
	// Score is the classifier's probability that the text is an injection
	// (0 without a model).
	Score float64
	// RuleHit: a rule that is not a signal matched. ModelHit: Score reached
	// the threshold.
	RuleHit  bool
	ModelHit bool
}

// Injection reports whether the text is an injection: rules or classifier.
func (r Result) Injection() bool { return r.RuleHit || r.ModelHit }

// Detect runs the rules and the classifier over text.
func (d *Detector) Detect(text string) Result {
	v, h := fold(text)
	r := Result{Matches: rules(text, &v, &h, 0)}
	r.RuleHit = decisive(r.Matches)
	if d.Model != nil {
		r.Score = d.Model.windowScore(v.s)
		th := d.Threshold
		if th == 0 {
			th = DefaultThreshold
		}
		r.ModelHit = r.Score >= th
	}
	return r
}

// windowScore scores folded text s whole, or in windows when it is long.
func (m *Model) windowScore(s string) float64 {
	if len(s) <= windowBytes {
		return m.score(s)
	}
	best := 0.0
	for a := 0; a < len(s); a += windowStep {
		b := min(a+windowBytes, len(s))
		best = max(best, m.score(s[a:b]))
		if b == len(s) {
			break
		}
	}
	return best
}
