package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// TestD11_MatrixThroughGateway: every cell of seed 000's tool permission
// matrix (6 tools × 5 roles), through Gateway.Call with the real debate
// policy. An allowed call runs in a tool_gateway child run whose events are
// run.started, the policy's allow, (for query_enrichment, whose risk class
// needs a critic: the agent's signed intent and the critic's approval),
// tool.started, tool.completed and run.completed. A denied call never runs
// and leaves, in the parent run, the policy's deny and a tool.refused.
func TestD11_MatrixThroughGateway(t *testing.T) {
	counts := map[string]*counter{}
	e := debateEnv(t, counts)
	ctx := t.Context()
	allowedRoles := map[string]int{}
	for ri, role := range seedRoles {
		t.Run(role, func(t *testing.T) {
			p := principal(role)
			parent := e.startParent(t, p)
			results := map[string]tool.Result{}
			for _, name := range seedTools {
				results[name] = e.Gateway.Call(ctx, parent, p, tool.Request{
					Tool: name, CallID: "call-" + name, Input: validInput[name], Round: 1, DebateID: "debate-1",
					Justification: "the thesis rests on this company's revenue",
				})
			}
			if err := parent.Complete(ctx, nil, nil); err != nil {
				t.Fatalf("completing the parent run: got error %v, want nil", err)
			}
			evs := e.events(t, parent.Record.Trace)
			for _, name := range seedTools {
				r := results[name]
				allow := seedMatrix[name][ri]
				if !allow {
					wantCode(t, role+" calls "+name, r, sanad.CodePolicyDenied)
					refused, before := refusalOf(t, evs, "call-"+name)
					d := decode[runs.Decision](t, before)
					if before.Type != runs.TypeAuthz || d.Allow || d.Action != "tool:"+name || d.Rule != string(policy.RuleToolMatrix) || before.Run != parent.Record.ID {
						t.Errorf("%s calls %s: event before the refusal is %s %+v, want the tool matrix's deny in the parent run", role, name, before.Type, d)
					}
					if refused.Status != sanad.CodePolicyDenied || refused.Stage != tool.StageAuthorize || refused.Agent != p.Agent || refused.Role != role || refused.Round != 1 || refused.DebateID != "debate-1" || refused.InputHash == "" {
						t.Errorf("%s calls %s: refusal %+v, want POLICY_DENIED at authorize with agent, role, round, debate and input hash", role, name, refused)
					}
					continue
				}
				allowedRoles[name]++
				wantCode(t, role+" calls "+name, r, "")
				run := ofRun(evs, r.Run)
				want := []string{runs.TypeStarted, runs.TypeAuthz, tool.TypeStarted, tool.TypeCompleted, runs.TypeCompleted}
				if name == "query_enrichment" {
					want = []string{runs.TypeStarted, runs.TypeAuthz, tool.TypeIntent, tool.TypeApproved, tool.TypeStarted, tool.TypeCompleted, runs.TypeCompleted}
				}
				wantTypes(t, role+" calls "+name, typesOf(run), want...)
				if len(run) != len(want) {
					continue
				}
				if run[0].Parent != parent.Record.ID || decode[runs.StartedBody](t, run[0]).Run.Kind != sanad.KindToolGateway {
					t.Errorf("%s calls %s: run %s is not a tool_gateway child of %s", role, name, r.Run, parent.Record.ID)
				}
				if d := decode[runs.Decision](t, run[1]); !d.Allow || d.Action != "tool:"+name || d.Rule != string(policy.RuleToolMatrix) || d.PolicyVersions["tools"] != e.Policy.Versions()["tools"] {
					t.Errorf("%s calls %s: authz.decision %+v, want the tool matrix's allow under the loaded policy", role, name, d)
				}
				done := decode[tool.CompletedBody](t, run[len(run)-2])
				if done.Status != tool.StatusSuccess || done.ResultHash != r.ResultHash || done.InputHash != r.InputHash || done.Agent != p.Agent || done.Round != 1 || done.DebateID != "debate-1" {
					t.Errorf("%s calls %s: tool.completed %+v, want SUCCESS with the result's hashes, agent, round and debate", role, name, done)
				}
				if name == "query_enrichment" {
					if run[2].Actor.Agent != p.Agent {
						t.Errorf("%s calls %s: tool.intent signed by %s, want the acting agent %s", role, name, run[2].Actor.Agent, p.Agent)
					}
					if in := decode[tool.IntentBody](t, run[2]); in.Risk != "external" || in.Approval != policy.ApprovalCritic || in.InputHash != r.InputHash || in.Justification == "" {
						t.Errorf("%s calls %s: intent %+v, want risk external, critic approval, the input hash and the justification", role, name, in)
					}
				}
			}
		})
	}
	for _, name := range seedTools {
		if got, want := counts[name].count(), allowedRoles[name]; got != want {
			t.Errorf("%s ran %d times, want %d (once per allowed role)", name, got, want)
		}
	}
}

// TestD13_AbuseThroughGateway: the abuse rules of seed 000 §6.2, enforced by
// the gateway's counts: the 21st lookup_claim of a round is refused and a new
// round resets the count; flag_defect with a 49-character description or no
// evidence refs is refused; refused calls do not count.
func TestD13_AbuseThroughGateway(t *testing.T) {
	counts := map[string]*counter{}
	e := debateEnv(t, counts)
	ctx := t.Context()
	p := principal("sanad_breaker")
	parent := e.startParent(t, p)
	call := func(name, id string, round int, input json.RawMessage) tool.Result {
		return e.Gateway.Call(ctx, parent, p, tool.Request{Tool: name, CallID: id, Round: round, Input: input})
	}

	for i := 1; i <= 20; i++ {
		wantCode(t, fmt.Sprintf("lookup_claim %d of round 1", i), call("lookup_claim", fmt.Sprintf("r1-%d", i), 1, validInput["lookup_claim"]), "")
	}
	r := call("lookup_claim", "r1-21", 1, validInput["lookup_claim"])
	wantCode(t, "lookup_claim 21 of round 1", r, sanad.CodeToolAbuse)
	if !strings.Contains(r.Message, "20 times per round") {
		t.Errorf("refusal message: got %q, want it to say the limit", r.Message)
	}
	wantCode(t, "lookup_claim 22 of round 1", call("lookup_claim", "r1-22", 1, validInput["lookup_claim"]), sanad.CodeToolAbuse)
	wantCode(t, "lookup_claim 1 of round 2", call("lookup_claim", "r2-1", 2, validInput["lookup_claim"]), "")
	wantCode(t, "lookup_claim back in round 1", call("lookup_claim", "r1-late", 1, validInput["lookup_claim"]), sanad.CodeInvalidInput)
	if got := counts["lookup_claim"].count(); got != 21 {
		t.Errorf("lookup_claim ran %d times, want 21", got)
	}

	defect := func(description string, refs []string) json.RawMessage {
		return mustJSON(map[string]any{
			"claim_id": "c-1", "defect_type": "BROKEN_CHAIN", "severity": "MAJOR",
			"description": description, "evidence_refs": refs, "cure_protocol": "REQUEST_SOURCE",
		})
	}
	d49, d50 := strings.Repeat("d", 49), strings.Repeat("d", 50)
	wantCode(t, "flag_defect with 49 characters", call("flag_defect", "fd-49", 2, defect(d49, []string{"ev-1"})), sanad.CodeToolAbuse)
	wantCode(t, "flag_defect with no evidence refs", call("flag_defect", "fd-norefs", 2, defect(d50, []string{})), sanad.CodeToolAbuse)
	wantCode(t, "flag_defect with blank evidence refs", call("flag_defect", "fd-blank", 2, defect(d50, []string{" "})), sanad.CodeToolAbuse)
	// The three refusals did not count: three valid calls fit the round's limit of 3.
	for i := 1; i <= 3; i++ {
		wantCode(t, fmt.Sprintf("flag_defect %d of round 2", i), call("flag_defect", fmt.Sprintf("fd-%d", i), 2, defect(d50, []string{"ev-1"})), "")
	}
	wantCode(t, "flag_defect 4 of round 2", call("flag_defect", "fd-4", 2, defect(d50, []string{"ev-1"})), sanad.CodeToolAbuse)
	if got := counts["flag_defect"].count(); got != 3 {
		t.Errorf("flag_defect ran %d times, want 3", got)
	}

	if err := parent.Complete(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	evs := e.events(t, parent.Record.Trace)
	for id, rule := range map[string]string{
		"r1-21": policy.ViolationRoundLimit, "fd-49": policy.ViolationRequires,
		"fd-norefs": policy.ViolationRequires, "fd-4": policy.ViolationRoundLimit,
	} {
		refused, before := refusalOf(t, evs, id)
		if refused.Status != sanad.CodeToolAbuse || refused.Stage != tool.StageAbuse || refused.Rule != rule {
			t.Errorf("call %s: refusal %+v, want TOOL_ABUSE_RULES at stage abuse by rule %s", id, refused, rule)
		}
		if d := decode[runs.Decision](t, before); before.Type != runs.TypeAuthz || d.Allow || d.Rule != rule {
			t.Errorf("call %s: event before the refusal is %s %+v, want a deny by %s", id, before.Type, d, rule)
		}
	}
	if refused, _ := refusalOf(t, evs, "r1-late"); refused.Stage != tool.StageValidate {
		t.Errorf("call r1-late: refusal %+v, want stage validate (the round is over)", refused)
	}
}

// TestD12_EveryCallAudited: every call, whatever its outcome, leaves a tool.*
// event naming it whose status is the result's (SUCCESS or the code), and
// the ledger verifies.
func TestD12_EveryCallAudited(t *testing.T) {
	specs := append(seedSpecs(nil),
		tool.Spec{
			Name: "broken", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{}`),
			Func: func(context.Context, tool.Call) (json.RawMessage, error) {
				return nil, errors.New("connector exploded")
			},
		},
		tool.Spec{
			Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{}`), Timeout: 20 * time.Millisecond,
			Func: func(ctx context.Context, _ tool.Call) (json.RawMessage, error) { <-ctx.Done(); return nil, ctx.Err() },
		},
		tool.Spec{
			Name: "guarded", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{}`),
			Func: fixed(nil, `{}`),
		},
	)
	pol := policyOf(t, rolesYAML, toolsYAML(
		toolEntry("lookup_claim", "read", []string{"worker"}, "max_calls_per_round: 1"),
		toolEntry("flag_defect", "read", []string{"other"}),
		toolEntry("broken", "read", []string{"worker"}),
		toolEntry("slow", "read", []string{"worker"}),
		toolEntry("guarded", "critic", []string{"worker"}),
	))
	block := tool.ApproverFunc(func(context.Context, tool.Intent) (tool.Verdict, error) {
		return tool.Verdict{Critic: "critic-1", Reason: "no"}, nil
	})
	e := openEnv(t, pol, registry(t, specs...), func(c *tool.Config) { c.Approver = block })
	ctx := t.Context()
	p := policy.Principal{Agent: "worker-1", Role: "worker", Scope: deal}
	parent := e.startParent(t, p)
	calls := []struct {
		id, tool string
		input    string
		want     sanad.Code
	}{
		{"allowed", "lookup_claim", `{"claim_id":"c-1"}`, ""},
		{"abused", "lookup_claim", `{"claim_id":"c-2"}`, sanad.CodeToolAbuse},
		{"denied", "flag_defect", string(validInput["flag_defect"]), sanad.CodePolicyDenied},
		{"unknown", "teleport", `{}`, sanad.CodeToolNotFound},
		{"invalid", "lookup_claim", `{"claim_id":1}`, sanad.CodeInvalidInput},
		{"failing", "broken", `{}`, sanad.CodeToolFailed},
		{"timing-out", "slow", `{}`, sanad.CodeTimeout},
		{"blocked", "guarded", `{}`, sanad.CodeBlocked},
		{"allowed", "lookup_claim", `{"claim_id":"c-1"}`, sanad.CodeConflict}, // the call id again
		{"cancelled", "broken", `{}`, sanad.CodeCancelled},                    // the caller gave up first
	}
	for _, c := range calls {
		ctx := ctx
		if c.id == "cancelled" {
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			ctx = cctx
		}
		r := e.Gateway.Call(ctx, parent, p, tool.Request{Tool: c.tool, CallID: c.id, Input: json.RawMessage(c.input), Justification: "needed"})
		wantCode(t, c.id+" ("+c.tool+")", r, c.want)
	}
	if err := parent.Complete(ctx, nil, nil); err != nil {
		t.Fatalf("completing the parent run: got error %v, want nil", err)
	}
	evs := e.events(t, parent.Record.Trace)
	if _, err := e.Ledger.Verify(ctx, ""); err != nil {
		t.Fatalf("Verify(whole log): got error %v, want nil", err)
	}
	// The outcome events, in order: one per call.
	type outcome struct{ id, status string }
	var outcomes []outcome
	for _, ev := range evs {
		var b struct {
			CallID string `json:"call_id"`
			Status string `json:"status"`
			Retry  bool   `json:"retry"`
		}
		switch ev.Type {
		case tool.TypeCompleted, tool.TypeRefused, tool.TypeBlocked, tool.TypeFailed:
			if err := json.Unmarshal(ev.Body, &b); err != nil {
				t.Fatal(err)
			}
			if !b.Retry {
				outcomes = append(outcomes, outcome{b.CallID, b.Status})
			}
		}
	}
	var want []outcome
	for _, c := range calls {
		status := string(c.want)
		if status == "" {
			status = tool.StatusSuccess
		}
		want = append(want, outcome{c.id, status})
	}
	if !slices.Equal(outcomes, want) {
		t.Errorf("outcome events: got %v, want one per call: %v", outcomes, want)
	}
}

// TestRiskyTool: a tool whose risk class needs approval never runs without
// it; a blocked intent never executes; the intent is signed by the acting
// agent and precedes the execution.
func TestRiskyTool(t *testing.T) {
	spec := func(c *counter, approval policy.Approval) tool.Spec {
		return tool.Spec{
			Name: "wire", InputSchema: json.RawMessage(`{"type":"object","required":["amount"]}`), OutputSchema: json.RawMessage(`{}`),
			Approval: approval, SideEffect: tool.SideEffectExternal, Func: fixed(c, `{"ok":true}`),
		}
	}
	input := json.RawMessage(`{"amount": 100, "time": "2026-01-01T00:00:00Z"}`)
	var seen tool.Intent
	approve := tool.ApproverFunc(func(_ context.Context, in tool.Intent) (tool.Verdict, error) {
		seen = in
		return tool.Verdict{Approve: true, Critic: "critic-7", Reason: "within limits"}, nil
	})
	block := tool.ApproverFunc(func(context.Context, tool.Intent) (tool.Verdict, error) {
		return tool.Verdict{Approve: false, Critic: "critic-7", Reason: "amount over the threshold"}, nil
	})
	down := tool.ApproverFunc(func(context.Context, tool.Intent) (tool.Verdict, error) {
		return tool.Verdict{}, sanad.Errorf(sanad.CodeDependencyDown, "critic", "critic model unreachable")
	})
	cases := []struct {
		name          string
		risk          string          // risk class in tools.yaml
		specApproval  policy.Approval // what the Spec asks for
		approver      tool.Approver
		justification string
		want          sanad.Code
		events        []string // of the child run
	}{
		{"approved", "critic", "", approve, "pay the invoice", "",
			[]string{runs.TypeStarted, runs.TypeAuthz, tool.TypeIntent, tool.TypeApproved, tool.TypeStarted, tool.TypeCompleted, runs.TypeCompleted}},
		{"blocked", "critic", "", block, "pay the invoice", sanad.CodeBlocked,
			[]string{runs.TypeStarted, runs.TypeAuthz, tool.TypeIntent, tool.TypeBlocked, runs.TypeFailed}},
		{"no critic", "critic", "", nil, "pay the invoice", sanad.CodeApprovalRequired,
			[]string{runs.TypeStarted, runs.TypeAuthz, tool.TypeIntent, tool.TypeRefused, runs.TypeFailed}},
		{"critic down", "critic", "", down, "pay the invoice", sanad.CodeDependencyDown,
			[]string{runs.TypeStarted, runs.TypeAuthz, tool.TypeIntent, tool.TypeRefused, runs.TypeFailed}},
		{"human without a human approver", "human", "", approve, "pay the invoice", sanad.CodeApprovalRequired,
			[]string{runs.TypeStarted, runs.TypeAuthz, tool.TypeIntent, tool.TypeRefused, runs.TypeFailed}},
		{"spec stricter than policy", "read", policy.ApprovalCritic, block, "pay the invoice", sanad.CodeBlocked,
			[]string{runs.TypeStarted, runs.TypeAuthz, tool.TypeIntent, tool.TypeBlocked, runs.TypeFailed}},
		{"no justification", "critic", "", approve, "", sanad.CodeInvalidInput, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ran := &counter{}
			seen = tool.Intent{}
			pol := policyOf(t, rolesYAML, toolsYAML(toolEntry("wire", c.risk, []string{"worker"})))
			e := openEnv(t, pol, registry(t, spec(ran, c.specApproval)), func(cfg *tool.Config) { cfg.Approver = c.approver })
			ctx := t.Context()
			p := policy.Principal{Agent: "payer-1", Role: "worker", Scope: deal}
			parent := e.startParent(t, p)
			r := e.Gateway.Call(ctx, parent, p, tool.Request{Tool: "wire", CallID: "w1", Input: input, Justification: c.justification})
			wantCode(t, c.name, r, c.want)
			if want := map[bool]int{true: 1, false: 0}[c.want == ""]; ran.count() != want {
				t.Errorf("the tool ran %d times, want %d", ran.count(), want)
			}
			if err := parent.Complete(ctx, nil, nil); err != nil {
				t.Fatalf("completing the parent run: got error %v, want nil", err)
			}
			evs := e.events(t, parent.Record.Trace)
			if c.events == nil {
				if r.Run != "" {
					t.Errorf("got run %s, want none for a call refused before it was let through", r.Run)
				}
				return
			}
			run := ofRun(evs, r.Run)
			wantTypes(t, c.name, typesOf(run), c.events...)
			intent := run[2]
			if intent.Actor.Agent != p.Agent || intent.Actor.Role != p.Role {
				t.Errorf("tool.intent signed by %s (%s), want the acting agent %s (%s)", intent.Actor.Agent, intent.Actor.Role, p.Agent, p.Role)
			}
			ib := decode[tool.IntentBody](t, intent)
			if ib.InputHash != r.InputHash || ib.Justification != c.justification || ib.Key != parent.Record.ID+"/w1" {
				t.Errorf("intent %+v, want input hash %s, the justification and key %s/w1", ib, r.InputHash, parent.Record.ID)
			}
			if c.name == "approved" {
				if seen.InputHash != r.InputHash || string(seen.Input) != `{"amount":100,"time":"2026-01-01T00:00:00Z"}` || seen.Principal != p || seen.Risk != "critic" {
					t.Errorf("the critic saw %+v, want the call's hash, canonical input, principal and risk", seen)
				}
				if v := decode[tool.VerdictBody](t, run[3]); v.Status != tool.StatusApproved || v.Critic != "critic-7" || v.Reason != "within limits" {
					t.Errorf("tool.approved %+v, want the critic's verdict", v)
				}
			}
			if c.want == sanad.CodeBlocked {
				if v := decode[tool.VerdictBody](t, run[3]); v.Status != tool.StatusBlocked || v.Reason == "" {
					t.Errorf("tool.blocked %+v, want the critic's reason", v)
				}
			}
			if c.want != "" {
				end := decode[runs.EndedBody](t, run[len(run)-1])
				if end.Error == nil || end.Error.Code != c.want {
					t.Errorf("run.failed error %+v, want code %s", end.Error, c.want)
				}
			}
		})
	}
	// The intent's hash is normalized: volatile fields such as times do not change it.
	h1 := hashOf(t, `{"amount":100,"time":"2026-01-01T00:00:00Z"}`)
	h2 := hashOf(t, `{"amount":100,"time":"2027-05-05T00:00:00Z"}`)
	if h1 != h2 {
		t.Errorf("input hashes differing only in a time: got %s and %s, want equal", h1, h2)
	}
}

// hashOf returns the input hash a refused call records for input.
func hashOf(t *testing.T, input string) string {
	t.Helper()
	spec := tool.Spec{Name: "x", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{}`), Func: fixed(nil, `{}`)}
	e := openEnv(t, policyOf(t, rolesYAML, toolsYAML(toolEntry("x", "read", []string{"other"}))), registry(t, spec), nil)
	p := policy.Principal{Agent: "w-1", Role: "worker", Scope: deal}
	return e.Gateway.Call(t.Context(), e.startParent(t, p), p, tool.Request{Tool: "x", CallID: "h", Input: json.RawMessage(input)}).InputHash
}

// TestRetries: only retryable errors of idempotent (or side-effect free)
// tools are retried, with exponential backoff through the injected Sleep;
// each attempt is recorded and receives the same idempotency key.
func TestRetries(t *testing.T) {
	down := sanad.Errorf(sanad.CodeDependencyDown, "fake", "connector unreachable")
	cases := []struct {
		name       string
		idempotent bool
		side       tool.SideEffect
		errs       []error // the error of each attempt; nil succeeds; the last repeats
		cancel     bool    // Sleep reports cancellation
		want       sanad.Code
		attempts   int
		sleeps     []time.Duration
	}{
		{"retryable then success", true, tool.SideEffectExternal, []error{down, down, nil}, false, "", 3, []time.Duration{10 * time.Millisecond, 15 * time.Millisecond}},
		{"side-effect free", false, tool.SideEffectNone, []error{down, nil}, false, "", 2, []time.Duration{10 * time.Millisecond}},
		{"exhausted", true, tool.SideEffectExternal, []error{down}, false, sanad.CodeDependencyDown, 3, []time.Duration{10 * time.Millisecond, 15 * time.Millisecond}},
		{"not retryable", true, tool.SideEffectExternal, []error{sanad.Errorf(sanad.CodeClaimNotFound, "fake", "no claim c-9")}, false, sanad.CodeClaimNotFound, 1, nil},
		{"plain error", true, tool.SideEffectExternal, []error{errors.New("boom")}, false, sanad.CodeToolFailed, 1, nil},
		{"not idempotent", false, tool.SideEffectExternal, []error{down, nil}, false, sanad.CodeDependencyDown, 1, nil},
		{"cancelled in backoff", true, tool.SideEffectExternal, []error{down, nil}, true, sanad.CodeCancelled, 1, []time.Duration{10 * time.Millisecond}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var keys []string
			var attempts []int
			spec := tool.Spec{
				Name: "flaky", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{}`),
				Idempotent: c.idempotent, SideEffect: c.side,
				Retry: tool.Retry{MaxAttempts: 3, BaseDelay: 10 * time.Millisecond, MaxDelay: 15 * time.Millisecond},
				Func: func(_ context.Context, call tool.Call) (json.RawMessage, error) {
					mu.Lock()
					defer mu.Unlock()
					keys, attempts = append(keys, call.Key), append(attempts, call.Attempt)
					err := c.errs[min(len(attempts), len(c.errs))-1]
					if err != nil {
						return nil, err
					}
					return json.RawMessage(`{"ok":true}`), nil
				},
			}
			var sleeps []time.Duration
			sleep := func(_ context.Context, d time.Duration) error {
				sleeps = append(sleeps, d)
				if c.cancel {
					return context.Canceled
				}
				return nil
			}
			e := openEnv(t, policyOf(t, rolesYAML, toolsYAML(toolEntry("flaky", "read", []string{"worker"}))), registry(t, spec),
				func(cfg *tool.Config) { cfg.Sleep = sleep })
			p := policy.Principal{Agent: "worker-1", Role: "worker", Scope: deal}
			parent := e.startParent(t, p)
			r := e.Gateway.Call(t.Context(), parent, p, tool.Request{Tool: "flaky", CallID: "f1", Input: json.RawMessage(`{}`)})
			wantCode(t, c.name, r, c.want)
			if r.Attempts != c.attempts || len(attempts) != c.attempts {
				t.Errorf("attempts: got %d (tool saw %v), want %d", r.Attempts, attempts, c.attempts)
			}
			for i, a := range attempts {
				if a != i+1 || keys[i] != parent.Record.ID+"/f1" {
					t.Errorf("attempt %d: got number %d key %s, want %d and %s/f1", i+1, a, keys[i], i+1, parent.Record.ID)
				}
			}
			if !slices.Equal(sleeps, c.sleeps) {
				t.Errorf("backoff: got %v, want %v", sleeps, c.sleeps)
			}
			if err := parent.Complete(t.Context(), nil, nil); err != nil {
				t.Fatalf("completing the parent run: got error %v, want nil", err)
			}
			run := ofRun(e.events(t, parent.Record.Trace), r.Run)
			var want []string
			for i := 1; i <= c.attempts; i++ {
				want = append(want, tool.TypeStarted)
				if i < c.attempts || c.want != "" {
					want = append(want, tool.TypeFailed)
				}
			}
			switch {
			case c.want == "":
				want = append(want, tool.TypeCompleted, runs.TypeCompleted)
			case c.cancel:
				want = append(want, tool.TypeRefused, runs.TypeFailed) // the retry that never started
			default:
				want = append(want, runs.TypeFailed)
			}
			wantTypes(t, c.name, typesOf(run[2:]), want...)
		})
	}
}

// TestTimeout: an attempt that outlives its tool's timeout fails with
// ERR_TIMEOUT; one that returned is retried like any retryable failure, one
// still running when abandoned is not. A panic or a bad output fails the
// call with TOOL_FAILED.
func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	honours := func(ctx context.Context, _ tool.Call) (json.RawMessage, error) { <-ctx.Done(); return nil, ctx.Err() }
	ignores := func(context.Context, tool.Call) (json.RawMessage, error) {
		<-release
		return json.RawMessage(`{}`), nil
	}
	panics := func(context.Context, tool.Call) (json.RawMessage, error) { panic("tool bug") }
	cases := []struct {
		name     string
		fn       tool.Func
		out      string // output schema
		attempts int
		want     sanad.Code
		ran      int
	}{
		{"honours its context", honours, `{}`, 1, sanad.CodeTimeout, 1},
		{"honours its context, retried", honours, `{}`, 2, sanad.CodeTimeout, 2},
		{"ignores its context", ignores, `{}`, 3, sanad.CodeTimeout, 1},
		{"panics", panics, `{}`, 3, sanad.CodeToolFailed, 1},
		{"output not JSON", fixedFunc(`{"a":`), `{}`, 3, sanad.CodeToolFailed, 1},
		{"output against its schema", fixedFunc(`{"a":1}`), `{"required":["b"]}`, 3, sanad.CodeToolFailed, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ran := &counter{}
			spec := tool.Spec{
				Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(c.out),
				Timeout: 20 * time.Millisecond, Idempotent: true,
				Retry: tool.Retry{MaxAttempts: c.attempts, BaseDelay: time.Millisecond},
				Func: func(ctx context.Context, call tool.Call) (json.RawMessage, error) {
					ran.n.Add(1)
					return c.fn(ctx, call)
				},
			}
			e := openEnv(t, policyOf(t, rolesYAML, toolsYAML(toolEntry("slow", "read", []string{"worker"}))), registry(t, spec), nil)
			p := policy.Principal{Agent: "worker-1", Role: "worker", Scope: deal}
			parent := e.startParent(t, p)
			r := e.Gateway.Call(t.Context(), parent, p, tool.Request{Tool: "slow", CallID: "s1", Input: json.RawMessage(`{}`)})
			wantCode(t, c.name, r, c.want)
			if ran.count() != c.ran || r.Attempts != c.ran {
				t.Errorf("the tool ran %d times (result says %d), want %d", ran.count(), r.Attempts, c.ran)
			}
			if err := parent.Complete(t.Context(), nil, nil); err != nil {
				t.Fatalf("completing the parent run: got error %v, want nil", err)
			}
			run := ofRun(e.events(t, parent.Record.Trace), r.Run)
			last := decode[tool.FailedBody](t, run[len(run)-2])
			if last.Status != c.want || last.Retry || last.Error.Code != c.want {
				t.Errorf("last tool.failed %+v, want status %s without retry", last, c.want)
			}
		})
	}
}

func fixedFunc(out string) tool.Func { return fixed(nil, out) }

// TestConcurrentCallsShareLimits: concurrent calls in one parent run share
// its counts: of 30 lookup_calc calls at once, exactly the 10 the round
// allows run.
func TestConcurrentCallsShareLimits(t *testing.T) {
	counts := map[string]*counter{}
	e := debateEnv(t, counts)
	p := principal("risk_officer")
	parent := e.startParent(t, p)
	var wg sync.WaitGroup
	results := make([]tool.Result, 30)
	for i := range results {
		wg.Go(func() {
			results[i] = e.Gateway.Call(t.Context(), parent, p, tool.Request{Tool: "lookup_calc", CallID: fmt.Sprintf("k%d", i), Input: validInput["lookup_calc"]})
		})
	}
	wg.Wait()
	byCode := map[sanad.Code]int{}
	for _, r := range results {
		byCode[r.Code]++
	}
	if byCode[""] != 10 || byCode[sanad.CodeToolAbuse] != 20 || counts["lookup_calc"].count() != 10 {
		t.Errorf("got results %v and %d runs, want 10 successes, 20 TOOL_ABUSE_RULES and 10 runs", byCode, counts["lookup_calc"].count())
	}
	if err := parent.Complete(t.Context(), nil, nil); err != nil {
		t.Fatal(err)
	}
	e.events(t, parent.Record.Trace)
}

// TestIsolation: a principal of case A cannot call any tool on case B or on
// another tenant, whatever its role; the refusal is recorded.
func TestIsolation(t *testing.T) {
	counts := map[string]*counter{}
	e := debateEnv(t, counts)
	ctx := t.Context()
	for ri, role := range seedRoles {
		p := principal(role)
		parent := e.startParent(t, p)
		for _, name := range seedTools {
			for _, target := range []sanad.Scope{{Tenant: deal.Tenant, Case: "deal-7"}, {Tenant: "fund-2", Case: deal.Case}} {
				r := e.Gateway.Call(ctx, parent, p, tool.Request{Tool: name, CallID: "iso-" + name + "-" + target.Tenant, Input: validInput[name], Scope: target, Justification: "x"})
				wantCode(t, role+" calls "+name+" on "+target.String(), r, sanad.CodePolicyDenied)
				if seedMatrix[name][ri] && !strings.Contains(r.Message, "isolation") {
					t.Errorf("%s calls %s on %s: got %q, want an isolation refusal", role, name, target, r.Message)
				}
			}
		}
		if err := parent.Complete(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		e.events(t, parent.Record.Trace)
	}
	for name, c := range counts {
		if c.count() != 0 {
			t.Errorf("%s ran %d times across cases, want 0", name, c.count())
		}
	}
}

// TestEndedParent: a call in a run that has ended is refused and nothing runs.
func TestEndedParent(t *testing.T) {
	counts := map[string]*counter{}
	e := debateEnv(t, counts)
	p := principal("arbiter")
	parent := e.startParent(t, p)
	if err := parent.Complete(t.Context(), nil, nil); err != nil {
		t.Fatal(err)
	}
	r := e.Gateway.Call(t.Context(), parent, p, tool.Request{Tool: "lookup_claim", CallID: "late", Input: validInput["lookup_claim"]})
	wantCode(t, "call in an ended run", r, sanad.CodeInvalidInput)
	if counts["lookup_claim"].count() != 0 {
		t.Errorf("lookup_claim ran in an ended run")
	}
}

// TestOrderingRule: the ledger refuses tool.* events out of order, whoever
// appends them.
func TestOrderingRule(t *testing.T) {
	e := debateEnv(t, nil)
	ctx := t.Context()
	p := principal("risk_officer")
	parent := e.startParent(t, p)
	in, err := e.Artifacts.Put(ctx, deal, parent.Record.ID, tool.MediaType, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	hash := "sha256:" + in.SHA256
	info := func(key string) tool.CallInfo {
		return tool.CallInfo{CallID: key, Key: parent.Record.ID + "/" + key, Tool: "query_enrichment", Agent: p.Agent, InputHash: hash}
	}
	intent := func(key string) (string, string, any) {
		return tool.TypeIntent, p.Agent, tool.IntentBody{CallInfo: info(key), Risk: "external", Approval: policy.ApprovalCritic, Justification: "why"}
	}
	verdict := func(typ, status, key string) (string, string, any) {
		return typ, "", tool.VerdictBody{CallInfo: info(key), Status: status, Critic: "critic-1", Reason: "r"}
	}
	started := func(key string, attempt int, approval policy.Approval) (string, string, any) {
		return tool.TypeStarted, "", tool.StartedBody{CallInfo: info(key), Attempt: attempt, MaxAttempts: 3, Approval: approval, SideEffect: tool.SideEffectNone, TimeoutMS: 1}
	}
	completed := func(key string, attempt int) (string, string, any) {
		return tool.TypeCompleted, "", tool.CompletedBody{CallInfo: info(key), Attempt: attempt, Status: tool.StatusSuccess, ResultHash: hash, Input: in, Output: in}
	}
	failed := func(key string, attempt int, retry bool) (string, string, any) {
		return tool.TypeFailed, "", tool.FailedBody{CallInfo: info(key), Attempt: attempt, Status: sanad.CodeDependencyDown,
			Error: sanad.RunError{Code: sanad.CodeDependencyDown, Message: "down", Retryable: true}, Retry: retry}
	}
	refused := func(key string) (string, string, any) {
		return tool.TypeRefused, "", tool.RefusedBody{CallInfo: info(key), Status: sanad.CodeApprovalRequired, Stage: tool.StageApproval, Reason: "r"}
	}
	type step struct {
		typ, agent string
		body       any
	}
	s := func(typ, agent string, body any) step { return step{typ, agent, body} }
	cases := []struct {
		name  string
		steps []step // all but the last are accepted; the last is refused
		ok    bool   // the last is accepted too
	}{
		{"approved call", []step{s(intent("a")), s(verdict(tool.TypeApproved, tool.StatusApproved, "a")), s(started("a", 1, policy.ApprovalCritic)), s(completed("a", 1))}, true},
		{"retried call", []step{s(started("b", 1, policy.ApprovalNone)), s(failed("b", 1, true)), s(started("b", 2, policy.ApprovalNone)), s(completed("b", 2))}, true},
		{"started without an intent", []step{s(started("c", 1, policy.ApprovalCritic))}, false},
		{"started after a blocked intent", []step{s(intent("d")), s(verdict(tool.TypeBlocked, tool.StatusBlocked, "d")), s(started("d", 1, policy.ApprovalCritic))}, false},
		{"started before the verdict", []step{s(intent("e")), s(started("e", 1, policy.ApprovalNone))}, false},
		{"second intent", []step{s(intent("f")), s(intent("f"))}, false},
		{"intent after execution", []step{s(started("g", 1, policy.ApprovalNone)), s(intent("g"))}, false},
		{"verdict without intent", []step{s(verdict(tool.TypeApproved, tool.StatusApproved, "h"))}, false},
		{"completed without started", []step{s(completed("i", 1))}, false},
		{"started after completion", []step{s(started("j", 1, policy.ApprovalNone)), s(completed("j", 1)), s(started("j", 2, policy.ApprovalNone))}, false},
		{"started after a final failure", []step{s(started("k", 1, policy.ApprovalNone)), s(failed("k", 1, false)), s(started("k", 2, policy.ApprovalNone))}, false},
		{"two open attempts", []step{s(started("l", 1, policy.ApprovalNone)), s(started("l", 2, policy.ApprovalNone))}, false},
		{"attempt skipped", []step{s(started("m", 2, policy.ApprovalNone))}, false},
		{"refused after start", []step{s(started("n", 1, policy.ApprovalNone)), s(refused("n"))}, false},
		{"started after refusal", []step{s(intent("o")), s(refused("o")), s(started("o", 1, policy.ApprovalNone))}, false},
		{"intent signed by the runtime", []step{{tool.TypeIntent, "", tool.IntentBody{CallInfo: info("p"), Risk: "x", Approval: policy.ApprovalCritic, Justification: "why"}}}, false},
	}
	for _, c := range cases {
		for i, st := range c.steps {
			_, err := parent.Append(ctx, st.typ, st.agent, st.body, nil)
			last := i == len(c.steps)-1
			if !last || c.ok {
				if err != nil {
					t.Fatalf("%s: step %d (%s): got error %v, want it accepted", c.name, i+1, st.typ, err)
				}
				continue
			}
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
				t.Errorf("%s: step %d (%s): got error %v, want it refused with INVALID_INPUT", c.name, i+1, st.typ, err)
			}
		}
	}
	if err := parent.Complete(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	e.events(t, parent.Record.Trace)
}

// TestVocabulary: the tool vocabulary compiles with the built-in ones, and
// each type has the signer the protocol asks for.
func TestVocabulary(t *testing.T) {
	types := allTypes(t)
	want := map[string]ledger.Signer{
		tool.TypeIntent: ledger.SignedByAgent, tool.TypeApproved: ledger.SignedByRuntime, tool.TypeBlocked: ledger.SignedByRuntime,
		tool.TypeStarted: ledger.SignedByRuntime, tool.TypeCompleted: ledger.SignedByRuntime, tool.TypeFailed: ledger.SignedByRuntime,
		tool.TypeRefused: ledger.SignedByRuntime,
	}
	for name, signer := range want {
		d, ok := types.Lookup(name)
		if !ok || d.Signer != signer {
			t.Errorf("%s: got %+v (declared %v), want signer %v", name, d.Signer, ok, signer)
		}
	}
	if got := len(tool.Vocabulary().Types); got != len(want) {
		t.Errorf("vocabulary declares %d types, want %d", got, len(want))
	}
}

// TestRegistry: registration checks specs, refuses duplicates, and lists
// sorted copies.
func TestRegistry(t *testing.T) {
	ok := tool.Spec{Name: "b_tool", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{}`), Func: fixed(nil, `{}`)}
	var r tool.Registry
	if err := r.Register(ok); err != nil {
		t.Fatalf("Register: got error %v, want nil", err)
	}
	a := ok
	a.Name = "a.tool"
	if err := r.Register(a); err != nil {
		t.Fatalf("Register: got error %v, want nil", err)
	}
	if err := r.Register(ok); sanad.ErrorCode(err) != sanad.CodeConflict {
		t.Errorf("Register twice: got %v, want CONFLICT", err)
	}
	bad := []struct {
		name   string
		change func(*tool.Spec)
	}{
		{"empty name", func(s *tool.Spec) { s.Name = "" }},
		{"upper case", func(s *tool.Spec) { s.Name = "Lookup" }},
		{"long name", func(s *tool.Spec) { s.Name = strings.Repeat("a", 65) }},
		{"no func", func(s *tool.Spec) { s.Func = nil }},
		{"no input schema", func(s *tool.Spec) { s.InputSchema = nil }},
		{"no output schema", func(s *tool.Spec) { s.OutputSchema = nil }},
		{"schema not JSON", func(s *tool.Spec) { s.InputSchema = json.RawMessage(`{`) }},
		{"schema invalid", func(s *tool.Spec) { s.InputSchema = json.RawMessage(`{"type":"thing"}`) }},
		{"schema loads a file", func(s *tool.Spec) { s.InputSchema = json.RawMessage(`{"$ref":"file:///etc/passwd"}`) }},
		{"schema loads a URL", func(s *tool.Spec) { s.OutputSchema = json.RawMessage(`{"$ref":"https://example.com/s.json"}`) }},
		{"negative timeout", func(s *tool.Spec) { s.Timeout = -1 }},
		{"bad approval", func(s *tool.Spec) { s.Approval = "maybe" }},
		{"bad side effect", func(s *tool.Spec) { s.SideEffect = "some" }},
		{"max delay below base", func(s *tool.Spec) { s.Retry = tool.Retry{BaseDelay: time.Second, MaxDelay: time.Millisecond} }},
	}
	for _, c := range bad {
		s := ok
		s.Name = "c_tool"
		c.change(&s)
		if err := r.Register(s); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("Register(%s): got %v, want INVALID_INPUT", c.name, err)
		}
	}
	list := r.List()
	if len(list) != 2 || list[0].Name != "a.tool" || list[1].Name != "b_tool" {
		t.Fatalf("List: got %d specs, want a.tool and b_tool in order", len(list))
	}
	got, found := r.Lookup("b_tool")
	if !found || got.Timeout != tool.DefaultTimeout || got.Retry.MaxAttempts != 1 || got.SideEffect != tool.SideEffectExternal || got.Approval != policy.ApprovalNone {
		t.Errorf("Lookup: got %+v, want the defaults applied", got)
	}
	got.InputSchema[0] = 'X'
	if again, _ := r.Lookup("b_tool"); again.InputSchema[0] != '{' {
		t.Errorf("Lookup returned the registry's own schema bytes, want a copy")
	}
	if _, found := r.Lookup("c_tool"); found {
		t.Errorf("Lookup(c_tool): found a spec that failed to register")
	}
}

// TestBackoff: the delay doubles from BaseDelay up to MaxDelay.
func TestBackoff(t *testing.T) {
	r := tool.Retry{MaxAttempts: 10, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second}
	for i, w := range want {
		if got := r.Backoff(i + 1); got != w {
			t.Errorf("Backoff(%d): got %v, want %v", i+1, got, w)
		}
	}
}

// TestWriteAheadForSideEffects: a tool with side effects runs only once its
// call's start (run.started, authz.decision, tool.started) is durable in the
// store; a tool that only reads may run before that, and both calls end with
// every event durable and the trace verifying.
func TestWriteAheadForSideEffects(t *testing.T) {
	var e *env
	var parent *runs.Run
	durableAtRun := map[string]bool{}
	probe := func(name string) tool.Func {
		return func(ctx context.Context, call tool.Call) (json.RawMessage, error) {
			evs, err := e.Ledger.Events(ctx, parent.Record.Trace) // read from the store
			if err != nil {
				return nil, err
			}
			for _, ev := range evs {
				if ev.Type == tool.TypeStarted && ev.Run == call.Run {
					durableAtRun[name] = true
				}
			}
			return json.RawMessage(`{}`), nil
		}
	}
	specs := []tool.Spec{
		{Name: "send_mail", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{}`),
			SideEffect: tool.SideEffectExternal, Func: probe("send_mail")},
		{Name: "write_note", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{}`),
			SideEffect: tool.SideEffectInternal, Func: probe("write_note")},
		{Name: "read_claim", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{}`),
			SideEffect: tool.SideEffectNone, Func: probe("read_claim")},
	}
	pol := policyOf(t, rolesYAML, toolsYAML(
		toolEntry("send_mail", "write", []string{"worker"}),
		toolEntry("write_note", "write", []string{"worker"}),
		toolEntry("read_claim", "read", []string{"worker"}),
	))
	e = openEnv(t, pol, registry(t, specs...), nil)
	p := policy.Principal{Agent: "worker-1", Role: "worker", Scope: deal}
	parent = e.startParent(t, p)
	for _, name := range []string{"send_mail", "write_note", "read_claim"} {
		r := e.Gateway.Call(t.Context(), parent, p, tool.Request{Tool: name, CallID: name, Input: json.RawMessage(`{}`)})
		if !r.Success {
			t.Fatalf("%s: %v", name, r.Err())
		}
		// Everything the call recorded is durable once it returns.
		evs := ofCall(t, e.events(t, parent.Record.Trace), name)
		wantTypes(t, name, typesOf(evs), tool.TypeStarted, tool.TypeCompleted)
	}
	for _, name := range []string{"send_mail", "write_note"} {
		if !durableAtRun[name] {
			t.Errorf("%s ran before its tool.started was durable", name)
		}
	}
}
