package workflow_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/modeltest"
	"github.com/sanadhq/sanad/model/provider"
	"github.com/sanadhq/sanad/workflow"
)

const modelYAML = `name: ask
agent: worker
steps:
  - {id: first, tool: count, with: {n: 1}}
  - {id: ask, uses: ask}
  - {id: last, tool: count, with: {n: 2}}
`

// withModel registers the action "ask" on e: it asks the model of class
// "fast", served by srv, two questions, the second quoting the first reply.
func withModel(tb testing.TB, e *env, srv *modeltest.Server) {
	tb.Helper()
	cfg := model.Config{
		Classes: map[string]model.ClassConfig{model.ClassFast: {Provider: model.ProviderOpenAI, Model: modeltest.Model, BaseURL: srv.BaseURL()}},
		Retry:   model.Retry{MaxRetries: -1},
	}
	reg, err := provider.Open(cfg, nil, srv.Client())
	if err != nil {
		tb.Fatalf("provider.Open: got error %v, want nil", err)
	}
	e.actions.Register("ask", func(ctx context.Context, s *workflow.StepContext) (json.RawMessage, error) {
		// The home changes when the env reopens: the recorder is made at
		// each run of the action.
		rec := &model.Recorder{Runs: e.home.Runs, Artifacts: e.home.Artifacts, Registry: reg}
		a, err := s.Generate(ctx, rec, model.ClassFast, model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "Name a risk."}}})
		if err != nil {
			return nil, err
		}
		b, err := s.Generate(ctx, rec, model.ClassFast, model.Request{Messages: []model.Message{
			{Role: model.RoleUser, Content: "Name a risk."}, a.Message(), {Role: model.RoleUser, Content: "And another."},
		}})
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]string{"a": a.Text, "a_id": a.ID, "b": b.Text, "b_id": b.ID, "model": b.Model})
	})
}

// newModelServer answers the n-th request with "reply n".
func newModelServer(tb testing.TB) *modeltest.Server {
	srv := modeltest.NewServer(func(n int, _ string, _ []byte) (int, string) {
		return 200, modeltest.Completion(n, "reply "+strconv.Itoa(n))
	})
	tb.Cleanup(srv.Close)
	return srv
}

// modelCalls returns the model_call runs of the trace, by status.
func modelCalls(tb testing.TB, e *env, trace string) map[sanad.RunStatus]int {
	tb.Helper()
	evs, err := e.home.Ledger.Events(context.Background(), trace)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[sanad.RunStatus]int{}
	for _, ev := range evs {
		if ev.Type != model.TypeCall {
			continue
		}
		r, err := e.home.DB.Run(context.Background(), ev.Run)
		if err != nil {
			tb.Fatal(err)
		}
		out[r.Status]++
	}
	return out
}

// A step's model calls go through the effect journal: a replay, and a
// resume after a crash, reuse the recorded replies and make no request
// beyond those that had not been answered.
func TestModelCallsAreRecordedEffects(t *testing.T) {
	e := openEnv(t)
	srv := newModelServer(t)
	withModel(t, e, srv)
	res, err := e.engine.Start(t.Context(), parse(t, modelYAML), nil, opts)
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("Start: got %v %+v, %v; want completed", res.Status, res.Errors, err)
	}
	if n := srv.Requests(); n != 2 {
		t.Fatalf("requests: got %d, want 2", n)
	}
	const want = `{"a":"reply 1","a_id":"chatcmpl-test-1","b":"reply 2","b_id":"chatcmpl-test-2","model":"gpt-test"}`
	if got := string(res.Outputs["ask"]); got != want {
		t.Errorf("output: got %s, want %s", got, want)
	}
	if got := modelCalls(t, e, res.Trace); got[sanad.StatusCompleted] != 2 || len(got) != 1 {
		t.Errorf("model_call runs: got %v, want 2 completed", got)
	}

	e.reopen(t)
	rep, err := e.engine.Replay(t.Context(), res.Run)
	if err != nil || rep.Status != sanad.StatusCompleted {
		t.Fatalf("Replay: got %v, %v; want completed", rep.Status, err)
	}
	if n := srv.Requests(); n != 2 {
		t.Errorf("requests after replay: got %d, want 2 (none made by the replay)", n)
	}
	if got := string(rep.Outputs["ask"]); got != want {
		t.Errorf("replayed output: got %s, want %s", got, want)
	}
	if _, err := e.home.Ledger.Verify(t.Context(), res.Trace); err != nil {
		t.Errorf("Verify: got error %v, want nil", err)
	}
}

func TestModelCallsResumeAfterCrash(t *testing.T) {
	cases := []struct {
		name  string
		point string
		hit   int
		// requests the resume makes
		resumed int
	}{
		// Effects are numbered from the first tool call: 1 first's count,
		// 2 and 3 the model calls, 4 last's count.
		{"before the first call", workflow.PointAfterIntent, 2, 2},
		{"after the first reply is recorded", workflow.PointAfterResult, 2, 1},
		{"after both replies", workflow.PointAfterResult, 3, 0},
		{"after the step", workflow.PointAfterCheckpoint, 2, 0},
		// The second reply came but was not recorded: the call is
		// idempotent, so it is made again.
		{"between the second call and its record", workflow.PointAfterEffect, 3, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := openEnv(t)
			srv := newModelServer(t)
			withModel(t, e, srv)
			e.crashAt(c.point, c.hit)
			id := e.startCrashing(t, parse(t, modelYAML))
			before := srv.Requests()
			e.reopen(t)
			res, err := e.engine.Resume(t.Context(), id)
			if err != nil || res.Status != sanad.StatusCompleted {
				t.Fatalf("Resume: got %v %+v, %v; want completed", res.Status, res.Errors, err)
			}
			if got := srv.Requests() - before; got != c.resumed {
				t.Errorf("requests on resume: got %d, want %d", got, c.resumed)
			}
			var out map[string]string
			if err := json.Unmarshal(res.Outputs["ask"], &out); err != nil || out["a"] == "" || out["b"] == "" {
				t.Errorf("output: got %s, %v; want both replies", res.Outputs["ask"], err)
			}
			total := srv.Requests()
			e.reopen(t)
			rep, err := e.engine.Replay(t.Context(), id)
			if err != nil || rep.Status != sanad.StatusCompleted || string(rep.Outputs["ask"]) != string(res.Outputs["ask"]) {
				t.Errorf("Replay: got %v %s, %v; want completed with %s", rep.Status, rep.Outputs["ask"], err, res.Outputs["ask"])
			}
			if srv.Requests() != total {
				t.Errorf("requests on replay: got %d, want 0", srv.Requests()-total)
			}
			if _, err := e.home.Ledger.Verify(t.Context(), res.Trace); err != nil {
				t.Errorf("Verify: got error %v, want nil", err)
			}
		})
	}
}
