package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/examples"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/runner"
)

func (a *app) quickstartCommand() *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "quickstart",
		Short: "Run the due-diligence playbook, replay it, export its trace and verify the bundle (offline)",
		Long: `Quickstart works on an empty home with no network and no model. It runs the built-in
due-diligence playbook: six steps by five agents, two at a time, one delegation, one tool call
through the governed gateway, each step a signed event committing to its checkpoint. Then it replays
the run from its record (the same outputs, no tool or model called), exports the trace as a
bundle, and verifies the bundle offline against the home's log key.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return a.withHome(ctx, func(h *home.Home) error {
				scope := sanad.Scope{Tenant: "demo", Case: "deal-001"}
				run, err := a.runDemo(ctx, h, scope)
				if err != nil {
					return err
				}
				children, err := h.DB.Runs(ctx, run.Trace)
				if err != nil {
					return err
				}
				if err := os.MkdirAll(filepath.Join(h.Dir, "exports"), 0o755); err != nil {
					return err
				}
				out := filepath.Join(h.Dir, "exports", run.Trace+".tar.gz")
				res, err := exportTrace(cmd, h, scope, run.Trace, out)
				if err != nil {
					return err
				}
				logKey, err := h.Ledger.VerifierKey()
				if err != nil {
					return err
				}
				f, err := os.Open(out)
				if err != nil {
					return err
				}
				defer f.Close()
				rep, err := bundle.Verify(f, bundle.Options{Types: h.Types, LogKeys: bundle.PinLogKey(logKey)})
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(map[string]any{
						"run": run.Run, "trace": run.Trace, "status": run.Status, "steps": len(run.Outputs), "replayed": true,
						"bundle": out, "verified": true, "mode": run.Mode,
						"runs": len(children), "events": rep.Events, "artifacts": rep.Artifacts, "tree_size": rep.TreeSize,
						"root_hash": base64.StdEncoding.EncodeToString(rep.RootHash), "log_key": logKey,
						"bundle_sha256": res.SHA256.String(),
					})
				}
				fmt.Fprintf(a.stdout, "Ran the due-diligence playbook as run %s: %d steps %s, %d runs, %d signed events, %d artifacts (deterministic mode: no model configured).\n",
					run.Run, len(run.Outputs), run.Status, len(children), rep.Events, rep.Artifacts)
				for _, f := range conflicts(run.Outputs["analysis"]) {
					fmt.Fprintf(a.stdout, "The analyst found: %s.\n", f)
				}
				fmt.Fprintf(a.stdout, "Replayed it from its record: the same outputs, and no tool or model called.\n")
				fmt.Fprintf(a.stdout, "Exported the trace to %s\n", out)
				fmt.Fprintf(a.stdout, "Verified the bundle offline: every hash, signature and chain link, and each event's inclusion in checkpoint %s (size %d).\n", rep.Checkpoint, rep.TreeSize)
				fmt.Fprintf(a.stdout, "\nTry:\n  sanad --home %s runs show %s\n  sanad --home %s ledger show %s\n  sanad verify %s --log-key '%s'\n", h.Dir, run.Run, h.Dir, run.Trace, out, logKey)
				return nil
			})
		},
	})
}

// runDemo runs the built-in due-diligence playbook in scope with no model,
// then replays it and checks the replay gives the same outputs.
func (a *app) runDemo(ctx context.Context, h *home.Home, scope sanad.Scope) (runner.Result, error) {
	r, err := runner.Open(ctx, runner.Config{Home: h})
	if err != nil {
		return runner.Result{}, err
	}
	defer r.Close()
	pbs, err := examples.Playbooks()
	if err == nil {
		err = a.registerAll(r, runnerOptions{NoModels: true}, pbs, []string{"due-diligence"})
	}
	if err != nil {
		return runner.Result{}, err
	}
	res, err := r.Run(ctx, "due-diligence", nil, runner.Options{Scope: scope, Caller: "cli", Reason: "quickstart"})
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		return res, err
	}
	rep, err := r.Replay(ctx, res.Run)
	if err != nil {
		return res, err
	}
	for step, out := range res.Outputs {
		if string(rep.Outputs[step]) != string(out) {
			return res, sanad.Errorf(sanad.CodeIntegrity, "quickstart", "the replay of step %s gave another output", step)
		}
	}
	return res, nil
}

// conflicts returns what an agent's output reports as sources that
// disagree.
func conflicts(out json.RawMessage) []string {
	var o struct {
		Findings []struct{ Kind, Statement string }
	}
	if json.Unmarshal(out, &o) != nil {
		return nil
	}
	var found []string
	for _, f := range o.Findings {
		if f.Kind == "conflict" {
			found = append(found, f.Statement)
		}
	}
	return found
}
