package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/runs"
)

// ModeModel is the mode of a session whose planner and critic ask a model
// ([ModelPlanner], [ModelCritic]).
const ModeModel = "model"

// The names of the output schemas the model-backed roles ask for, one per
// kind of decision.
const (
	OutputProposals      = "proposals"
	OutputRevision       = "revision"
	OutputProposalReview = "proposal_review"
	OutputIntentReview   = "intent_review"
	OutputClaimReview    = "claim_review"
)

// MaxProposalsPerObjective bounds the proposals a [ModelPlanner] makes for
// one objective.
const MaxProposalsPerObjective = 4

// Limits on what a model sees and writes.
const (
	maxExcerpt  = 16 << 10 // bytes of a tool input or output shown to a model
	maxRecords  = 256      // fixture keys listed to the planner
	maxText     = 4000     // bytes of a reason or condition recorded
	maxProposed = 64       // assumptions or expected evidence of a proposal
)

// ModelCall is one model call a role makes in a session.
type ModelCall struct {
	// Session is the session run the call is made for: the parent of the
	// model_call run that records it.
	Session *runs.Run
	// Role is the role that asks, and Agent its identity in the session's
	// roster.
	Role  Role
	Agent string
	// Request has the role's instructions, its view of the session as JSON
	// and, always, an output schema (Request.Output, named by one of the
	// Output constants).
	Request model.Request
}

// Generate makes a model call for a role of a session and returns the
// reply. It is where a call is audited and its output checked (see
// [Recorded] and model.Structured); the roles only build requests and read
// replies, and check the structured output again themselves. It must be
// safe for concurrent use: the critic reviews the intents of parallel
// proposals at once. Its errors are the model package's *sanad.Error values;
// the roles return them, code kept, and the session stops where it stands.
type Generate func(ctx context.Context, call ModelCall) (model.Response, error)

// ModelCaller makes an audited model call as a child run of parent, as
// agent, with the model of class. *model.Recorder implements it.
type ModelCaller interface {
	Generate(ctx context.Context, parent *runs.Run, agent, class string, req model.Request) (model.Response, error)
}

// Recorded returns a [Generate] that makes every call through m with the
// model of class, as the role's identity, for the session run: with a
// *model.Recorder each call is a model_call child run of the session, in
// its trace, with its prompt and reply stored as artifacts. m's models
// should be wrapped in model.Structured, so that an output that does not
// match its schema gets a repair before the role sees it.
func Recorded(m ModelCaller, class string) Generate {
	return func(ctx context.Context, c ModelCall) (model.Response, error) {
		return m.Generate(ctx, c.Session, c.Agent, class, c.Request)
	}
}

// ModelPlanner is a [Planner] that asks a model for the proposals. The
// model sees the task (the objectives, the tools the task plans for each
// with their risk class under the session's policy, the planned inputs and
// claims, the evidence each objective needs) and answers with proposals as
// structured output ([OutputProposals]): for each, the objective it serves,
// what it sets out to do, its assumptions, the one tool it requires, the
// tool input, and the evidence it expects.
//
// The task stays authoritative. A proposal may require only a tool the task
// plans for its objective (its plan's or its fallback's), so that the
// executor has a claim to make of it. Its risk class is its tool's under
// the policy, or its objective's when higher, revisions included; its
// minimum evidence is the task's or the policy's, whichever is higher; the
// task's assumptions and expected evidence come first, the model's after.
// The input is recorded in the proposal ([ProposalBody.Input]) and the
// executor calls the tool with it; the claim is the plan's, and the critic
// checks its assertion against the output that input produced.
//
// A reply that breaks these rules (an unknown objective or tool, a tool the
// task does not plan for the objective, more than
// [MaxProposalsPerObjective] proposals for one objective, a lookup of
// another dataset than the task's) fails the whole plan with
// MODEL_OUTPUT_INVALID rather than losing the faulty proposals: a dropped
// proposal would leave nothing in the trace to say why the plan is smaller
// than the model's. The same holds for any model error: the planner returns
// it, code kept, and never falls back to the deterministic plan, so the
// session stops in planning, as its mode says, and records nothing; Resume
// asks the model again and an operator may abort.
//
// Revise asks the model, once per first proposal, for at most one revision
// of a proposal that was rejected, blocked or failed ([OutputRevision]);
// the model may decline. A revision is not revised again.
type ModelPlanner struct {
	Generate Generate
	// MaxTokens bounds each reply; 0 leaves the provider's default.
	MaxTokens int
}

// ModelCritic is a [Critic] that asks a model, above a policy floor: every
// decision starts from [ThresholdCritic]'s, and the model can only make it
// stricter.
//
//   - A proposal the thresholds reject stays rejected, and the model is not
//     asked. Otherwise the model answers approve, conditional or reject
//     ([OutputProposalReview]): reject rejects, conditional adds its
//     conditions to the policy's, and approve keeps the policy's decision,
//     conditions included.
//   - An intent the thresholds block stays blocked, and the model is not
//     asked. Otherwise the model sees the intent and its input, and may
//     block it ([OutputIntentReview]). The critic reviews an intent only
//     from the policy's review_from risk on (the action guard), so only
//     those intents reach the model.
//   - A claim the thresholds challenge stays challenged, and the model is
//     not asked. Otherwise the model sees the claim and the output it relies
//     on, and may challenge it as weak or contradictory
//     ([OutputClaimReview]).
//
// So a model can reject, block and challenge more than the policy, never
// less: it cannot approve what the thresholds reject or block, nor let
// stand a claim they challenge. The ledger's action guard refuses an
// approval above max_risk whatever a critic says.
//
// Each reason it records says which side decided: "policy: …" for the
// thresholds, "model: …" for the model, with the other's view after it.
// The conditions a model adds are recorded in the review; what the engine
// enforces of a conditional approval is the action guard.
//
// A model error, or an output that does not match its schema, is returned
// with its code kept: the session stops where it stands, and never goes on
// with the thresholds alone.
type ModelCritic struct {
	Generate Generate
	// MaxTokens bounds each reply; 0 leaves the provider's default.
	MaxTokens int
}

var (
	_ Planner = ModelPlanner{}
	_ Critic  = ModelCritic{}
)

const plannerSystem = `You are the planner of a sanad protocol session. The user message is the task as JSON: its objectives, each with the tools the task plans for it (tool, risk class under the session's policy, planned input, the claim its output is to support), the evidence each objective needs, and the session's policy thresholds.

Turn the task into proposals: one or more for each objective, at most 4 for one objective. For each proposal give:
- objective_id: the id of the objective it serves;
- objective: what the proposal sets out to do;
- assumptions: what it takes as given;
- tool: the one tool it requires, among the tools planned for that objective;
- input: the JSON object the tool is called with (for lookup, give the key; the executor adds the dataset);
- expected_evidence: what will show that the objective is met.

The policy sets each proposal's risk class and minimum evidence; you cannot change them. A critic reviews every proposal. Reply with one JSON object that matches the output schema, and nothing else.`

const reviseSystem = `You are the planner of a sanad protocol session. The user message is the task as JSON, with one objective and, under revise, a proposal for it and its cause: the critic rejected it, blocked its tool intent, or its tool execution failed.

Propose at most one revision for that objective that avoids the cause, with the same fields as a proposal (objective_id, objective, assumptions, tool among those planned for the objective, input, expected_evidence), or no proposal (an empty list) if no plan can. Reply with one JSON object that matches the output schema, and nothing else.`

const proposalReviewSystem = `You are the critic of a sanad protocol session. Review the proposal in the user message for safety and policy risk. The session's policy has already decided (policy); your decision can only be stricter:
- approve keeps the policy's decision;
- conditional approves on the conditions you list;
- reject stops the proposal (the planner may revise it).
Give the reason for your decision. Reply with one JSON object that matches the output schema, and nothing else.`

const intentReviewSystem = `You are the critic of a sanad protocol session. The user message is a signed tool intent that the session's policy would approve, with the input the tool will be called with. Approve it, or block it if running it would be unsafe or would not serve its proposal; a blocked intent never runs. Give the reason for your decision. Reply with one JSON object that matches the output schema, and nothing else.`

const claimReviewSystem = `You are the critic of a sanad protocol session. The user message is a claim the executor issued, the proposal it serves, and the tool output it relies on. The policy's thresholds found no fault with it. Challenge it (challenge true) as weak if its evidence does not support it, or as contradictory if the output contradicts it; otherwise do not (challenge false). Give the reason for your decision. Reply with one JSON object that matches the output schema, and nothing else.`

// taskView is what a planner's model is told of the task.
type taskView struct {
	Task        string          `json:"task"`
	Description string          `json:"description,omitempty"`
	Thresholds  Thresholds      `json:"thresholds"`
	Records     []string        `json:"records,omitempty"`
	Attachments []string        `json:"attachments,omitempty"`
	Objectives  []objectiveView `json:"objectives"`
	Revise      *revisionView   `json:"revise,omitempty"`
}

type objectiveView struct {
	ID          string     `json:"id"`
	Objective   string     `json:"objective"`
	Assumptions []string   `json:"assumptions,omitempty"`
	Risk        string     `json:"risk,omitempty"`
	Evidence    Evidence   `json:"evidence,omitzero"`
	Tools       []toolView `json:"tools"`
}

// toolView is a plan of an objective: its tool, the tool's risk class under
// the session's policy (Open is false when the executor may not call it),
// and what the task plans to call it with and claim of it.
type toolView struct {
	Tool     string          `json:"tool"`
	Risk     string          `json:"risk,omitempty"`
	Open     bool            `json:"open"`
	Fallback bool            `json:"fallback,omitempty"`
	Input    json.RawMessage `json:"planned_input"`
	Claim    string          `json:"claim"`
}

type revisionView struct {
	Proposal ProposalBody `json:"proposal"`
	Cause    string       `json:"cause"`
}

// proposed is one proposal of a planner's model.
type proposed struct {
	ObjectiveID      string          `json:"objective_id"`
	Objective        string          `json:"objective"`
	Assumptions      []string        `json:"assumptions"`
	Tool             string          `json:"tool"`
	Input            json.RawMessage `json:"input"`
	ExpectedEvidence []string        `json:"expected_evidence"`
}

type proposedOutput struct {
	Proposals []proposed `json:"proposals"`
}

// Propose implements [Planner].
func (m ModelPlanner) Propose(ctx context.Context, env *Env) ([]ProposalBody, error) {
	ids := make([]string, len(env.Task.Objectives))
	for i, o := range env.Task.Objectives {
		ids[i] = o.ID
	}
	schema := proposalsSchema(ids, taskTools(env.Task), 1, MaxProposalsPerObjective*len(ids))
	var out proposedOutput
	if err := ask(ctx, m.Generate, env, RolePlanner, request(plannerSystem, planView(env, nil), OutputProposals, schema, m.MaxTokens), &out); err != nil {
		return nil, err
	}
	return fromModel(env, out.Proposals)
}

// Revise implements [Planner].
func (m ModelPlanner) Revise(ctx context.Context, env *Env, p ProposalBody, cause string) (*ProposalBody, error) {
	o := env.Task.Objective(p.ObjectiveID)
	if o == nil || p.Revises != "" {
		return nil, nil
	}
	view := planView(env, o)
	view.Revise = &revisionView{Proposal: p, Cause: cause}
	schema := proposalsSchema([]string{o.ID}, plannedTools(o), 0, 1)
	var out proposedOutput
	if err := ask(ctx, m.Generate, env, RolePlanner, request(reviseSystem, view, OutputRevision, schema, m.MaxTokens), &out); err != nil {
		return nil, err
	}
	if len(out.Proposals) == 0 {
		return nil, nil
	}
	ps, err := fromModel(env, out.Proposals)
	if err != nil {
		return nil, err
	}
	u := ps[0]
	u.Assumptions = merge(u.Assumptions, []string{fmt.Sprintf("proposal %s (%s) was %s", p.ProposalID, strings.Join(p.RequiredTools, ", "), cause)})
	return &u, nil
}

// planView is the task as a planner's model sees it: every objective, or
// only o.
func planView(env *Env, o *Objective) taskView {
	t := env.Task
	v := taskView{Task: t.Name, Description: t.Description, Thresholds: env.Thresholds}
	for _, k := range slices.Sorted(maps.Keys(t.Fixtures)) {
		if len(v.Records) == maxRecords {
			break
		}
		v.Records = append(v.Records, k)
	}
	for _, a := range t.Attachments {
		v.Attachments = append(v.Attachments, a.Name)
	}
	for i := range t.Objectives {
		obj := &t.Objectives[i]
		if o != nil && obj.ID != o.ID {
			continue
		}
		ov := objectiveView{ID: obj.ID, Objective: obj.Objective, Assumptions: obj.Assumptions, Risk: obj.Risk, Evidence: obj.Evidence}
		for _, pl := range []*Plan{&obj.Plan, obj.Fallback} {
			if pl == nil {
				continue
			}
			risk, open := env.Risk(pl.Tool)
			if !open {
				risk = ""
			}
			ov.Tools = append(ov.Tools, toolView{Tool: pl.Tool, Risk: risk, Open: open, Fallback: pl != &obj.Plan, Input: pl.Input, Claim: pl.Claim.Text})
		}
		v.Objectives = append(v.Objectives, ov)
	}
	return v
}

// plannedTools returns the tools the task plans for o.
func plannedTools(o *Objective) []string {
	tools := []string{o.Tool}
	if o.Fallback != nil && o.Fallback.Tool != o.Tool {
		tools = append(tools, o.Fallback.Tool)
	}
	return tools
}

// taskTools returns the tools the task plans for any objective, sorted.
func taskTools(t *Task) []string {
	var tools []string
	for i := range t.Objectives {
		for _, name := range plannedTools(&t.Objectives[i]) {
			if !slices.Contains(tools, name) {
				tools = append(tools, name)
			}
		}
	}
	slices.Sort(tools)
	return tools
}

// fromModel turns a model's proposals into proposal units, or fails with
// MODEL_OUTPUT_INVALID naming the first that breaks the task's rules. The
// risk of a unit is its tool's, or its objective's when higher, revisions
// included: unlike the task's own fallback, whose risk is its tool's, a
// model's revision may propose the first plan again, and must not get past
// the critic at a lower risk for it.
func fromModel(env *Env, ps []proposed) ([]ProposalBody, error) {
	const op = "protocol.planner"
	out := make([]ProposalBody, 0, len(ps))
	per := map[string]int{}
	for i, u := range ps {
		bad := func(format string, args ...any) error {
			return sanad.Errorf(sanad.CodeModelOutput, op, "proposal %d of the planner's model: %s; resume the session to ask again, or abort it", i+1, fmt.Sprintf(format, args...))
		}
		o := env.Task.Objective(u.ObjectiveID)
		if o == nil {
			return nil, bad("objective %q is not one of the task's", u.ObjectiveID)
		}
		if tools := plannedTools(o); !slices.Contains(tools, u.Tool) {
			return nil, bad("tool %q is not one the task plans for objective %q (%s)", u.Tool, o.ID, strings.Join(tools, ", "))
		}
		if per[o.ID]++; per[o.ID] > MaxProposalsPerObjective {
			return nil, bad("objective %q has more than %d proposals", o.ID, MaxProposalsPerObjective)
		}
		input, err := canon.Transform(u.Input)
		if err != nil || len(input) == 0 || input[0] != '{' {
			return nil, bad("the input of %s is not a JSON object", u.Tool)
		}
		if u.Tool == ToolLookup {
			var in struct {
				Dataset *string `json:"dataset"`
			}
			if json.Unmarshal(input, &in) == nil && in.Dataset != nil && *in.Dataset != env.Dataset.SHA256 {
				return nil, bad("the lookup input names dataset %q; a session looks up only its task's fixtures", *in.Dataset)
			}
		}
		b := unit(env, o, &Plan{Tool: u.Tool}, o.Risk)
		if s := strings.TrimSpace(u.Objective); s != "" {
			b.Objective = s
		}
		b.Assumptions = merge(b.Assumptions, u.Assumptions)
		b.ExpectedEvidence = merge(b.ExpectedEvidence, u.ExpectedEvidence)
		b.Input = input
		out = append(out, b)
	}
	return out, nil
}

// merge returns a followed by the items of b it does not hold, blanks
// left out, at most maxProposed in all.
func merge(a, b []string) []string {
	out := append([]string{}, a...)
	for _, s := range b {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out[:min(len(out), maxProposed)]
}

// policyView is the decision of the thresholds, shown to the critic's model.
type policyView struct {
	Decision   string   `json:"decision"`
	Reason     string   `json:"reason"`
	Conditions []string `json:"conditions,omitempty"`
}

type proposalReviewView struct {
	Proposal   ProposalBody   `json:"proposal"`
	Objective  *objectiveView `json:"objective,omitempty"`
	Thresholds Thresholds     `json:"thresholds"`
	Policy     policyView     `json:"policy"`
}

type proposalReviewOutput struct {
	Decision   string   `json:"decision"`
	Conditions []string `json:"conditions"`
	Reason     string   `json:"reason"`
}

// ReviewProposal implements [Critic].
func (m ModelCritic) ReviewProposal(ctx context.Context, env *Env, p ProposalBody) (ProposalReviewBody, error) {
	floor, err := ThresholdCritic{}.ReviewProposal(ctx, env, p)
	if err != nil || floor.Status == ReviewRejected {
		floor.Reason = note("policy", floor.Reason)
		return floor, err
	}
	view := proposalReviewView{Proposal: p, Thresholds: env.Thresholds, Policy: policyView{Decision: floor.Status, Reason: floor.Reason, Conditions: floor.Conditions}}
	if o := env.Task.Objective(p.ObjectiveID); o != nil {
		ov := planView(env, o).Objectives[0]
		view.Objective = &ov
	}
	var out proposalReviewOutput
	if err := ask(ctx, m.Generate, env, RoleCritic, request(proposalReviewSystem, view, OutputProposalReview, proposalReviewOutputSchema(), m.MaxTokens), &out); err != nil {
		return ProposalReviewBody{}, err
	}
	r := floor
	alone := "the policy alone: " + floor.Status + ", " + floor.Reason
	switch out.Decision {
	case "reject":
		r.Status, r.Conditions = ReviewRejected, nil
		r.Reason = note("model", out.Reason+" ("+alone+")")
	case "conditional":
		conds := out.Conditions
		if len(conds) == 0 {
			conds = []string{out.Reason}
		}
		r.Conditions = slices.Clone(floor.Conditions)
		for _, c := range conds {
			r.Conditions = append(r.Conditions, note("model", c))
		}
		if floor.Status == ReviewConditional {
			r.Reason = note("policy", floor.Reason+"; model: "+out.Reason)
		} else {
			r.Reason = note("model", out.Reason+" ("+alone+")")
		}
		r.Status = ReviewConditional
	default: // approve: the policy's decision stands, conditions and all
		r.Reason = note("policy", floor.Reason+"; model: approve, "+out.Reason)
	}
	return r, nil
}

type intentReviewView struct {
	Intent     IntentBody `json:"intent"`
	Input      any        `json:"input"`
	Thresholds Thresholds `json:"thresholds"`
	Policy     policyView `json:"policy"`
}

type intentReviewOutput struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// ReviewIntent implements [Critic].
func (m ModelCritic) ReviewIntent(ctx context.Context, env *Env, in IntentBody) (IntentReviewBody, error) {
	floor, err := ThresholdCritic{}.ReviewIntent(ctx, env, in)
	if err != nil || floor.Decision == IntentBlocked {
		floor.Reason = note("policy", floor.Reason)
		return floor, err
	}
	view := intentReviewView{Intent: in, Thresholds: env.Thresholds, Policy: policyView{Decision: floor.Decision, Reason: floor.Reason}}
	if env.Input != nil {
		input, err := env.Input(ctx, in.IntentID)
		if err != nil {
			return IntentReviewBody{}, err
		}
		view.Input = excerpt(input)
	}
	var out intentReviewOutput
	if err := ask(ctx, m.Generate, env, RoleCritic, request(intentReviewSystem, view, OutputIntentReview, intentReviewOutputSchema(), m.MaxTokens), &out); err != nil {
		return IntentReviewBody{}, err
	}
	r := floor
	if out.Decision == "block" {
		r.Decision = IntentBlocked
		r.Reason = note("model", out.Reason+" (the policy alone: approved, "+floor.Reason+")")
	} else {
		r.Reason = note("policy", floor.Reason+"; model: approve, "+out.Reason)
	}
	return r, nil
}

type claimReviewView struct {
	Claim      ClaimBody    `json:"claim"`
	Proposal   ProposalBody `json:"proposal"`
	Tool       string       `json:"tool,omitempty"`
	Output     any          `json:"output"`
	Thresholds Thresholds   `json:"thresholds"`
}

type claimReviewOutput struct {
	Challenge bool   `json:"challenge"`
	Kind      string `json:"kind"`
	Reason    string `json:"reason"`
}

// ReviewClaim implements [Critic].
func (m ModelCritic) ReviewClaim(ctx context.Context, env *Env, p ProposalBody, c ClaimBody, x *Execution) (*ChallengeBody, error) {
	floor, err := ThresholdCritic{}.ReviewClaim(ctx, env, p, c, x)
	if err != nil || floor != nil {
		if floor != nil {
			for i, r := range floor.Reasons {
				floor.Reasons[i] = note("policy", r)
			}
		}
		return floor, err
	}
	view := claimReviewView{Claim: c, Proposal: p, Thresholds: env.Thresholds}
	if x != nil {
		view.Tool = x.Intent.Tool
		if x.Output != nil {
			view.Output = excerpt(x.Output)
		}
	}
	var out claimReviewOutput
	if err := ask(ctx, m.Generate, env, RoleCritic, request(claimReviewSystem, view, OutputClaimReview, claimReviewOutputSchema(), m.MaxTokens), &out); err != nil {
		return nil, err
	}
	if !out.Challenge {
		return nil, nil
	}
	kind := ChallengeWeak
	if out.Kind == ChallengeContradictory {
		kind = ChallengeContradictory
	}
	return &ChallengeBody{ClaimID: c.ClaimID, Kind: kind, Reasons: []string{note("model", out.Reason)}}, nil
}

// note returns text marked with who decided, cut to what an event holds.
func note(who, text string) string {
	return clip(who+": "+text, maxText)
}

// excerpt returns data as a model is shown it: the JSON value itself, or,
// when it is not JSON or too long, its text cut to maxExcerpt bytes.
func excerpt(data []byte) any {
	if len(data) <= maxExcerpt && json.Valid(data) {
		return json.RawMessage(data)
	}
	s := clip(string(data), maxExcerpt)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) < len(data) {
		s += " … (cut)"
	}
	return s
}

// request is a role's call: its instructions, its view as one JSON user
// message, and the output schema of its answer.
func request(system string, view any, name string, schema json.RawMessage, maxTokens int) model.Request {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(view) // the views hold only JSON-safe values
	return model.Request{
		System:    system,
		Messages:  []model.Message{{Role: model.RoleUser, Content: strings.TrimSpace(b.String())}},
		Output:    &model.OutputSchema{Name: name, Schema: schema},
		MaxTokens: maxTokens,
	}
}

// ask makes role's call and decodes its structured output into v, once
// the output matches the request's schema: whatever Generate checked, an
// output that does not match is MODEL_OUTPUT_INVALID here.
func ask(ctx context.Context, gen Generate, env *Env, role Role, req model.Request, v any) error {
	op := "protocol." + string(role)
	if gen == nil {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "the model-backed %s has no Generate function", role)
	}
	resp, err := gen(ctx, ModelCall{Session: env.Session, Role: role, Agent: env.Roster[role], Request: req})
	if err != nil {
		return sanad.Wrap(err, sanad.ErrorCode(err), op, fmt.Sprintf("the %s's model call failed: %s; resume the session to ask again, or abort it", role, sanad.ErrorMessage(err)))
	}
	out := resp.Output
	if len(out) == 0 {
		out = model.OutputJSON(resp.Text)
	}
	problem, err := checkOutput(req.Output.Schema, out)
	if err != nil {
		return sanad.Wrap(err, sanad.CodeInternal, op, "the "+req.Output.Name+" output schema does not compile")
	}
	if problem != "" {
		return sanad.Errorf(sanad.CodeModelOutput, op, "the %s's model answered with output that does not match schema %q: %s; resume the session to ask again, or abort it", role, req.Output.Name, problem)
	}
	if err := json.Unmarshal(out, v); err != nil {
		return sanad.Wrap(err, sanad.CodeModelOutput, op, "the "+string(role)+"'s model output: "+err.Error())
	}
	return nil
}

// checkOutput returns what is wrong with out under schema, or "".
func checkOutput(schema, out []byte) (string, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return "", err
	}
	c := jsonschema.NewCompiler()
	const url = "https://sanad.dev/schema/protocol/output.json"
	if err := c.AddResource(url, doc); err != nil {
		return "", err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return "", err
	}
	if len(out) == 0 {
		return "the reply holds no JSON value", nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		return "the reply is not a JSON value", nil
	}
	if err := sch.Validate(inst); err != nil {
		return schemaMessage(err), nil
	}
	return "", nil
}

// The output schemas. Every object lists all its properties as required
// and no others, which every provider's structured output accepts.

func outputObject(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "additionalProperties": false,
		"required": slices.Sorted(maps.Keys(props)), "properties": props}
}

func textOf(n int) map[string]any {
	return map[string]any{"type": "string", "minLength": 1, "maxLength": n}
}

func textsOf(items, n int) map[string]any {
	return map[string]any{"type": "array", "maxItems": items, "items": textOf(n)}
}

func mustSchema(v map[string]any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings, numbers and slices
	}
	return b
}

// proposalsSchema is the schema of a planner's answer: between minItems
// and maxItems proposals, for the objectives ids, with tools among tools.
func proposalsSchema(ids, tools []string, minItems, maxItems int) json.RawMessage {
	item := outputObject(map[string]any{
		"objective_id":      map[string]any{"enum": ids},
		"objective":         textOf(1000),
		"assumptions":       textsOf(16, 500),
		"tool":              map[string]any{"enum": tools},
		"input":             map[string]any{"type": "object"},
		"expected_evidence": textsOf(16, 500),
	})
	return mustSchema(outputObject(map[string]any{
		"proposals": map[string]any{"type": "array", "minItems": minItems, "maxItems": maxItems, "items": item},
	}))
}

func proposalReviewOutputSchema() json.RawMessage {
	return mustSchema(outputObject(map[string]any{
		"decision":   map[string]any{"enum": []string{"approve", "conditional", "reject"}},
		"conditions": textsOf(8, 500),
		"reason":     textOf(1000),
	}))
}

func intentReviewOutputSchema() json.RawMessage {
	return mustSchema(outputObject(map[string]any{
		"decision": map[string]any{"enum": []string{"approve", "block"}},
		"reason":   textOf(1000),
	}))
}

func claimReviewOutputSchema() json.RawMessage {
	return mustSchema(outputObject(map[string]any{
		"challenge": map[string]any{"type": "boolean"},
		"kind":      map[string]any{"enum": []string{ChallengeWeak, ChallengeContradictory}},
		"reason":    textOf(1000),
	}))
}
