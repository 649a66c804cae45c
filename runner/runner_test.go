package runner_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/examples"
	"github.com/sanadhq/sanad/runner"
)

// open returns a runner over a new home in a temporary folder, with the
// built-in playbooks registered.
func open(tb testing.TB, cfg runner.Config) *runner.Runner {
	tb.Helper()
	if cfg.Dir == "" && cfg.Home == nil {
		cfg.Dir = tb.TempDir()
	}
	r, err := runner.Open(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close() })
	pbs, err := examples.Playbooks()
	if err != nil {
		tb.Fatal(err)
	}
	for _, p := range pbs {
		if err := r.Register(p); err != nil {
			tb.Fatal(err)
		}
	}
	return r
}

func TestRunBuiltinPlaybooksOffline(t *testing.T) {
	ctx := context.Background()
	r := open(t, runner.Config{})
	for _, name := range []string{"due-diligence", "kyc-screening", "red-flags"} {
		t.Run(name, func(t *testing.T) {
			res, err := r.Run(ctx, name, nil, runner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != sanad.StatusCompleted && name != "red-flags" {
				t.Fatalf("status %s: %v", res.Status, res.Err())
			}
			if res.Mode != runner.ModeDeterministic {
				t.Fatalf("mode %s, want deterministic", res.Mode)
			}
			rep, err := r.Replay(ctx, res.Run)
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			for step, out := range res.Outputs {
				if string(rep.Outputs[step]) != string(out) {
					t.Errorf("step %s: replay gave another output", step)
				}
			}
			v, err := r.Show(ctx, res.Run)
			if err != nil {
				t.Fatal(err)
			}
			if v.Playbook != name || len(v.Steps) == 0 {
				t.Fatalf("show: playbook %q, %d steps", v.Playbook, len(v.Steps))
			}
		})
	}
}

// The workflow's input reaches the agents: the researcher's rendered
// prompt names the target, and its offline analysis finds it.
func TestInputReachesOfflineAgents(t *testing.T) {
	ctx := context.Background()
	r := open(t, runner.Config{})
	res, err := r.Run(ctx, "due-diligence", map[string]any{"target": "Acme Widgets PLC"}, runner.Options{})
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("run: %v %v", err, res.Err())
	}
	var out struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(res.Outputs["research"], &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "Acme Widgets PLC") {
		t.Fatalf("the research step's output does not mention the target:\n%s", out.Text)
	}
	t.Log(out.Text)
	var audit struct {
		Text   string `json:"text"`
		Inputs []struct {
			Step string `json:"step"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal(res.Outputs["audit-sample"], &audit); err != nil {
		t.Fatal(err)
	}
	t.Log(string(res.Outputs["audit-sample"]))
	if len(audit.Inputs) == 0 {
		t.Fatalf("the delegated auditor received nothing: %s", res.Outputs["audit-sample"])
	}
}
