package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
)

func (a *app) gatesCommand() *cobra.Command {
	return group("gates", "List and resolve human review gates",
		a.gatesListCommand(), a.gatesResolveCommand(true), a.gatesResolveCommand(false))
}

func (a *app) gatesListCommand() *cobra.Command {
	var status string
	c := a.jsonFlag(&cobra.Command{
		Use:   "list",
		Short: "List gates (open ones by default)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch gate.Status(status) {
			case gate.StatusOpen, gate.StatusApproved, gate.StatusRejected:
			case "all":
				status = ""
			default:
				return usagef("--status is open, approved, rejected or all")
			}
			return a.withHomeRead(cmd.Context(), func(h *home.Home) error {
				gs, err := h.DB.Gates(cmd.Context(), gate.Status(status))
				if err != nil {
					return err
				}
				if gs == nil {
					gs = []gate.Gate{}
				}
				return a.report(gs, func() {
					for _, g := range gs {
						fmt.Fprintf(a.stdout, "%s  %-8s %-16s needs %-12s run %s: %s\n", g.GateID, g.Status, g.Kind, g.RequiredRole, g.Run, g.Reason)
					}
				})
			})
		},
	})
	c.Flags().StringVar(&status, "status", "open", "open, approved, rejected or all")
	return c
}

func (a *app) gatesResolveCommand(approve bool) *cobra.Command {
	var dir, as, role, note string
	verb := "reject"
	if approve {
		verb = "approve"
	}
	c := a.jsonFlag(&cobra.Command{
		Use:   verb + " GATE --policy DIR --as AGENT --role ROLE",
		Short: fmt.Sprintf("%s a gate as a principal whose role satisfies the gate's required role", verb),
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" || as == "" || role == "" {
				return usagef("%s needs --policy, --as and --role", verb)
			}
			set, err := policy.Load(dir)
			if err != nil {
				return usageError{err}
			}
			return a.withHome(cmd.Context(), func(h *home.Home) error {
				svc := &gate.Service{Runs: h.Runs, Store: h.DB, Roles: set}
				g, err := svc.Resolve(cmd.Context(), args[0], runs.Principal{Agent: as, Role: role}, approve, note)
				if err != nil {
					return err
				}
				return a.report(g, func() {
					fmt.Fprintf(a.stdout, "gate %s %s by %s\n", g.GateID, g.Status, as)
				})
			})
		},
	})
	f := c.Flags()
	f.StringVar(&dir, "policy", "", "policy folder whose roles decide who may resolve")
	f.StringVar(&as, "as", "", "the resolving principal's identity")
	f.StringVar(&role, "role", "", "the resolving principal's role")
	f.StringVar(&note, "note", "", "a note recorded with the decision")
	return c
}
