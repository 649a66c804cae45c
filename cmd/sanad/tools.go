package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad/examples"
	"github.com/sanadhq/sanad/playbook/protocol"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/tool/builtin"
)

func (a *app) toolsCommand() *cobra.Command {
	return group("tools", "List the tools of a playbook, or those a policy declares", a.toolsListCommand())
}

// toolInfo is one tool as tools list prints it for a playbook.
type toolInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Risk        string `json:"risk,omitempty"`
	SideEffect  string `json:"side_effect"`
	Idempotent  bool   `json:"idempotent"`
	Approval    string `json:"approval,omitempty"`
}

func (a *app) toolsListCommand() *cobra.Command {
	var dir, name string
	c := a.jsonFlag(&cobra.Command{
		Use:   "list [--playbook NAME | --policy DIR]",
		Short: "List a playbook's tools (name, risk, side effect), or a policy's (roles, risk, approval, limits)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir != "" {
				return a.listPolicyTools(dir)
			}
			pbs, err := examples.Playbooks()
			if err != nil {
				return err
			}
			var specs []tool.Spec
			found := false
			for _, p := range pbs {
				if p.Name == name {
					found = true
					switch {
					case p.Workflow != nil:
						specs = append(builtin.Tools(nil), p.Tools...)
					case len(p.Tools) == 0:
						specs = protocol.Tools(nil)
					default:
						specs = p.Tools
					}
				}
			}
			if !found {
				return usagef("no built-in playbook %q (built in: %s)", name, strings.Join(builtinNames(), ", "))
			}
			out := make([]toolInfo, len(specs))
			for i, s := range specs {
				out[i] = toolInfo{Name: s.Name, Description: s.Description, Risk: s.Risk, SideEffect: string(s.SideEffect), Idempotent: s.Idempotent, Approval: string(s.Approval)}
			}
			return a.report(out, func() {
				for _, t := range out {
					fmt.Fprintf(a.stdout, "%-16s risk %-6s side effect %-9s idempotent %-5v %s\n", t.Name, t.Risk, t.SideEffect, t.Idempotent, t.Description)
				}
			})
		},
	})
	c.Flags().StringVar(&dir, "policy", "", "list the tools this policy folder declares")
	c.Flags().StringVar(&name, "playbook", "due-diligence", "list the tools of this built-in playbook")
	return c
}

// listPolicyTools prints the tools the policy of dir declares, with the
// roles that may call them, risk, approval and abuse limits.
func (a *app) listPolicyTools(dir string) error {
	set, err := policy.Load(dir)
	if err != nil {
		return usageError{err}
	}
	tools := make([]policy.Tool, 0, len(set.Tools()))
	for _, name := range set.Tools() {
		t, _ := set.Tool(name)
		tools = append(tools, t)
	}
	return a.report(tools, func() {
		for _, t := range tools {
			limits := "no limit"
			if t.MaxCallsPerRound > 0 || t.MaxCallsPerRun > 0 {
				limits = fmt.Sprintf("%d/round, %d/run (0 = none)", t.MaxCallsPerRound, t.MaxCallsPerRun)
			}
			fmt.Fprintf(a.stdout, "%-22s risk %-8s approval %-6s roles %s; %s\n", t.Name, t.Risk, t.Approval, strings.Join(t.Roles, ","), limits)
		}
	})
}
