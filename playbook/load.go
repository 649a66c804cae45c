package playbook

import (
	"errors"
	"io"
	"io/fs"
	"path"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/workflow"
)

// The files and folders of a playbook folder.
const (
	WorkflowFile  = "workflow.yaml"
	AgentsDir     = "agents"
	AbilitiesDir  = "agents/abilities"
	PolicyDir     = "policy"
	maxWorkflowIn = workflow.MaxFileBytes
)

// Load reads the playbook folder at the root of fsys:
//
//	workflow.yaml          the workflow; the playbook is named after it
//	agents/*.yaml          agent profiles
//	agents/abilities/      their abilities (optional)
//	policy/                roles.yaml, tools.yaml, lanes.yaml (optional:
//	                       without it the playbook has OpenPolicy's)
//
// Every file is checked against its schema; the first error names the file
// and line (INVALID_INPUT).
func Load(fsys fs.FS) (*Playbook, error) {
	data, err := readFile(fsys, WorkflowFile)
	if err != nil {
		return nil, err
	}
	def, err := workflow.Parse(WorkflowFile, data)
	if err != nil {
		return nil, err
	}
	p := &Playbook{Name: def.Name, Description: def.Description, Workflow: def}
	if p.Agents, p.Abilities, err = LoadAgents(fsys, AgentsDir); err != nil {
		return nil, err
	}
	if st, err := fs.Stat(fsys, PolicyDir); err == nil && st.IsDir() {
		sub, err := fs.Sub(fsys, PolicyDir)
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInvalidInput, "playbook.load", PolicyDir+": "+err.Error())
		}
		if p.Policy, err = policy.LoadFS(sub); err != nil {
			return nil, err
		}
	}
	return p, p.Validate()
}

// LoadAgents reads the agent profiles of the folder dir of fsys, and the
// abilities of its abilities/ sub-folder when it has one; every ability a
// profile names must be there.
func LoadAgents(fsys fs.FS, dir string) ([]agent.Profile, []agent.Ability, error) {
	profiles, err := agent.LoadDir(fsys, dir)
	if err != nil {
		return nil, nil, err
	}
	var lib *agent.Library
	abilities := path.Join(dir, "abilities")
	if st, err := fs.Stat(fsys, abilities); err == nil && st.IsDir() {
		if lib, err = agent.LoadLibrary(fsys, abilities); err != nil {
			return nil, nil, err
		}
	}
	for _, p := range profiles {
		if err := lib.Check(p); err != nil {
			return nil, nil, err
		}
	}
	var out []agent.Ability
	for _, id := range lib.IDs() {
		a, _ := lib.Get(id)
		out = append(out, a)
	}
	return profiles, out, nil
}

// readFile reads name from fsys, at most one byte past the largest workflow
// file, so that the parser refuses a larger one.
func readFile(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "playbook.load", "a playbook folder has a %s, and this one has none", name)
	}
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, "playbook.load", name+": "+err.Error())
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxWorkflowIn+1))
}
