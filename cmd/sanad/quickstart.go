package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/runs"
)

func (a *app) quickstartCommand() *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "quickstart",
		Short: "Record a small governed trace, export it and verify the bundle (offline)",
		Long: `Quickstart works on an empty home with no network and no model. It records a demo trace
in which two agents (an analyst and a reviewer) run as child runs of a workflow, each with
its authorization decision, signed events and artifacts; exports the trace as a bundle; and
verifies the bundle offline against the home's log key.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			h, err := a.open(ctx)
			if err != nil {
				return err
			}
			defer h.Close()
			trace, nruns, err := recordDemo(ctx, h)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Join(h.Dir, "exports"), 0o755); err != nil {
				return err
			}
			out := filepath.Join(h.Dir, "exports", trace+".tar.gz")
			res, err := exportTrace(cmd, h, sanad.Scope{Tenant: "demo", Case: "deal-001"}, trace, out)
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
			rep, err := bundle.Verify(f, bundle.Options{Types: h.Types, LogKey: logKey})
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{
					"trace": trace, "bundle": out, "verified": true, "mode": "deterministic (no model configured)",
					"runs": nruns, "events": rep.Events, "artifacts": rep.Artifacts, "tree_size": rep.TreeSize,
					"root_hash": base64.StdEncoding.EncodeToString(rep.RootHash), "log_key": logKey,
					"bundle_sha256": res.SHA256.String(),
				})
			}
			fmt.Fprintf(a.stdout, "Recorded trace %s: %d runs, %d signed events, %d artifacts (deterministic mode: no model configured).\n", trace, nruns, rep.Events, rep.Artifacts)
			fmt.Fprintf(a.stdout, "Exported it to %s\n", out)
			fmt.Fprintf(a.stdout, "Verified the bundle offline: every hash, signature and chain link, and each event's inclusion in checkpoint %s (size %d).\n", rep.Checkpoint, rep.TreeSize)
			fmt.Fprintf(a.stdout, "\nTry:\n  sanad --home %s ledger show %s\n  sanad verify %s --log-key '%s'\n", h.Dir, trace, out, logKey)
			return nil
		},
	})
}

// recordDemo records a workflow with two agent runs: an analyst who reads a
// memo and writes a finding, and a reviewer who checks the finding.
func recordDemo(ctx context.Context, h *home.Home) (trace string, nruns int, err error) {
	scope := sanad.Scope{Tenant: "demo", Case: "deal-001"}
	allow := func(reason string) runs.Decision {
		return runs.Decision{Allow: true, Reason: reason, Rule: "quickstart"}
	}
	wf, err := h.Runs.Start(ctx, runs.Spec{
		Kind: sanad.KindWorkflow, Scope: scope, Agent: "demo-orchestrator", Role: "orchestrator",
		Request:  map[string]any{"task": "review the target's revenue claim"},
		Decision: allow("the orchestrator may run workflows in its own case"),
	})
	if err != nil {
		return "", 0, err
	}
	memo, err := h.Artifacts.Put(ctx, scope, wf.Record.ID, "text/plain; charset=utf-8",
		[]byte("Board memo, 2026-10-02: FY2025 revenue was 41.2m USD, up 18% on FY2024 (34.9m USD), per audited accounts p.12.\n"))
	if err != nil {
		return "", 0, err
	}
	analyst, err := h.Runs.Start(ctx, runs.Spec{
		Kind: sanad.KindAgent, Parent: wf, Scope: scope, Agent: "demo-analyst", Role: "advocate",
		Inputs: []sanad.ArtifactRef{memo}, Request: map[string]any{"question": "what revenue growth does the memo claim?"},
		Decision: allow("the analyst may read artifacts of its case"),
	})
	if err != nil {
		return "", 0, err
	}
	finding, err := h.Artifacts.Put(ctx, scope, analyst.Record.ID, "application/json",
		[]byte(`{"claim":"FY2025 revenue grew 18% to 41.2m USD","check":"41.2/34.9-1 = 18.05%","source":"memo p.12"}`+"\n"))
	if err != nil {
		return "", 0, err
	}
	if err := analyst.Complete(ctx, []sanad.ArtifactRef{finding}, map[string]any{"finding": finding.ID}); err != nil {
		return "", 0, err
	}
	reviewer, err := h.Runs.Start(ctx, runs.Spec{
		Kind: sanad.KindAgent, Parent: wf, Scope: scope, Agent: "demo-reviewer", Role: "sanad_breaker",
		Inputs: []sanad.ArtifactRef{memo, finding}, Request: map[string]any{"review": finding.ID},
		Decision: allow("the reviewer may read artifacts of its case"),
	})
	if err != nil {
		return "", 0, err
	}
	review, err := h.Artifacts.Put(ctx, scope, reviewer.Record.ID, "application/json",
		[]byte(`{"verdict":"supported","note":"growth recomputed from the two cited figures; single source (grade B)"}`+"\n"))
	if err != nil {
		return "", 0, err
	}
	if err := reviewer.Complete(ctx, []sanad.ArtifactRef{review}, map[string]any{"verdict": "supported"}); err != nil {
		return "", 0, err
	}
	if err := wf.Complete(ctx, []sanad.ArtifactRef{finding, review}, map[string]any{"status": "reviewed"}); err != nil {
		return "", 0, err
	}
	return wf.Record.Trace, 3, nil
}
