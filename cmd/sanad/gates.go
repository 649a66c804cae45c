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
	var opt runnerOptions
	var as, role, note string
	var noResume bool
	verb := "reject"
	if approve {
		verb = "approve"
	}
	c := a.jsonFlag(&cobra.Command{
		Use:   verb + " GATE --as NAME --role ROLE",
		Short: fmt.Sprintf("%s a gate as a principal whose role satisfies the gate's required role, and resume the run it holds up", verb),
		Long: fmt.Sprintf(`The principal's role must satisfy the gate's required role under the policy of the playbook
whose run opened the gate (or the policy of --policy). Once the gate is resolved, a workflow run
waiting on it is resumed (unless --no-resume): an approved tool call is made, a rejected one is
blocked. Give the --agents and --model-config the run was started with.

Exit 0 when the gate is resolved (and a resumed run completed); 1 when the run does not complete
or the gate is unknown or already resolved; 2 for bad usage.`),
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if as == "" || role == "" {
				return usagef("%s needs --as and --role", verb)
			}
			by := runs.Principal{Agent: as, Role: role}
			h, err := a.open(ctx)
			if err != nil {
				return err
			}
			g, err := h.DB.Gate(ctx, args[0])
			h.Close()
			if err != nil {
				return failure{err}
			}
			if opt.PolicyDir != "" && g.Kind != gate.KindToolApproval && g.Kind != gate.KindAmbiguousEffect {
				// A gate outside a workflow's effects: judged by the policy given.
				set, err := policy.Load(opt.PolicyDir)
				if err != nil {
					return usageError{err}
				}
				return a.withHome(ctx, func(h *home.Home) error {
					svc := &gate.Service{Runs: h.Runs, Store: h.DB, Roles: set}
					g, err := svc.Resolve(ctx, args[0], by, approve, note)
					if err != nil {
						return err
					}
					return a.report(g, func() { fmt.Fprintf(a.stdout, "gate %s %s by %s\n", g.GateID, g.Status, as) })
				})
			}
			r, err := a.runnerFor(ctx, g.Run, opt)
			if err != nil {
				return err
			}
			defer r.Close()
			res, err := r.ResolveGate(ctx, args[0], by, approve, note, !noResume)
			if res.Gate.GateID == "" || res.Gate.Status == gate.StatusOpen {
				return err
			}
			if a.jsonOut {
				if perr := a.printJSON(res); perr != nil {
					return perr
				}
				if res.Resumed == nil {
					return err
				}
				return runOutcome(*res.Resumed, err)
			}
			fmt.Fprintf(a.stdout, "gate %s %s by %s\n", res.Gate.GateID, res.Gate.Status, as)
			if res.Resumed == nil {
				return err
			}
			fmt.Fprintf(a.stdout, "resumed run %s:\n", res.Resumed.Run)
			return a.reportRun(*res.Resumed, err)
		},
	})
	f := c.Flags()
	f.StringVar(&as, "as", "", "the resolving principal's identity")
	f.StringVar(&role, "role", "", "the resolving principal's role")
	f.StringVar(&note, "note", "", "a note recorded with the decision")
	f.BoolVar(&noResume, "no-resume", false, "resolve the gate but do not resume the run it holds up")
	runnerFlags(c, &opt)
	return c
}
