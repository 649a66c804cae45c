package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/examples"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/workflow"
)

// engineFlags adds --policy, --agents and --model-config, the flags that
// choose what a workflow engine is wired with.
func engineFlags(c *cobra.Command, opt *engineOptions) {
	c.Flags().StringVar(&opt.PolicyDir, "policy", "", "policy folder (default: every agent role may call the built-in tools)")
	c.Flags().StringVar(&opt.AgentsDir, "agents", "", "folder of agent profiles, with abilities/ (default: the example agents)")
	c.Flags().StringVar(&opt.ModelConfig, "model-config", "", "file with a models: section (default: sanad.yaml in the home folder, if any)")
}

func (a *app) runCommand() *cobra.Command {
	var opt engineOptions
	var input, tenant, caseID string
	c := a.jsonFlag(&cobra.Command{
		Use:   "run FILE_OR_PLAYBOOK",
		Short: "Run a workflow file, or a built-in playbook by name",
		Long: `Run records a workflow run in the home and runs it to its end: every step ends with a
signed event holding the checkpoint after it, and every tool call goes through the tool
gateway under policy. The argument is a workflow file (YAML or JSON), or else the name of
a playbook built into the binary: ` + strings.Join(playbooks(), ", ") + `.

An agent step whose agent's model_class is configured calls that model: the call is a
model_call child run with its prompt and answer as artifacts, made once (a resume or a replay
reads the recorded answer). Agents with no configured model, and delegated tasks, run on the
offline node (deterministic mode): each records what it was given (its task, abilities and
inputs) instead of writing an answer. Every step output, and the run's report, says its mode.

Models come from the models: section of sanad.yaml in the home folder (or --model-config
FILE), overridden by SANAD_MODEL_<CLASS>=provider:model[@base_url]; each key from the
environment variable its class's api_key_env names. See sanad models --help.

Exit 0 when the run completed; 1 when it failed, was denied or cancelled, or waits on a
gate (approve the gate, then resume the run with sanad runs resume RUN); 2 for a workflow
file that is not valid.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			file, data, err := readWorkflow(args[0])
			if err != nil {
				return err
			}
			def, err := workflow.Parse(file, data)
			if err != nil {
				return usageError{err}
			}
			var in json.RawMessage
			if input != "" {
				var obj map[string]json.RawMessage
				if err := json.Unmarshal([]byte(input), &obj); err != nil || obj == nil {
					return usagef("--input must be a JSON object, such as '{\"target\": \"Acme\"}'")
				}
				in = json.RawMessage(input)
			}
			return a.withHome(ctx, func(h *home.Home) error {
				e, err := newEngine(h, opt)
				if err != nil {
					return err
				}
				if err := e.check(file, def); err != nil {
					return err
				}
				res, err := e.start(ctx, def, in, sanad.Scope{Tenant: tenant, Case: caseID})
				return a.reportRun(res, err, e.mode())
			})
		},
	})
	f := c.Flags()
	f.StringVar(&input, "input", "", "the workflow's input, a JSON object (default: the file's input)")
	f.StringVar(&tenant, "tenant", "default", "tenant the run acts for")
	f.StringVar(&caseID, "case", "default", "case the run acts on")
	engineFlags(c, &opt)
	return c
}

// runReport is what run and runs resume print with --json.
type runReport struct {
	Run    string               `json:"run"`
	Trace  string               `json:"trace"`
	Status sanad.RunStatus      `json:"status"`
	Mode   string               `json:"mode"` // deterministic when no agent has a model, else model
	Errors []workflow.StepError `json:"errors,omitempty"`
	Gates  []string             `json:"gates,omitempty"`
}

// reportRun prints where a run stands and the mode its agents ran in, and
// returns nil if it completed, else a failure that says why: err when the
// engine gave one (a denied run), else the run's own. When the engine
// recorded no run, it returns err as it is and prints nothing.
func (a *app) reportRun(res workflow.Result, err error, mode string) error {
	if err != nil && res.Run == "" {
		return err
	}
	if a.jsonOut {
		if perr := a.printJSON(runReport{Run: res.Run, Trace: res.Trace, Status: res.Status, Mode: mode, Errors: res.Errors, Gates: res.Gates}); perr != nil {
			return perr
		}
	} else {
		fmt.Fprintf(a.stdout, "run %s %s in %s mode (trace %s, %d step(s) run)\n", res.Run, res.Status, mode, res.Trace, res.Executed)
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
	switch {
	case res.Status == sanad.StatusCompleted:
		return nil
	case err != nil:
		return failure{err}
	case res.Status == sanad.StatusRunning && len(res.Gates) > 0:
		return failure{fmt.Errorf("run %s waits on gate %s: approve it with `sanad gates approve %s --policy DIR --as NAME --role %s`, then `sanad runs resume %s`",
			res.Run, strings.Join(res.Gates, ", "), res.Gates[0], workflow.DefaultGateRole, res.Run)}
	case res.Status == sanad.StatusRunning:
		return failure{fmt.Errorf("run %s stopped before its end: resume it with `sanad runs resume %s`", res.Run, res.Run)}
	}
	return failure{res.Err()}
}

// readWorkflow reads the workflow file path, or else the built-in playbook
// of that name, and returns the name errors should use for it.
func readWorkflow(arg string) (string, []byte, error) {
	if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
		f, err := os.Open(arg)
		if err != nil {
			return "", nil, err
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, workflow.MaxFileBytes+1))
		return arg, data, err
	}
	name := strings.TrimSuffix(arg, ".yaml")
	if name != "" && !strings.ContainsAny(name, `/\`) {
		file := "workflows/" + name + ".yaml"
		data, err := fs.ReadFile(examples.FS, file)
		if err == nil {
			return file, data, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", nil, err
		}
	}
	return "", nil, usagef("%s: no such workflow file, and no built-in playbook of that name (built in: %s)", arg, strings.Join(playbooks(), ", "))
}

// playbooks lists the names of the built-in workflows.
func playbooks() []string {
	files, _ := fs.Glob(examples.FS, "workflows/*.yaml")
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(path.Base(f), ".yaml")
	}
	return names
}
