// Package deal is the due-diligence debate as a workflow (seed 000): the
// arbiter reads the deal's data room once through the deal.analyze tool
// (its result recorded, so a resume or a replay reads it back instead of
// reading the files again), then each round is one step per role, in the
// order a round hears them, and every role's output passes the Muḥāsabah
// gate as a recorded muhasabah.check call; a rejection is a
// muhasabah.rejected event and fails the run (the gate is fail-closed).
// The last step is the memo. A crashed debate resumes at the step after
// its last checkpoint, re-running no round.
package deal

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/dbwrite"
	"github.com/sanadhq/sanad/diligence"
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
	// ToolLookupClaim is seed 000's lookup_claim over the deal's claim
	// registry as deal.analyze wrote it.
	ToolLookupClaim = debate.ToolLookupClaim
	// maxLookups is lookup_claim's limit per round (§6.2).
	maxLookups = 20
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
// every round, and what the gate knows of the evidence.
type Analysis struct {
	Memo     diligence.Memo  `json:"memo"`
	Outputs  []debate.Output `json:"outputs"`
	Evidence debate.Evidence `json:"evidence"`
	Rounds   int             `json:"rounds"`
}

// Heard is a role's step output: its output, or why it was not heard (the
// debate stopped before the round).
type Heard struct {
	Round  int            `json:"round"`
	Role   string         `json:"role"`
	Heard  bool           `json:"heard"`
	Reason string         `json:"reason,omitempty"`
	Output *debate.Output `json:"output,omitempty"`
	// LookedUp counts the claims the role looked up before its output
	// went to the gate.
	LookedUp int `json:"looked_up,omitempty"`
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
	for _, role := range debate.Roles {
		tools := []string{ToolCheck, ToolLookupClaim}
		if role == debate.RoleArbiter {
			tools = append(tools, ToolAnalyze)
		}
		id := agentID(role)
		agents = append(agents, agent.Profile{ID: id, Name: strings.ReplaceAll(role, "_", " "), Role: role, ModelClass: "none",
			Description:    "The " + strings.ReplaceAll(role, "_", " ") + " of the due-diligence debate (seed 000 §2.2).",
			PermittedTools: tools, Enabled: true, Version: "1.0.0"})
		nodes[id] = func(p agent.Profile) agent.Node {
			return agent.Func(p, func(ctx context.Context, in agent.Input) (agent.Output, error) { return act(ctx, p.Role, in) })
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
// the memo, each step after the one before.
func Definition(rounds int) *workflow.Definition {
	d := &workflow.Definition{Name: Name, Version: "1.0.0", Agent: agentID(debate.RoleArbiter),
		Description: "Analyse a deal's data room, hear each role round by round, and write the memo."}
	d.Steps = append(d.Steps, workflow.Step{ID: "analyze", Agent: agentID(debate.RoleArbiter), Task: taskAnalyze})
	prev := "analyze"
	for r := 1; r <= rounds; r++ {
		for _, role := range debate.Roles {
			id := fmt.Sprintf("r%d-%s", r, strings.ReplaceAll(role, "_", "-"))
			d.Steps = append(d.Steps, workflow.Step{ID: id, Agent: agentID(role), Task: fmt.Sprintf("Round %d", r), DependsOn: dedupe("analyze", prev)})
			prev = id
		}
	}
	d.Steps = append(d.Steps, workflow.Step{ID: "memo", Agent: agentID(debate.RoleArbiter), Task: taskMemo, DependsOn: dedupe("analyze", prev)})
	return d
}

// agentID is the agent id of a role: the seed's role names use '_', agent
// ids '-'.
func agentID(role string) string { return strings.ReplaceAll(role, "_", "-") }

func dedupe(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// act is every role's node: the arbiter's analysis and memo, and each
// role's output of a round through the gate.
func act(ctx context.Context, me string, in agent.Input) (agent.Output, error) {
	switch {
	case in.Task == taskAnalyze:
		raw, err := in.Tools.Call(ctx, ToolAnalyze, in.Input)
		if err != nil {
			return agent.Output{}, err
		}
		return agent.Output{Content: raw, Summary: "the data room analysed"}, nil
	case in.Task == taskMemo:
		a, err := analysis(in)
		if err != nil {
			return agent.Output{}, err
		}
		raw, err := json.Marshal(a.Memo)
		if err != nil {
			return agent.Output{}, err
		}
		return agent.Output{Content: raw, Summary: a.Memo.Recommendation + " (" + a.Memo.StopReason + ")"}, nil
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
	for i := range a.Outputs {
		if a.Outputs[i].Role == me && a.Outputs[i].RoundNumber == round {
			h.Output = &a.Outputs[i]
		}
	}
	if h.Output == nil {
		h.Reason = fmt.Sprintf("the debate stopped after round %d: %s", a.Rounds, a.Memo.StopReason)
		raw, _ := json.Marshal(h)
		return agent.Output{Content: raw, Summary: "not heard: " + h.Reason}, nil
	}
	// The role looks up what it cites in the registry (§4.1), through the
	// gateway, before its output goes to the gate.
	seen := map[string]bool{}
	for _, id := range append(append([]string{}, h.Output.ClaimRefs...), h.Output.Muhasabah.SupportedClaimIDs...) {
		if seen[id] || len(seen) == maxLookups {
			continue
		}
		seen[id] = true
		arg, _ := json.Marshal(map[string]any{"claim_id": id, "include_sanad": true})
		if _, err := in.Tools.Call(ctx, ToolLookupClaim, arg); err != nil {
			return agent.Output{}, err
		}
		h.LookedUp++
	}
	check, err := json.Marshal(map[string]any{"output": h.Output, "evidence": a.Evidence})
	if err != nil {
		return agent.Output{}, err
	}
	if _, err := in.Tools.Call(ctx, ToolCheck, check); err != nil {
		return agent.Output{}, err
	}
	h.Heard = true
	raw, err := json.Marshal(h)
	if err != nil {
		return agent.Output{}, err
	}
	return agent.Output{Content: raw, Summary: fmt.Sprintf("round %d heard, %d claims cited", round, len(h.Output.ClaimRefs))}, nil
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

// tools returns deal.analyze, which also writes the deal's claim registry
// (one record per document, through the WRITE_CLAIMS db_write lane, as
// children of its call), and muhasabah.check, whose rejections are recorded
// on the run that asked for the check.
func tools(h *home.Home, pol *policy.Set) []tool.Spec {
	obj := json.RawMessage(`{"type":"object"}`)
	j := &debate.Journal{Runs: h.DB, Recorder: h.Runs}
	writer := &dbwrite.Writer{Policy: pol, Runs: h.Runs, Artifacts: h.Artifacts}
	return []tool.Spec{
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
				return json.Marshal(Analysis{Memo: memo, Outputs: diligence.Outputs(d, f), Evidence: diligence.Evidence(d, f), Rounds: max(len(f.Rounds), 1)})
			},
		},
		{
			Name: ToolLookupClaim, Description: "Retrieve a claim of the deal's registry by id, with its grade, verdict and source (seed 000 §4.1).",
			InputSchema:  json.RawMessage(`{"type":"object","required":["claim_id"],"additionalProperties":false,"properties":{"claim_id":{"type":"string","minLength":1,"maxLength":128},"include_sanad":{"type":"boolean"},"include_evidence":{"type":"boolean"}}}`),
			OutputSchema: obj, Risk: "read", SideEffect: tool.SideEffectNone, Idempotent: true,
			Func: func(ctx context.Context, c tool.Call) (json.RawMessage, error) {
				var in struct {
					ClaimID string `json:"claim_id"`
				}
				if err := json.Unmarshal(c.Input, &in); err != nil {
					return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolLookupClaim, "input")
				}
				rows, err := h.DB.Records(ctx, c.Principal.Scope, diligence.Table)
				if err != nil {
					return nil, err
				}
				for _, row := range rows {
					data, err := h.Artifacts.Read(row.SHA256)
					if err != nil {
						return nil, sanad.Wrap(err, sanad.CodeIntegrity, ToolLookupClaim, "the record of "+row.Key)
					}
					var rec diligence.RegistryRecord
					if err := json.Unmarshal(data, &rec); err != nil {
						return nil, sanad.Wrap(err, sanad.CodeIntegrity, ToolLookupClaim, "the record of "+row.Key)
					}
					for _, cl := range rec.Claims {
						if cl.ID == in.ClaimID {
							return json.Marshal(map[string]any{"claim": cl, "sanad": map[string]any{
								"grade": cl.Grade, "verdict": cl.Verdict, "cited_source": cl.CitedSource,
								"source": map[string]any{"document": rec.Document, "kind": rec.Kind, "grade": rec.Grade}}})
						}
					}
				}
				return nil, sanad.Errorf(sanad.CodeClaimNotFound, ToolLookupClaim, "no claim %s in the registry of case %s", in.ClaimID, c.Principal.Scope.Case)
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
	}
}
