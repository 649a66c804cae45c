package playbook_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

const profile = "id: clerk\nname: Clerk\ndescription: Files things.\nrole: clerk\nversion: \"1\"\npermitted_tools: [file.put]\n"

func TestLoadFolder(t *testing.T) {
	fsys := fstest.MapFS{
		"workflow.yaml":                {Data: []byte("name: filing\ndescription: File it.\nsteps:\n  - {id: a, agent: clerk, task: File the memo}\n")},
		"agents/clerk.yaml":            {Data: []byte(profile + "core_abilities: [filing]\n")},
		"agents/abilities/filing.yaml": {Data: []byte("id: filing\ntitle: Filing\ncontent: File by date.\n")},
		"policy/roles.yaml":            {Data: []byte("version: \"1\"\ndescription: r\nroles:\n  clerk:\n    kind: agent\n")},
		"policy/tools.yaml":            {Data: []byte("version: \"1\"\ndescription: t\nrisk_classes:\n  write:\n    approval: none\ntools:\n  file.put:\n    roles: [clerk]\n    risk: write\n")},
	}
	p, err := playbook.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "filing" || len(p.Agents) != 1 || len(p.Abilities) != 1 || p.Policy == nil || p.Workflow.Steps[0].Uses != "agent" {
		t.Fatalf("got %+v", p)
	}
	// Errors name the file.
	delete(fsys, "agents/abilities/filing.yaml")
	if _, err := playbook.Load(fsys); sanad.ErrorCode(err) != sanad.CodeNotFound && sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Fatalf("a missing ability: got %v", err)
	}
	delete(fsys, "workflow.yaml")
	if _, err := playbook.Load(fsys); err == nil || !strings.Contains(err.Error(), "workflow.yaml") {
		t.Fatalf("no workflow: got %v", err)
	}
}

func TestValidate(t *testing.T) {
	def, _ := workflow.Parse("w.yaml", []byte("name: w\nsteps:\n  - {id: a, agent: clerk}\n"))
	clerk, err := agent.ParseProfile("clerk.yaml", []byte(profile))
	if err != nil {
		t.Fatal(err)
	}
	node := func(p agent.Profile) agent.Node { return nil }
	for _, tc := range []struct {
		name string
		p    playbook.Playbook
		says string
	}{
		{"bad name", playbook.Playbook{Name: "Bad Name", Workflow: def}, "a playbook name"},
		{"no work", playbook.Playbook{Name: "p"}, "needs a workflow or a session"},
		{"both", playbook.Playbook{Name: "p", Workflow: def, Session: &playbook.Session{}}, "both a workflow and a session"},
		{"twice", playbook.Playbook{Name: "p", Workflow: def, Agents: []agent.Profile{clerk, clerk}}, "given twice"},
		{"stray node", playbook.Playbook{Name: "p", Workflow: def, Agents: []agent.Profile{clerk}, Nodes: map[string]playbook.NodeFunc{"ghost": node}}, "not one of its agents"},
	} {
		if err := tc.p.Validate(); sanad.ErrorCode(err) != sanad.CodeInvalidInput || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: got %v, want INVALID_INPUT saying %q", tc.name, err, tc.says)
		}
	}
}

// The open policy lets each role call the tools its agents are permitted
// and the common ones, and nothing else.
func TestOpenPolicy(t *testing.T) {
	clerk, _ := agent.ParseProfile("clerk.yaml", []byte(profile))
	specs := []tool.Spec{{Name: "file.put", Risk: "write"}, {Name: "hash.sha256", Risk: "read"}, {Name: "secret.read"}}
	set, err := playbook.OpenPolicy([]agent.Profile{clerk}, specs, []string{"hash.sha256"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool  string
		allow bool
	}{{"file.put", true}, {"hash.sha256", true}, {"secret.read", false}, {"nosuch", false}} {
		d := set.Decide(policy.Principal{Agent: "clerk", Role: "clerk", Scope: sanad.Scope{Tenant: "t", Case: "c"}}, policy.ToolCall(tc.tool), policy.Resource{Scope: sanad.Scope{Tenant: "t", Case: "c"}})
		if d.Allow != tc.allow {
			t.Errorf("clerk calls %s: allow %v (%s), want %v", tc.tool, d.Allow, d.Reason, tc.allow)
		}
	}
	if !set.Satisfies("operator", "operator") {
		t.Error("the operator role is missing")
	}
}
