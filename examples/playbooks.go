package examples

import (
	"io/fs"
	"path"
	"strings"

	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/workflow"
)

// SessionPlaybook is the name of the built-in protocol session playbook.
const SessionPlaybook = "protocol"

// Playbooks returns the playbooks built into the binary: one per workflow of
// workflows/, each with the example agents and their abilities and the open
// policy, and the protocol session playbook (Planner, Executor, Critic,
// Auditor) with its own policy and tools.
func Playbooks() ([]*playbook.Playbook, error) {
	agents, abilities, err := playbook.LoadAgents(FS, "agents")
	if err != nil {
		return nil, err
	}
	files, err := fs.Glob(FS, "workflows/*.yaml")
	if err != nil {
		return nil, err
	}
	var out []*playbook.Playbook
	for _, f := range files {
		data, err := fs.ReadFile(FS, f)
		if err != nil {
			return nil, err
		}
		def, err := workflow.Parse(f, data)
		if err != nil {
			return nil, err
		}
		out = append(out, &playbook.Playbook{
			Name: strings.TrimSuffix(path.Base(f), ".yaml"), Description: def.Description,
			Agents: agents, Abilities: abilities, Workflow: def,
		})
	}
	out = append(out, &playbook.Playbook{
		Name:        SessionPlaybook,
		Description: "A Planner / Executor / Critic / Auditor protocol session over a task file (see examples/sessions).",
		Session:     &playbook.Session{},
	})
	return out, nil
}
