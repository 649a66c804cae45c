package deal

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/diligence"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/playbook/debate"
)

// roleOutputSchema is the JSON Schema a model's output follows: debate's
// agent_output schema made self-contained (the Muḥāsabah record inline),
// closed to other fields and bounded in size. Its tool calls and timestamp
// are not the model's to state; its agent, role and round are set to the
// step's.
//
//go:embed schema/role_output.schema.json
var roleOutputSchema []byte

// outputName names the schema to the model's provider.
const outputName = "agent_output"

// Bounds of what a role's prompt holds.
const (
	// maxPromptClaims: the most material claims a role may cite.
	maxPromptClaims = 40
	// maxPromptHeard: the latest outputs heard before the role speaks.
	maxPromptHeard = 15
	// maxHeardContent bounds the content of each output heard, in bytes.
	maxHeardContent = 600
	// maxAttempts: the model's output, and one corrected after a refusal.
	maxAttempts = 2
)

// mandates are the roles' purposes (seed 000 §2.2), as a role's model is
// told them.
var mandates = map[string]string{
	debate.RoleAdvocate:            "Present the investment thesis: the case for the deal, resting on its best-graded evidence, and answer the challenges raised against it.",
	debate.RoleSanadBreaker:        "Challenge the evidence chains (sanad): claims that rest on a grade below A, on one source alone (Āḥād), on a source that is missing, or on a stale period.",
	debate.RoleContradictionFinder: "Find inconsistencies across documents: the same metric and period stated differently, or a rate that does not follow from the figures it is computed from.",
	debate.RoleRiskOfficer:         "Identify the downside risks: what in the evidence could make the investment lose value (losses, burn, concentration, covenants).",
	debate.RoleArbiter:             "Rule on the challenges raised in the round: say which are upheld and why, and whether the debate should stop, keeping any dissent that holds.",
}

// speak has the role's model write its output of the round: the model is
// asked for an AgentOutput (structured output), the output is given the
// step's agent, role and round, the role looks up the claims it cites, and
// it passes the Muḥāsabah gate, checked to the figure. An output the gate
// refuses, or that is not a valid AgentOutput, is refused: the model is
// told why and asked once more; if that output is refused too, the role's
// deterministic output (draft) is heard instead. No output of the model
// is heard without passing the gate.
//
// Every model call is a recorded effect of the step: a resumed or replayed
// step reads the replies back instead of asking again. A model call that
// fails (the provider is down, the key refused) fails the step.
func speak(ctx context.Context, in agent.Input, a Analysis, role string, round int, draft debate.Output, lim limits) (Heard, error) {
	h := Heard{Round: round, Role: role}
	req := roleRequest(a, role, round, draft, heardBefore(in, round+1))
	lk := &lookups{max: lim[ToolLookupClaim]}
	for range maxAttempts {
		resp, err := in.Model.Generate(ctx, req)
		if err != nil {
			if sanad.ErrorCode(err) != sanad.CodeModelOutput {
				return h, err
			}
			// The model layer has already asked once more, naming what
			// did not match the schema.
			h.Rejected = append(h.Rejected, debate.Violation{Rule: debate.RuleSchema, Detail: sanad.ErrorMessage(err)})
			break
		}
		var vs []debate.Violation
		out, err := parseOutput(resp, role, round)
		if err != nil {
			vs = []debate.Violation{{Rule: debate.RuleSchema, Detail: sanad.ErrorMessage(err)}}
		} else {
			if err := lk.cited(ctx, in, out, true); err != nil {
				return h, err
			}
			ev := a.evidenceFor(out)
			err := check(ctx, in, out, ev)
			var te *agent.ToolError
			switch {
			case err == nil:
				h.Mode, h.Output = ModeModel, &out
				lk.note(&h)
				return h, nil
			case errors.As(err, &te) && te.Code == sanad.CodeMuhasabahGate:
				// The gate recorded the rejection; the same check says
				// what it found.
				if vs = debate.Check(out, ev); len(vs) == 0 {
					vs = []debate.Violation{{Rule: debate.RuleSchema, Detail: te.Message}}
				}
			default:
				return h, err
			}
		}
		h.Rejected = append(h.Rejected, vs...)
		req = corrected(req, resp, vs)
	}
	h.Mode, h.Output = ModeFallback, &draft
	if err := lk.cited(ctx, in, draft, false); err != nil {
		return h, err
	}
	lk.note(&h)
	if err := check(ctx, in, draft, a.Evidence); err != nil {
		return h, err
	}
	return h, nil
}

// parseOutput reads the model's reply as the role's AgentOutput of the
// round: its agent, role and round are the step's whatever the reply says,
// it must match debate's agent_output schema, and what is not the model's
// to state (tool calls, a timestamp) is dropped. A reply that is not such
// an output is MODEL_OUTPUT_INVALID.
func parseOutput(resp model.Response, role string, round int) (debate.Output, error) {
	const op = "deal.model_output"
	raw := resp.Output
	if len(raw) == 0 {
		raw = model.OutputJSON(resp.Text)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return debate.Output{}, sanad.Errorf(sanad.CodeModelOutput, op, "the reply is not a JSON object")
	}
	delete(fields, "tool_calls")
	delete(fields, "timestamp")
	fields["agent_id"], _ = json.Marshal(agentID(role))
	fields["role"], _ = json.Marshal(role)
	fields["round_number"], _ = json.Marshal(round)
	raw, err := json.Marshal(fields)
	if err != nil {
		return debate.Output{}, sanad.Wrap(err, sanad.CodeModelOutput, op, "the reply")
	}
	if err := debate.ValidateJSON(debate.SchemaOutput, raw); err != nil {
		return debate.Output{}, sanad.Wrap(err, sanad.CodeModelOutput, op, "the reply is not an AgentOutput: "+sanad.ErrorMessage(err))
	}
	var out debate.Output
	if err := json.Unmarshal(raw, &out); err != nil {
		return debate.Output{}, sanad.Wrap(err, sanad.CodeModelOutput, op, "the reply is not an AgentOutput")
	}
	return out, nil
}

// corrected returns req with the refused reply and what was wrong with it,
// asking for a corrected output.
func corrected(req model.Request, bad model.Response, vs []debate.Violation) model.Request {
	var b strings.Builder
	b.WriteString("The Muḥāsabah gate refused your output:\n")
	for _, v := range vs {
		fmt.Fprintf(&b, "- %s: %s\n", v.Rule, v.Detail)
	}
	b.WriteString("Reply again with only the corrected JSON object. It must meet every rule; an output refused again is not heard.")
	msgs := slices.Clone(req.Messages)
	if text := strings.TrimSpace(bad.Text); text != "" {
		msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: text})
	} else if len(bad.Output) > 0 {
		msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: string(bad.Output)})
	}
	req.Messages = append(msgs, model.Message{Role: model.RoleUser, Content: b.String()})
	return req
}

// roleRequest is the request that asks the role's model for its output of
// the round: its mandate and the gate's rules, then the deal, the claims
// and calcs it may cite, what was heard before it, and its deterministic
// output as a draft.
func roleRequest(a Analysis, role string, round int, draft debate.Output, heard []Heard) model.Request {
	var sys strings.Builder
	fmt.Fprintf(&sys, "You are the %s of a due-diligence debate over a deal's data room.\n", strings.ReplaceAll(role, "_", " "))
	fmt.Fprintf(&sys, "Your mandate: %s\n", mandates[role])
	fmt.Fprintf(&sys, "Reply with only a JSON object matching the schema %q: your output for this round.\n", outputName)
	sys.WriteString("The Muḥāsabah gate refuses an output that breaks one of these rules:\n")
	sys.WriteString("1. NO_FREE_FACTS: every figure you write (an amount, a percentage, a count, a year) must be one that a claim or calc you cite states, written as it states it; cite it in claim_refs and muhasabah_record.supported_claim_ids (calcs in calc_refs and supported_calc_ids). Cite only the ids listed.\n")
	sys.WriteString("2. FALSIFIABILITY_MISSING: a confidence above 0.50 needs at least one falsifiability test.\n")
	sys.WriteString("3. UNCERTAINTIES_MISSING: citing a claim graded below A, or marked Āḥād (one source alone), needs at least one uncertainty.\n")
	sys.WriteString("4. OVERCONFIDENCE: a confidence above 0.80 needs an uncertainty or a counter-hypothesis.\n")
	sys.WriteString("Do not compute new figures: state the evidence's own, and argue from them.\n")

	var user strings.Builder
	m := a.Memo
	fmt.Fprintf(&user, "Deal: %s (%s), evidence as of %s. This is round %d of at most %d.\n\n", m.Company, m.Deal, m.AsOf, round, a.Rounds)
	user.WriteString("Claims you may cite (id | metric | value | period | document | grade | Āḥād):\n")
	for _, c := range material(a, draft) {
		metric := c.Value.Metric
		if len(c.Value.Qualifiers) > 0 {
			metric += " (" + strings.Join(c.Value.Qualifiers, ", ") + ")"
		}
		fmt.Fprintf(&user, "- %s | %s | %s | %s | %s | %s | %s\n", c.ID, metric, diligence.FormatValue(c.Value), orDash(c.Value.Period), c.Document, c.Grade, yesNo(c.Ahad))
	}
	if len(m.Calcs) > 0 {
		user.WriteString("\nCalcs you may cite (id | name | value):\n")
		for _, r := range m.Calcs {
			fmt.Fprintf(&user, "- %s | %s | %s %s\n", r.CalcID, r.Name, strconv.FormatFloat(r.Value, 'f', 2, 64), r.Unit)
		}
	}
	if len(heard) > 0 {
		user.WriteString("\nHeard so far in this debate:\n")
		for _, h := range heard[max(len(heard)-maxPromptHeard, 0):] {
			fmt.Fprintf(&user, "- Round %d, %s: %s [claims: %s]\n", h.Round, strings.ReplaceAll(h.Role, "_", " "),
				cut(h.Output.Content, maxHeardContent), strings.Join(h.Output.ClaimRefs, ", "))
		}
	}
	d := draft
	d.ToolCalls, d.Timestamp = nil, ""
	// Lists the schema wants as arrays, not null.
	d.ClaimRefs = nonNil(d.ClaimRefs)
	d.Muhasabah.SupportedClaimIDs = nonNil(d.Muhasabah.SupportedClaimIDs)
	raw, _ := json.MarshalIndent(d, "", " ")
	fmt.Fprintf(&user, "\nYour draft for this round, from the deterministic analysis: refine it, or keep it if it is right.\n%s\n", raw)

	temp := 0.0
	return model.Request{System: sys.String(), Messages: []model.Message{{Role: model.RoleUser, Content: user.String()}},
		Output: &model.OutputSchema{Name: outputName, Schema: roleOutputSchema}, Temperature: &temp}
}

// material returns the claims a role's prompt lists, at most
// maxPromptClaims: those its draft cites, then those any role's output
// cites, then the rest, best graded first; within each, in registry order.
func material(a Analysis, draft debate.Output) []ClaimBrief {
	rank := map[string]int{}
	for _, o := range a.Outputs {
		for _, id := range o.ClaimRefs {
			rank[id] = 1
		}
	}
	for _, id := range draft.ClaimRefs {
		rank[id] = 2
	}
	out := slices.Clone(a.Claims)
	slices.SortStableFunc(out, func(x, y ClaimBrief) int {
		if d := rank[y.ID] - rank[x.ID]; d != 0 {
			return d
		}
		return strings.Compare(x.Grade, y.Grade)
	})
	return out[:min(len(out), maxPromptClaims)]
}

// cut returns s cut to at most n bytes, at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
