package playbook

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing/fstest"

	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

// OpenPolicyVersion is the version of every policy [OpenPolicy] makes.
const OpenPolicyVersion = "open-1"

// DefaultRisk is the risk class [OpenPolicy] gives a tool whose Spec names
// none.
const DefaultRisk = "standard"

// OpenPolicy is the policy of a playbook that brings none: each role of its
// agents may call the tools its agents' profiles permit, and every tool in
// common (the built-in ones); the operator, a person, resolves gates. Each
// tool's risk class is its Spec's; no class needs approval beyond what a
// tool's Spec asks for itself.
func OpenPolicy(agents []agent.Profile, tools []tool.Spec, common []string) (*policy.Set, error) {
	roles := map[string][]string{} // role → tools
	var roleNames []string
	for _, p := range agents {
		if !slices.Contains(roleNames, p.Role) {
			roleNames = append(roleNames, p.Role)
		}
		roles[p.Role] = append(roles[p.Role], p.PermittedTools...)
	}
	slices.Sort(roleNames)
	var r strings.Builder
	r.WriteString("version: " + strconv.Quote(OpenPolicyVersion) + "\ndescription: The roles of the agents, and the operator who resolves gates.\nroles:\n")
	for _, name := range roleNames {
		fmt.Fprintf(&r, "  %s:\n    kind: agent\n", strconv.Quote(name))
	}
	if !slices.Contains(roleNames, workflow.DefaultGateRole) {
		fmt.Fprintf(&r, "  %s:\n    kind: human\n    description: Resolves the gates of workflow runs.\n", workflow.DefaultGateRole)
	}
	var risks []string
	for _, s := range tools {
		if risk := cmp.Or(s.Risk, DefaultRisk); !slices.Contains(risks, risk) {
			risks = append(risks, risk)
		}
	}
	slices.Sort(risks)
	var t strings.Builder
	t.WriteString("version: " + strconv.Quote(OpenPolicyVersion) + "\ndescription: Each role may call the tools its agents are permitted, and the built-in ones.\nrisk_classes:\n")
	for _, risk := range risks {
		fmt.Fprintf(&t, "  %s:\n    approval: none\n", strconv.Quote(risk))
	}
	t.WriteString("tools:\n")
	n := 0
	for _, s := range tools {
		var who []string
		for _, role := range roleNames {
			if slices.Contains(common, s.Name) || slices.Contains(roles[role], s.Name) {
				who = append(who, strconv.Quote(role))
			}
		}
		if len(who) == 0 {
			continue
		}
		n++
		fmt.Fprintf(&t, "  %s:\n    roles: [%s]\n    risk: %s\n", strconv.Quote(s.Name), strings.Join(who, ", "), strconv.Quote(cmp.Or(s.Risk, DefaultRisk)))
	}
	if n == 0 {
		t.WriteString("  {}\n")
	}
	return policy.LoadFS(fstest.MapFS{
		"roles.yaml": {Data: []byte(r.String())},
		"tools.yaml": {Data: []byte(t.String())},
	})
}
