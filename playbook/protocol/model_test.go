package protocol_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/openai"
	"github.com/sanadhq/sanad/playbook/protocol"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

var _ protocol.ModelCaller = (*model.Recorder)(nil)

// modelFunc is a model.Model that generates with the function itself.
type modelFunc func(ctx context.Context, req model.Request) (model.Response, error)

func (f modelFunc) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	return f(ctx, req)
}

func (modelFunc) Embed(context.Context, []string) (model.Embeddings, error) {
	return model.Embeddings{}, sanad.Errorf(sanad.CodeInvalidInput, "test.embed", "this model only generates")
}

// answer is a model's structured output, as JSON text, given the view a
// role sent it (its user message).
type answer func(view map[string]any) string

// fakeModel answers each request with the answer for its output schema's
// name, and keeps the calls the roles made.
type fakeModel struct {
	tb      testing.TB
	answers map[string]answer

	mu      sync.Mutex // guards calls and replies
	calls   []protocol.ModelCall
	replies int
}

// newFake returns a model that plans as the task does, and approves and
// lets stand whatever it reviews, with answers overriding some of that.
func newFake(tb testing.TB, answers map[string]answer) *fakeModel {
	f := &fakeModel{tb: tb, answers: map[string]answer{
		protocol.OutputProposals:      proposeAsPlanned,
		protocol.OutputRevision:       reviseWithFallback,
		protocol.OutputProposalReview: fixed(`{"decision":"approve","conditions":[],"reason":"no concern"}`),
		protocol.OutputIntentReview:   fixed(`{"decision":"approve","reason":"no concern"}`),
		protocol.OutputClaimReview:    fixed(`{"challenge":false,"kind":"weak","reason":"the output bears it out"}`),
	}}
	for name, a := range answers {
		f.answers[name] = a
	}
	return f
}

func fixed(s string) answer { return func(map[string]any) string { return s } }

// reply is the model: it answers by the name of the request's output schema.
func (f *fakeModel) reply(_ context.Context, req model.Request) (model.Response, error) {
	f.mu.Lock()
	f.replies++
	f.mu.Unlock()
	var view map[string]any
	if err := json.Unmarshal([]byte(req.Messages[0].Content), &view); err != nil {
		f.tb.Errorf("%s: the user message is not a JSON view: %v", req.Output.Name, err)
	}
	a := f.answers[req.Output.Name]
	if a == nil {
		return model.Response{}, sanad.Errorf(sanad.CodeInvalidInput, "test.model", "no answer for %s", req.Output.Name)
	}
	return model.Response{Text: a(view), Model: "fake-model", Provider: "fake", FinishReason: model.FinishStop}, nil
}

// generate is the sessions' Generate: it checks each request as a provider
// would, keeps the call, and asks the model through model.Structured.
func (f *fakeModel) generate(ctx context.Context, c protocol.ModelCall) (model.Response, error) {
	if err := c.Request.Validate(); err != nil {
		f.tb.Errorf("the %s's request: %v", c.Role, err)
	}
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	return model.Structured(modelFunc(f.reply)).Generate(ctx, c.Request)
}

// asked returns how many calls asked for output name.
func (f *fakeModel) asked(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c.Request.Output.Name == name {
			n++
		}
	}
	return n
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func objectives(view map[string]any) []map[string]any {
	var out []map[string]any
	for _, o := range view["objectives"].([]any) {
		out = append(out, o.(map[string]any))
	}
	return out
}

// plannedTool returns the tool of objective o the task plans first, or its
// fallback.
func plannedTool(o map[string]any, fallback bool) map[string]any {
	var found map[string]any
	for _, t := range o["tools"].([]any) {
		t := t.(map[string]any)
		if found == nil || t["fallback"] == true && fallback {
			found = t
		}
	}
	return found
}

func unitFor(o, t map[string]any) map[string]any {
	return map[string]any{
		"objective_id": o["id"], "objective": "As the task plans: " + o["objective"].(string),
		"assumptions": []string{"the model read the task"}, "tool": t["tool"], "input": t["planned_input"],
		"expected_evidence": []string{"the tool output bears the claim out"},
	}
}

// proposeAsPlanned proposes each objective's plan, with the planned input.
func proposeAsPlanned(view map[string]any) string {
	var ps []map[string]any
	for _, o := range objectives(view) {
		ps = append(ps, unitFor(o, plannedTool(o, false)))
	}
	return jsonText(map[string]any{"proposals": ps})
}

// reviseWithFallback revises with the objective's fallback, or its plan
// again when it has none.
func reviseWithFallback(view map[string]any) string {
	o := objectives(view)[0]
	return jsonText(map[string]any{"proposals": []any{unitFor(o, plannedTool(o, true))}})
}

func modelEngine(tb testing.TB, h *home.Home, gen protocol.Generate, mods ...func(*protocol.Config)) *protocol.Engine {
	tb.Helper()
	return newEngine(tb, h, append([]func(*protocol.Config){func(c *protocol.Config) { c.Generate = gen }}, mods...)...)
}

func body[T any](tb testing.TB, ev *ledger.Event) T {
	tb.Helper()
	var v T
	if err := json.Unmarshal(ev.Body, &v); err != nil {
		tb.Fatalf("%s seq %d: %v", ev.Type, ev.Seq, err)
	}
	return v
}

func reviewsOf(tb testing.TB, evs []*ledger.Event) map[string]protocol.ProposalReviewBody {
	out := map[string]protocol.ProposalReviewBody{}
	for _, ev := range ofType(evs, protocol.TypeProposalReviewed) {
		b := body[protocol.ProposalReviewBody](tb, ev)
		out[b.ProposalID] = b
	}
	return out
}

// TestModelPlannerDrivesASession: the model's proposals, with the inputs it
// chose, drive a session through the gateway to a passing verification;
// the critic's model reviews proposals and claims, and every call names the
// session run and the role's identity.
func TestModelPlannerDrivesASession(t *testing.T) {
	h := openHome(t)
	f := newFake(t, nil)
	res := start(t, modelEngine(t, h, f.generate), exampleTask(t, "vendor-check"))
	wantState(t, res, protocol.StateCompleted, protocol.VerificationPass)
	if res.Mode != protocol.ModeModel {
		t.Errorf("mode: got %q, want %q", res.Mode, protocol.ModeModel)
	}
	evs := events(t, h, res.Trace)
	if init := ofType(evs, protocol.TypeSessionInitialized); init[0].BodyString("mode") != protocol.ModeModel {
		t.Errorf("session_initialized mode: got %q, want %q", init[0].BodyString("mode"), protocol.ModeModel)
	}
	verify(t, h, res.Trace)

	proposals := ofType(evs, protocol.TypeProposalCreated)
	if len(proposals) != 2 {
		t.Fatalf("proposals: got %d, want 2", len(proposals))
	}
	first := body[protocol.ProposalBody](t, proposals[0])
	if !strings.HasPrefix(first.Objective, "As the task plans: ") || string(first.Input) != `{"key":"vendors/acme-supplies"}` {
		t.Errorf("P1: objective %q, input %s; want the model's", first.Objective, first.Input)
	}
	if want := []string{"The vendor registry is the system of record for vendor status", "the model read the task"}; !slices.Equal(first.Assumptions, want) {
		t.Errorf("P1 assumptions: got %q, want %q", first.Assumptions, want)
	}
	if first.ExpectedEvidence[0] != "the output of lookup" || !slices.Contains(first.ExpectedEvidence, "attachment w9-acme") ||
		first.ExpectedEvidence[len(first.ExpectedEvidence)-1] != "the tool output bears the claim out" {
		t.Errorf("P1 expected evidence: got %q, want the task's, then the model's", first.ExpectedEvidence)
	}
	if first.Risk != protocol.RiskLow || first.MinEvidence != 2 {
		t.Errorf("P1: risk %s, min_evidence %d; want the policy's low and the task's 2", first.Risk, first.MinEvidence)
	}
	for id, r := range reviewsOf(t, evs) {
		if r.Status != protocol.ReviewApproved || !strings.HasPrefix(r.Reason, "policy: ") || !strings.Contains(r.Reason, "; model: approve, no concern") {
			t.Errorf("review of %s: %s %q; want approved, the policy's reason and the model's", id, r.Status, r.Reason)
		}
	}
	want := map[string]int{protocol.OutputProposals: 1, protocol.OutputProposalReview: 2, protocol.OutputIntentReview: 0,
		protocol.OutputClaimReview: 2, protocol.OutputRevision: 0}
	for name, n := range want {
		if got := f.asked(name); got != n {
			t.Errorf("%s calls: got %d, want %d", name, got, n)
		}
	}
	for _, c := range f.calls {
		if c.Session == nil || c.Session.Record.ID != res.Session || c.Agent != protocol.DefaultRoster[c.Role] {
			t.Errorf("%s call for %s: session %v, agent %q; want session %s as %s", c.Request.Output.Name, c.Role, c.Session, c.Agent, res.Session, protocol.DefaultRoster[c.Role])
		}
	}
}

// TestModelPlannerInputIsTheCall: the input a model proposes is the one the
// executor signs and the gateway runs; the claim stays the task's, so an
// input that does not bear it out gets it challenged, and revised.
func TestModelPlannerInputIsTheCall(t *testing.T) {
	h := openHome(t)
	f := newFake(t, map[string]answer{protocol.OutputProposals: func(view map[string]any) string {
		o := objectives(view)[0]
		u := unitFor(o, plannedTool(o, false))
		u["input"] = map[string]any{"op": "sum", "values": []int{1, 2}}
		return jsonText(map[string]any{"proposals": []any{u}})
	}})
	res := start(t, modelEngine(t, h, f.generate), parseTask(t, `
name: sums
objectives:
  - {id: total, objective: Total the invoices, tool: compute, input: {op: sum, values: [1200, 4200]}, claim: {text: the total is 5400, confidence: 0.9, field: result, equals: 5400}}
`))
	wantState(t, res, protocol.StateCompleted, protocol.VerificationPassWithWarnings)
	evs := events(t, h, res.Trace)
	intent := ofType(evs, protocol.TypeToolIntentSigned)[0]
	hash, _ := canon.RequestHash(json.RawMessage(`{"op":"sum","values":[1,2]}`))
	if intent.BodyString("input_hash") != hash.String() {
		t.Errorf("intent input hash: got %s, want the model's input's %s", intent.BodyString("input_hash"), hash)
	}
	ch := ofType(evs, protocol.TypeClaimChallenged)
	if len(ch) != 1 || ch[0].BodyString("kind") != protocol.ChallengeContradictory || !strings.Contains(string(ch[0].Body), `"policy: the compute output gives result = 3`) {
		t.Fatalf("challenges: got %d, want the policy's contradiction of the planned claim", len(ch))
	}
	claims := ofType(evs, protocol.TypeClaimIssued)
	if len(claims) != 2 || claims[1].BodyString("revises") != "C1" || !strings.Contains(claims[1].BodyString("text"), "result is 3") {
		t.Errorf("claims: got %d, want C1 and its revision stating the output", len(claims))
	}
}

// TestModelCriticCannotLoosenPolicy: a model that approves everything does
// not get a proposal the thresholds reject approved, nor an intent they
// block run, and it is not even asked.
func TestModelCriticCannotLoosenPolicy(t *testing.T) {
	t.Run("proposal", func(t *testing.T) {
		h := openHome(t)
		f := newFake(t, nil)
		res := start(t, modelEngine(t, h, f.generate), parseTask(t, `
name: critical
objectives:
  - {id: fine, objective: Sum, tool: compute, input: {op: sum, values: [1]}, claim: {text: one, confidence: 0.9, field: result, equals: 1}}
  - {id: never, objective: Never run, risk: critical, tool: compute, input: {op: sum, values: [2]}, claim: {text: two, confidence: 0.9}}
`))
		wantState(t, res, protocol.StateCompleted, protocol.VerificationPassWithWarnings)
		evs := events(t, h, res.Trace)
		r := reviewsOf(t, evs)["P2"]
		if r.Status != protocol.ReviewRejected || r.Reason != "policy: critical risk: a session never executes it" {
			t.Errorf("P2: %s %q; want the policy's rejection", r.Status, r.Reason)
		}
		// The model revises P2 with the same plan; the revision keeps the
		// objective's risk, and the policy rejects it too.
		r = reviewsOf(t, evs)["P3"]
		if p3 := body[protocol.ProposalBody](t, ofType(evs, protocol.TypeProposalCreated)[2]); p3.Revises != "P2" || p3.Risk != protocol.RiskCritical || r.Status != protocol.ReviewRejected {
			t.Errorf("P3: revises %q at risk %s, review %s; want P2's revision, critical, rejected", p3.Revises, p3.Risk, r.Status)
		}
		if got := f.asked(protocol.OutputProposalReview); got != 1 {
			t.Errorf("proposal reviews asked of the model: got %d, want 1 (P1 only)", got)
		}
		for _, ev := range ofType(evs, protocol.TypeToolIntentSigned) {
			if p := ev.BodyString("proposal_id"); p != "P1" {
				t.Errorf("the rejected %s has an intent", p)
			}
		}
	})
	t.Run("intent", func(t *testing.T) {
		h := openHome(t)
		f := newFake(t, nil)
		res := start(t, modelEngine(t, h, f.generate), exampleTask(t, "risky-transfer"))
		wantState(t, res, protocol.StateCompleted, protocol.VerificationPassWithWarnings)
		evs := events(t, h, res.Trace)
		reviews := ofType(evs, protocol.TypeToolIntentReviewed)
		if len(reviews) != 1 || reviews[0].BodyString("decision") != protocol.IntentBlocked || !strings.HasPrefix(reviews[0].BodyString("reason"), "policy: send_external has risk class high, above max_risk medium") {
			t.Fatalf("intent reviews: got %d, want send_external blocked by the policy", len(reviews))
		}
		if got := f.asked(protocol.OutputIntentReview); got != 0 {
			t.Errorf("intent reviews asked of the model: got %d, want 0", got)
		}
		for _, ev := range ofType(evs, tool.TypeStarted) {
			if ev.BodyString("tool") == protocol.ToolSendExternal {
				t.Fatal("send_external ran although the policy blocked it")
			}
		}
		rev := body[protocol.ProposalBody](t, ofType(evs, protocol.TypeProposalCreated)[2])
		if rev.Revises != "P2" || rev.Cause != "blocked" || rev.RequiredTools[0] != protocol.ToolCompute || rev.Risk != protocol.RiskHigh || f.asked(protocol.OutputRevision) != 1 {
			t.Errorf("P3: revises %q (%q) with %v at risk %s; want the model's revision of P2 with compute, at the objective's risk high", rev.Revises, rev.Cause, rev.RequiredTools, rev.Risk)
		}
	})
}

// TestModelCriticStricterThanPolicy: the model rejects, conditions, blocks
// and challenges what the thresholds let through, and the session goes on
// as the seed says: a rejected proposal never executes, a blocked intent
// never runs, a challenged claim stays out of the final statement.
func TestModelCriticStricterThanPolicy(t *testing.T) {
	t.Run("reject", func(t *testing.T) {
		h := openHome(t)
		f := newFake(t, map[string]answer{protocol.OutputProposalReview: func(view map[string]any) string {
			if view["proposal"].(map[string]any)["objective_id"] == "open-invoices" {
				return `{"decision":"reject","conditions":[],"reason":"the invoices are not confirmed open"}`
			}
			return `{"decision":"approve","conditions":[],"reason":"fine"}`
		}})
		res := start(t, modelEngine(t, h, f.generate), exampleTask(t, "vendor-check"))
		wantState(t, res, protocol.StateCompleted, protocol.VerificationPassWithWarnings)
		evs := events(t, h, res.Trace)
		reviews := reviewsOf(t, evs)
		for _, id := range []string{"P2", "P3"} {
			r := reviews[id]
			if r.Status != protocol.ReviewRejected || !strings.HasPrefix(r.Reason, "model: the invoices are not confirmed open (the policy alone: approved") {
				t.Errorf("%s: %s %q; want the model's rejection over the policy's approval", id, r.Status, r.Reason)
			}
		}
		if p3 := body[protocol.ProposalBody](t, ofType(evs, protocol.TypeProposalCreated)[2]); p3.Revises != "P2" || p3.Cause != "rejected" {
			t.Errorf("P3: revises %q (%q), want P2 (rejected)", p3.Revises, p3.Cause)
		}
		if n := len(ofType(evs, protocol.TypeProposalCreated)); n != 3 {
			t.Errorf("proposals: got %d, want 3 (a revision is not revised again)", n)
		}
		for _, ev := range ofType(evs, protocol.TypeToolIntentSigned) {
			if p := ev.BodyString("proposal_id"); p != "P1" {
				t.Errorf("rejected proposal %s has an intent", p)
			}
		}
		if w := strings.Join(res.Verification.Warnings, "; "); !strings.Contains(w, "objective open-invoices has no claim") {
			t.Errorf("warnings: %s", w)
		}
	})
	t.Run("conditional", func(t *testing.T) {
		h := openHome(t)
		f := newFake(t, map[string]answer{protocol.OutputProposalReview: fixed(`{"decision":"conditional","conditions":["the W-9 is checked again"],"reason":"the W-9 is old"}`)})
		res := start(t, modelEngine(t, h, f.generate), exampleTask(t, "vendor-check"))
		wantState(t, res, protocol.StateCompleted, protocol.VerificationPass)
		r := reviewsOf(t, events(t, h, res.Trace))["P1"]
		if r.Status != protocol.ReviewConditional || !slices.Equal(r.Conditions, []string{"model: the W-9 is checked again"}) || !strings.HasPrefix(r.Reason, "model: the W-9 is old") {
			t.Errorf("P1: %s %q %q; want conditional on the model's condition", r.Status, r.Conditions, r.Reason)
		}
	})
	t.Run("block", func(t *testing.T) {
		h := openHome(t)
		th := protocol.DefaultThresholds
		th.MaxRisk = protocol.RiskHigh
		f := newFake(t, map[string]answer{protocol.OutputIntentReview: func(view map[string]any) string {
			if in, _ := view["input"].(map[string]any); in["amount"] != 5.0 {
				t.Errorf("the model was not shown the intent's input: %v", view["input"])
			}
			return `{"decision":"block","reason":"the payee is not confirmed"}`
		}})
		res := start(t, modelEngine(t, h, f.generate, func(c *protocol.Config) { c.Thresholds = th }), parseTask(t, `
name: pay
objectives:
  - id: pay
    objective: Pay
    tool: send_external
    input: {to: someone, amount: 5}
    claim: {text: paid, confidence: 0.9, field: delivered, equals: true}
    fallback: {tool: compute, input: {op: sum, values: [5]}, claim: {text: 5 is to be paid, confidence: 0.9, field: result, equals: 5}}
`))
		wantState(t, res, protocol.StateCompleted, protocol.VerificationPassWithWarnings)
		evs := events(t, h, res.Trace)
		reviews := ofType(evs, protocol.TypeToolIntentReviewed)
		if len(reviews) != 1 || reviews[0].BodyString("decision") != protocol.IntentBlocked ||
			!strings.HasPrefix(reviews[0].BodyString("reason"), "model: the payee is not confirmed (the policy alone: approved") {
			t.Fatalf("intent reviews: got %d, want the model's block", len(reviews))
		}
		for _, ev := range ofType(evs, tool.TypeStarted) {
			if ev.BodyString("tool") == protocol.ToolSendExternal {
				t.Fatal("send_external ran although the critic blocked it")
			}
		}
		if n := len(ofType(evs, tool.TypeCompleted)); n != 1 {
			t.Errorf("gateway calls completed: got %d, want the fallback's 1", n)
		}
	})
	t.Run("challenge", func(t *testing.T) {
		h := openHome(t)
		f := newFake(t, map[string]answer{protocol.OutputClaimReview: func(view map[string]any) string {
			if view["claim"].(map[string]any)["proposal_id"] == "P1" {
				return `{"challenge":true,"kind":"weak","reason":"a registry record does not show the W-9 is valid"}`
			}
			return `{"challenge":false,"kind":"weak","reason":"fine"}`
		}})
		res := start(t, modelEngine(t, h, f.generate), exampleTask(t, "vendor-check"))
		wantState(t, res, protocol.StateCompleted, protocol.VerificationPassWithWarnings)
		ch := ofType(events(t, h, res.Trace), protocol.TypeClaimChallenged)
		if len(ch) != 1 || ch[0].BodyString("claim_id") != "C1" || !strings.Contains(string(ch[0].Body), `"model: a registry record`) {
			t.Fatalf("challenges: got %d, want the model's of C1", len(ch))
		}
		for _, c := range report(t, h, res).Claims {
			if c.ID == "C1" && c.Bundled {
				t.Error("the challenged C1 is in the final statement")
			}
		}
	})
}

// TestModelOutputInvalid: output that fails its schema, twice, stops the
// session with MODEL_OUTPUT_INVALID and nothing recorded of the decision;
// so does output that breaks the task's rules, and any other model error.
// The session never goes on with the deterministic roles: an engine of that
// mode may not resume it, one with a model may.
func TestModelOutputInvalid(t *testing.T) {
	ctx := context.Background()
	unknownObjective := `{"proposals":[{"objective_id":"nope","objective":"x","assumptions":[],"tool":"lookup","input":{},"expected_evidence":[]}]}`
	otherObjectivesTool := `{"proposals":[{"objective_id":"open-invoices","objective":"x","assumptions":[],"tool":"lookup","input":{"key":"k"},"expected_evidence":[]}]}`
	otherDataset := `{"proposals":[{"objective_id":"vendor-status","objective":"x","assumptions":[],"tool":"lookup","input":{"key":"k","dataset":"` + strings.Repeat("a", 64) + `"},"expected_evidence":[]}]}`
	raw := func(text string) protocol.Generate {
		return func(context.Context, protocol.ModelCall) (model.Response, error) {
			return model.Response{Text: text}, nil
		}
	}
	for name, c := range map[string]struct {
		gen     func(f *fakeModel) protocol.Generate
		answers map[string]answer
		state   protocol.State
		code    sanad.Code
		msg     string
		replies int
	}{
		"repaired once, still invalid": {answers: map[string]answer{protocol.OutputProposals: fixed(unknownObjective)},
			state: protocol.StatePlanning, code: sanad.CodeModelOutput, msg: "even after one repair", replies: 2},
		"unchecked by Generate": {gen: func(*fakeModel) protocol.Generate { return raw(unknownObjective) },
			state: protocol.StatePlanning, code: sanad.CodeModelOutput, msg: `does not match schema "proposals": at /proposals/0/objective_id`},
		"not JSON": {gen: func(*fakeModel) protocol.Generate { return raw("I would rather not.") },
			state: protocol.StatePlanning, code: sanad.CodeModelOutput, msg: "no JSON value"},
		"tool of another objective": {gen: func(*fakeModel) protocol.Generate { return raw(otherObjectivesTool) },
			state: protocol.StatePlanning, code: sanad.CodeModelOutput, msg: `tool "lookup" is not one the task plans for objective "open-invoices"`},
		"another dataset": {gen: func(*fakeModel) protocol.Generate { return raw(otherDataset) },
			state: protocol.StatePlanning, code: sanad.CodeModelOutput, msg: "a session looks up only its task's fixtures"},
		"critic": {answers: map[string]answer{protocol.OutputProposalReview: fixed(`{"decision":"maybe","conditions":[],"reason":"?"}`)},
			state: protocol.StateReviewing, code: sanad.CodeModelOutput, msg: `schema "proposal_review"`, replies: 3},
		"provider down": {gen: func(*fakeModel) protocol.Generate {
			return func(context.Context, protocol.ModelCall) (model.Response, error) {
				return model.Response{}, sanad.Errorf(sanad.CodeDependencyDown, "openai.generate", "the provider did not answer")
			}
		}, state: protocol.StatePlanning, code: sanad.CodeDependencyDown, msg: "the planner's model call failed: the provider did not answer"},
	} {
		t.Run(name, func(t *testing.T) {
			h := openHome(t)
			f := newFake(t, c.answers)
			gen := f.generate
			if c.gen != nil {
				gen = c.gen(f)
			}
			res, err := modelEngine(t, h, gen).Start(ctx, exampleTask(t, "vendor-check"), protocol.Options{Scope: scope})
			if sanad.ErrorCode(err) != c.code || !strings.Contains(sanad.ErrorMessage(err), c.msg) {
				t.Fatalf("Start: got %v, want %s containing %q", err, c.code, c.msg)
			}
			if res.State != c.state || res.Session == "" {
				t.Fatalf("result: %+v, want session stopped in %s", res, c.state)
			}
			if c.replies > 0 && f.replies != c.replies {
				t.Errorf("model replies: got %d, want %d", f.replies, c.replies)
			}
			evs := events(t, h, res.Trace)
			wantProposals := map[protocol.State]int{protocol.StatePlanning: 0, protocol.StateReviewing: 2}[c.state]
			if n := len(ofType(evs, protocol.TypeProposalCreated)); n != wantProposals || len(ofType(evs, protocol.TypeProposalReviewed)) != 0 {
				t.Errorf("proposals: got %d and %d reviews, want %d and none", n, len(ofType(evs, protocol.TypeProposalReviewed)), wantProposals)
			}
			verify(t, h, res.Trace)
			if rec, err := h.DB.Run(ctx, res.Session); err != nil || rec.Status != sanad.StatusRunning {
				t.Errorf("session run: %s, %v; want running, to resume or abort", rec.Status, err)
			}
		})
	}

	t.Run("resume", func(t *testing.T) {
		h := openHome(t)
		bad := newFake(t, map[string]answer{protocol.OutputProposals: fixed(unknownObjective)})
		res, err := modelEngine(t, h, bad.generate).Start(ctx, exampleTask(t, "vendor-check"), protocol.Options{Scope: scope})
		if sanad.ErrorCode(err) != sanad.CodeModelOutput {
			t.Fatalf("Start: got %v, want MODEL_OUTPUT_INVALID", err)
		}
		if _, err := newEngine(t, h).Resume(ctx, res.Session); sanad.ErrorCode(err) != sanad.CodeConflict || !strings.Contains(err.Error(), "mode model") {
			t.Fatalf("Resume by a deterministic engine: got %v, want CONFLICT naming the mode", err)
		}
		if n := len(ofType(events(t, h, res.Trace), protocol.TypeProposalCreated)); n != 0 {
			t.Fatalf("the deterministic engine recorded %d proposals", n)
		}
		res, err = modelEngine(t, h, newFake(t, nil).generate).Resume(ctx, res.Session)
		if err != nil {
			t.Fatalf("Resume: %v", err)
		}
		wantState(t, res, protocol.StateCompleted, protocol.VerificationPass)
	})
}

// TestDeterministicRolesWithoutModel: without a Generate the roles are the
// deterministic ones, and with one only the planner and critic left unset
// ask the model.
func TestDeterministicRolesWithoutModel(t *testing.T) {
	h := openHome(t)
	res := start(t, newEngine(t, h), exampleTask(t, "vendor-check"))
	if res.Mode != protocol.ModeDeterministic {
		t.Errorf("mode: got %q, want %q", res.Mode, protocol.ModeDeterministic)
	}
	evs := events(t, h, res.Trace)
	for _, ev := range ofType(evs, protocol.TypeProposalCreated) {
		if _, ok := ev.BodyField("input"); ok {
			t.Errorf("deterministic proposal %s has an input", ev.BodyString("proposal_id"))
		}
	}
	for id, r := range reviewsOf(t, evs) {
		if strings.HasPrefix(r.Reason, "policy: ") {
			t.Errorf("deterministic review of %s is marked as a mode's: %q", id, r.Reason)
		}
	}

	f := newFake(t, nil)
	res = start(t, modelEngine(t, h, f.generate, func(c *protocol.Config) { c.Planner = protocol.TaskPlanner{} }), exampleTask(t, "vendor-check"))
	wantState(t, res, protocol.StateCompleted, protocol.VerificationPass)
	if res.Mode != protocol.ModeModel || f.asked(protocol.OutputProposals) != 0 || f.asked(protocol.OutputProposalReview) != 2 {
		t.Errorf("mode %s, %d planner and %d critic calls; want the model critic alone", res.Mode, f.asked(protocol.OutputProposals), f.asked(protocol.OutputProposalReview))
	}
}

// TestModelRolesThroughOpenAI: the requests the roles build are accepted
// by the OpenAI adapter, sent as json_schema structured output, and its
// replies drive a session to completion.
func TestModelRolesThroughOpenAI(t *testing.T) {
	f := newFake(t, nil)
	var mu sync.Mutex
	asked := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
			ResponseFormat struct {
				Type       string `json:"type"`
				JSONSchema struct {
					Name   string          `json:"name"`
					Schema json.RawMessage `json:"schema"`
					Strict bool            `json:"strict"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		if err := json.Unmarshal(data, &req); err != nil || r.URL.Path != "/v1/chat/completions" {
			t.Errorf("request %s: %v", r.URL.Path, err)
		}
		rf := req.ResponseFormat
		if rf.Type != "json_schema" || len(rf.JSONSchema.Schema) == 0 || len(req.Messages) < 2 || req.Messages[0].Role != "system" {
			t.Errorf("request: response_format %s, %d messages; want json_schema with a system and a user message", rf.Type, len(req.Messages))
		}
		var view map[string]any
		if err := json.Unmarshal([]byte(req.Messages[1].Content), &view); err != nil {
			t.Errorf("%s: the user message is not JSON: %v", rf.JSONSchema.Name, err)
		}
		mu.Lock()
		asked[rf.JSONSchema.Name]++
		mu.Unlock()
		a := f.answers[rf.JSONSchema.Name]
		if a == nil {
			http.Error(w, `{"error":{"message":"unknown schema"}}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": a(view)}}},
			"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
		})
	}))
	t.Cleanup(srv.Close)
	m, err := openai.New(openai.Config{Model: "gpt-4o-mini", BaseURL: srv.URL + "/v1", HTTPClient: srv.Client(), Retry: model.Retry{MaxRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	gpt := model.Structured(m)
	gen := func(ctx context.Context, c protocol.ModelCall) (model.Response, error) {
		return gpt.Generate(ctx, c.Request)
	}

	h := openHome(t)
	res := start(t, modelEngine(t, h, gen), exampleTask(t, "vendor-check"))
	wantState(t, res, protocol.StateCompleted, protocol.VerificationPass)
	want := map[string]int{protocol.OutputProposals: 1, protocol.OutputProposalReview: 2, protocol.OutputClaimReview: 2}
	for name, n := range want {
		if asked[name] != n {
			t.Errorf("%s requests: got %d, want %d (all: %v)", name, asked[name], n, asked)
		}
	}
	if p := body[protocol.ProposalBody](t, ofType(events(t, h, res.Trace), protocol.TypeProposalCreated)[1]); string(p.Input) != `{"op":"sum","values":[1200,3400.5,799.5]}` {
		t.Errorf("P2 input: got %s", p.Input)
	}
}

// TestModelCallsRecordedInTheSession: through a model.Recorder, every call
// of the roles is a model_call child run of the session, in its trace, and
// the trace verifies.
func TestModelCallsRecordedInTheSession(t *testing.T) {
	h := openHome(t)
	f := newFake(t, nil)
	cfg := model.Config{Classes: map[string]model.ClassConfig{model.ClassReasoning: {Provider: model.ProviderOpenAI, Model: "fake-model"}}}
	reg := model.NewRegistry(cfg, map[string]model.Model{model.ClassReasoning: model.Structured(modelFunc(f.reply))})
	rec := &model.Recorder{Runs: h.Runs, Artifacts: h.Artifacts, Registry: reg}
	res := start(t, modelEngine(t, h, protocol.Recorded(rec, model.ClassReasoning)), exampleTask(t, "vendor-check"))
	wantState(t, res, protocol.StateCompleted, protocol.VerificationPass)
	verify(t, h, res.Trace)
	evs := events(t, h, res.Trace)
	calls := ofType(evs, model.TypeCall)
	if len(calls) != 5 {
		t.Fatalf("model.call events: got %d, want 5 (1 plan, 2 proposal reviews, 2 claim reviews)", len(calls))
	}
	agents := map[string]int{}
	for _, ev := range calls {
		r, err := h.DB.Run(context.Background(), ev.Run)
		if err != nil || r.Kind != sanad.KindModelCall || r.ParentID != res.Session || r.Status != sanad.StatusCompleted {
			t.Errorf("run %s: kind %s, parent %s, status %s (%v); want a completed model_call child of the session", ev.Run, r.Kind, r.ParentID, r.Status, err)
		}
		agents[ev.BodyString("agent")]++
	}
	if agents[protocol.DefaultRoster[protocol.RolePlanner]] != 1 || agents[protocol.DefaultRoster[protocol.RoleCritic]] != 4 {
		t.Errorf("calls by agent: got %v, want the planner's 1 and the critic's 4", agents)
	}
	if last := evs[len(evs)-1]; last.Type != runs.TypeCompleted || last.Run != res.Session {
		t.Errorf("the trace ends with %s of %s, want the session's completion", last.Type, last.Run)
	}
}

// TestRuleProposalInput: a proposal may carry its tool input, a JSON object.
func TestRuleProposalInput(t *testing.T) {
	r := newRig(t)
	r.to(protocol.StatePlanning)
	p := proposal("P1", "low")
	p.Input = json.RawMessage(`"key"`)
	r.refuse(r.by(protocol.RolePlanner, protocol.TypeProposalCreated, p), "input")
	p.Input = json.RawMessage(`{"key":"k"}`)
	r.must(r.by(protocol.RolePlanner, protocol.TypeProposalCreated, p))
}

// A critic's model that approves everything cannot get past the policy: the
// payment's intent, of risk high, is blocked by the thresholds (max_risk
// medium) without the model being asked, and the planner's model revises
// the proposal.
func ExampleModelCritic() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "sanad-example")
	defer os.RemoveAll(dir)
	h, err := home.Open(ctx, home.Config{Dir: dir})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	data, _ := os.ReadFile("../../examples/sessions/risky-transfer.yaml")
	task, err := protocol.ParseTask("risky-transfer.yaml", data)
	if err != nil {
		panic(err)
	}
	// A model that plans as the task does and approves whatever it reviews.
	generate := func(_ context.Context, c protocol.ModelCall) (model.Response, error) {
		switch c.Request.Output.Name {
		case protocol.OutputProposals:
			return model.Response{Text: `{"proposals":[
				{"objective_id":"payee-bank","objective":"Read the payee's bank record","assumptions":[],"tool":"lookup","input":{"key":"vendors/acme-supplies"},"expected_evidence":[]},
				{"objective_id":"pay-invoices","objective":"Pay EUR 5400","assumptions":[],"tool":"send_external","input":{"to":"NL91ABNA0417164300","amount":5400,"currency":"EUR"},"expected_evidence":[]}]}`}, nil
		case protocol.OutputRevision:
			return model.Response{Text: `{"proposals":[{"objective_id":"pay-invoices","objective":"Prepare the payment","assumptions":[],"tool":"compute","input":{"op":"sum","values":[1200,3400.5,799.5]},"expected_evidence":[]}]}`}, nil
		case protocol.OutputClaimReview:
			return model.Response{Text: `{"challenge":false,"kind":"weak","reason":"fine"}`}, nil
		case protocol.OutputIntentReview:
			return model.Response{Text: `{"decision":"approve","reason":"fine"}`}, nil
		}
		return model.Response{Text: `{"decision":"approve","conditions":[],"reason":"fine"}`}, nil
	}
	e, err := protocol.New(protocol.Config{Runs: h.Runs, Store: h.DB, Artifacts: h.Artifacts, Generate: generate})
	if err != nil {
		panic(err)
	}
	res, err := e.Start(ctx, task, protocol.Options{Scope: sanad.Scope{Tenant: "acme", Case: "payments"}})
	if err != nil {
		panic(err)
	}
	evs, _ := h.Ledger.Events(ctx, res.Trace)
	for _, ev := range evs {
		if ev.Type == protocol.TypeToolIntentReviewed {
			fmt.Println(ev.BodyString("decision") + ": " + ev.BodyString("reason"))
		}
	}
	fmt.Println(res.Mode, res.State, res.Verification.Status)
	// Output:
	// blocked: policy: send_external has risk class high, above max_risk medium: it needs a person's approval, not a critic's
	// model completed pass-with-warnings
}
