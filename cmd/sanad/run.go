package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/workflow"
)

func (a *app) runCommand() *cobra.Command {
	var opt runnerOptions
	var input, tenant, caseID string
	c := a.jsonFlag(&cobra.Command{
		Use:   "run FILE_OR_PLAYBOOK",
		Short: "Run a workflow file, a playbook folder, or a built-in playbook by name",
		Long: `Run records a workflow run in the home and runs it to its end: every step ends with a
signed event committing to the checkpoint after it, and every tool call goes through the tool
gateway under policy. The argument is a workflow file (YAML or JSON), a playbook folder
(workflow.yaml, agents/, optional policy/), or else the name of a playbook built into the
binary: ` + strings.Join(builtinNames(), ", ") + `.

Every agent receives its task rendered with the run's --input and the outputs of the steps it
depends on. An agent whose model_class is configured asks that model, offering it the tools
its profile permits: each model and tool call is recorded once (a resume or a replay reads
the recorded answer). Agents with no configured model run offline (deterministic mode) and
analyse their evidence by rules. A tool that policy says a person must approve opens a gate:
the run waits, and sanad gates approve resumes it.

Models come from the models: section of sanad.yaml in the home folder (or --model-config
FILE), overridden by SANAD_MODEL_<CLASS>=provider:model[@base_url]; see sanad models --help.

Exit 0 when the run completed; 1 when it failed, was denied or cancelled, or waits on a gate;
2 for a workflow or input that is not valid.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var in json.RawMessage
			if input != "" {
				var obj map[string]json.RawMessage
				if err := json.Unmarshal([]byte(input), &obj); err != nil || obj == nil {
					return usagef("--input must be a JSON object, such as '{\"target\": \"Acme\"}'")
				}
				in = json.RawMessage(input)
			}
			var pb *playbook.Playbook
			name := strings.TrimSuffix(args[0], ".yaml")
			switch p, err := filePlaybook(args[0], opt); {
			case err == nil:
				pb, name = p, p.Name
			case !isNotExist(err):
				return err
			case !contains(builtinNames(), name):
				return usagef("%s: no such workflow file or playbook folder, and no built-in playbook of that name (built in: %s)", args[0], strings.Join(builtinNames(), ", "))
			}
			var want []string
			if pb == nil {
				want = append(want, name)
			}
			r, err := a.openRunner(ctx, opt, want...)
			if err != nil {
				return err
			}
			defer r.Close()
			if pb != nil {
				if err := r.Register(pb); err != nil {
					return usageError{err}
				}
			}
			res, err := r.Run(ctx, name, in, runner.Options{Scope: sanad.Scope{Tenant: tenant, Case: caseID}, Caller: "cli",
				Reason: "playbook " + name + " started from the command line"})
			return a.reportRun(res, err)
		},
	})
	f := c.Flags()
	f.StringVar(&input, "input", "", "the workflow's input, a JSON object (default: the file's input)")
	f.StringVar(&tenant, "tenant", "default", "tenant the run acts for")
	f.StringVar(&caseID, "case", "default", "case the run acts on")
	runnerFlags(c, &opt)
	return c
}

// runReport is what run and runs resume print with --json.
type runReport struct {
	Run      string               `json:"run"`
	Trace    string               `json:"trace"`
	Status   sanad.RunStatus      `json:"status"`
	Mode     string               `json:"mode"` // deterministic when no agent has a model, else model
	Playbook string               `json:"playbook,omitempty"`
	Errors   []workflow.StepError `json:"errors,omitempty"`
	Gates    []string             `json:"gates,omitempty"`
}

// reportRun prints where a run stands and the mode its agents ran in, and
// returns nil if it completed, else a failure that says why: err when the
// runner gave one (a denied run), else the run's own. When no run was
// recorded, it returns err as it is and prints nothing.
func (a *app) reportRun(res runner.Result, err error) error {
	if err != nil && res.Run == "" {
		if sanad.ErrorCode(err) == sanad.CodeInvalidInput {
			return usageError{err}
		}
		return err
	}
	if a.jsonOut {
		if perr := a.printJSON(runReport{Run: res.Run, Trace: res.Trace, Status: res.Status, Mode: res.Mode, Playbook: res.Playbook, Errors: res.Errors, Gates: res.Gates}); perr != nil {
			return perr
		}
	} else {
		fmt.Fprintf(a.stdout, "run %s %s in %s mode (trace %s, %d step(s) run)\n", res.Run, res.Status, res.Mode, res.Trace, res.Executed)
		for _, e := range res.Errors {
			step := e.Step
			if step == "" {
				step = "run"
			}
			fmt.Fprintf(a.stdout, "  %s: %s: %s\n", step, e.Code, e.Message)
		}
		for _, g := range res.Gates {
			fmt.Fprintf(a.stdout, "  waits on gate %s\n", g)
		}
		fmt.Fprintf(a.stdout, "Show its steps with: sanad runs show %s\n", res.Run)
	}
	return runOutcome(res, err)
}

// runOutcome returns nil for a run that completed, else the failure that
// says why it did not.
func runOutcome(res runner.Result, err error) error {
	switch {
	case res.Status == sanad.StatusCompleted:
		return nil
	case err != nil:
		return failure{err}
	case res.Status == sanad.StatusRunning && len(res.Gates) > 0:
		return failure{fmt.Errorf("run %s waits on gate %s: approve it with `sanad gates approve %s --as NAME --role %s` (it then resumes), or reject it",
			res.Run, strings.Join(res.Gates, ", "), res.Gates[0], workflow.DefaultGateRole)}
	case res.Status == sanad.StatusRunning:
		return failure{fmt.Errorf("run %s stopped before its end: resume it with `sanad runs resume %s`", res.Run, res.Run)}
	}
	return failure{res.Err()}
}
