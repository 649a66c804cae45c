package deal_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/diligence"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/modeltest"
	"github.com/sanadhq/sanad/model/provider"
	"github.com/sanadhq/sanad/playbook/deal"
	"github.com/sanadhq/sanad/playbook/debate"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/workflow"
)

// openWithModel opens a runner over dir with the debate playbook and a
// reasoning model served by fake.
func openWithModel(t *testing.T, dir string, fake *modeltest.Fake, crash func(string)) *runner.Runner {
	t.Helper()
	reg, err := provider.Open(model.Config{Classes: map[string]model.ClassConfig{
		"reasoning": {Provider: model.ProviderOpenAI, Model: modeltest.Model, BaseURL: fake.BaseURL()},
	}}, func(string) string { return "" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.Open(context.Background(), runner.Config{Dir: dir, Models: reg, Crash: crash})
	if err != nil {
		t.Fatal(err)
	}
	pb, err := deal.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Register(pb); err != nil {
		t.Fatal(err)
	}
	return r
}

var (
	roleRE  = regexp.MustCompile(`^You are the ([a-z ]+) of a due-diligence debate`)
	roundRE = regexp.MustCompile(`This is round (\d+) of`)
	claimRE = regexp.MustCompile(`(?m)^- (\S+) \| ([^|]+) \| ([^|]+) \| ([^|]+) \| ([^|]+) \|`)
)

// asked is what a role's prompt asks: the role, the round, whether it is
// the corrected retry, the role's draft and the claims listed.
type asked struct {
	role   string
	round  int
	retry  bool
	draft  debate.Output
	claims map[string][]string // id: metric, value, period, document
}

func parseAsked(t testing.TB, req modeltest.Request) asked {
	var a asked
	if m := roleRE.FindStringSubmatch(req.System); m != nil {
		a.role = strings.ReplaceAll(m[1], " ", "_")
	}
	if len(req.Messages) == 0 {
		return a
	}
	user := req.Messages[0].Content
	if m := roundRE.FindStringSubmatch(user); m != nil {
		a.round, _ = strconv.Atoi(m[1])
	}
	a.retry = len(req.Messages) > 1
	a.claims = map[string][]string{}
	for _, m := range claimRE.FindAllStringSubmatch(user, -1) {
		a.claims[m[1]] = []string{strings.TrimSpace(m[2]), strings.TrimSpace(m[3]), strings.TrimSpace(m[4]), strings.TrimSpace(m[5])}
	}
	const marker = "keep it if it is right.\n"
	if i := strings.Index(user, marker); i >= 0 {
		if err := json.Unmarshal([]byte(user[i+len(marker):]), &a.draft); err != nil {
			t.Errorf("the draft in the prompt: %v", err)
		}
	}
	return a
}

// refine is a valid reply: the draft with a sentence that states the value
// of a claim the draft cites, as the prompt lists it.
func refine(a asked) string {
	o := a.draft
	o.Content = "On reflection: " + o.Content
	for _, id := range o.ClaimRefs {
		if c, ok := a.claims[id]; ok && c[2] != "-" {
			o.Content += " The " + c[3] + " states " + c[0] + " of " + c[1] + " for " + c[2] + "."
			break
		}
	}
	return reply(o)
}

func reply(o debate.Output) string {
	if o.ClaimRefs == nil {
		o.ClaimRefs = []string{}
	}
	if o.Muhasabah.SupportedClaimIDs == nil {
		o.Muhasabah.SupportedClaimIDs = []string{}
	}
	raw, _ := json.Marshal(o)
	return string(raw)
}

// valid answers every request with refine.
func valid(t testing.TB) modeltest.Script {
	return func(_ int, req modeltest.Request) modeltest.Turn {
		return modeltest.Turn{Text: refine(parseAsked(t, req))}
	}
}

// heardOf returns the Heard of every role step of res, by step.
func heardOf(t *testing.T, res runner.Result) map[string]deal.Heard {
	t.Helper()
	out := map[string]deal.Heard{}
	for id, raw := range res.Outputs {
		if id == "analyze" || id == "memo" {
			continue
		}
		var h deal.Heard
		if err := json.Unmarshal(raw, &h); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		out[id] = h
	}
	return out
}

// events counts the events of type typ in the trace.
func events(t *testing.T, r *runner.Runner, trace, typ string) int {
	t.Helper()
	evs, err := r.Home().Ledger.Events(context.Background(), trace)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range evs {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

func run(t *testing.T, r *runner.Runner, in deal.Input, scope sanad.Scope) runner.Result {
	t.Helper()
	res, err := r.Run(context.Background(), deal.Name, in, runner.Options{Scope: scope})
	if err != nil || res.Err() != nil {
		t.Fatalf("run: %v %v", err, res.Err())
	}
	return res
}

// TestD01_ModelBackedRolesPassTheGate: with a reasoning model configured,
// every role's output of the round is the model's, through the same lookups
// and the same recorded gate as the deterministic one, each model call a
// model_call run; a figure the model states from a cited claim reaches the
// memo's deliberation, and the rest of the memo is the deterministic one.
func TestD01_ModelBackedRolesPassTheGate(t *testing.T) {
	fake := modeltest.NewOpenAI(valid(t))
	defer fake.Close()
	r := openWithModel(t, t.TempDir(), fake, nil)
	defer r.Close()
	res := run(t, r, input(t), dealScope)

	heard := 0
	for id, h := range heardOf(t, res) {
		if !h.Heard {
			continue
		}
		heard++
		if h.Mode != deal.ModeModel || len(h.Rejected) != 0 || !strings.HasPrefix(h.Output.Content, "On reflection: ") {
			t.Errorf("%s: mode %s, rejected %v, content %q", id, h.Mode, h.Rejected, h.Output.Content)
		}
		if h.Output.AgentID != strings.ReplaceAll(h.Role, "_", "-") || h.Output.RoundNumber != h.Round {
			t.Errorf("%s: agent %s round %d", id, h.Output.AgentID, h.Output.RoundNumber)
		}
	}
	if heard != 5 || len(fake.Requests()) != heard {
		t.Fatalf("%d outputs heard, %d model requests; want 5 and 5", heard, len(fake.Requests()))
	}
	if n := events(t, r, res.Trace, model.TypeCall); n != heard {
		t.Errorf("%d model_call events, want %d", n, heard)
	}
	if n := calls(t, r, res.Trace, deal.ToolCheck); n != heard {
		t.Errorf("%d gate checks, want %d", n, heard)
	}
	if events(t, r, res.Trace, debate.TypeMuhasabahRejected) != 0 {
		t.Error("a valid model output was rejected")
	}
	m := memoOf(t, res)
	if m.Recommendation != diligence.Decline || len(m.Deliberation) != heard {
		t.Fatalf("memo: %s, %d positions", m.Recommendation, len(m.Deliberation))
	}
	stated := false
	for _, p := range m.Deliberation {
		if p.Mode != deal.ModeModel {
			t.Errorf("round %d %s: mode %s in the memo", p.Round, p.Role, p.Mode)
		}
		stated = stated || strings.Contains(p.Content, " states ")
	}
	if !stated {
		t.Error("no position states a claim's figure")
	}
	if !strings.Contains(m.Markdown(), "## Deliberation") {
		t.Error("the memo's markdown has no deliberation")
	}
	if _, err := r.Home().Ledger.Verify(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
}

// TestD16_ModelOutputThatBreaksARuleIsRefused: an output of the model that
// breaks a Muḥāsabah rule is rejected by the gate (a muhasabah.rejected
// event), the model is told the violations and asked once more; a second
// refusal hears the role's deterministic output instead, and the refused
// figure reaches neither the step's output nor the memo. A corrected
// output is heard as the model's.
func TestD16_ModelOutputThatBreaksARuleIsRefused(t *testing.T) {
	var mu sync.Mutex // guards retries
	var retries []string
	fake := modeltest.NewOpenAI(func(_ int, req modeltest.Request) modeltest.Turn {
		a := parseAsked(t, req)
		if a.retry {
			mu.Lock()
			retries = append(retries, a.role+": "+req.Messages[len(req.Messages)-1].Content)
			mu.Unlock()
		}
		o := a.draft
		switch {
		case a.role == debate.RoleAdvocate:
			// A free figure, and confidence 0.9 with neither an
			// uncertainty nor a counter-hypothesis: refused twice.
			o.Content = "Revenue was £99.9m in FY2024, so the deal should proceed."
			o.Muhasabah.SupportedClaimIDs, o.Muhasabah.Uncertainties, o.Muhasabah.CounterHypothesis = nil, nil, ""
			o.Muhasabah.Confidence = 0.9
			return modeltest.Turn{Text: reply(o)}
		case a.role == debate.RoleContradictionFinder && !a.retry:
			// A figure no claim it cites states, then corrected.
			if len(o.Muhasabah.SupportedClaimIDs) == 0 {
				t.Error("the contradiction finder's draft cites no claim")
			}
			o.Content += " The gap is £77.7m."
			return modeltest.Turn{Text: reply(o)}
		}
		return modeltest.Turn{Text: refine(a)}
	})
	defer fake.Close()
	r := openWithModel(t, t.TempDir(), fake, nil)
	defer r.Close()
	res := run(t, r, input(t), dealScope)
	hs := heardOf(t, res)

	adv := hs["r1-advocate"]
	rules := map[string]bool{}
	for _, v := range adv.Rejected {
		rules[v.Rule] = true
	}
	if adv.Mode != deal.ModeFallback || !rules[debate.RuleNoFreeFacts] || !rules[debate.RuleOverconfidence] || strings.Contains(adv.Output.Content, "99.9") {
		t.Fatalf("advocate: mode %s, rejected %v, content %q", adv.Mode, adv.Rejected, adv.Output.Content)
	}
	cf := hs["r1-contradiction-finder"]
	if cf.Mode != deal.ModeModel || len(cf.Rejected) == 0 || cf.Rejected[0].Rule != debate.RuleNoFreeFacts || strings.Contains(cf.Output.Content, "77.7") {
		t.Fatalf("contradiction finder: mode %s, rejected %v, content %q", cf.Mode, cf.Rejected, cf.Output.Content)
	}
	// Two refusals of the advocate, one of the contradiction finder: each
	// recorded by the gate, each followed by a corrective request.
	if n := events(t, r, res.Trace, debate.TypeMuhasabahRejected); n != 3 {
		t.Errorf("%d muhasabah.rejected events, want 3", n)
	}
	if len(retries) != 2 || !strings.HasPrefix(retries[0], "advocate: ") || !strings.Contains(retries[0], "OVERCONFIDENCE") ||
		!strings.Contains(retries[0], "NO_FREE_FACTS") || !strings.Contains(retries[1], "77.7") {
		t.Errorf("corrective requests: %q", retries)
	}
	if n := len(fake.Requests()); n != 7 {
		t.Errorf("%d model requests, want 7 (5 roles, 2 retries)", n)
	}
	memo := string(res.Outputs["memo"])
	if strings.Contains(memo, "99.9") || strings.Contains(memo, "77.7") {
		t.Fatal("a refused figure reached the memo")
	}
	for _, p := range memoOf(t, res).Deliberation {
		if p.Role == debate.RoleAdvocate && p.Mode != deal.ModeFallback {
			t.Errorf("the memo hears the advocate as %s", p.Mode)
		}
	}
}

// TestD03_ModelReplyThatIsNotAnAgentOutputIsRefused: a reply that is not
// JSON is asked for again once, naming what is wrong; a second such reply
// is refused (MODEL_OUTPUT_INVALID, a failed model call on the record) and
// the role's deterministic output is heard.
func TestD03_ModelReplyThatIsNotAnAgentOutputIsRefused(t *testing.T) {
	fake := modeltest.NewOpenAI(func(_ int, req modeltest.Request) modeltest.Turn {
		a := parseAsked(t, req)
		if a.role == debate.RoleRiskOfficer {
			return modeltest.Turn{Text: "The main risk is the negative margin."}
		}
		return modeltest.Turn{Text: refine(a)}
	})
	defer fake.Close()
	r := openWithModel(t, t.TempDir(), fake, nil)
	defer r.Close()
	res := run(t, r, input(t), dealScope)
	h := heardOf(t, res)["r1-risk-officer"]
	if h.Mode != deal.ModeFallback || len(h.Rejected) != 1 || h.Rejected[0].Rule != debate.RuleSchema || !strings.Contains(h.Rejected[0].Detail, "schema") {
		t.Fatalf("risk officer: mode %s, rejected %v", h.Mode, h.Rejected)
	}
	asks := 0
	for _, req := range fake.Requests() {
		if parseAsked(t, req).role == debate.RoleRiskOfficer {
			asks++
		}
	}
	if asks != 2 {
		t.Errorf("the risk officer's model was asked %d times, want 2 (one repair)", asks)
	}
	if events(t, r, res.Trace, debate.TypeMuhasabahRejected) != 0 {
		t.Error("a reply that is not an output reached the gate")
	}
}

// TestD19_ResumedModelDebateMakesNoRepeatedModelCall crashes a debate with
// a model after its first round's checkpoint, resumes it in a new process,
// and finds that the resume asked the model only for the steps not yet
// done (no request repeated) and wrote the memo of an uninterrupted run.
func TestD19_ResumedModelDebateMakesNoRepeatedModelCall(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "deals", "04-pelican-payroll"))
	if err != nil {
		t.Fatal(err)
	}
	in := deal.Input{Dir: dir}
	scope := sanad.Scope{Tenant: "fund", Case: "pelican-payroll"}
	key := func(req modeltest.Request) string {
		a := parseAsked(t, req)
		return strconv.Itoa(a.round) + "/" + a.role
	}

	cleanFake := modeltest.NewOpenAI(valid(t))
	defer cleanFake.Close()
	clean := openWithModel(t, t.TempDir(), cleanFake, nil)
	want := run(t, clean, in, scope)
	clean.Close()
	total := len(cleanFake.Requests())
	for id, h := range heardOf(t, want) {
		if h.Heard && (h.Mode != deal.ModeModel || len(h.Rejected) > 0) {
			t.Errorf("%s: mode %s, rejected %v", id, h.Mode, h.Rejected)
		}
	}
	if total != 10 {
		t.Fatalf("an uninterrupted run asked the model %d times, want 10 (two rounds of five roles)", total)
	}

	fake := modeltest.NewOpenAI(valid(t))
	defer fake.Close()
	home := t.TempDir()
	hits, crashed := 0, false
	// The sixth checkpoint is the arbiter's of round 1: analyze and five
	// roles.
	r := openWithModel(t, home, fake, func(p string) {
		if p == workflow.PointAfterCheckpoint {
			if hits++; hits == 6 {
				crashed = true
				runtime.Goexit()
			}
		}
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(context.Background(), deal.Name, in, runner.Options{Scope: scope})
	}()
	<-done
	r.Close()
	if !crashed {
		t.Fatal("the debate did not crash")
	}
	before := len(fake.Requests())
	if before != 5 {
		t.Fatalf("%d model requests before the crash, want 5", before)
	}

	r = openWithModel(t, home, fake, nil)
	defer r.Close()
	traces, err := ledger.WorkTraces(context.Background(), r.Home().DB)
	if err != nil || len(traces) != 1 {
		t.Fatalf("traces: %v %v", traces, err)
	}
	res, err := r.Resume(context.Background(), traces[0])
	if err != nil || res.Err() != nil {
		t.Fatalf("resume: %v %v", err, res.Err())
	}
	after := len(fake.Requests()) - before
	if after != total-before {
		t.Errorf("the resume asked the model %d times, want %d (the steps not yet done)", after, total-before)
	}
	seen := map[string]bool{}
	for _, req := range fake.Requests() {
		k := key(req)
		if seen[k] {
			t.Errorf("the model was asked twice for %s", k)
		}
		seen[k] = true
	}
	if string(res.Outputs["memo"]) != string(want.Outputs["memo"]) {
		t.Fatal("the resumed debate wrote another memo")
	}
	if n := calls(t, r, res.Trace, deal.ToolAnalyze); n != 1 {
		t.Fatalf("the data room was analysed %d times", n)
	}
	if _, err := r.Home().Ledger.Verify(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
}
