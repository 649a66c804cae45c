package deal_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/diligence"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/playbook/deal"
	"github.com/sanadhq/sanad/playbook/debate"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

// goldenDir returns the absolute folder of a golden deal.
func goldenDir(t testing.TB, name string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "deals", name))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// debateOf runs the debate of the deal in dir, in its own case, and
// returns the result and the events of its trace.
func debateOf(t testing.TB, r *runner.Runner, dir string) (runner.Result, []*ledger.Event) {
	t.Helper()
	m, err := diligence.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), deal.Name, deal.Input{Dir: dir}, runner.Options{Scope: sanad.Scope{Tenant: "fund", Case: diligence.CaseID(m.Name)}})
	if err != nil || res.Err() != nil {
		t.Fatalf("%s: %v %v", filepath.Base(dir), err, res.Err())
	}
	return res, traceOf(t, r, res.Trace)
}

func traceOf(t testing.TB, r *runner.Runner, trace string) []*ledger.Event {
	t.Helper()
	evs, err := r.Home().Ledger.Events(context.Background(), trace)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// toolEvents returns the bodies of the events of type typ, as calls.
func toolEvents(t testing.TB, evs []*ledger.Event, typ string) []tool.CallInfo {
	t.Helper()
	var out []tool.CallInfo
	for _, ev := range evs {
		if ev.Type != typ {
			continue
		}
		var info tool.CallInfo
		if err := json.Unmarshal(ev.Body, &info); err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		out = append(out, info)
	}
	return out
}

func stepHeard(t testing.TB, res runner.Result, step string) deal.Heard {
	t.Helper()
	var h deal.Heard
	if err := json.Unmarshal(res.Outputs[step], &h); err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	return h
}

// TestD08_SanadBreakerFlagsThePlantedDefects: the debate over a deal whose
// ARR rests on one weak source flags both defects once, by the sanad
// breaker, as defect.flagged events carrying the debate's id and round,
// each call recorded by the gateway with the same debate id and round.
func TestD08_SanadBreakerFlagsThePlantedDefects(t *testing.T) {
	r := open(t, t.TempDir(), nil)
	defer r.Close()
	res, evs := debateOf(t, r, goldenDir(t, "05-sable-security"))
	var flagged []debate.Defect
	for _, ev := range evs {
		if ev.Type == debate.TypeDefectFlagged {
			var d debate.Defect
			if err := json.Unmarshal(ev.Body, &d); err != nil {
				t.Fatal(err)
			}
			flagged = append(flagged, d)
		}
	}
	types := map[string]bool{}
	for _, d := range flagged {
		types[d.DefectType] = true
		if d.FlaggedBy != "sanad-breaker" || d.DebateID != res.Run || d.Round != 1 || len(d.EvidenceRefs) == 0 || len(d.Description) < 50 {
			t.Errorf("defect %+v: want flagged by sanad-breaker in debate %s, round 1, with evidence and a description", d, res.Run)
		}
	}
	if len(flagged) != 2 || !types[diligence.TypeSingleSource] || !types[diligence.TypeWeakGrade] {
		t.Fatalf("got %d defects flagged (%v), want SINGLE_SOURCE and WEAK_GRADE once each", len(flagged), types)
	}
	calls := toolEvents(t, evs, tool.TypeCompleted)
	n := 0
	for _, c := range calls {
		if c.Tool == deal.ToolFlagDefect {
			n++
			if c.Agent != "sanad-breaker" || c.DebateID != res.Run || c.Round != 1 {
				t.Errorf("flag_defect call %+v: want sanad-breaker, debate %s, round 1", c, res.Run)
			}
		}
	}
	if n != 2 {
		t.Errorf("got %d flag_defect calls completed, want 2", n)
	}
	if h := stepHeard(t, res, "r2-sanad-breaker"); len(h.Used) != 0 {
		t.Errorf("round 2 flagged again: %+v", h.Used)
	}
}

// TestD07_D06_RolesSearchEvidenceAndLookUpCalcs: the contradiction finder
// searches the evidence of the fact it says is contradicted, and the
// advocate and the risk officer look up the calcs they cite, each call
// with the debate's id and the round of its step.
func TestD07_D06_RolesSearchEvidenceAndLookUpCalcs(t *testing.T) {
	r := open(t, t.TempDir(), nil)
	defer r.Close()
	for _, tc := range []struct {
		deal, tool string
		agents     []string
	}{
		{"02-corvid-freight", deal.ToolSearchEvidence, []string{"contradiction-finder"}},
		{"09-orrery-health", deal.ToolSearchEvidence, []string{"contradiction-finder"}},
		{"04-pelican-payroll", deal.ToolLookupCalc, []string{"advocate", "risk-officer"}},
		{"10-tidewell-storage", deal.ToolLookupCalc, []string{"advocate", "risk-officer"}},
	} {
		t.Run(tc.deal+"/"+tc.tool, func(t *testing.T) {
			res, evs := debateOf(t, r, goldenDir(t, tc.deal))
			by := map[string]int{}
			for _, c := range toolEvents(t, evs, tool.TypeCompleted) {
				if c.Tool != tc.tool {
					continue
				}
				by[c.Agent]++
				if c.DebateID != res.Run || c.Round < 1 {
					t.Errorf("%s call %+v: want debate %s and a round", tc.tool, c, res.Run)
				}
			}
			for _, a := range tc.agents {
				if by[a] == 0 {
					t.Errorf("got %s calls by %v, want some by %s", tc.tool, by, a)
				}
			}
			if len(by) != len(tc.agents) {
				t.Errorf("got %s calls by %v, want only by %v", tc.tool, by, tc.agents)
			}
		})
	}
}

// TestD11_D12_D18_GoldenDealsCallToolsAllowedAndAudited runs the ten
// golden deals: every tool call the policy judged was allowed (0
// permission violations); every tool.started is in a tool_gateway run
// with its authz.decision and a terminal event, and ends in
// tool.completed or tool.failed (100% audited); every call of a round's
// step carries the debate's id and the round; the roles' tool uses are
// those the §5 matrix gives them.
func TestD11_D12_D18_GoldenDealsCallToolsAllowedAndAudited(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "..", "examples", "deals", "[0-9]*"))
	if len(dirs) < 10 {
		t.Fatalf("%d golden deals", len(dirs))
	}
	r := open(t, t.TempDir(), nil)
	defer r.Close()
	total := map[string]int{}
	for _, dir := range dirs {
		abs, _ := filepath.Abs(dir)
		res, evs := debateOf(t, r, abs)
		audit(t, evs, res.Run, total)
	}
	for _, name := range []string{deal.ToolLookupClaim, deal.ToolLookupCalc, deal.ToolSearchEvidence, deal.ToolFlagDefect, deal.ToolRequestHumanReview, deal.ToolCheck, deal.ToolAnalyze} {
		if total[name] == 0 {
			t.Errorf("no %s call across the golden deals", name)
		}
	}
	t.Logf("tool calls across the golden deals: %v", total)
}

// audit checks the tool calls of a debate's events (see
// TestD11_D12_D18_GoldenDealsCallToolsAllowedAndAudited) and counts them
// by tool in total.
func audit(t testing.TB, evs []*ledger.Event, debateID string, total map[string]int) {
	t.Helper()
	type gw struct {
		decision *runs.Decision
		ended    bool
		started  []tool.CallInfo
		outcomes int
	}
	byRun := map[string]*gw{}
	get := func(id string) *gw {
		if byRun[id] == nil {
			byRun[id] = &gw{}
		}
		return byRun[id]
	}
	for _, ev := range evs {
		switch ev.Type {
		case runs.TypeAuthz:
			var d runs.Decision
			if err := json.Unmarshal(ev.Body, &d); err != nil {
				t.Fatal(err)
			}
			get(ev.Run).decision = &d
		case runs.TypeCompleted, runs.TypeFailed, runs.TypeDenied, runs.TypeCancelled:
			get(ev.Run).ended = true
		case tool.TypeStarted:
			var info tool.CallInfo
			if err := json.Unmarshal(ev.Body, &info); err != nil {
				t.Fatal(err)
			}
			g := get(ev.Run)
			g.started = append(g.started, info)
		case tool.TypeCompleted, tool.TypeFailed:
			get(ev.Run).outcomes++
		case tool.TypeRefused:
			t.Errorf("a tool call was refused: %s", ev.Body)
		}
	}
	for id, g := range byRun {
		if len(g.started) == 0 {
			continue
		}
		switch {
		case g.decision == nil:
			t.Errorf("tool_gateway run %s has no authz.decision", id)
		case !g.decision.Allow:
			t.Errorf("tool_gateway run %s: %s denied: %s", id, g.decision.Action, g.decision.Reason)
		}
		if !g.ended || g.outcomes != len(g.started) {
			t.Errorf("tool_gateway run %s: ended %v, %d attempts started, %d outcomes", id, g.ended, len(g.started), g.outcomes)
		}
		c := g.started[0]
		total[c.Tool]++
		if c.Tool != deal.ToolAnalyze && (c.DebateID != debateID || c.Round < 1) {
			t.Errorf("%s call by %s: debate %q round %d, want debate %s and a round", c.Tool, c.Agent, c.DebateID, c.Round, debateID)
		}
	}
}

// TestD11_AdvocateMayNotFlagADefect: an advocate that tries flag_defect is
// refused POLICY_DENIED by the gateway, the refusal recorded (a denied
// authz.decision and tool.refused), and the debate goes on to its memo.
func TestD11_AdvocateMayNotFlagADefect(t *testing.T) {
	r, err := runner.Open(context.Background(), runner.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	pb, err := deal.New()
	if err != nil {
		t.Fatal(err)
	}
	advocate := pb.Nodes["advocate"]
	var refused *agent.ToolError
	pb.Nodes["advocate"] = func(p agent.Profile) agent.Node {
		inner := advocate(p)
		return agent.Func(p, func(ctx context.Context, in agent.Input) (agent.Output, error) {
			if in.Task == "Round 1" {
				a := struct {
					Claims []deal.ClaimBrief `json:"claims"`
				}{}
				_ = json.Unmarshal(in.Inputs["analyze"], &a)
				arg, _ := json.Marshal(map[string]any{"claim_id": a.Claims[0].ID, "defect_type": "WEAK_GRADE", "severity": "MAJOR",
					"description": "The advocate tries to flag a defect, which only the sanad breaker may do.", "evidence_refs": []string{a.Claims[0].ID}, "cure_protocol": "none"})
				_, err := in.Tools.Call(ctx, deal.ToolFlagDefect, arg)
				if !asToolError(err, &refused) {
					return agent.Output{}, err
				}
			}
			return inner.Execute(ctx, in)
		})
	}
	if err := r.Register(pb); err != nil {
		t.Fatal(err)
	}
	res, evs := debateOf(t, r, goldenDir(t, "05-sable-security"))
	if refused == nil || refused.Code != sanad.CodePolicyDenied {
		t.Fatalf("got %v, want a POLICY_DENIED refusal", refused)
	}
	if len(memoOf(t, res).Deliberation) == 0 {
		t.Fatal("the debate did not reach its memo")
	}
	var denied, refusals int
	for _, ev := range evs {
		switch ev.Type {
		case runs.TypeAuthz:
			var d runs.Decision
			_ = json.Unmarshal(ev.Body, &d)
			if !d.Allow {
				denied++
				if d.Principal.Agent != "advocate" || !strings.Contains(d.Action, deal.ToolFlagDefect) {
					t.Errorf("denied %s of %s, want flag_defect of the advocate", d.Action, d.Principal.Agent)
				}
			}
		case tool.TypeRefused:
			var b tool.RefusedBody
			_ = json.Unmarshal(ev.Body, &b)
			refusals++
			if b.Status != sanad.CodePolicyDenied || b.Agent != "advocate" || b.DebateID != res.Run || b.Round != 1 {
				t.Errorf("refusal %+v: want POLICY_DENIED of the advocate in round 1 of debate %s", b, res.Run)
			}
		}
	}
	if denied != 1 || refusals != 1 {
		t.Errorf("got %d denied decisions and %d refusals, want 1 each", denied, refusals)
	}
}

func asToolError(err error, te **agent.ToolError) bool {
	e, ok := err.(*agent.ToolError)
	if ok {
		*te = e
	}
	return ok
}

// TestD10_RiskOfficerQueriesEnrichmentOnlyWhenConfigured: with no
// enrichment source in deal.yaml the risk officer does not call
// query_enrichment and says so; with one it queries it about the metrics
// it cites, and hears grade C or D data points; the memo is the same.
func TestD10_RiskOfficerQueriesEnrichmentOnlyWhenConfigured(t *testing.T) {
	r := open(t, t.TempDir(), nil)
	defer r.Close()
	golden := goldenDir(t, "09-orrery-health")
	plain, evs := debateOf(t, r, golden)
	if n := len(filterTool(toolEvents(t, evs, tool.TypeStarted), deal.ToolQueryEnrichment)); n != 0 {
		t.Fatalf("%d enrichment queries without a source", n)
	}
	if h := stepHeard(t, plain, "r1-risk-officer"); !strings.Contains(strings.Join(h.NotCalled, " "), deal.ToolQueryEnrichment) {
		t.Fatalf("the risk officer does not say why it did not query enrichment: %v", h.NotCalled)
	}

	dir := filepath.Join(t.TempDir(), "orrery-enriched")
	copyDir(t, golden, dir)
	manifest, err := os.ReadFile(filepath.Join(dir, diligence.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	manifest = append(manifest, []byte("enrichment: enrichment.json\n")...)
	if err := os.WriteFile(filepath.Join(dir, diligence.ManifestFile), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	recs := `[{"entity_type":"COMPANY","entity_name":"Orrery Health Ltd","data_point":"ebitda","value":"a loss of about 1m","number":-1000000,"source":"registry filing","source_grade":"B"}]`
	if err := os.WriteFile(filepath.Join(dir, "enrichment.json"), []byte(recs), 0o644); err != nil {
		t.Fatal(err)
	}
	res, evs := debateOf(t, r, dir)
	queries := filterTool(toolEvents(t, evs, tool.TypeCompleted), deal.ToolQueryEnrichment)
	if len(queries) == 0 {
		t.Fatal("the risk officer did not query the enrichment source")
	}
	for _, q := range queries {
		if q.Agent != "risk-officer" || q.DebateID != res.Run || q.Round != 1 {
			t.Errorf("query %+v: want the risk officer in round 1 of debate %s", q, res.Run)
		}
	}
	h := stepHeard(t, res, "r1-risk-officer")
	var got string
	for _, u := range h.Used {
		if u.Tool == deal.ToolQueryEnrichment {
			got = u.Result
		}
	}
	if !strings.HasPrefix(got, "1 data points of grade C or D") {
		t.Errorf("got enrichment result %q (%+v), want 1 data point of grade C or D", got, h.Used)
	}
	a, b := memoOf(t, plain), memoOf(t, res)
	if a.Recommendation != b.Recommendation || a.StopReason != b.StopReason || len(a.Deliberation) != len(b.Deliberation) {
		t.Errorf("the enrichment changed the memo: %s %s, want %s %s", b.Recommendation, b.StopReason, a.Recommendation, a.StopReason)
	}
}

func filterTool(calls []tool.CallInfo, name string) []tool.CallInfo {
	var out []tool.CallInfo
	for _, c := range calls {
		if c.Tool == name {
			out = append(out, c)
		}
	}
	return out
}

func copyDir(t testing.TB, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

// TestD09_ArbiterAsksForReviewWhenEscalating: a debate whose memo
// recommends ESCALATE has the arbiter, in its last round, open a human
// review gate for an analyst (request_human_review); the debate completes
// without waiting, and the memo names the open gate.
func TestD09_ArbiterAsksForReviewWhenEscalating(t *testing.T) {
	r := open(t, t.TempDir(), nil)
	defer r.Close()
	res, evs := debateOf(t, r, goldenDir(t, "02-corvid-freight"))
	m := memoOf(t, res)
	if m.Recommendation != diligence.Escalate || m.Review == nil || m.Review.GateID == "" {
		t.Fatalf("memo %s, review %+v: want ESCALATE with a review gate", m.Recommendation, m.Review)
	}
	g, err := r.Home().DB.Gate(context.Background(), m.Review.GateID)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != "open" || g.RequiredRole != "analyst" || len(g.ClaimIDs) == 0 {
		t.Errorf("gate %+v: want open, for an analyst, about claims", g)
	}
	calls := filterTool(toolEvents(t, evs, tool.TypeCompleted), deal.ToolRequestHumanReview)
	if len(calls) != 1 || calls[0].Agent != "arbiter" || calls[0].Round != m.Review.Round || calls[0].DebateID != res.Run {
		t.Errorf("request_human_review calls %+v: want one by the arbiter in round %d of debate %s", calls, m.Review.Round, res.Run)
	}
	if !strings.Contains(m.Markdown(), m.Review.GateID) {
		t.Error("the memo's text does not name the review gate")
	}
	// A deal that does not escalate asks for no review.
	res, _ = debateOf(t, r, goldenDir(t, "09-orrery-health"))
	if m := memoOf(t, res); m.Review != nil {
		t.Errorf("memo %s asks for review %+v", m.Recommendation, m.Review)
	}
}

// TestD13_RoundLimitIsKeptAndTheRestNoted: the advocate of a deal whose
// thesis cites more claims than lookup_claim's 20 calls per round looks
// up 20 and says which it did not look up.
func TestD13_RoundLimitIsKeptAndTheRestNoted(t *testing.T) {
	r := open(t, t.TempDir(), nil)
	defer r.Close()
	res, evs := debateOf(t, r, goldenDir(t, "01-larkfield-analytics"))
	n := 0
	for _, c := range filterTool(toolEvents(t, evs, tool.TypeCompleted), deal.ToolLookupClaim) {
		if c.Agent == "advocate" && c.Round == 1 {
			n++
		}
	}
	h := stepHeard(t, res, "r1-advocate")
	if n != 20 || h.LookedUp != 20 || len(h.NotCalled) != 1 || !strings.Contains(h.NotCalled[0], "limit of 20") {
		t.Errorf("got %d lookups (%d heard), notes %v; want 20 and a note of the rest", n, h.LookedUp, h.NotCalled)
	}
}

// TestD19_ResumedDebateRepeatsNoToolCall kills the debate after the sanad
// breaker's step has flagged its defects but before its checkpoint, and
// resumes it: the step runs again, reading its calls back, so each defect
// is flagged once; the memo is the uninterrupted one's but for the review
// gate's id.
func TestD19_ResumedDebateRepeatsNoToolCall(t *testing.T) {
	golden := goldenDir(t, "05-sable-security")
	clean := open(t, t.TempDir(), nil)
	want, _ := debateOf(t, clean, golden)
	clean.Close()

	dir := t.TempDir()
	hits, crashed := 0, false
	r := open(t, dir, func(p string) {
		if p == workflow.PointAfterAction {
			if hits++; hits == 3 { // analyze, r1-advocate, r1-sanad-breaker
				crashed = true
				runtime.Goexit()
			}
		}
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = r.Run(context.Background(), deal.Name, deal.Input{Dir: golden}, runner.Options{Scope: sanad.Scope{Tenant: "fund", Case: "sable-security"}})
	}()
	<-done
	r.Close()
	if !crashed {
		t.Fatal("the debate did not crash")
	}
	r = open(t, dir, nil)
	defer r.Close()
	traces, err := ledger.WorkTraces(context.Background(), r.Home().DB)
	if err != nil || len(traces) != 1 {
		t.Fatalf("traces: %v %v", traces, err)
	}
	res, err := r.Resume(context.Background(), traces[0])
	if err != nil || res.Err() != nil {
		t.Fatalf("resume: %v %v", err, res.Err())
	}
	evs := traceOf(t, r, res.Trace)
	flagged := 0
	for _, ev := range evs {
		if ev.Type == debate.TypeDefectFlagged {
			flagged++
		}
	}
	keys := map[string]int{}
	for _, c := range toolEvents(t, evs, tool.TypeStarted) {
		keys[c.Key]++
		if keys[c.Key] > 1 {
			t.Errorf("call %s (%s) started twice", c.Key, c.Tool)
		}
	}
	if flagged != 2 {
		t.Errorf("got %d defects flagged, want 2", flagged)
	}
	got, exp := memoOf(t, res), memoOf(t, want)
	if got.Review == nil || exp.Review == nil {
		t.Fatal("a memo has no review")
	}
	got.Review.GateID, exp.Review.GateID = "", ""
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(exp)
	if string(a) != string(b) {
		t.Errorf("the resumed debate wrote another memo:\n%s\nwant\n%s", a, b)
	}
}
