package runner_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/workflow"
)

// A running run is shown live while a caller executes it, interrupted once
// that caller stops; a second caller cannot execute it at the same time; a
// resume finishes it.
func TestRunLiveThenInterrupted(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r, err := runner.Open(ctx, runner.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	entered := make(chan string, 1) // the run id, once the step runs
	block := true
	def, err := workflow.Parse("slow.yaml", []byte("name: slow\nsteps:\n  - {id: wait, agent: waiter, task: Wait}\n"))
	if err != nil {
		t.Fatal(err)
	}
	waiter := agent.Profile{ID: "waiter", Name: "Waiter", Description: "Waits until told.", Role: "waiter", Enabled: true, Version: "1"}
	err = r.Register(&playbook.Playbook{Name: "slow", Agents: []agent.Profile{waiter}, Workflow: def,
		Nodes: map[string]playbook.NodeFunc{"waiter": func(p agent.Profile) agent.Node {
			return agent.Func(p, func(ctx context.Context, in agent.Input) (agent.Output, error) {
				if block {
					entered <- ""
					<-ctx.Done()
					return agent.Output{}, ctx.Err()
				}
				return agent.Output{Content: json.RawMessage(`{"waited":true}`), Summary: "waited"}, nil
			})
		}}})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan runner.Result, 1)
	go func() {
		res, _ := r.Run(runCtx, "slow", nil, runner.Options{})
		done <- res
	}()
	<-entered
	runs, err := r.Home().DB.RecentRuns(ctx, 1)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	id := runs[0].ID
	v, err := r.Show(ctx, id)
	if err != nil || v.State != runner.StateLive {
		t.Fatalf("while it runs: state %q (%v), want live", v.State, err)
	}
	if _, err := r.Resume(ctx, id); sanad.ErrorCode(err) != sanad.CodeConflict {
		t.Fatalf("resuming a live run: got %v, want CONFLICT", err)
	}
	stop()
	res := <-done
	if res.Status != sanad.StatusRunning {
		t.Fatalf("stopped run: status %s, want running", res.Status)
	}
	if v, err = r.Show(ctx, id); err != nil || v.State != runner.StateInterrupted {
		t.Fatalf("after it stopped: state %q (%v), want interrupted", v.State, err)
	}
	block = false
	res, err = r.Resume(ctx, id)
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("resume: %s, %v", res.Status, err)
	}
	if v, err = r.Show(ctx, id); err != nil || v.State != "" {
		t.Fatalf("after it ended: state %q (%v), want none", v.State, err)
	}
}
