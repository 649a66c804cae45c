package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/examples"
	"github.com/sanadhq/sanad/playbook"
)

func (a *app) agentsCommand() *cobra.Command {
	return group("agents", "List agents and choose one for a task", a.agentsListCommand(), a.agentsSelectCommand())
}

func (a *app) agentsListCommand() *cobra.Command {
	var dir string
	c := a.jsonFlag(&cobra.Command{
		Use:   "list",
		Short: "List the agents: id, role, model class, enabled, permitted tools",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := agentRegistry(dir)
			if err != nil {
				return err
			}
			ps := reg.List()
			return a.report(ps, func() {
				for _, p := range ps {
					state := "enabled"
					if !p.Enabled {
						state = "disabled"
					}
					tools := strings.Join(p.PermittedTools, ",")
					if tools == "" {
						tools = "-"
					}
					fmt.Fprintf(a.stdout, "%-16s role %-16s model %-10s %-8s tools %s\n", p.ID, p.Role, p.ModelClass, state, tools)
				}
			})
		},
	})
	c.Flags().StringVar(&dir, "agents", "", "folder of agent profiles, with abilities/ (default: the example agents)")
	return c
}

// match is one agent proposed for a task, as agents select prints it.
type match struct {
	Agent      string   `json:"agent"`
	Confidence float64  `json:"confidence"`
	Reasons    []string `json:"reasons"`
}

func (a *app) agentsSelectCommand() *cobra.Command {
	var dir string
	c := a.jsonFlag(&cobra.Command{
		Use:   "select TASK",
		Short: "Rank the enabled agents for a task, best first",
		Long: `Select ranks the agents for a task from their example and not-for tasks: an example task
equal to the task adds 0.6, one that contains it or is contained in it 0.4, and a not-for task
that matches takes 0.5 off. When no agent matches, the answer is the standard agent at 0.5.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := agentRegistry(dir)
			if err != nil {
				return err
			}
			ms := reg.Select(args[0])
			out := make([]match, len(ms))
			for i, m := range ms {
				out[i] = match{Agent: m.Agent, Confidence: m.Confidence, Reasons: m.Reasons}
				if out[i].Reasons == nil {
					out[i].Reasons = []string{}
				}
			}
			return a.report(out, func() {
				for _, m := range out {
					fmt.Fprintf(a.stdout, "%.2f  %s  (%s)\n", m.Confidence, m.Agent, strings.Join(m.Reasons, "; "))
				}
			})
		},
	})
	c.Flags().StringVar(&dir, "agents", "", "folder of agent profiles, with abilities/ (default: the example agents)")
	return c
}

// agentRegistry returns the registry of the agent profiles of dir (with
// their abilities in dir/abilities), or of the example agents when dir is
// empty.
func agentRegistry(dir string) (*agent.Registry, error) {
	var profiles []agent.Profile
	var err error
	if dir == "" {
		profiles, _, err = playbook.LoadAgents(examples.FS, "agents")
	} else {
		if st, serr := os.Stat(dir); serr != nil || !st.IsDir() {
			return nil, usagef("--agents %s: not a folder of agent profiles", dir)
		}
		profiles, _, err = playbook.LoadAgents(os.DirFS(dir), ".")
	}
	if err != nil {
		return nil, usageError{err}
	}
	reg := agent.NewRegistry()
	if err := reg.CreateAll(profiles...); err != nil {
		return nil, usageError{err}
	}
	return reg, nil
}
