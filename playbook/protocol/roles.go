package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/runs"
)

// Env is what a role works with in one session: the task, the thresholds
// in force, the tools' risk classes and the session's artifacts.
type Env struct {
	Task       *Task
	Thresholds Thresholds
	Scope      sanad.Scope
	// Dataset is the artifact of the task's fixtures; zero when it has none.
	Dataset sanad.ArtifactRef
	// Attachments are the task's attachments by name. One the task declares
	// by digest may be missing from the store.
	Attachments map[string]sanad.ArtifactRef
	// Risk returns a tool's risk class under the session's policy, and
	// false for a tool the executor may not call.
	Risk func(tool string) (string, bool)
	// Read returns an artifact's content from the session's scope.
	Read func(ctx context.Context, ref sanad.ArtifactRef) ([]byte, error)
	// Input returns the stored input a tool intent of the session signed.
	Input func(ctx context.Context, intent string) ([]byte, error)
	// Session is the session run: the parent of the runs that record a
	// role's own calls, such as a model's (see [ModelCall]). Roster names
	// each role's identity.
	Session *runs.Run
	Roster  Roster
}

// Execution is a tool execution a claim relies on: the intent, the
// completed execution, its artifacts and the output (nil if unreadable).
type Execution struct {
	Intent IntentBody
	Result ExecutionBody
	Refs   []sanad.ArtifactRef
	Output json.RawMessage
}

// ToolCall is what an executor intends to call.
type ToolCall struct {
	Tool          string
	Input         json.RawMessage
	Justification string
}

// ClaimDraft is a claim before the engine numbers and records it.
type ClaimDraft struct {
	Text       string
	Confidence float64
	Evidence   []sanad.ArtifactRef
	Assertion  *Assertion
}

// Planner turns a task into proposals, and revises a proposal that was
// rejected, whose intent was blocked, or whose execution failed (cause
// "rejected", "blocked", "failed"). Revise returns nil when it has no
// revision. The engine numbers proposals; ids set by a planner are ignored.
type Planner interface {
	Propose(ctx context.Context, env *Env) ([]ProposalBody, error)
	Revise(ctx context.Context, env *Env, p ProposalBody, cause string) (*ProposalBody, error)
}

// Critic reviews proposals (approve, conditional, reject), approves or
// blocks tool intents, and challenges weak or contradictory claims (nil:
// no challenge).
type Critic interface {
	ReviewProposal(ctx context.Context, env *Env, p ProposalBody) (ProposalReviewBody, error)
	ReviewIntent(ctx context.Context, env *Env, in IntentBody) (IntentReviewBody, error)
	ReviewClaim(ctx context.Context, env *Env, p ProposalBody, c ClaimBody, x *Execution) (*ChallengeBody, error)
}

// Executor says which tool call serves a proposal, claims what its
// execution shows, and revises a challenged claim (nil: no revision). The
// engine computes the input hash and the risk class of an intent and runs
// the call; an executor never calls a tool itself.
type Executor interface {
	Intend(ctx context.Context, env *Env, p ProposalBody) (ToolCall, error)
	Claim(ctx context.Context, env *Env, p ProposalBody, x Execution) (*ClaimDraft, error)
	ReviseClaim(ctx context.Context, env *Env, c ClaimBody, ch ChallengeBody, x Execution) (*ClaimDraft, error)
}

// Auditor judges a session once the mandatory checks have run: it may add
// findings to the report. It cannot remove the checks' errors: the engine
// keeps them whatever the auditor does.
type Auditor interface {
	Assess(ctx context.Context, env *Env, r *Report) error
}

// Deterministic roles: offline, rule-based, the same answer for the same
// trace, so that a resumed session decides exactly as it would have.
type (
	// TaskPlanner proposes one unit per objective and revises with the
	// objective's fallback plan.
	TaskPlanner struct{}
	// ThresholdCritic applies the session's thresholds.
	ThresholdCritic struct{}
	// TaskExecutor runs each objective's plan and claims what it sets out.
	TaskExecutor struct{}
	// CoverageAuditor warns of what the session did not achieve.
	CoverageAuditor struct{}
)

var (
	_ Planner  = TaskPlanner{}
	_ Critic   = ThresholdCritic{}
	_ Executor = TaskExecutor{}
	_ Auditor  = CoverageAuditor{}
)

// plan returns the plan a proposal carries out: its objective's, or the
// fallback for a revision. A proposal that gives its own tool input (a
// [ModelPlanner]'s) carries out the objective's plan for its tool, the
// fallback first for a revision, with that input: the claim is the plan's,
// and its assertion is checked against what the input produced.
func plan(env *Env, p ProposalBody) (*Objective, *Plan, error) {
	o := env.Task.Objective(p.ObjectiveID)
	if o == nil {
		return nil, nil, sanad.Errorf(sanad.CodeIntegrity, "protocol.plan", "proposal %s names objective %q, which the task does not have", p.ProposalID, p.ObjectiveID)
	}
	if len(p.Input) > 0 {
		plans := []*Plan{&o.Plan, o.Fallback}
		if p.Revises != "" {
			plans[0], plans[1] = plans[1], plans[0]
		}
		for _, pl := range plans {
			if pl != nil && len(p.RequiredTools) == 1 && pl.Tool == p.RequiredTools[0] {
				own := *pl
				own.Input = p.Input
				return o, &own, nil
			}
		}
		return nil, nil, sanad.Errorf(sanad.CodeIntegrity, "protocol.plan", "proposal %s requires %s, which objective %q does not plan", p.ProposalID, strings.Join(p.RequiredTools, ", "), o.ID)
	}
	if p.Revises != "" {
		if o.Fallback == nil {
			return nil, nil, sanad.Errorf(sanad.CodeIntegrity, "protocol.plan", "proposal %s revises %s, but objective %q has no fallback", p.ProposalID, p.Revises, o.ID)
		}
		return o, o.Fallback, nil
	}
	return o, &o.Plan, nil
}

func unit(env *Env, o *Objective, pl *Plan, risk string) ProposalBody {
	expected := []string{"the output of " + pl.Tool}
	for _, c := range o.Evidence.Cite {
		expected = append(expected, "attachment "+c)
	}
	expected = append(expected, o.Evidence.Expect...)
	if r, ok := env.Risk(pl.Tool); ok && riskRank(r) > riskRank(risk) {
		risk = r
	}
	if risk == "" {
		risk = RiskLow
	}
	return ProposalBody{
		ObjectiveID: o.ID, Objective: o.Objective, Assumptions: append([]string{}, o.Assumptions...),
		RequiredTools: []string{pl.Tool}, ExpectedEvidence: expected,
		MinEvidence: max(o.Evidence.Min, env.Thresholds.MinEvidence), Risk: risk,
	}
}

// Propose implements [Planner].
func (TaskPlanner) Propose(_ context.Context, env *Env) ([]ProposalBody, error) {
	out := make([]ProposalBody, 0, len(env.Task.Objectives))
	for i := range env.Task.Objectives {
		o := &env.Task.Objectives[i]
		out = append(out, unit(env, o, &o.Plan, o.Risk))
	}
	return out, nil
}

// Revise implements [Planner]: a first proposal is revised once, with its
// objective's fallback plan.
func (TaskPlanner) Revise(_ context.Context, env *Env, p ProposalBody, cause string) (*ProposalBody, error) {
	o := env.Task.Objective(p.ObjectiveID)
	if o == nil || o.Fallback == nil || p.Revises != "" {
		return nil, nil
	}
	u := unit(env, o, o.Fallback, "")
	u.Assumptions = append(u.Assumptions, "the first plan ("+o.Tool+") was "+cause)
	return &u, nil
}

// ReviewProposal implements [Critic]: a tool the executor may not call, or
// critical risk, rejects; risk from review_from on approves on the condition
// that the critic approves the intent; anything else approves.
func (ThresholdCritic) ReviewProposal(_ context.Context, env *Env, p ProposalBody) (ProposalReviewBody, error) {
	th := env.Thresholds
	r := ProposalReviewBody{ProposalID: p.ProposalID, Status: ReviewApproved}
	for _, t := range p.RequiredTools {
		if _, ok := env.Risk(t); !ok {
			r.Status, r.Reason = ReviewRejected, "tool "+t+" is not open to the executor under the session's policy"
			return r, nil
		}
	}
	switch rank := riskRank(p.Risk); {
	case p.Risk == RiskCritical:
		r.Status, r.Reason = ReviewRejected, "critical risk: a session never executes it"
	case rank > riskRank(th.MaxRisk):
		r.Status, r.Reason = ReviewConditional, fmt.Sprintf("risk %s is above max_risk %s", p.Risk, th.MaxRisk)
		r.Conditions = []string{"the critic reviews the tool intent, and blocks it if its risk class stays above max_risk " + th.MaxRisk}
	case rank >= riskRank(th.ReviewFrom):
		r.Status, r.Reason = ReviewConditional, fmt.Sprintf("risk %s needs the critic's approval of the intent", p.Risk)
		r.Conditions = []string{"the critic approves the signed tool intent before it executes"}
	default:
		r.Reason = fmt.Sprintf("risk %s is below review_from %s; %d evidence artifact(s) expected", p.Risk, th.ReviewFrom, p.MinEvidence)
	}
	return r, nil
}

// ReviewIntent implements [Critic]: an intent above max_risk is blocked.
func (ThresholdCritic) ReviewIntent(_ context.Context, env *Env, in IntentBody) (IntentReviewBody, error) {
	max := env.Thresholds.MaxRisk
	if riskRank(in.RiskClass) > riskRank(max) {
		return IntentReviewBody{IntentID: in.IntentID, Decision: IntentBlocked,
			Reason: fmt.Sprintf("%s has risk class %s, above max_risk %s: it needs a person's approval, not a critic's", in.Tool, in.RiskClass, max)}, nil
	}
	return IntentReviewBody{IntentID: in.IntentID, Decision: IntentApproved,
		Reason: fmt.Sprintf("risk class %s is within max_risk %s, input %s", in.RiskClass, max, in.InputHash)}, nil
}

// ReviewClaim implements [Critic]: a claim is weak below min_confidence or
// with fewer artifacts than its proposal expects, and contradictory when
// the output it relies on does not hold what it asserts. Whether the cited
// artifacts exist is the auditor's check, not the critic's.
func (ThresholdCritic) ReviewClaim(_ context.Context, env *Env, p ProposalBody, c ClaimBody, x *Execution) (*ChallengeBody, error) {
	ch := &ChallengeBody{ClaimID: c.ClaimID, Kind: ChallengeWeak}
	if c.Confidence < env.Thresholds.MinConfidence {
		ch.Reasons = append(ch.Reasons, fmt.Sprintf("confidence %.2f is below the minimum %.2f", c.Confidence, env.Thresholds.MinConfidence))
	}
	if need := max(p.MinEvidence, env.Thresholds.MinEvidence); len(c.Evidence) < need {
		ch.Reasons = append(ch.Reasons, fmt.Sprintf("it cites %d artifact(s); at least %d are required", len(c.Evidence), need))
	}
	if a := c.Assertion; a != nil && x != nil && x.Output != nil {
		got, err := fieldAt(x.Output, a.Field)
		if err != nil {
			ch.Kind, ch.Reasons = ChallengeContradictory, append(ch.Reasons, "the "+x.Intent.Tool+" output has no "+a.Field)
		} else if !sameJSON(got, a.Equals) {
			ch.Kind = ChallengeContradictory
			ch.Reasons = append(ch.Reasons, fmt.Sprintf("the %s output gives %s = %s, the claim asserts %s", x.Intent.Tool, a.Field, got, a.Equals))
		}
	}
	if len(ch.Reasons) == 0 {
		return nil, nil
	}
	return ch, nil
}

func sameJSON(a, b json.RawMessage) bool {
	ca, err1 := canon.Transform(a)
	cb, err2 := canon.Transform(b)
	return err1 == nil && err2 == nil && bytes.Equal(ca, cb)
}

// Intend implements [Executor]: the plan's tool and input; a lookup reads
// the task's fixtures.
func (TaskExecutor) Intend(_ context.Context, env *Env, p ProposalBody) (ToolCall, error) {
	o, pl, err := plan(env, p)
	if err != nil {
		return ToolCall{}, err
	}
	input := pl.Input
	if pl.Tool == ToolLookup && env.Dataset.SHA256 != "" {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(input, &m); err != nil {
			return ToolCall{}, sanad.Wrap(err, sanad.CodeInvalidInput, "protocol.intend", "objective "+o.ID+" input")
		}
		if _, ok := m["dataset"]; !ok {
			m["dataset"] = mustJSON(env.Dataset.SHA256)
		}
		if input, err = json.Marshal(m); err != nil {
			return ToolCall{}, err
		}
	}
	why := "objective " + o.ID + ": " + o.Objective
	if p.Revises != "" {
		why += " (fallback: the first plan was " + p.Cause + ")"
	}
	return ToolCall{Tool: pl.Tool, Input: input, Justification: why}, nil
}

// Claim implements [Executor]: the plan's claim, citing the tool output and
// the attachments the objective names.
func (TaskExecutor) Claim(_ context.Context, env *Env, p ProposalBody, x Execution) (*ClaimDraft, error) {
	o, pl, err := plan(env, p)
	if err != nil {
		return nil, err
	}
	d := &ClaimDraft{Text: pl.Claim.Text, Confidence: pl.Claim.Confidence}
	for _, r := range x.Refs {
		if r.ID == x.Result.Output {
			d.Evidence = append(d.Evidence, r)
		}
	}
	for _, name := range o.Evidence.Cite {
		if r, ok := env.Attachments[name]; ok && !slices.ContainsFunc(d.Evidence, func(e sanad.ArtifactRef) bool { return e.ID == r.ID }) {
			d.Evidence = append(d.Evidence, r)
		}
	}
	if pl.Claim.Field != "" {
		d.Assertion = &Assertion{Field: pl.Claim.Field, Equals: pl.Claim.Equals}
	}
	return d, nil
}

// ReviseClaim implements [Executor]: a contradicted claim is revised once,
// to state what the output holds. A weak claim is left as it is: there is
// no more evidence to cite.
func (TaskExecutor) ReviseClaim(_ context.Context, _ *Env, c ClaimBody, ch ChallengeBody, x Execution) (*ClaimDraft, error) {
	if ch.Kind != ChallengeContradictory || c.Assertion == nil || c.Revises != "" || x.Output == nil {
		return nil, nil
	}
	got, err := fieldAt(x.Output, c.Assertion.Field)
	if err != nil {
		return nil, nil
	}
	refs := make([]sanad.ArtifactRef, 0, len(c.Evidence))
	for _, id := range c.Evidence {
		for _, r := range x.Refs {
			if r.ID == id {
				refs = append(refs, r)
			}
		}
	}
	return &ClaimDraft{
		Text:       fmt.Sprintf("%s is %s according to the %s output (revises: %s)", c.Assertion.Field, got, x.Intent.Tool, c.Text),
		Confidence: c.Confidence, Evidence: refs,
		Assertion: &Assertion{Field: c.Assertion.Field, Equals: got},
	}, nil
}

// Assess implements [Auditor]: an objective without a bundled claim, a
// rejected proposal, a blocked intent, a failed execution and a challenged
// claim are warnings.
func (CoverageAuditor) Assess(_ context.Context, env *Env, r *Report) error {
	covered := map[string]bool{}
	objective := map[string]string{}
	for _, p := range r.Proposals {
		objective[p.ID] = p.Objective
		if p.Status == ReviewRejected {
			r.Warn("proposal %s (%s) was rejected", p.ID, p.Objective)
		}
	}
	for _, in := range r.Intents {
		switch {
		case in.Review == IntentBlocked:
			r.Warn("intent %s (%s, risk %s) was blocked by the critic", in.ID, in.Tool, in.Risk)
		case in.Execution == "failed" && !in.Retried:
			r.Warn("intent %s (%s) failed: %s", in.ID, in.Tool, in.Error)
		}
	}
	for _, c := range r.Claims {
		if c.Challenge != "" {
			r.Warn("claim %s was challenged as %s", c.ID, c.Challenge)
		}
		if c.Bundled {
			covered[objective[c.Proposal]] = true
		}
	}
	for _, o := range env.Task.Objectives {
		if !covered[o.ID] {
			r.Warn("objective %s has no claim in the final statement", o.ID)
		}
	}
	return nil
}
