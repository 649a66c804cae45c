package debate

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sanadhq/sanad"
)

// The rules of §7.1. Each is checked on every output, whether a model or a
// deterministic role wrote it.
const (
	// RuleNoFreeFacts: an output that asserts a fact cites the claims it
	// rests on, and each is in the registry.
	RuleNoFreeFacts = "NO_FREE_FACTS"
	// RuleFalsifiabilityMissing: above 0.50 confidence an output says what
	// would prove it wrong.
	RuleFalsifiabilityMissing = "FALSIFIABILITY_MISSING"
	// RuleUncertaintiesMissing: an output that rests on a claim graded
	// below A, or carried by one source only (Āḥād), says what it is unsure
	// of.
	RuleUncertaintiesMissing = "UNCERTAINTIES_MISSING"
	// RuleOverconfidence: above 0.80 confidence an output names an
	// uncertainty or a counter-hypothesis.
	RuleOverconfidence = "OVERCONFIDENCE"
	// RuleSchema: the output does not have the shape of §3.2 (a missing
	// record, a confidence outside [0, 1], an unknown role).
	RuleSchema = "SCHEMA"
)

// Violation is one broken rule.
type Violation struct {
	Rule   string `json:"rule"`
	Detail string `json:"detail"`
}

// Evidence is what the enforcer knows of the claims and calcs an output may
// cite: each claim's grade ("A"–"D") and whether one source alone carries it.
//
// States, when set, is what each claim or calc states, by id: the claim's
// text, value and period, the calc's value. Rule 1 is then checked to the
// figure: every id an output cites (claim_refs and calc_refs too) must be
// known, and every figure of its factual assertions must be one that a
// cited claim or calc states. An output written by a model is checked with
// States; one whose content its author controls, without.
type Evidence struct {
	Claims map[string]ClaimInfo `json:"claims"`
	Calcs  map[string]bool      `json:"calcs"`
	States map[string]string    `json:"states,omitempty"`
}

// ClaimInfo is what the enforcer knows of one claim.
type ClaimInfo struct {
	Grade string `json:"grade"`
	Ahad  bool   `json:"ahad"`
}

// Weak reports whether a claim is graded below A or carried by one source.
func (c ClaimInfo) Weak() bool { return c.Grade != "A" || c.Ahad }

// Check applies the rules of §7.1 to out and returns every violation, none
// when the output may pass the gate.
func Check(out Output, ev Evidence) []Violation {
	var vs []Violation
	add := func(rule, format string, args ...any) {
		vs = append(vs, Violation{Rule: rule, Detail: fmt.Sprintf(format, args...)})
	}
	r := out.Muhasabah
	switch {
	case !slices.Contains(Roles, out.Role):
		add(RuleSchema, "role %q is not one of %s", out.Role, strings.Join(Roles, ", "))
	case out.AgentID == "":
		add(RuleSchema, "the output names no agent")
	case r.Confidence < 0 || r.Confidence > 1 || r.Confidence != r.Confidence:
		add(RuleSchema, "confidence %v is outside [0, 1]", r.Confidence)
	}

	// Rule 1: no free facts. Cited ids must be in the registry, or they
	// support nothing.
	var unknown []string
	for _, id := range r.SupportedClaimIDs {
		if _, ok := ev.Claims[id]; !ok {
			unknown = append(unknown, id)
		}
	}
	for _, id := range r.SupportedCalcIDs {
		if !ev.Calcs[id] {
			unknown = append(unknown, id)
		}
	}
	facts := FactualAssertions(out.Content)
	reported := false
	cited := len(r.SupportedClaimIDs) > 0 || len(r.SupportedCalcIDs) > 0
	if len(facts) > 0 {
		switch {
		case !cited:
			add(RuleNoFreeFacts, "factual assertions without claim ids: %q", facts[0])
		case len(unknown) > 0:
			add(RuleNoFreeFacts, "cites ids the registry does not hold: %s", strings.Join(unknown, ", "))
			reported = true
		}
	}
	if ev.States != nil {
		if !reported {
			for _, id := range out.ClaimRefs {
				if _, ok := ev.Claims[id]; !ok && !slices.Contains(unknown, id) {
					unknown = append(unknown, id)
				}
			}
			for _, id := range out.CalcRefs {
				if !ev.Calcs[id] && !slices.Contains(unknown, id) {
					unknown = append(unknown, id)
				}
			}
			if len(unknown) > 0 {
				add(RuleNoFreeFacts, "cites ids the registry does not hold: %s", strings.Join(unknown, ", "))
			}
		}
		if f, sentence := untraced(facts, out, ev.States); f != "" && cited {
			add(RuleNoFreeFacts, "the figure %s in %q is stated by no cited claim or calc", f, sentence)
		}
	}

	// Rule 2: falsifiability.
	if r.Confidence > 0.50 && len(r.FalsifiabilityTests) == 0 {
		add(RuleFalsifiabilityMissing, "confidence %.2f without a falsifiability test", r.Confidence)
	}

	// Rule 3: uncertainties for weak sources.
	if len(r.Uncertainties) == 0 {
		for _, id := range r.SupportedClaimIDs {
			if c, ok := ev.Claims[id]; ok && c.Weak() {
				why := "grade " + c.Grade
				if c.Ahad {
					why = "a single source (Āḥād)"
				}
				add(RuleUncertaintiesMissing, "rests on claim %s (%s) without an uncertainty", id, why)
				break
			}
		}
	}

	// Rule 4: overconfidence.
	if r.Confidence > 0.80 && len(r.Uncertainties) == 0 && strings.TrimSpace(r.CounterHypothesis) == "" {
		add(RuleOverconfidence, "confidence %.2f without an uncertainty or a counter-hypothesis", r.Confidence)
	}
	return vs
}

// GateError is an output the gate rejected (MUHASABAH_GATE).
type GateError struct {
	AgentID    string
	Violations []Violation
}

func (e *GateError) Error() string {
	rules := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		rules[i] = v.Rule
	}
	return fmt.Sprintf("the Muḥāsabah gate rejected the output of %s: %s", e.AgentID, strings.Join(rules, ", "))
}

// Gate is the fail-closed gate of §7.2: an output that breaks a rule is
// reported to reject (the muhasabah.rejected event, which must be recorded
// before the gate answers) and refused with a MUHASABAH_GATE error wrapping
// a *GateError. A reject that cannot be recorded refuses the output too.
func Gate(out Output, ev Evidence, reject func(Rejection) error) error {
	vs := Check(out, ev)
	if len(vs) == 0 {
		return nil
	}
	ge := &GateError{AgentID: out.AgentID, Violations: vs}
	if reject != nil {
		if err := reject(Rejection{AgentID: out.AgentID, Role: out.Role, RoundNumber: out.RoundNumber, Violations: vs}); err != nil {
			return sanad.Wrap(err, sanad.CodeMuhasabahGate, "debate.gate", ge.Error()+"; and the rejection could not be recorded")
		}
	}
	return sanad.Wrap(ge, sanad.CodeMuhasabahGate, "debate.gate", ge.Error())
}

// Rejection is the body of a muhasabah.rejected event.
type Rejection struct {
	DebateID    string      `json:"debate_id,omitempty"`
	AgentID     string      `json:"agent_id"`
	Role        string      `json:"role"`
	RoundNumber int         `json:"round_number,omitempty"`
	Violations  []Violation `json:"violations"`
}

var (
	// figureRE finds a figure: a number with its currency, scale or
	// percent, or a year.
	figureRE = regexp.MustCompile(`(?i)[$£€¥]\s?\d|\d[\d,.]*\s?(%|percent|per cent|bn|billion|m\b|million|k\b|thousand)|\b\d{1,3}(,\d{3})+\b|\b\d+\.\d+\b|\b(19|20)\d\d\b`)
	// notAFact are numbers that state nothing about the deal: a round, a
	// step, a citation marker, a list number.
	notAFactRE = regexp.MustCompile(`(?i)\b(round|step|rule|item|section|clause|§)\s*\d+|\[\d+\]|^\s*\d+[.)]\s`)
	// numberRE finds the number of a figure: 48.2 in "£48.2m", 2024 in
	// "FY2024", 1,250 in "1,250 customers".
	numberRE = regexp.MustCompile(`\d[\d,]*(\.\d+)?`)
	// periodRE finds a period whose year figureRE does not see: FY2024,
	// Q3-2025, LTM-2025.
	periodRE = regexp.MustCompile(`(?i)\b(FY|LTM-?|[QH][1-4]-?)\s?(19|20)\d\d\b`)
	// sentenceEnd ends a sentence: a stop followed by a space or the end,
	// so that "£48.2m" stays whole.
	sentenceEnd = regexp.MustCompile(`[.!?](\s+|$)|\n+`)
)

// FactualAssertions returns the sentences of content that state a figure
// about the deal (an amount, a percentage, a count with thousands
// separators, a year): what must rest on a claim. A sentence that states no
// figure, a question, and a number that only numbers a round, a step or a
// citation are not assertions of fact.
func FactualAssertions(content string) []string {
	var out []string
	var sentences []string
	last := 0
	for _, loc := range sentenceEnd.FindAllStringIndex(content, -1) {
		end := loc[0]
		if content[end] != '\n' {
			end++ // keep the stop: a question ends in '?'
		}
		sentences = append(sentences, content[last:end])
		last = loc[1]
	}
	sentences = append(sentences, content[last:])
	for _, s := range sentences {
		s = strings.TrimSpace(s)
		if s == "" || strings.HasSuffix(s, "?") {
			continue
		}
		if figureRE.MatchString(notAFactRE.ReplaceAllString(s, " ")) {
			out = append(out, s)
		}
	}
	return out
}

// untraced returns the first figure of the factual assertions facts of out
// whose number no claim or calc out cites states (by states), with its
// sentence; "" when each is stated. A figure is what FactualAssertions
// takes for one (a count without a unit is not); numbers are compared
// without their thousands separators.
func untraced(facts []string, out Output, states map[string]string) (figure, sentence string) {
	if len(facts) == 0 {
		return "", ""
	}
	stated := map[string]bool{}
	r := out.Muhasabah
	for _, ids := range [][]string{out.ClaimRefs, r.SupportedClaimIDs, out.CalcRefs, r.SupportedCalcIDs} {
		for _, id := range ids {
			for _, n := range numberRE.FindAllString(states[id], -1) {
				stated[strings.ReplaceAll(n, ",", "")] = true
			}
		}
	}
	for _, s := range facts {
		plain := notAFactRE.ReplaceAllString(s, " ")
		figures := append(figureRE.FindAllStringIndex(plain, -1), periodRE.FindAllStringIndex(plain, -1)...)
		for _, loc := range numberRE.FindAllStringIndex(plain, -1) {
			n := plain[loc[0]:loc[1]]
			// The number is (part of) a figure: "£48.2m" matches as "£4".
			inFigure := slices.ContainsFunc(figures, func(f []int) bool { return f[0] < loc[1] && loc[0] < f[1] })
			if inFigure && !stated[strings.ReplaceAll(n, ",", "")] {
				return n, s
			}
		}
	}
	return "", ""
}
