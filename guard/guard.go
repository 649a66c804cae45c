// Package guard is the Guardrails agent of seed 004 ("The Shield"): it
// checks a text before it reaches a model (input_validation: a user's
// prompt, a retrieved chunk) or before a model's answer leaves
// (output_safety), and says whether it is safe, why, and where in the text
// it found what it found.
//
// Prompt injection and jailbreaks are found by guard/injection: rules over
// the text folded to plain lower-case letters (confusables, invisible and
// bidirectional characters, encoded and spaced-out payloads) and a
// logistic regression over hashed word and character n-grams. Either one
// makes a text unsafe.
package guard

import (
	"fmt"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/guard/injection"
	"github.com/sanadhq/sanad/guard/pii"
)

// Check types.
const (
	InputValidation = "input_validation"
	OutputSafety    = "output_safety"
)

// Risk categories.
const (
	RiskInjection     = "injection"
	RiskPII           = "pii"
	RiskHateSpeech    = "hate_speech"
	RiskMaliciousCode = "malicious_code"
	RiskNone          = "none"
)

// KindClassifier is the Kind of the [Finding] the classifier makes.
const KindClassifier = "classifier"

// Input is a text to check (seed 004's GuardrailsInput).
type Input struct {
	Content   string         `json:"content"`
	CheckType string         `json:"check_type"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// Output is the verdict on an [Input] (seed 004's GuardrailsOutput).
type Output struct {
	IsSafe           bool   `json:"is_safe"`
	SanitizedContent string `json:"sanitized_content"`
	// RiskCategory is injection, pii, hate_speech, malicious_code or none.
	RiskCategory string `json:"risk_category"`
	Reasoning    string `json:"reasoning"`
	// Findings are what was found, with byte offsets into Content.
	Findings []Finding `json:"findings,omitempty"`
	// Mapping maps each placeholder of SanitizedContent to the text it
	// replaced, when Config.Reversible; it is never serialised.
	Mapping pii.Mapping `json:"-"`
	// InjectionScore is the classifier's probability, in [0, 1], that
	// Content is an injection.
	InjectionScore float64 `json:"injection_score"`
}

// Finding is one thing found in a text: a rule of guard/injection (its id,
// such as instruction_override), the classifier ("classifier"), or a kind
// of personal data; and the bytes [Start, End) of the content it covers.
type Finding struct {
	Kind   string `json:"kind"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
	Detail string `json:"detail"`
}

// Defaults of Config.
const (
	DefaultInjectionThreshold = injection.DefaultThreshold
	// DefaultOutputInjectionThreshold is the classifier probability at or
	// above which an answer (output_safety) is an injection by the
	// classifier alone; the rules decide at any score.
	DefaultOutputInjectionThreshold = 0.9
	DefaultMaxContentBytes          = 1 << 20
)

// Config sets up a [Guard].
type Config struct {
	// InjectionThreshold is the classifier probability at or above which
	// a text is an injection (DefaultInjectionThreshold when 0).
	InjectionThreshold float64
	// OutputInjectionThreshold is InjectionThreshold for output_safety
	// (DefaultOutputInjectionThreshold when 0).
	OutputInjectionThreshold float64
	// MaxContentBytes is the largest content Check accepts
	// (DefaultMaxContentBytes when 0).
	MaxContentBytes int
	// Model is the injection classifier; nil means the one built into
	// the binary (injection.Embedded).
	Model *injection.Model
	// PII configures the personal-data detector (every built-in type when
	// zero).
	PII pii.Config
	// KeepPII leaves personal data in SanitizedContent: for a policy that
	// allows raw personal data where the text goes. It is still found and
	// reported.
	KeepPII bool
	// Reversible keeps, in Output.Mapping, the placeholders' original
	// values, for a policy that allows the redaction to be undone.
	Reversible bool
}

// Validate reports a setting out of range.
func (c Config) Validate() error {
	const op = "guard.Config"
	if c.InjectionThreshold < 0 || c.InjectionThreshold > 1 || c.InjectionThreshold != c.InjectionThreshold {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "injection threshold %v is outside [0, 1]", c.InjectionThreshold)
	}
	if c.OutputInjectionThreshold < 0 || c.OutputInjectionThreshold > 1 || c.OutputInjectionThreshold != c.OutputInjectionThreshold {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "output injection threshold %v is outside [0, 1]", c.OutputInjectionThreshold)
	}
	if c.MaxContentBytes < 0 {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "max content bytes %d is negative", c.MaxContentBytes)
	}
	return nil
}

// Guard checks texts. It is safe for concurrent use.
type Guard struct {
	det          injection.Detector
	outThreshold float64
	pii          *pii.Detector
	cfg          Config
	max          int
}

// New returns a Guard with the settings of cfg.
func New(cfg Config) (*Guard, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := cfg.Model
	if m == nil {
		var err error
		if m, err = injection.Embedded(); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInternal, "guard.New", "the built-in injection model does not load")
		}
	}
	d, err := pii.New(cfg.PII)
	if err != nil {
		return nil, err
	}
	g := &Guard{det: injection.Detector{Model: m, Threshold: cfg.InjectionThreshold}, pii: d, cfg: cfg, max: cfg.MaxContentBytes}
	if g.det.Threshold == 0 {
		g.det.Threshold = DefaultInjectionThreshold
	}
	g.outThreshold = cfg.OutputInjectionThreshold
	if g.outThreshold == 0 {
		g.outThreshold = DefaultOutputInjectionThreshold
	}
	if g.max == 0 {
		g.max = DefaultMaxContentBytes
	}
	return g, nil
}

// Check checks in.Content. Both check types look for injections: in
// input_validation, instructions smuggled into a prompt or a retrieved
// chunk; in output_safety, instructions a model's answer would pass on to
// the next agent. The error is INVALID_INPUT, for a check type that is
// neither or content over the size limit; any text is checked, whatever
// its bytes.
func (g *Guard) Check(in Input) (Output, error) {
	const op = "guard.Check"
	switch in.CheckType {
	case InputValidation, OutputSafety:
	default:
		return Output{}, sanad.Errorf(sanad.CodeInvalidInput, op, "check_type %q: want %s or %s", in.CheckType, InputValidation, OutputSafety)
	}
	if len(in.Content) > g.max {
		return Output{}, sanad.Errorf(sanad.CodeInvalidInput, op, "content is %d bytes, over the limit of %d: check it in chunks", len(in.Content), g.max)
	}
	res := g.det.Detect(in.Content)
	th := g.det.Threshold
	if in.CheckType == OutputSafety {
		// The classifier learnt from prompts, not from answers: on an
		// answer it decides alone only when it is all but sure.
		th = g.outThreshold
		res.ModelHit = res.Score >= th
	}
	out := Output{
		IsSafe:           !res.Injection(),
		SanitizedContent: in.Content,
		RiskCategory:     RiskNone,
		InjectionScore:   res.Score,
	}
	for _, m := range res.Matches {
		out.Findings = append(out.Findings, Finding{Kind: m.Rule, Start: m.Start, End: m.End, Detail: m.Detail})
	}
	if res.ModelHit {
		out.Findings = append(out.Findings, Finding{Kind: KindClassifier, Start: 0, End: len(in.Content),
			Detail: fmt.Sprintf("probability %.3f of an injection, at or above the threshold %.2f", res.Score, th)})
	}
	if res.Injection() {
		out.RiskCategory = RiskInjection
	}

	out.Reasoning = reasoning(res, th)

	// Personal data is redacted by type ("[EMAIL_ADDRESS_1]") unless the
	// policy keeps it. A request whose personal data was redacted may go
	// on as sanitised; an answer that carried any is not safe as it was.
	ents, err := g.pii.Scan(in.Content)
	if err != nil {
		return Output{}, err
	}
	if len(ents) > 0 {
		counts := map[string]int{}
		var types []string
		for _, e := range ents {
			out.Findings = append(out.Findings, Finding{Kind: e.Type, Start: e.Start, End: e.End, Detail: fmt.Sprintf("personal data, score %.2f", e.Score)})
			if counts[e.Type] == 0 {
				types = append(types, e.Type)
			}
			counts[e.Type]++
		}
		var what []string
		for _, t := range types {
			what = append(what, fmt.Sprintf("%s×%d", t, counts[t]))
		}
		if !g.cfg.KeepPII {
			var m pii.Mapping
			out.SanitizedContent, m = pii.Redact(in.Content, ents)
			if g.cfg.Reversible {
				out.Mapping = m
			}
		}
		if out.RiskCategory == RiskNone {
			out.RiskCategory = RiskPII
			if in.CheckType == OutputSafety {
				out.IsSafe = false
			}
		}
		verb := "redacted"
		if g.cfg.KeepPII {
			verb = "kept, as the policy allows"
		}
		out.Reasoning += "; personal data " + verb + ": " + strings.Join(what, ", ")
	}
	return out, nil
}

// reasoning says in one line what decided the verdict.
func reasoning(res injection.Result, threshold float64) string {
	var parts []string
	seen := map[string]bool{}
	for _, m := range res.Matches {
		if injection.Signal(m.Rule) || seen[m.Rule] {
			continue
		}
		seen[m.Rule] = true
		parts = append(parts, fmt.Sprintf("%s at bytes %d-%d", m.Rule, m.Start, m.End))
	}
	cmp := "below"
	if res.ModelHit {
		cmp = "at or above"
	}
	clf := fmt.Sprintf("classifier probability %.3f, %s the threshold %.2f", res.Score, cmp, threshold)
	var signals []string
	for _, m := range res.Matches {
		if injection.Signal(m.Rule) && !seen[m.Rule] {
			seen[m.Rule] = true
			signals = append(signals, m.Rule)
		}
	}
	var b strings.Builder
	if res.Injection() {
		b.WriteString("prompt injection: ")
		if len(parts) > 0 {
			b.WriteString("rules matched (" + strings.Join(parts, "; ") + "); ")
		}
		b.WriteString(clf)
	} else {
		b.WriteString("no injection found: no rule matched; " + clf)
	}
	if len(signals) > 0 {
		b.WriteString("; also seen: " + strings.Join(signals, ", "))
	}
	return b.String()
}
