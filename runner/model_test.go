package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/examples"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/modeltest"
	"github.com/sanadhq/sanad/model/provider"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/workflow"
)

// fakeModels returns a registry whose reasoning and fast classes are the
// fake OpenAI-compatible server srv.
func fakeModels(tb testing.TB, baseURL string) *model.Registry {
	tb.Helper()
	cfg := model.Config{Classes: map[string]model.ClassConfig{
		"reasoning": {Provider: model.ProviderOpenAI, Model: modeltest.Model, BaseURL: baseURL},
		"fast":      {Provider: model.ProviderOpenAI, Model: modeltest.Model, BaseURL: baseURL},
	}}
	reg, err := provider.Open(cfg, func(string) string { return "" }, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}

// chatRequest is what the fake saw of one request.
type chatRequest struct {
	System, User string
}

func chatRequests(tb testing.TB, srv *modeltest.Server) []chatRequest {
	tb.Helper()
	var out []chatRequest
	for _, b := range srv.Bodies() {
		var body struct {
			Messages []struct{ Role, Content string }
		}
		if err := json.Unmarshal(b, &body); err != nil {
			tb.Fatal(err)
		}
		var r chatRequest
		for _, m := range body.Messages {
			switch m.Role {
			case "system":
				r.System = m.Content
			case "user":
				r.User = m.Content
			}
		}
		out = append(out, r)
	}
	return out
}

// TestExamplePlaybooksDeliverInputsToModels runs each built-in workflow
// playbook with every agent on a fake model: each agent's prompt carries
// the run's input, each step's carries what the steps it depends on
// produced (the model's earlier answers), a delegated agent's carries what
// was handed over, and a replay asks no model.
func TestExamplePlaybooksDeliverInputsToModels(t *testing.T) {
	pbs, err := examples.Playbooks()
	if err != nil {
		t.Fatal(err)
	}
	for _, pb := range pbs {
		if pb.Workflow == nil {
			continue
		}
		t.Run(pb.Name, func(t *testing.T) {
			ctx := context.Background()
			srv := modeltest.NewServer(func(n int, _ string, _ []byte) (int, string) {
				return http.StatusOK, modeltest.Completion(n, fmt.Sprintf("answer-%d", n))
			})
			defer srv.Close()
			r, err := runner.Open(ctx, runner.Config{Dir: t.TempDir(), Models: fakeModels(t, srv.BaseURL())})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if err := r.Register(pb); err != nil {
				t.Fatal(err)
			}
			input := map[string]any{}
			if len(pb.Workflow.Input) > 0 {
				if err := json.Unmarshal(pb.Workflow.Input, &input); err != nil {
					t.Fatal(err)
				}
			}
			input["marker"] = "INPUT-MARKER-7"
			res, err := r.Run(ctx, pb.Name, input, runner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Mode != runner.ModeModel {
				t.Errorf("mode %s, want model", res.Mode)
			}
			reqs := chatRequests(t, srv)
			if len(reqs) == 0 {
				t.Fatal("no model was asked")
			}
			answerOf := map[string]string{} // task → the answer its request got
			for i, q := range reqs {
				if !strings.Contains(q.User, "INPUT-MARKER-7") {
					t.Errorf("request %d does not carry the run's input:\n%s", i+1, q.User)
				}
				if !strings.Contains(q.System, "You are ") {
					t.Errorf("request %d: system prompt %q does not introduce the agent", i+1, q.System)
				}
				task, _, _ := strings.Cut(q.User, "\n")
				answerOf[task] = fmt.Sprintf("answer-%d", i+1)
			}
			for _, s := range pb.Workflow.Steps {
				if s.Uses != "agent" {
					continue
				}
				var q *chatRequest
				for i := range reqs {
					if strings.HasPrefix(reqs[i].User, s.Task) {
						q = &reqs[i]
					}
				}
				if q == nil {
					t.Errorf("step %s: no request carries its task %q", s.ID, s.Task)
					continue
				}
				for _, dep := range s.DependsOn {
					want := "What the step " + dep + " produced:"
					if d := pb.Workflow.Steps[stepIndex(pb.Workflow.Steps, dep)]; d.Uses == "agent" {
						want += "\n" + answerOf[d.Task]
					}
					if !strings.Contains(q.User, want) {
						t.Errorf("step %s: its prompt does not carry the output of %s (%q):\n%s", s.ID, dep, want, q.User)
					}
				}
			}
			for _, s := range pb.Workflow.Steps {
				if s.Uses != "delegate" {
					continue
				}
				var with struct{ Task string }
				json.Unmarshal(s.With, &with)
				found := false
				for _, q := range reqs {
					if strings.HasPrefix(q.User, with.Task) {
						found = true
						for _, dep := range s.DependsOn {
							if !strings.Contains(q.User, `"`+dep+`"`) {
								t.Errorf("delegated task of %s: its prompt does not carry %s's output:\n%s", s.ID, dep, q.User)
							}
						}
					}
				}
				if !found {
					t.Errorf("step %s: the delegated agent was never asked", s.ID)
				}
			}
			n := srv.Requests()
			rep, err := r.Replay(ctx, res.Run)
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			if srv.Requests() != n {
				t.Errorf("the replay asked the model %d more time(s)", srv.Requests()-n)
			}
			for step, out := range res.Outputs {
				if string(rep.Outputs[step]) != string(out) {
					t.Errorf("step %s: the replay gave another output", step)
				}
			}
			if res.Status != sanad.StatusCompleted && pb.Name != "red-flags" {
				t.Errorf("status %s: %v", res.Status, res.Err())
			}
		})
	}
}

func stepIndex(steps []workflow.Step, id string) int {
	for i, s := range steps {
		if s.ID == id {
			return i
		}
	}
	return -1
}
