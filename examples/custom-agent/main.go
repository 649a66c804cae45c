// Command custom-agent registers a tool and an agent of its own with a
// sanad runner, runs them as a playbook, and reads the signed record back.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

// CheckIn and CheckOut are the tool's input and output; its JSON Schemas
// are derived from them.
type CheckIn struct {
	Name string `json:"name" jsonschema:"the party to screen"`
}
type CheckOut struct {
	Name  string `json:"name"`
	Match bool   `json:"match"`
}

// sanctioned is the tool's list.
var sanctioned = []string{"ACME SHELL CO", "NORTHWIND FRONT LTD"}

func main() {
	if err := run(context.Background(), ".sanad-custom", os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, home string, w io.Writer) error {
	// A tool: a Spec and a typed function.
	check := tool.MustDefine(tool.Spec{Name: "sanctions.check", Description: "Checks a name against the sanctions list.",
		Risk: "read", SideEffect: tool.SideEffectNone, Idempotent: true},
		func(_ context.Context, _ tool.Call, in CheckIn) (CheckOut, error) {
			return CheckOut{Name: in.Name, Match: slices.Contains(sanctioned, strings.ToUpper(in.Name))}, nil
		})

	// An agent: a profile, and what it does with its task.
	screener := agent.Profile{ID: "screener", Name: "Screener", Description: "Screens the parties of a deal.",
		Role: "screener", PermittedTools: []string{"sanctions.check"}, Enabled: true, Version: "1"}
	screen := func(p agent.Profile) agent.Node {
		return agent.Func(p, func(ctx context.Context, in agent.Input) (agent.Output, error) {
			var input struct{ Parties []string }
			if err := json.Unmarshal(in.Input, &input); err != nil {
				return agent.Output{}, err
			}
			var hits []string
			for _, name := range input.Parties {
				arg, _ := json.Marshal(CheckIn{Name: name})
				raw, err := in.Tools.Call(ctx, "sanctions.check", arg) // through the governed gateway
				if err != nil {
					return agent.Output{}, err
				}
				var out CheckOut
				json.Unmarshal(raw, &out)
				if out.Match {
					hits = append(hits, name)
				}
			}
			content, _ := json.Marshal(map[string]any{"screened": len(input.Parties), "matches": hits})
			return agent.Output{Content: content, Summary: fmt.Sprintf("%d match(es)", len(hits))}, nil
		})
	}

	// A playbook: the agent, its tool and a one-step workflow.
	flow, err := workflow.Parse("screening.yaml", []byte("name: screening\nsteps:\n  - {id: screen, agent: screener, task: Screen every party}\n"))
	if err != nil {
		return err
	}
	r, err := runner.Open(ctx, runner.Config{Dir: home})
	if err != nil {
		return err
	}
	defer r.Close()
	err = r.Register(&playbook.Playbook{Name: "screening", Workflow: flow, Agents: []agent.Profile{screener},
		Tools: []tool.Spec{check}, Nodes: map[string]playbook.NodeFunc{"screener": screen}})
	if err != nil {
		return err
	}

	// Run it, then read the record: the step's output, the tool calls as
	// child runs, and the trace verified.
	res, err := r.Run(ctx, "screening", map[string]any{"parties": []string{"Example Holdings Ltd", "Acme Shell Co"}}, runner.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "run %s %s: %s\n", res.Run, res.Status, res.Outputs["screen"])
	view, err := r.Show(ctx, res.Run)
	if err != nil {
		return err
	}
	for _, c := range view.Children {
		fmt.Fprintf(w, "  %s run by %s: %s\n", c.Kind, c.Agent, c.Status)
	}
	rep, err := r.Home().Ledger.Verify(ctx, res.Trace)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "trace verified: %d signed events\n", rep.Events)
	return nil
}
