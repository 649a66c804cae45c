package deal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/diligence"
	"github.com/sanadhq/sanad/playbook/debate"
	"github.com/sanadhq/sanad/policy"
)

// limits are the calls of each tool a role may make in a round (§6.2), as
// the policy states them; a tool not listed has no limit.
type limits map[string]int

func limitsOf(pol *policy.Set) limits {
	lim := limits{}
	for _, name := range []string{ToolLookupClaim, ToolLookupCalc, ToolSearchEvidence, ToolFlagDefect, ToolRequestHumanReview, ToolQueryEnrichment} {
		if t, ok := pol.Tool(name); ok && t.MaxCallsPerRound > 0 {
			lim[name] = t.MaxCallsPerRound
		}
	}
	return lim
}

// ToolUse is one call a role made with the debate's tools: about what (a
// defect, a calc, a query) and what came of it.
type ToolUse struct {
	Tool    string `json:"tool"`
	Subject string `json:"subject"`
	// Result is what the call gave: a defect id, a count of results, a
	// gate id.
	Result string `json:"result,omitempty"`
	// Code and Error are the gateway's answer when it refused the call or
	// the tool failed.
	Code  sanad.Code `json:"code,omitempty"`
	Error string     `json:"error,omitempty"`
}

// use has the role of h use the debate's tools once its output passed the
// gate (seed 000 §4, under the matrix of §5):
//
//   - the advocate and the risk officer look up the calcs they cite
//     (lookup_calc);
//   - the sanad breaker flags each defect its output raises (flag_defect),
//     once in the debate: a defect flagged in an earlier round is not
//     flagged again;
//   - the contradiction finder searches the evidence of each fact it says
//     is contradicted (search_evidence);
//   - the risk officer asks the deal's enrichment source about the
//     metrics it cites (query_enrichment), when the manifest names one;
//   - the arbiter, in the last round, asks a person to review when the
//     memo's recommendation is ESCALATE (request_human_review); the debate
//     does not wait for the review, and the memo names its gate.
//
// A role makes at most its round's limit of calls of a tool; h.NotCalled
// says what it left, and why. A call the gateway refuses or that fails is
// recorded in h.Used with its code; any other error ends the step. Each
// call is a recorded effect of the step: a resume reads it back.
func use(ctx context.Context, in agent.Input, a Analysis, h *Heard, lim limits) error {
	u := &user{in: in, h: h, lim: lim, made: map[string]int{}, left: map[string][]string{}}
	o := *h.Output
	var err error
	switch h.Role {
	case debate.RoleAdvocate:
		err = u.lookUpCalcs(ctx, o)
	case debate.RoleSanadBreaker:
		err = u.flagDefects(ctx, a, o)
	case debate.RoleContradictionFinder:
		err = u.searchContradicted(ctx, a, o)
	case debate.RoleRiskOfficer:
		if err = u.lookUpCalcs(ctx, o); err == nil {
			err = u.queryEnrichment(ctx, a, o)
		}
	case debate.RoleArbiter:
		err = u.requestReview(ctx, a, o)
	}
	if err != nil {
		return err
	}
	for _, tool := range slices.Sorted(maps.Keys(u.left)) {
		left := u.left[tool]
		h.NotCalled = append(h.NotCalled, fmt.Sprintf("%s: the limit of %d calls per round was reached; not called for %d more: %s", tool, lim[tool], len(left), strings.Join(left, "; ")))
	}
	return nil
}

// user makes one step's calls of the debate's tools, counting them
// against the round's limits.
type user struct {
	in   agent.Input
	h    *Heard
	lim  limits
	made map[string]int      // calls made, by tool
	left map[string][]string // subjects not called for, by tool
}

// call calls tool about subject with input, unless the round's limit is
// reached (then it notes subject as left and returns nil, false). A
// refusal or a failure is recorded in h.Used and returns nil, false.
func (u *user) call(ctx context.Context, tool, subject string, input any) (json.RawMessage, bool, error) {
	if max := u.lim[tool]; max > 0 && u.made[tool] >= max {
		u.left[tool] = append(u.left[tool], subject)
		return nil, false, nil
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return nil, false, sanad.Wrap(err, sanad.CodeInternal, "deal.use", tool+" input")
	}
	u.made[tool]++
	out, err := u.in.Tools.Call(ctx, tool, raw)
	var te *agent.ToolError
	switch {
	case errors.As(err, &te):
		u.h.Used = append(u.h.Used, ToolUse{Tool: tool, Subject: subject, Code: te.Code, Error: te.Message})
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return out, true, nil
}

func (u *user) used(tool, subject, result string) {
	u.h.Used = append(u.h.Used, ToolUse{Tool: tool, Subject: subject, Result: result})
}

// lookUpCalcs looks up every calc o cites (§4.2).
func (u *user) lookUpCalcs(ctx context.Context, o debate.Output) error {
	for _, id := range unique(append(slices.Clone(o.CalcRefs), o.Muhasabah.SupportedCalcIDs...)) {
		out, ok, err := u.call(ctx, ToolLookupCalc, id, map[string]any{"calc_id": id, "include_inputs": true})
		if err != nil {
			return err
		}
		if ok {
			var got struct {
				Calc struct {
					Name  string  `json:"calc_type"`
					Value float64 `json:"value"`
					Unit  string  `json:"unit"`
				} `json:"calc"`
			}
			_ = json.Unmarshal(out, &got)
			u.used(ToolLookupCalc, id, fmt.Sprintf("%s = %g %s", got.Calc.Name, got.Calc.Value, got.Calc.Unit))
		}
	}
	return nil
}

// flagDefects flags each defect of the analysis that o raises (it cites
// one of its claims) and that no earlier round flagged (§4.4).
func (u *user) flagDefects(ctx context.Context, a Analysis, o debate.Output) error {
	done := map[string]bool{}
	for _, h := range heardBefore(u.in, u.h.Round) {
		for _, t := range h.Used {
			if h.Role == debate.RoleSanadBreaker && t.Tool == ToolFlagDefect {
				done[t.Subject] = true
			}
		}
	}
	known := a.known()
	for _, it := range raised(a.Memo.Defects, o) {
		subject := it.Type + " " + it.Claims[0]
		if done[subject] {
			continue
		}
		var refs []string
		for _, id := range append(slices.Clone(it.Claims), it.Calcs...) {
			if known[id] {
				refs = append(refs, id)
			}
		}
		if len(refs) == 0 {
			u.h.NotCalled = append(u.h.NotCalled, "flag_defect: "+subject+" cites no claim or calc of the registry as its evidence")
			continue
		}
		severity := it.Severity
		if severity == "" {
			severity = debate.SeverityMajor
		}
		out, ok, err := u.call(ctx, ToolFlagDefect, subject, map[string]any{"claim_id": it.Claims[0], "defect_type": it.Type, "severity": severity,
			"description": describe(it), "evidence_refs": refs, "cure_protocol": cure(it.Type)})
		if err != nil {
			return err
		}
		if ok {
			var d debate.Defect
			_ = json.Unmarshal(out, &d)
			u.used(ToolFlagDefect, subject, d.DefectID)
		}
	}
	return nil
}

// searchContradicted searches the evidence of each fact that o says is
// contradicted (§4.3).
func (u *user) searchContradicted(ctx context.Context, a Analysis, o debate.Output) error {
	for _, it := range raised(a.Memo.Contradictions, o) {
		query := strings.TrimSpace(strings.ReplaceAll(it.Metric, "_", " ") + " " + it.Period)
		if query == "" {
			continue
		}
		out, ok, err := u.call(ctx, ToolSearchEvidence, query, map[string]any{"query": query, "deal_id": a.Memo.Deal, "limit": 10})
		if err != nil {
			return err
		}
		if ok {
			var got struct {
				Total int `json:"total_count"`
			}
			_ = json.Unmarshal(out, &got)
			u.used(ToolSearchEvidence, query, fmt.Sprintf("%d evidence items", got.Total))
		}
	}
	return nil
}

// queryEnrichment asks the deal's enrichment source about the company's
// metrics that o cites (§4.6), when the manifest names a source.
func (u *user) queryEnrichment(ctx context.Context, a Analysis, o debate.Output) error {
	if !a.Enrichment {
		u.h.NotCalled = append(u.h.NotCalled, "query_enrichment: the deal's manifest names no enrichment source")
		return nil
	}
	metric := map[string]string{}
	for _, c := range a.Claims {
		metric[c.ID] = c.Value.Metric
	}
	var points []string
	for _, id := range o.ClaimRefs {
		if m := metric[id]; m != "" && !slices.Contains(points, m) && len(points) < maxDataPoints {
			points = append(points, m)
		}
	}
	if len(points) == 0 {
		points = []string{"revenue"}
	}
	slices.Sort(points)
	subject := a.Memo.Company + ": " + strings.Join(points, ", ")
	out, ok, err := u.call(ctx, ToolQueryEnrichment, subject, map[string]any{"entity_type": "COMPANY", "entity_name": a.Memo.Company, "data_points": points})
	if err != nil {
		return err
	}
	if ok {
		var got struct {
			Results []debate.EnrichmentResult `json:"results"`
		}
		_ = json.Unmarshal(out, &got)
		u.used(ToolQueryEnrichment, subject, fmt.Sprintf("%d data points of grade C or D, to corroborate", len(got.Results)))
	}
	return nil
}

// maxDataPoints bounds the data points of one enrichment query (its
// schema's maxItems).
const maxDataPoints = 20

// requestReview asks a person to review the deal (§4.5) when the memo
// recommends ESCALATE, in the last round the arbiter speaks.
func (u *user) requestReview(ctx context.Context, a Analysis, o debate.Output) error {
	if a.Memo.Recommendation != diligence.Escalate || u.h.Round != a.Rounds {
		return nil
	}
	claims := unique(o.ClaimRefs)
	var why []string
	for _, r := range a.Memo.Reasons {
		why = append(why, r.Text)
		if len(o.ClaimRefs) == 0 {
			claims = unique(append(claims, r.Claims...))
		}
	}
	if len(claims) == 0 {
		u.h.NotCalled = append(u.h.NotCalled, "request_human_review: the memo recommends ESCALATE but cites no claim to review")
		return nil
	}
	reason := cut(fmt.Sprintf("The debate recommends %s (it stopped on %s): %s", a.Memo.Recommendation, a.Memo.StopReason, strings.Join(why, " ")), maxReviewReason)
	const priority, role = "HIGH", "ANALYST"
	out, ok, err := u.call(ctx, ToolRequestHumanReview, "the recommendation "+a.Memo.Recommendation,
		map[string]any{"claim_ids": claims, "reason": reason, "priority": priority, "required_role": role})
	if err != nil || !ok {
		return err
	}
	var got struct {
		GateID       string `json:"gate_id"`
		RequiredRole string `json:"required_role"`
	}
	_ = json.Unmarshal(out, &got)
	u.used(ToolRequestHumanReview, "the recommendation "+a.Memo.Recommendation, got.GateID)
	u.h.Review = &diligence.Review{GateID: got.GateID, Reason: reason, Priority: priority, RequiredRole: got.RequiredRole, Claims: claims, Round: u.h.Round}
	return nil
}

// maxReviewReason bounds a review's reason, within its schema's 2,000
// characters.
const maxReviewReason = 1900

// raised returns the items o raises: those it cites a claim of.
func raised(items []diligence.Item, o debate.Output) []diligence.Item {
	var out []diligence.Item
	for _, it := range items {
		if len(it.Claims) > 0 && slices.ContainsFunc(it.Claims, func(id string) bool { return slices.Contains(o.ClaimRefs, id) }) {
			out = append(out, it)
		}
	}
	return out
}

// known returns the ids of the registry's claims and calcs that the
// analysis knows.
func (a Analysis) known() map[string]bool {
	ids := map[string]bool{}
	for _, c := range a.Claims {
		ids[c.ID] = true
	}
	for _, r := range a.Memo.Calcs {
		ids[r.CalcID] = true
	}
	return ids
}

// describe is a defect's description for flag_defect: what it is, of what,
// where, and the analysis' words; at least the 50 characters §6.2 asks.
func describe(it diligence.Item) string {
	s := strings.ReplaceAll(it.Type, "_", " ")
	if it.Metric != "" {
		s += " of " + strings.TrimSpace(strings.ReplaceAll(it.Metric, "_", " ")+" "+it.Period)
	}
	if len(it.Documents) > 0 {
		s += " in " + strings.Join(it.Documents, " and ")
	}
	if it.Text != "" {
		s += ": " + it.Text
	}
	if len([]rune(s)) < 50 {
		s += ". The evidence chain of the claim does not carry it."
	}
	return s
}

// cures are the cure protocols of the defect types.
var cures = map[string]string{
	diligence.TypeSingleSource:           "Corroborate the figure with an independent source: audited statements or bank data.",
	diligence.TypeWeakGrade:              "Obtain the figure from a grade A source (audited statements or bank data).",
	diligence.TypeMissingSource:          "Ask the company for the source the figure rests on, and grade it.",
	diligence.TypeStalePeriod:            "Obtain figures for the latest period before relying on the metric.",
	diligence.TypeInconsistentArithmetic: "Recompute the stated rate from its inputs and use the calc in place of the stated figure.",
	diligence.TypeContradiction:          "Reconcile the documents' figures with the company, and rely on the best-graded source.",
}

func cure(defectType string) string {
	if c, ok := cures[defectType]; ok {
		return c
	}
	return "Ask the company for better evidence of the claim, and grade it."
}

func unique(ids []string) []string {
	var out []string
	for _, id := range ids {
		if id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
