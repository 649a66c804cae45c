package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/agent/llmagent"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/model/modeltest"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

// scriptedCall is a tool call a scripted model asks for.
type scriptedCall struct{ id, name, args string }

// scripted returns a fake model's replies: the n-th request gets turns[n-1],
// tool calls when it has some, else the text "done".
func scripted(turns ...[]scriptedCall) modeltest.Reply {
	return func(n int, _ string, _ []byte) (int, string) {
		if n > len(turns) || len(turns[n-1]) == 0 {
			return http.StatusOK, modeltest.Completion(n, "done")
		}
		var calls []string
		for _, c := range turns[n-1] {
			calls = append(calls, fmt.Sprintf(`{"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}`, c.id, c.name, c.args))
		}
		return http.StatusOK, fmt.Sprintf(`{"id":"chatcmpl-%d","object":"chat.completion","created":1700000000,"model":%q,`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[%s]},"finish_reason":"tool_calls"}],`+
			`"usage":{"prompt_tokens":20,"completion_tokens":5,"total_tokens":25}}`, n, modeltest.Model, strings.Join(calls, ","))
	}
}

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

// toolRequest is what the fake saw of one request's tools and tool results.
type toolRequest struct {
	Tools    []string
	Results  map[string]string // tool call id → content
	Messages int
}

func toolRequests(t *testing.T, srv *modeltest.Server) []toolRequest {
	t.Helper()
	var out []toolRequest
	for _, b := range srv.Bodies() {
		var body struct {
			Tools []struct {
				Function struct{ Name string }
			}
			Messages []struct {
				Role       string
				Content    string `json:"content"`
				ToolCallID string `json:"tool_call_id"`
			}
		}
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatal(err)
		}
		q := toolRequest{Results: map[string]string{}, Messages: len(body.Messages)}
		for _, tl := range body.Tools {
			q.Tools = append(q.Tools, tl.Function.Name)
		}
		for _, m := range body.Messages {
			if m.Role == "tool" {
				q.Results[m.ToolCallID] = m.Content
			}
		}
		out = append(out, q)
	}
	return out
}

// The agent tool loop: the model is offered the agent's permitted tools as
// functions; the calls it asks for (two at once, then an unknown tool and a
// tool its role may not use, then bad arguments) go through the gateway and
// are recorded; each result or refusal is fed back; the model's final
// answer is the step's output; a replay calls no model and no tool.
func TestINV_TOOL_003_AgentToolLoop(t *testing.T) {
	ctx := context.Background()
	srv := modeltest.NewServer(scripted(
		[]scriptedCall{{"call_1", "hash_sha256", `{"text":"abc"}`}, {"call_2", "word_count", `{"text":"a b c"}`}},
		[]scriptedCall{{"call_3", "no_such_tool", `{}`}, {"call_4", "secret_read", `{}`}},
		[]scriptedCall{{"call_5", "word_count", `{"words":1}`}},
	))
	defer srv.Close()
	r, err := runner.Open(ctx, runner.Config{Dir: t.TempDir(), Models: fakeModels(t, srv.BaseURL())})
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
	reqs := toolRequests(t, srv)
	if len(reqs) != 4 {
		t.Fatalf("the model was asked %d times, want 4", len(reqs))
	}
	if got := strings.Join(reqs[0].Tools, ","); got != "hash_sha256,word_count" {
		t.Errorf("tools offered: got %s, want hash_sha256,word_count (the agent's permitted tools)", got)
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
		if got := reqs[w.req].Results[w.id]; !strings.Contains(got, w.says) {
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
	if got := strings.Join(statuses, " "); out.Text != "done" || out.Turns != 4 ||
		got != "hash.sha256=ok word.count=ok no_such_tool=TOOL_NOT_FOUND secret_read=POLICY_DENIED word.count=INVALID_INPUT" {
		t.Errorf("output: text %q, %d turns, calls %s", out.Text, out.Turns, got)
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
	before := srv.Requests()
	rep, err := r.Replay(ctx, res.Run)
	if err != nil || string(rep.Outputs["count"]) != string(res.Outputs["count"]) {
		t.Fatalf("replay: %v, %s", err, rep.Outputs["count"])
	}
	if srv.Requests() != before || counts["word.count"].Load() != 1 {
		t.Errorf("the replay called the model (%d) or a tool (%d)", srv.Requests()-before, counts["word.count"].Load()-1)
	}
}

// A model that never stops asking for tools fails the step at the turn
// limit, with AGENT_TURN_LIMIT.
func TestAgentToolLoopTurnLimit(t *testing.T) {
	ctx := context.Background()
	srv := modeltest.NewServer(func(n int, _ string, _ []byte) (int, string) {
		return scripted([]scriptedCall{{fmt.Sprintf("call_%d", n), "word_count", `{"text":"again"}`}})(1, "", nil)
	})
	defer srv.Close()
	r, err := runner.Open(ctx, runner.Config{Dir: t.TempDir(), Models: fakeModels(t, srv.BaseURL()), MaxTurns: 3})
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
	if srv.Requests() != 3 || !strings.Contains(res.Errors[0].Message, "after 3 turns") {
		t.Errorf("requests %d, message %q; want 3 turns", srv.Requests(), res.Errors[0].Message)
	}
}

// A run interrupted in the middle of the loop resumes without asking the
// model again for the turns it answered, nor calling again the tools that
// ran.
func TestAgentToolLoopResume(t *testing.T) {
	ctx := context.Background()
	srv := modeltest.NewServer(scripted(
		[]scriptedCall{{"call_1", "word_count", `{"text":"a b"}`}},
		[]scriptedCall{{"call_2", "hash_sha256", `{"text":"a b"}`}},
	))
	defer srv.Close()
	r, err := runner.Open(ctx, runner.Config{Dir: t.TempDir(), Models: fakeModels(t, srv.BaseURL())})
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
	asked := srv.Requests()
	res, err = r.Resume(ctx, res.Run)
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("resume: %v, %s %+v", err, res.Status, res.Errors)
	}
	if counts["word.count"].Load() != 1 {
		t.Errorf("word.count ran %d times, want once", counts["word.count"].Load())
	}
	if got := srv.Requests() - asked; got != 2 {
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
