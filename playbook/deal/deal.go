// Package deal is the due-diligence debate as a workflow (seed 000): the
// arbiter reads the deal's data room once through the deal.analyze tool
// (its result recorded, so a resume or a replay reads it back instead of
// reading the files again), then each round is one step per role, in the
// order a round hears them, and every role's output passes the Muḥāsabah
// gate as a recorded muhasabah.check call; a rejection is a
// muhasabah.rejected event and refuses the output (the gate is
// fail-closed): a refused deterministic output fails the run.
// The last step is the memo, with what each role said round by round.
// A crashed debate resumes at the step after its last checkpoint,
// re-running no round.
//
// Each role has a deterministic implementation, its output of the round in
// the analysis, and a model-backed one when a reasoning model is configured
// (see model.go): the model writes the role's output as structured output,
// which passes the same lookups and the same gate, checked to the figure;
// an output the gate refuses twice is replaced by the deterministic one.
package deal

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/calc"
	"github.com/sanadhq/sanad/claim"
	"github.com/sanadhq/sanad/dbwrite"
	"github.com/sanadhq/sanad/diligence"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/playbook/debate"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

// Name is the playbook's name.
const Name = "debate"

// Tools of the playbook.
const (
	ToolAnalyze = "deal.analyze"
	ToolCheck   = "muhasabah.check"
	// The six tools of seed 000 §4, over the deal's registry as
	// deal.analyze stored it (see registryTools).
	ToolLookupClaim        = debate.ToolLookupClaim
	ToolLookupCalc         = debate.ToolLookupCalc
	ToolSearchEvidence     = debate.ToolSearchEvidence
	ToolFlagDefect         = debate.ToolFlagDefect
	ToolRequestHumanReview = debate.ToolRequestHumanReview
	ToolQueryEnrichment    = debate.ToolQueryEnrichment
)

// Tasks of the steps.
const (
	taskAnalyze = "Read the data room and analyse it"
	taskMemo    = "Write the decision memo"
)

//go:embed policy/*.yaml
var policyFiles embed.FS

// Input is the input of a debate run.
type Input struct {
	// Dir is the deal's folder (absolute), holding deal.yaml.
	Dir string `json:"dir"`
	// AsOf replaces the manifest's as_of date when set.
	AsOf string `json:"as_of,omitempty"`
}

// Analysis is what deal.analyze returns: the memo, every role's output of
// every round, what the gate knows of the evidence, and the claims a role
// may cite.
type Analysis struct {
	Memo     diligence.Memo  `json:"memo"`
	Outputs  []debate.Output `json:"outputs"`
	Evidence debate.Evidence `json:"evidence"`
	Rounds   int             `json:"rounds"`
	Claims   []ClaimBrief    `json:"claims"`
	// Enrichment says whether the deal's manifest names an enrichment
	// source, which the risk officer may query.
	Enrichment bool `json:"enrichment,omitempty"`
}

// ClaimBrief is a claim of the deal's registry as a role reads it.
type ClaimBrief struct {
	ID       string      `json:"claim_id"`
	Value    claim.Value `json:"value"`
	Document string      `json:"document"`
	Grade    string      `json:"grade"`
	// Ahad marks a claim carried by one source alone.
	Ahad    bool   `json:"ahad"`
	Verdict string `json:"verdict,omitempty"`
	// Text is the claim's sentence, cut at maxClaimText bytes.
	Text string `json:"text"`
}

// States is what the claim states, for the gate's check of figures: its
// sentence, its value as a reader and as a number writes it, its period.
func (c ClaimBrief) States() string {
	return strings.Join([]string{c.Text, diligence.FormatValue(c.Value), strconv.FormatFloat(c.Value.Value, 'f', -1, 64), c.Value.Period}, " ")
}

// Modes of a heard output.
const (
	ModeDeterministic = "deterministic"
	ModeModel         = "model"
	// ModeFallback: the gate refused the model's output twice, and the
	// role's deterministic output was heard instead.
	ModeFallback = "model_rejected_fallback"
)

// Heard is a role's step output: its output, or why it was not heard (the
// debate stopped before the round).
type Heard struct {
	Round  int            `json:"round"`
	Role   string         `json:"role"`
	Heard  bool           `json:"heard"`
	Reason string         `json:"reason,omitempty"`
	Output *debate.Output `json:"output,omitempty"`
	// Mode says who wrote Output (ModeDeterministic, ModeModel or
	// ModeFallback).
	Mode string `json:"mode,omitempty"`
	// Rejected are the violations for which the model's outputs were
	// refused, in the order they were found.
	Rejected []debate.Violation `json:"rejected,omitempty"`
	// LookedUp counts the claims the role looked up before its output
	// went to the gate.
	LookedUp int `json:"looked_up,omitempty"`
	// Used are the calls the role made with the debate's tools once its
	// output passed the gate, in the order it made them.
	Used []ToolUse `json:"tools_used,omitempty"`
	// NotCalled says what the role did not ask of a tool, and why (a
	// per-round limit reached, no enrichment source configured).
	NotCalled []string `json:"not_called,omitempty"`
	// Review is the person's review the arbiter asked for.
	Review *diligence.Review `json:"review,omitempty"`
}

// New returns the debate playbook.
func New() (*playbook.Playbook, error) {
	sub, err := fs.Sub(policyFiles, "policy")
	if err != nil {
		return nil, err
	}
	pol, err := policy.LoadFS(sub)
	if err != nil {
		return nil, err
	}
	var agents []agent.Profile
	nodes := map[string]playbook.NodeFunc{}
	lim := limitsOf(pol)
	for _, role := range debate.Roles {
		var tools []string
		for _, name := range []string{ToolAnalyze, ToolCheck, ToolLookupClaim, ToolLookupCalc, ToolSearchEvidence, ToolFlagDefect, ToolRequestHumanReview, ToolQueryEnrichment} {
			if t, ok := pol.Tool(name); ok && slices.Contains(t.Roles, role) {
				tools = append(tools, name)
			}
		}
		id := agentID(role)
		agents = append(agents, agent.Profile{ID: id, Name: strings.ReplaceAll(role, "_", " "), Role: role, ModelClass: "reasoning",
			Description:    "The " + strings.ReplaceAll(role, "_", " ") + " of the due-diligence debate (seed 000 §2.2).",
			PermittedTools: tools, Enabled: true, Version: "1.0.0"})
		nodes[id] = func(p agent.Profile) agent.Node {
			return agent.Func(p, func(ctx context.Context, in agent.Input) (agent.Output, error) { return act(ctx, p.Role, in, lim) })
		}
	}
	return &playbook.Playbook{
		Name: Name, Description: "The due-diligence debate of a deal's data room, round by round, every output through the Muḥāsabah gate.",
		Agents: agents, Nodes: nodes, Policy: pol, Workflow: Definition(diligence.MaxRounds),
		Toolkit: func(env playbook.Env) ([]tool.Spec, error) {
			if env.Home == nil {
				return nil, sanad.Errorf(sanad.CodeInvalidInput, "deal", "the debate playbook needs a home")
			}
			return tools(env.Home, pol), nil
		},
	}, nil
}

// Definition is the debate's workflow: analyze, then rounds × roles, then
// the memo, each step after the one before. A role's step depends on the
// analysis and on every role's step before it, whose outputs it hears; the
// memo on all of them.
func Definition(rounds int) *workflow.Definition {
	d := &workflow.Definition{Name: Name, Version: "1.0.0", Agent: agentID(debate.RoleArbiter),
		Description: "Analyse a deal's data room, hear each role round by round, and write the memo."}
	d.Steps = append(d.Steps, workflow.Step{ID: "analyze", Agent: agentID(debate.RoleArbiter), Task: taskAnalyze})
	before := []string{"analyze"}
	for r := 1; r <= rounds; r++ {
		for _, role := range debate.Roles {
			id := stepID(r, role)
			d.Steps = append(d.Steps, workflow.Step{ID: id, Agent: agentID(role), Task: fmt.Sprintf("Round %d", r), DependsOn: slices.Clone(before), Round: r})
			before = append(before, id)
		}
	}
	d.Steps = append(d.Steps, workflow.Step{ID: "memo", Agent: agentID(debate.RoleArbiter), Task: taskMemo, DependsOn: before})
	return d
}

// stepID is the id of a role's step in a round: r2-sanad-breaker.
func stepID(round int, role string) string { return fmt.Sprintf("r%d-%s", round, agentID(role)) }

// agentID is the agent id of a role: the seed's role names use '_', agent
// ids '-'.
func agentID(role string) string { return strings.ReplaceAll(role, "_", "-") }

// act is every role's node: the arbiter's analysis and memo, and each
// role's output of a round through the gate, then its use of the debate's
// tools within the limits lim.
func act(ctx context.Context, me string, in agent.Input, lim limits) (agent.Output, error) {
	switch {
	case in.Task == taskAnalyze:
		raw, err := in.Tools.Call(ctx, ToolAnalyze, in.Input)
		if err != nil {
			return agent.Output{}, err
		}
		return agent.Output{Content: raw, Summary: "the data room analysed"}, nil
	case in.Task == taskMemo:
		return memo(in)
	}
	var round int
	if _, err := fmt.Sscanf(in.Task, "Round %d", &round); err != nil {
		return agent.Output{}, sanad.Errorf(sanad.CodeInvalidInput, "deal", "unknown task %q", in.Task)
	}
	a, err := analysis(in)
	if err != nil {
		return agent.Output{}, err
	}
	h := Heard{Round: round, Role: me}
	var draft *debate.Output
	for i := range a.Outputs {
		if a.Outputs[i].Role == me && a.Outputs[i].RoundNumber == round {
			draft = &a.Outputs[i]
		}
	}
	switch {
	case draft == nil:
		h.Reason = fmt.Sprintf("the debate stopped after round %d: %s", a.Rounds, a.Memo.StopReason)
		raw, _ := json.Marshal(h)
		return agent.Output{Content: raw, Summary: "not heard: " + h.Reason}, nil
	case in.Model != nil:
		if h, err = speak(ctx, in, a, me, round, *draft, lim); err != nil {
			return agent.Output{}, err
		}
	default:
		h.Mode, h.Output = ModeDeterministic, draft
		lk := &lookups{max: lim[ToolLookupClaim]}
		if err := lk.cited(ctx, in, *draft, false); err != nil {
			return agent.Output{}, err
		}
		lk.note(&h)
		if err := check(ctx, in, *draft, a.Evidence); err != nil {
			return agent.Output{}, err
		}
	}
	if err := use(ctx, in, a, &h, lim); err != nil {
		return agent.Output{}, err
	}
	h.Heard = true
	raw, err := json.Marshal(h)
	if err != nil {
		return agent.Output{}, err
	}
	return agent.Output{Content: raw, Summary: fmt.Sprintf("round %d heard (%s), %d claims cited", round, h.Mode, len(h.Output.ClaimRefs))}, nil
}

// lookups are the claims a role looked up in one step: each once, at most
// max (lookup_claim's limit per round, §6.2; none when 0).
type lookups struct {
	max  int
	seen map[string]bool
	n    int
	left []string // claims over the limit, not looked up
}

// note sets what h says of the lookups: how many, and the claims left.
func (l *lookups) note(h *Heard) {
	h.LookedUp = l.n
	if len(l.left) > 0 {
		h.NotCalled = append(h.NotCalled, fmt.Sprintf("%s: the limit of %d calls per round was reached; not called for %d more: %s", ToolLookupClaim, l.max, len(l.left), strings.Join(l.left, "; ")))
	}
}

// cited has the role look up what out cites in the registry (§4.1),
// through the gateway, before out goes to the gate. A claim the registry
// does not hold fails the step, unless lenient (a model's output: the gate
// refuses what cites it).
func (l *lookups) cited(ctx context.Context, in agent.Input, out debate.Output, lenient bool) error {
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	for _, id := range append(slices.Clone(out.ClaimRefs), out.Muhasabah.SupportedClaimIDs...) {
		if l.seen[id] {
			continue
		}
		if l.max > 0 && len(l.seen) == l.max {
			if !slices.Contains(l.left, id) {
				l.left = append(l.left, id)
			}
			continue
		}
		l.seen[id] = true
		arg, _ := json.Marshal(map[string]any{"claim_id": id, "include_sanad": true})
		_, err := in.Tools.Call(ctx, ToolLookupClaim, arg)
		var te *agent.ToolError
		switch {
		case err == nil:
			l.n++
		case lenient && errors.As(err, &te):
		default:
			return err
		}
	}
	return nil
}

// check passes out through the Muḥāsabah gate, a recorded muhasabah.check
// call; a refusal is an *agent.ToolError with code MUHASABAH_GATE, and the
// gate has recorded the muhasabah.rejected event.
func check(ctx context.Context, in agent.Input, out debate.Output, ev debate.Evidence) error {
	raw, err := json.Marshal(map[string]any{"output": out, "evidence": ev})
	if err != nil {
		return err
	}
	_, err = in.Tools.Call(ctx, ToolCheck, raw)
	return err
}

// memo is the memo of the analysis with the deliberation: every output
// heard, round by round. An output a model wrote is checked again, to the
// figure, before it enters the memo.
func memo(in agent.Input) (agent.Output, error) {
	a, err := analysis(in)
	if err != nil {
		return agent.Output{}, err
	}
	m := a.Memo
	for _, h := range heardBefore(in, a.Rounds+1) {
		if h.Review != nil {
			m.Review = h.Review
		}
		o := h.Output
		if h.Mode == ModeModel {
			if vs := debate.Check(*o, a.evidenceFor(*o)); len(vs) > 0 {
				return agent.Output{}, sanad.Errorf(sanad.CodeMuhasabahGate, "deal.memo", "the output of %s in round %d breaks %s: %s", h.Role, h.Round, vs[0].Rule, vs[0].Detail)
			}
		}
		m.Deliberation = append(m.Deliberation, diligence.Position{Round: h.Round, Role: h.Role, AgentID: o.AgentID, Mode: h.Mode,
			Content: o.Content, Claims: o.ClaimRefs, Calcs: o.CalcRefs, Confidence: o.Muhasabah.Confidence})
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return agent.Output{}, err
	}
	return agent.Output{Content: raw, Summary: m.Recommendation + " (" + m.StopReason + ")"}, nil
}

// heardBefore returns the outputs heard in the steps of in.Inputs before
// round, in the order the debate heard them.
func heardBefore(in agent.Input, round int) []Heard {
	var out []Heard
	for r := 1; r < round; r++ {
		for _, role := range debate.Roles {
			raw, ok := in.Inputs[stepID(r, role)]
			if !ok {
				continue
			}
			var h Heard
			if json.Unmarshal(raw, &h) == nil && h.Heard && h.Output != nil {
				out = append(out, h)
			}
		}
	}
	return out
}

// evidenceFor is the evidence the gate checks a model's output o with:
// the analysis' evidence and what each claim and calc o cites states.
func (a Analysis) evidenceFor(o debate.Output) debate.Evidence {
	ev := a.Evidence
	ev.States = map[string]string{}
	byID := map[string]ClaimBrief{}
	for _, c := range a.Claims {
		byID[c.ID] = c
	}
	for _, id := range append(slices.Clone(o.ClaimRefs), o.Muhasabah.SupportedClaimIDs...) {
		if c, ok := byID[id]; ok {
			ev.States[id] = c.States()
		}
	}
	for _, r := range a.Memo.Calcs {
		if slices.Contains(o.CalcRefs, r.CalcID) || slices.Contains(o.Muhasabah.SupportedCalcIDs, r.CalcID) {
			ev.States[r.CalcID] = calcStates(r)
		}
	}
	return ev
}

// calcStates is what a calc states: its value, as the memo and as a
// number writes it, and its unit.
func calcStates(r calc.Result) string {
	return strconv.FormatFloat(r.Value, 'f', 2, 64) + " " + strconv.FormatFloat(r.Value, 'f', -1, 64) + " " + r.Unit
}

// maxClaimText bounds the sentence of a claim in its brief.
const maxClaimText = 300

// briefs are the claims of the deal's registry the gate knows, in registry
// order.
func briefs(d diligence.Deal, f diligence.Findings, ev debate.Evidence) []ClaimBrief {
	out := []ClaimBrief{}
	seen := map[string]bool{}
	for _, rec := range diligence.Registry(d, f) {
		for _, c := range rec.Claims {
			info, ok := ev.Claims[c.ID]
			if !ok || seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			text := c.Text
			if len(text) > maxClaimText {
				// Cut at a space, so that no figure is cut in two.
				text = text[:strings.LastIndexByte(text[:maxClaimText], ' ')+1] + "…"
			}
			out = append(out, ClaimBrief{ID: c.ID, Value: c.Value, Document: rec.Document, Grade: info.Grade, Ahad: info.Ahad, Verdict: string(c.Verdict), Text: text})
		}
	}
	return out
}

func analysis(in agent.Input) (Analysis, error) {
	var a Analysis
	raw, ok := in.Inputs["analyze"]
	if !ok {
		return a, sanad.Errorf(sanad.CodeInvalidInput, "deal", "the output of step analyze is missing")
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, sanad.Wrap(err, sanad.CodeInvalidInput, "deal", "the analysis")
	}
	return a, nil
}

// tools returns the six tools of seed 000 over the deal's stored registry
// (see registryTools); deal.analyze, which writes that registry (one record
// per document, and the deal's record with its calcs and enrichment
// source, through the WRITE_CLAIMS db_write lane, as children of its
// call); and muhasabah.check, whose rejections are recorded on the run
// that asked for the check.
func tools(h *home.Home, pol *policy.Set) []tool.Spec {
	obj := json.RawMessage(`{"type":"object"}`)
	j := &debate.Journal{Runs: h.DB, Recorder: h.Runs, Gates: &gate.Service{Runs: h.Runs, Store: h.DB, Roles: pol}}
	writer := &dbwrite.Writer{Policy: pol, Runs: h.Runs, Artifacts: h.Artifacts}
	return append(registryTools(h, j), []tool.Spec{
		{
			Name: ToolAnalyze, Description: "Read a deal's data room (deal.yaml and its documents), extract and chain its claims, run the roles' analysis and write the memo.",
			InputSchema:  json.RawMessage(`{"type":"object","required":["dir"],"properties":{"dir":{"type":"string","minLength":1,"maxLength":4096},"as_of":{"type":"string","pattern":"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}}}`),
			OutputSchema: obj, Risk: "read", SideEffect: tool.SideEffectInternal, Idempotent: true,
			Func: func(ctx context.Context, c tool.Call) (json.RawMessage, error) {
				var in Input
				if err := json.Unmarshal(c.Input, &in); err != nil {
					return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolAnalyze, "input")
				}
				d, err := diligence.LoadAsOf(ctx, in.Dir, in.AsOf)
				if err != nil {
					return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolAnalyze, "the data room: "+err.Error())
				}
				f := diligence.Analyze(d)
				memo, err := diligence.BuildMemo(d, f)
				if err != nil {
					return nil, err
				}
				rec, err := h.DB.Run(ctx, c.Run)
				if err != nil {
					return nil, err
				}
				run, err := h.Runs.Attach(rec, "")
				if err != nil {
					return nil, err
				}
				for _, r := range diligence.Registry(d, f) {
					body, err := json.Marshal(r)
					if err != nil {
						return nil, err
					}
					if _, err := writer.Write(ctx, run, c.Principal, dbwrite.Request{Lane: diligence.Lane, Table: diligence.Table, Op: dbwrite.Upsert,
						Key: diligence.RegistryKey(d.Manifest.Name, r.Document), Record: body}); err != nil {
						return nil, err
					}
				}
				dr := DealRecord{Deal: d.Manifest.Name, Company: d.Manifest.Company, Calcs: f.Calcs, Enrichment: d.Manifest.EnrichmentSource(d.Dir)}
				body, err := json.Marshal(dr)
				if err != nil {
					return nil, err
				}
				if _, err := writer.Write(ctx, run, c.Principal, dbwrite.Request{Lane: diligence.Lane, Table: TableDeals, Op: dbwrite.Upsert,
					Key: diligence.CaseID(d.Manifest.Name), Record: body}); err != nil {
					return nil, err
				}
				ev := diligence.Evidence(d, f)
				return json.Marshal(Analysis{Memo: memo, Outputs: diligence.Outputs(d, f), Evidence: ev, Rounds: max(len(f.Rounds), 1), Claims: briefs(d, f, ev),
					Enrichment: dr.Enrichment != ""})
			},
		},
		{
			Name: ToolCheck, Description: "Pass a role's output through the Muḥāsabah gate (seed 000 §7); a rejection is recorded and refuses the output.",
			InputSchema:  json.RawMessage(`{"type":"object","required":["output","evidence"],"properties":{"output":{"type":"object"},"evidence":{"type":"object"}}}`),
			OutputSchema: obj, Risk: "check", SideEffect: tool.SideEffectInternal, Idempotent: true,
			Func: func(ctx context.Context, c tool.Call) (json.RawMessage, error) {
				var in struct {
					Output   debate.Output   `json:"output"`
					Evidence debate.Evidence `json:"evidence"`
				}
				if err := json.Unmarshal(c.Input, &in); err != nil {
					return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolCheck, "input")
				}
				err := debate.Gate(in.Output, in.Evidence, func(r debate.Rejection) error {
					return j.Reject(ctx, c.Run, r)
				})
				if err != nil {
					return nil, err
				}
				return json.Marshal(map[string]any{"passed": true, "agent_id": in.Output.AgentID, "round_number": in.Output.RoundNumber})
			},
		},
	}...)
}
