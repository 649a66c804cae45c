package debate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/calc"
	"github.com/sanadhq/sanad/claim"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/playbook/debate"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

var dealScope = sanad.Scope{Tenant: "fund-1", Case: "deal-7"}

// registry is a small deal: audited revenue (A) of £48.2m, the deck's
// £52.0m (C), and cash in the bank data (A), with a growth calc.
func registry(t *testing.T) (*debate.Registry, map[string]string) {
	t.Helper()
	mk := func(doc, metric, period string, v float64, unit string) claim.Claim {
		val := claim.Value{Metric: metric, Value: v, Unit: unit, Currency: "GBP", Period: period}
		span := claim.Span{Document: doc, Version: "v1", Start: 10, End: 20}
		return claim.Claim{ID: claim.ID("v1", span, val), Text: doc + " states " + metric + " for " + period, Class: claim.Financial, Value: val, Span: span}
	}
	claims := []claim.Claim{
		mk("audited.pdf", "revenue", "FY2024", 48.2e6, "currency"),
		mk("deck.pdf", "revenue", "FY2024", 52.0e6, "currency"),
		mk("audited.pdf", "revenue", "FY2023", 40.7e6, "currency"),
		mk("bank.csv", "cash", "2025-06", 11.6e6, "currency"),
	}
	sources := map[string]claim.Source{}
	for doc, kind := range map[string]string{"audited.pdf": "audited statements", "deck.pdf": "deck", "bank.csv": "bank data"} {
		s, err := claim.Declare(doc, kind, "")
		if err != nil {
			t.Fatal(err)
		}
		sources[doc] = s
	}
	facts := claim.Chain(claims, sources)
	ids := map[string]string{"audited": claims[0].ID, "deck": claims[1].ID, "prior": claims[2].ID, "cash": claims[3].ID}
	g, err := calc.Growth(calc.Input{ClaimID: ids["prior"], Value: 40.7e6, Unit: "currency", Currency: "GBP", Period: "FY2023", Grade: "A"},
		calc.Input{ClaimID: ids["audited"], Value: 48.2e6, Unit: "currency", Currency: "GBP", Period: "FY2024", Grade: "A"})
	if err != nil {
		t.Fatal(err)
	}
	ids["growth"] = g.CalcID
	return debate.NewRegistry("deal-7", dealScope, facts, []calc.Result{*g}), ids
}

type rig struct {
	h   *home.Home
	gw  *tool.Gateway
	reg *debate.Registry
	ids map[string]string
	run *runs.Run
	n   int
}

func newRig(t *testing.T) *rig {
	t.Helper()
	h := ledgertest.Open(t, t.TempDir())
	pol, err := policy.Load(filepath.Join("..", "..", "examples", "policies", "debate"))
	if err != nil {
		t.Fatal(err)
	}
	reg, ids := registry(t)
	gates := &gate.Service{Runs: h.Runs, Store: h.DB, Roles: pol}
	treg, err := tool.NewRegistry(reg.Tools(&debate.Journal{Runs: h.DB, Recorder: h.Runs, Gates: gates})...)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := tool.New(tool.Config{Registry: treg, Policy: pol, Runs: h.Runs, Artifacts: h.Artifacts})
	if err != nil {
		t.Fatal(err)
	}
	run, err := h.Runs.Start(context.Background(), runs.Spec{Kind: sanad.KindAgent, Scope: dealScope, Agent: "debate", Role: "arbiter",
		Decision: runs.Decision{Allow: true, Reason: "a test debate"}})
	if err != nil {
		t.Fatal(err)
	}
	return &rig{h: h, gw: gw, reg: reg, ids: ids, run: run}
}

func (g *rig) call(t *testing.T, role, name string, round int, in any) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(in)
	p := policy.Principal{Agent: role + "-1", Role: role, Scope: dealScope}
	g.n++
	return g.gw.Call(context.Background(), g.run, p, tool.Request{Tool: name, CallID: fmt.Sprintf("%s-%d", name, g.n), Input: raw, Round: round, DebateID: "debate-7"})
}

func TestD05_LookupClaimWithSanadAndEvidence(t *testing.T) {
	g := newRig(t)
	res := g.call(t, debate.RoleAdvocate, debate.ToolLookupClaim, 1, map[string]any{"claim_id": g.ids["deck"], "include_sanad": true, "include_evidence": true})
	if !res.Success {
		t.Fatalf("lookup_claim: %s %s", res.Code, res.Message)
	}
	var out debate.ClaimLookup
	if err := json.Unmarshal(res.Output(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Claim.ID != g.ids["deck"] || out.Sanad == nil || out.Claim.Verdict != claim.Refuted || len(out.Sanad.Contradictions) != 1 || len(out.Evidence) < 2 {
		t.Fatalf("the deck's revenue, refuted by the audited figure: %+v", out)
	}
	if res := g.call(t, debate.RoleAdvocate, debate.ToolLookupClaim, 1, map[string]any{"claim_id": "clm-none"}); res.Success || res.Code != sanad.CodeClaimNotFound {
		t.Fatalf("an unknown claim: %+v", res)
	}
	raw, _ := json.Marshal(map[string]any{"claim_id": g.ids["deck"]})
	p := policy.Principal{Agent: "advocate-1", Role: debate.RoleAdvocate, Scope: sanad.Scope{Tenant: "fund-2", Case: "deal-7"}}
	if res := g.gw.Call(context.Background(), g.run, p, tool.Request{Tool: debate.ToolLookupClaim, CallID: "other-tenant", Input: raw, Round: 1}); res.Success {
		t.Fatalf("another tenant read the deal's claim")
	}
}

func TestD06_LookupCalc(t *testing.T) {
	g := newRig(t)
	res := g.call(t, debate.RoleRiskOfficer, debate.ToolLookupCalc, 1, map[string]any{"calc_id": g.ids["growth"]})
	if !res.Success {
		t.Fatalf("lookup_calc: %s %s", res.Code, res.Message)
	}
	var out struct {
		Calc   calc.Result   `json:"calc"`
		Inputs []claim.Claim `json:"inputs"`
	}
	if err := json.Unmarshal(res.Output(), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.Calc.FormulaHash, "sha256:") || out.Calc.CodeVersion == "" || out.Calc.CalcSanad != "A" || len(out.Inputs) != 2 {
		t.Fatalf("calc: %+v", out)
	}
}

func TestD07_SearchEvidence(t *testing.T) {
	g := newRig(t)
	res := g.call(t, debate.RoleSanadBreaker, debate.ToolSearchEvidence, 1, map[string]any{"query": "revenue FY2024", "deal_id": "deal-7", "min_grade": "A"})
	if !res.Success {
		t.Fatalf("search_evidence: %s %s", res.Code, res.Message)
	}
	var out struct {
		Results []debate.EvidenceItem `json:"results"`
		Total   int                   `json:"total_count"`
	}
	if err := json.Unmarshal(res.Output(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Total == 0 || out.Results[0].EvidenceID != g.ids["audited"] {
		t.Fatalf("search: %+v", out)
	}
	for _, r := range out.Results {
		if r.SourceGrade != "A" {
			t.Errorf("min_grade A returned grade %s", r.SourceGrade)
		}
	}
}

func TestD08_D11_D12_D13_FlagDefectThroughTheGateway(t *testing.T) {
	g := newRig(t)
	defect := map[string]any{"claim_id": g.ids["deck"], "defect_type": "CONTRADICTION", "severity": "MAJOR",
		"description":   "The deck states FY2024 revenue of £52.0m; the audited statements give £48.2m, 7.9% lower.",
		"evidence_refs": []string{g.ids["audited"]}, "cure_protocol": "Restate the deck from the audited accounts."}
	// D11: only the sanad breaker may flag a defect.
	if res := g.call(t, debate.RoleAdvocate, debate.ToolFlagDefect, 1, defect); res.Success || res.Code != sanad.CodePolicyDenied {
		t.Fatalf("the advocate flagged a defect: %+v", res)
	}
	res := g.call(t, debate.RoleSanadBreaker, debate.ToolFlagDefect, 1, defect)
	if !res.Success {
		t.Fatalf("flag_defect: %s %s", res.Code, res.Message)
	}
	// D13: a defect needs evidence and 50 characters.
	short := map[string]any{}
	for k, v := range defect {
		short[k] = v
	}
	short["description"] = "too short"
	if res := g.call(t, debate.RoleSanadBreaker, debate.ToolFlagDefect, 1, short); res.Success || res.Code != sanad.CodeToolAbuse {
		t.Fatalf("a short description: %+v", res)
	}
	// D13: at most three per round.
	for i := 0; i < 3; i++ {
		d := map[string]any{}
		for k, v := range defect {
			d[k] = v
		}
		d["cure_protocol"] = strings.Repeat("x", i+1)
		g.call(t, debate.RoleSanadBreaker, debate.ToolFlagDefect, 2, d)
	}
	d := map[string]any{}
	for k, v := range defect {
		d[k] = v
	}
	d["cure_protocol"] = "the fourth"
	if res := g.call(t, debate.RoleSanadBreaker, debate.ToolFlagDefect, 2, d); res.Success || res.Code != sanad.CodeToolAbuse {
		t.Fatalf("a fourth defect in a round: %+v", res)
	}
	// D08 and D12: the defect is an event, and every call is audited with
	// its debate and round.
	evs, err := g.h.Ledger.Events(context.Background(), g.run.Record.Trace)
	if err != nil {
		t.Fatal(err)
	}
	flagged, completed := 0, 0
	for _, ev := range evs {
		switch ev.Type {
		case debate.TypeDefectFlagged:
			flagged++
		case "tool.completed":
			var b struct {
				DebateID string `json:"debate_id"`
				Round    int    `json:"round"`
			}
			_ = json.Unmarshal(ev.Body, &b)
			if b.DebateID != "debate-7" || b.Round == 0 {
				t.Errorf("a call audited without its debate and round: %s", ev.Body)
			}
			completed++
		}
	}
	if flagged != 4 || completed != 4 || len(g.reg.Defects()) != 4 {
		t.Fatalf("%d defect events, %d completed calls, %d defects; want 4 each", flagged, completed, len(g.reg.Defects()))
	}
	if _, err := g.h.Ledger.Verify(context.Background(), g.run.Record.Trace); err != nil {
		t.Fatal(err)
	}
}

type fileEnrichment map[string][]debate.EnrichmentResult

func (f fileEnrichment) Query(_ context.Context, _, name string, _ []string) ([]debate.EnrichmentResult, error) {
	return f[name], nil
}

func TestD10_QueryEnrichmentIsGradedCOrDAndFailsLoudly(t *testing.T) {
	reg, _ := registry(t)
	spec := reg.Tools(nil)
	var q tool.Spec
	for _, s := range spec {
		if s.Name == debate.ToolQueryEnrichment {
			q = s
		}
	}
	in := json.RawMessage(`{"entity_type":"COMPANY","entity_name":"Tessaro","data_points":["headcount"]}`)
	call := tool.Call{Tool: q.Name, Input: in, Principal: policy.Principal{Scope: dealScope}}
	if _, err := q.Func(context.Background(), call); sanad.ErrorCode(err) != sanad.CodeDependencyDown {
		t.Fatalf("no source configured: %v", err)
	}
	reg.Enrichment = fileEnrichment{"Tessaro": {{DataPoint: "headcount", Value: "410", Source: "a web directory", Grade: "A"}}}
	out, err := q.Func(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"source_grade":"D"`) || !strings.Contains(string(out), `"needs_corroboration":true`) {
		t.Fatalf("enrichment: %s", out)
	}
}

func TestD09_RequestHumanReviewOpensAGateOnlyTheArbiterMayAsk(t *testing.T) {
	g := newRig(t)
	req := map[string]any{"claim_ids": []string{g.ids["deck"]}, "reason": "The deck's revenue is 7.9% above the audited figure.", "priority": "HIGH"}
	if res := g.call(t, debate.RoleSanadBreaker, debate.ToolRequestHumanReview, 1, req); res.Success || res.Code != sanad.CodePolicyDenied {
		t.Fatalf("the sanad breaker opened a review: %+v", res)
	}
	res := g.call(t, debate.RoleArbiter, debate.ToolRequestHumanReview, 1, req)
	if !res.Success {
		t.Fatalf("request_human_review: %s %s", res.Code, res.Message)
	}
	var out struct {
		GateID string `json:"gate_id"`
	}
	if err := json.Unmarshal(res.Output(), &out); err != nil {
		t.Fatal(err)
	}
	gt, err := g.h.DB.Gate(context.Background(), out.GateID)
	if err != nil {
		t.Fatal(err)
	}
	if gt.Status != gate.StatusOpen || gt.Kind != gate.KindHumanReview || gt.RequiredRole != "analyst" || gt.Run != g.run.Record.ID || gt.ClaimIDs[0] != g.ids["deck"] {
		t.Fatalf("gate: %+v", gt)
	}
	// A person of the required role resolves it.
	gates := &gate.Service{Runs: g.h.Runs, Store: g.h.DB, Roles: mustPolicy(t)}
	if _, err := gates.Resolve(context.Background(), out.GateID, runs.Principal{Agent: "ana", Role: "analyst"}, true, "checked against the audit file"); err != nil {
		t.Fatal(err)
	}
}

func mustPolicy(t *testing.T) *policy.Set {
	t.Helper()
	pol, err := policy.Load(filepath.Join("..", "..", "examples", "policies", "debate"))
	if err != nil {
		t.Fatal(err)
	}
	return pol
}
