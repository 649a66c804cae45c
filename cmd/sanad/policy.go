package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/policy"
)

func (a *app) policyCommand() *cobra.Command {
	return group("policy", "Check policy files and decisions", a.policyCheckCommand())
}

func (a *app) policyCheckCommand() *cobra.Command {
	var dir, role, tool, lane, action, tenant, caseID string
	var fields, tags []string
	c := a.jsonFlag(&cobra.Command{
		Use:   "check --policy DIR --role ROLE (--tool TOOL | --lane LANE [--action ACTION])",
		Short: "Decide whether a role may call a tool or act in a lane",
		Long: `Check loads the policy folder (roles.yaml, tools.yaml, lanes.yaml; each validated) and
prints the decision for one principal and action as {"allow":..,"reason":..}. It exits 0
whether the answer is allow or deny, and 2 on bad input (including a bad policy file).

Without --action, a lane check answers whether the role is one of the lane's callers.
--field k=v supplies a scope field a lane requires (case_id comes from --case);
--tag names a content tag such as raw_case_text to test a lane's prohibitions.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" || role == "" || (tool == "") == (lane == "") {
				return usagef("policy check needs --policy, --role, and one of --tool or --lane")
			}
			if tool != "" && action != "" {
				return usagef("--action goes with --lane")
			}
			set, err := policy.Load(dir)
			if err != nil {
				return usageError{err}
			}
			scope := sanad.Scope{Tenant: tenant, Case: caseID}
			res := policy.Resource{Scope: scope, Tags: tags, Fields: map[string]string{}}
			for _, f := range fields {
				k, v, ok := strings.Cut(f, "=")
				if !ok || k == "" {
					return usagef("--field takes key=value, got %q", f)
				}
				res.Fields[k] = v
			}
			p := policy.Principal{Agent: "cli-" + role, Role: role, Scope: scope}
			var d policy.Decision
			switch {
			case tool != "":
				d = set.Decide(p, policy.ToolCall(tool), res)
			case action != "":
				d = set.Decide(p, policy.LaneAction(lane, action), res)
			default:
				d = laneCaller(set, role, lane)
			}
			out := map[string]any{"allow": d.Allow, "reason": d.Reason}
			if d.Rule != "" {
				out["rule"] = string(d.Rule)
			}
			if d.Source != "" {
				out["source"] = d.Source
			}
			return a.report(out, func() {
				verdict := "deny"
				if d.Allow {
					verdict = "allow"
				}
				fmt.Fprintf(a.stdout, "%s: %s\n", verdict, d.Reason)
			})
		},
	})
	f := c.Flags()
	f.StringVar(&dir, "policy", "", "policy folder")
	f.StringVar(&role, "role", "", "role of the principal")
	f.StringVar(&tool, "tool", "", "tool to call")
	f.StringVar(&lane, "lane", "", "lane to act in")
	f.StringVar(&action, "action", "", "lane action, e.g. append:transcripts")
	f.StringVar(&tenant, "tenant", "default", "tenant of the principal and resource")
	f.StringVar(&caseID, "case", "", "case of the principal and resource")
	f.StringArrayVar(&fields, "field", nil, "scope field key=value (repeatable)")
	f.StringArrayVar(&tags, "tag", nil, "content tag (repeatable)")
	return c
}

// laneCaller answers whether role is one of lane's callers.
func laneCaller(set *policy.Set, role, lane string) policy.Decision {
	l, ok := set.Lane(lane)
	if !ok {
		return policy.Decision{Rule: policy.RuleUnknownLane, Reason: fmt.Sprintf("lane %q is not declared", lane)}
	}
	if _, ok := set.Role(role); !ok {
		return policy.Decision{Rule: policy.RuleUnknownRole, Reason: fmt.Sprintf("role %q is not declared", role)}
	}
	if slices.Contains(l.Callers, role) {
		return policy.Decision{Allow: true, Rule: policy.RuleLaneCaller, Reason: fmt.Sprintf("%s is a caller of lane %s", role, lane)}
	}
	return policy.Decision{Rule: policy.RuleLaneCaller, Reason: fmt.Sprintf("%s is not a caller of lane %s (callers: %s)", role, lane, strings.Join(l.Callers, ", "))}
}
