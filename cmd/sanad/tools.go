package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad/policy"
)

func (a *app) toolsCommand() *cobra.Command {
	return group("tools", "List the tools a policy declares", a.toolsListCommand())
}

func (a *app) toolsListCommand() *cobra.Command {
	var dir string
	c := a.jsonFlag(&cobra.Command{
		Use:   "list --policy DIR",
		Short: "List tools with the roles that may call them, risk, approval and abuse limits",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return usagef("tools list needs --policy DIR (a folder with tools.yaml)")
			}
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
		},
	})
	c.Flags().StringVar(&dir, "policy", "", "policy folder")
	return c
}
