package policy

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sanadhq/sanad"
)

// Usage counts the calls of one tool the gateway has already let through:
// in the current round and in the whole run. The call being checked is not
// counted.
type Usage struct {
	Round int
	Run   int
}

// The rules a [Violation] can break.
const (
	ViolationRoundLimit = "max_calls_per_round"
	ViolationRunLimit   = "max_calls_per_run"
	ViolationRequires   = "requires"
)

// Violation is a call or a challenge that breaks a rule of tools.yaml. It
// reaches callers wrapped in a *sanad.Error; use errors.As to read it.
type Violation struct {
	Tool   string // the tool; empty for a challenge
	Rule   string // ViolationRoundLimit, ViolationRunLimit or ViolationRequires
	Field  string // the input field, for ViolationRequires
	Limit  int    // the limit or minimum the rule sets
	Got    int    // what the call had: calls already made, items, characters
	Reason string // what the caller reads
}

func (v *Violation) Error() string { return v.Reason }

const (
	opAbuse     = "policy.abuse"
	opChallenge = "policy.challenge"
)

// CheckAbuse applies the abuse rules of tools.yaml to one call of tool (debate
// §6.2): the per-round and per-run limits against used, then the field rules
// against the call's input (a decoded JSON object). It returns nil when the
// call may proceed, and otherwise a *sanad.Error with code TOOL_ABUSE_RULES
// wrapping a *Violation. A call refused here should not be counted in Usage.
//
// A tool tools.yaml does not declare has no abuse rules: CheckAbuse returns
// nil, and it is [Set.Decide] that refuses the call. CheckAbuse is pure and
// safe for concurrent use.
func (s *Set) CheckAbuse(tool string, used Usage, input map[string]any) error {
	t, ok := s.tools[tool]
	if !ok {
		return nil
	}
	if used.Round < 0 || used.Run < 0 {
		return sanad.Errorf(sanad.CodeInvalidInput, opAbuse, "call counts cannot be negative")
	}
	if max := t.info.MaxCallsPerRound; max > 0 && used.Round >= max {
		return abuse(&Violation{
			Tool: tool, Rule: ViolationRoundLimit, Limit: max, Got: used.Round,
			Reason: fmt.Sprintf("%s may be called %d times per round; this would be call %d", tool, max, used.Round+1),
		})
	}
	if max := t.info.MaxCallsPerRun; max > 0 && used.Run >= max {
		return abuse(&Violation{
			Tool: tool, Rule: ViolationRunLimit, Limit: max, Got: used.Run,
			Reason: fmt.Sprintf("%s may be called %d times per run; this would be call %d", tool, max, used.Run+1),
		})
	}
	if v := checkFields(t.info.Requires, input, tool); v != nil {
		return abuse(v)
	}
	return nil
}

func abuse(v *Violation) error {
	return sanad.Wrap(v, sanad.CodeToolAbuse, opAbuse, v.Reason)
}

// CheckChallenge applies the challenges rules of tools.yaml to a challenge (a
// decoded JSON object such as {"claim_refs": [...], "defect_type": "...",
// "evidence_refs": [...]}), so the arbiter can reject a frivolous one (debate
// §6.3). It returns nil for a valid challenge, and otherwise a *sanad.Error
// with code INVALID_INPUT wrapping a *Violation. With no challenges section
// every challenge is valid.
func (s *Set) CheckChallenge(challenge map[string]any) error {
	if v := checkFields(s.challenges, challenge, ""); v != nil {
		return sanad.Wrap(v, sanad.CodeInvalidInput, opChallenge, v.Reason)
	}
	return nil
}

// checkFields returns the first rule input breaks, or nil.
func checkFields(rules []FieldRule, input map[string]any, tool string) *Violation {
	for _, r := range rules {
		got, ok := measure(r, input[r.Field])
		want := r.MinItems
		unit := "items"
		if r.MinChars > 0 {
			want, unit = r.MinChars, "characters"
		}
		if ok && got >= want {
			continue
		}
		reason := r.Reason
		if reason == "" {
			subject := "the input"
			if tool != "" {
				subject = tool
			}
			switch {
			case !ok && r.MinChars > 0:
				reason = fmt.Sprintf("%s needs %s as a string of at least %d characters", subject, r.Field, want)
			case !ok:
				reason = fmt.Sprintf("%s needs %s as a list of at least %d items", subject, r.Field, want)
			default:
				reason = fmt.Sprintf("%s needs at least %d %s in %s; got %d", subject, want, unit, r.Field, got)
			}
		}
		return &Violation{Tool: tool, Rule: ViolationRequires, Field: r.Field, Limit: want, Got: got, Reason: reason}
	}
	return nil
}

// measure returns the size of v by rule r: characters of a string without
// surrounding space, or non-empty items of a list. ok is false when v is
// missing or of the wrong type.
func measure(r FieldRule, v any) (n int, ok bool) {
	if r.MinChars > 0 {
		s, ok := v.(string)
		if !ok {
			return 0, false
		}
		return utf8.RuneCountInString(strings.TrimSpace(s)), true
	}
	switch l := v.(type) {
	case []any:
		for _, item := range l {
			if present(item) {
				n++
			}
		}
		return n, true
	case []string:
		for _, item := range l {
			if present(item) {
				n++
			}
		}
		return n, true
	}
	return 0, false
}

// present reports whether a list item counts: not null, not a blank string.
func present(item any) bool {
	switch v := item.(type) {
	case nil:
		return false
	case string:
		return strings.TrimSpace(v) != ""
	}
	return true
}
