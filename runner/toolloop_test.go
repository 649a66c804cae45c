package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/agent/llmagent"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/modeltest"
	modelprovider "github.com/sanadhq/sanad/model/provider"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

// providers are the fake model servers the tool loop is tested against,
// each speaking one provider's API.
var providers = []struct {
	name, model string
	start       func(modeltest.Script) *modeltest.Fake
}{
	{model.ProviderOpenAI, "gpt-4o-mini", modeltest.NewOpenAI},
	{model.ProviderAnthropic, "claude-sonnet-4-5", modeltest.NewAnthropic},
}

// fakeRegistry returns a registry whose reasoning class is the model of a
// fake server of provider.
func fakeRegistry(tb testing.TB, provider, name, baseURL string) *model.Registry {
	tb.Helper()
	reg, err := modelprovider.Open(model.Config{Classes: map[string]model.ClassConfig{
		"reasoning": {Provider: provider, Model: name, BaseURL: baseURL},
	}}, func(string) string { return "" }, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}

// call is a scripted tool call.
func call(id, name, args string) modeltest.ToolCall {
	return modeltest.ToolCall{ID: id, Name: name, Arguments: args}
}

// calls is a scripted turn that asks for tools.
func calls(cs ...modeltest.ToolCall) modeltest.Turn { return modeltest.Turn{ToolCalls: cs} }

// Words is the input of the word.count tool.
type Words struct {
	Text string `json:"text"`
}

// loopPlaybook has one agent on the reasoning model, permitted hash.sha256
// and word.count, and a tool no role may call; counts counts each tool's
// executions.
func loopPlaybook(t *testing.T, counts map[string]*atomic.Int32) *playbook.Playbook {
	t.Helper()
	for _, n := range []string{"word.count", "secret.read"} {
		counts[n] = new(atomic.Int32)
	}
	count := tool.MustDefine(tool.Spec{Name: "word.count", Description: "Counts the words of a text.", Risk: "read", SideEffect: tool.SideEffectNone, Idempotent: true},
		func(_ context.Context, _ tool.Call, in Words) (map[string]int, error) {
			counts["word.count"].Add(1)
			return map[string]int{"words": len(strings.Fields(in.Text))}, nil
		})
	secret := tool.MustDefine(tool.Spec{Name: "secret.read", Description: "Reads a secret.", Risk: "read", SideEffect: tool.SideEffectNone},
		func(_ context.Context, _ tool.Call, _ struct{}) (map[string]string, error) {
			counts["secret.read"].Add(1)
			return map[string]string{"secret": "x"}, nil
		})
	def, err := workflow.Parse("count.yaml", []byte("name: count\nsteps:\n  - {id: count, agent: counter, task: Count and fingerprint the text}\n"))
	if err != nil {
		t.Fatal(err)
	}
	counter := agent.Profile{ID: "counter", Name: "Counter", Description: "Counts words.", Role: "counter", ModelClass: "reasoning",
		PermittedTools: []string{"hash.sha256", "word.count"}, Enabled: true, Version: "1"}
	return &playbook.Playbook{Name: "count", Agents: []agent.Profile{counter}, Tools: []tool.Spec{count, secret}, Workflow: def}
}

// results returns the tool results a request carried back, by call id.
func results(q modeltest.Request) map[string]string {
	out := map[string]string{}
	for _, m := range q.Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Content
		}
	}
	return out
}

// The agent tool loop: the model is offered the agent's permitted tools as
// functions; the calls it asks for (two at once, then an unknown tool and a
// tool its role may not use, then bad arguments) go through the gateway and
// are recorded; each result or refusal is fed back; the model's final
// answer is the step's output; a replay calls no model and no tool.
func TestINV_TOOL_003_AgentToolLoop(t *testing.T) {
	for _, prov := range providers {
		t.Run(prov.name, func(t *testing.T) { testAgentToolLoop(t, prov.name, prov.model, prov.start) })
	}
}

func testAgentToolLoop(t *testing.T, provider, name string, start func(modeltest.Script) *modeltest.Fake) {
	ctx := context.Background()
	srv := start(modeltest.Sequence(
		calls(call("call_1", "hash_sha256", `{"text":"abc"}`), call("call_2", "word_count", `{"text":"a b c"}`)),
		calls(call("call_3", "no_such_tool", `{}`), call("call_4", "secret_read", `{}`)),
		calls(call("call_5", "word_count", `{"words":1}`)),
		modeltest.Turn{Text: "done"},
	))
	defer srv.Close()
	r, err := runner.Open(ctx, runner.Config{Dir: t.TempDir(), Models: fakeRegistry(t, provider, name, srv.BaseURL())})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	counts := map[string]*atomic.Int32{}
	if err := r.Register(loopPlaybook(t, counts)); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(ctx, "count", map[string]string{"text": "a b c"}, runner.Options{})
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("run: %v, %s %+v", err, res.Status, res.Errors)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("the model was asked %d times, want 4", len(reqs))
	}
	var offered []string
	for _, tl := range reqs[0].Tools {
		offered = append(offered, tl.Name)
	}
	if got := strings.Join(offered, ","); got != "hash_sha256,word_count" {
		t.Errorf("tools offered: got %s, want hash_sha256,word_count (the agent's permitted tools)", got)
	}
	if !strings.Contains(reqs[0].System, "You are Counter") || !strings.Contains(reqs[0].Messages[0].Content, `"text": "a b c"`) {
		t.Errorf("first request: system %q, messages %+v; want the agent and its input", reqs[0].System, reqs[0].Messages)
	}
	wantResults := []struct {
		req  int
		id   string
		says string
	}{
		{1, "call_1", `{"sha256":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}`},
		{1, "call_2", `{"words":3}`},
		{2, "call_3", `"code":"TOOL_NOT_FOUND"`},
		{2, "call_3", `"tool":"no_such_tool"`},
		{2, "call_4", `"code":"POLICY_DENIED"`},
		{3, "call_5", `"code":"INVALID_INPUT"`},
	}
	for _, w := range wantResults {
		if got := results(reqs[w.req])[w.id]; !strings.Contains(got, w.says) {
			t.Errorf("request %d, result of %s: got %q, want it to say %s", w.req+1, w.id, got, w.says)
		}
	}
	if counts["word.count"].Load() != 1 || counts["secret.read"].Load() != 0 {
		t.Errorf("tool executions: word.count %d, secret.read %d; want 1 and 0", counts["word.count"].Load(), counts["secret.read"].Load())
	}
	var out llmagent.Output
	if err := json.Unmarshal(res.Outputs["count"], &out); err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, c := range out.ToolCalls {
		statuses = append(statuses, c.Tool+"="+c.Status)
	}
	if got := strings.Join(statuses, " "); out.Text != "done" || out.Turns != 4 || out.Provider != provider ||
		got != "hash.sha256=ok word.count=ok no_such_tool=TOOL_NOT_FOUND secret_read=POLICY_DENIED word.count=INVALID_INPUT" {
		t.Errorf("output: text %q, %d turns, provider %s, calls %s", out.Text, out.Turns, out.Provider, got)
	}
	// The record: every call went through the gateway, refusals included.
	evs, err := r.Home().Ledger.Events(ctx, res.Trace)
	if err != nil {
		t.Fatal(err)
	}
	var refused []string
	for _, e := range evs {
		if e.Type == tool.TypeRefused {
			refused = append(refused, e.BodyString("tool")+":"+e.BodyString("status"))
		}
	}
	if got := strings.Join(refused, " "); got != "no_such_tool:TOOL_NOT_FOUND secret.read:POLICY_DENIED word.count:INVALID_INPUT" {
		t.Errorf("tool.refused events: got %s", got)
	}
	if n := countType(evs, tool.TypeCompleted); n != 2 {
		t.Errorf("tool.completed events: got %d, want 2", n)
	}
	if n := countType(evs, "model.call"); n != 4 {
		t.Errorf("model.call events: got %d, want 4", n)
	}
	if n := countType(evs, workflow.TypeEffectResult); n != 9 {
		t.Errorf("effect.result events: got %d, want 9 (4 model calls, 5 tool calls)", n)
	}
	if _, err := r.Home().Ledger.Verify(ctx, res.Trace); err != nil {
		t.Fatalf("verify: %v", err)
	}
	// A replay calls nothing.
	before := len(srv.Requests())
	rep, err := r.Replay(ctx, res.Run)
	if err != nil || string(rep.Outputs["count"]) != string(res.Outputs["count"]) {
		t.Fatalf("replay: %v, %s", err, rep.Outputs["count"])
	}
	if len(srv.Requests()) != before || counts["word.count"].Load() != 1 {
		t.Errorf("the replay called the model (%d) or a tool (%d)", len(srv.Requests())-before, counts["word.count"].Load()-1)
	}
}

// A model that never stops asking for tools fails the step at the turn
// limit, with AGENT_TURN_LIMIT.
func TestAgentToolLoopTurnLimit(t *testing.T) {
	ctx := context.Background()
	srv := modeltest.NewOpenAI(func(n int, _ modeltest.Request) modeltest.Turn {
		return calls(call(fmt.Sprintf("call_%d", n), "word_count", `{"text":"again"}`))
	})
	defer srv.Close()
	r, err := runner.Open(ctx, runner.Config{Dir: t.TempDir(), Models: fakeRegistry(t, model.ProviderOpenAI, "gpt-4o-mini", srv.BaseURL()), MaxTurns: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Register(loopPlaybook(t, map[string]*atomic.Int32{})); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(ctx, "count", map[string]string{"text": "x"}, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != sanad.StatusFailed || len(res.Errors) != 1 || res.Errors[0].Code != sanad.CodeTurnLimit {
		t.Fatalf("got %s %+v, want failed with AGENT_TURN_LIMIT", res.Status, res.Errors)
	}
	if len(srv.Requests()) != 3 || !strings.Contains(res.Errors[0].Message, "after 3 turns") {
		t.Errorf("requests %d, message %q; want 3 turns", len(srv.Requests()), res.Errors[0].Message)
	}
}

// A run interrupted in the middle of the loop resumes without asking the
// model again for the turns it answered, nor calling again the tools that
// ran.
func TestAgentToolLoopResume(t *testing.T) {
	ctx := context.Background()
	srv := modeltest.NewAnthropic(modeltest.Sequence(
		calls(call("call_1", "word_count", `{"text":"a b"}`)),
		calls(call("call_2", "hash_sha256", `{"text":"a b"}`)),
		modeltest.Turn{Text: "done"},
	))
	defer srv.Close()
	r, err := runner.Open(ctx, runner.Config{Dir: t.TempDir(), Models: fakeRegistry(t, model.ProviderAnthropic, "claude-sonnet-4-5", srv.BaseURL())})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	counts := map[string]*atomic.Int32{}
	pb := loopPlaybook(t, counts)
	// The first word count stops the run, as a crash or an interrupt would,
	// once its result is recorded.
	runCtx, stop := context.WithCancel(ctx)
	inner := pb.Tools[0].Func
	pb.Tools[0].Func = func(ctx context.Context, c tool.Call) (json.RawMessage, error) {
		out, err := inner(ctx, c)
		stop()
		return out, err
	}
	if err := r.Register(pb); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(runCtx, "count", map[string]string{"text": "a b"}, runner.Options{})
	if err != nil || res.Status != sanad.StatusRunning {
		t.Fatalf("interrupted run: %v, %s %+v", err, res.Status, res.Errors)
	}
	asked := len(srv.Requests())
	res, err = r.Resume(ctx, res.Run)
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("resume: %v, %s %+v", err, res.Status, res.Errors)
	}
	if counts["word.count"].Load() != 1 {
		t.Errorf("word.count ran %d times, want once", counts["word.count"].Load())
	}
	if got := len(srv.Requests()) - asked; got != 2 {
		t.Errorf("the resume asked the model %d times, want 2 (turns 2 and 3; turn 1 is read from the record)", got)
	}
}

func countType(evs []*ledger.Event, typ string) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// A tool a person must approve, asked for by a model: the run waits on a
// gate; once it is approved, the resume reads the model's recorded turn,
// makes the call, and goes on.
func TestAgentToolLoopWaitsForApproval(t *testing.T) {
	ctx := context.Background()
	srv := modeltest.NewOpenAI(modeltest.Sequence(
		calls(call("call_1", "pay", `{"to":"acme","amount":10}`)),
		modeltest.Turn{Text: "paid"},
	))
	defer srv.Close()
	r, err := runner.Open(ctx, runner.Config{Dir: t.TempDir(), Models: fakeRegistry(t, model.ProviderOpenAI, "gpt-4o-mini", srv.BaseURL())})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	paid := 0
	pb := payPlaybook(t, &paid)
	pb.Agents[0].ModelClass = "reasoning"
	pb.Workflow, err = workflow.Parse("pay.yaml", []byte("name: pay\nsteps:\n  - {id: send, agent: clerk, task: Pay the invoice}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Register(pb); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(ctx, "pay", nil, runner.Options{})
	if err != nil || res.Status != sanad.StatusRunning || len(res.Gates) != 1 || paid != 0 {
		t.Fatalf("run: %v, %s, gates %v, paid %d; want it waiting on a gate", err, res.Status, res.Gates, paid)
	}
	out, err := r.ResolveGate(ctx, res.Gates[0], runs.Principal{Agent: "ann", Role: "operator"}, true, "", true)
	if err != nil || out.Resumed == nil || out.Resumed.Status != sanad.StatusCompleted || paid != 1 {
		t.Fatalf("approve: %v, %+v, paid %d", err, out.Resumed, paid)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("the model was asked %d times, want 2 (its first turn is read from the record on resume)", n)
	}
}
