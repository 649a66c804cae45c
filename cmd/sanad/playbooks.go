package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad/examples"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/playbook/casework"
	"github.com/sanadhq/sanad/playbook/deal"
	"github.com/sanadhq/sanad/playbook/rag"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/workflow"
)

// runnerOptions say what a runner is wired with: where its playbooks' agents
// and policy come from, and its models.
type runnerOptions struct {
	// PolicyDir is a policy folder every playbook is given; empty keeps
	// each playbook's own (the open policy for the built-in ones).
	PolicyDir string
	// AgentsDir is a folder of agent profiles, with their abilities in its
	// abilities/ sub-folder, that replaces every playbook's agents; empty
	// keeps the example agents.
	AgentsDir string
	// ModelConfig is a file with a models: section; empty means the home's
	// sanad.yaml, if it has one (see loadModels).
	ModelConfig string
	// NoModels wires no model, whatever is configured: for commands that
	// run no step (cancel), which must work when a key is missing.
	NoModels bool
	// Casework configures the casework playbooks.
	Casework casework.Config
}

// runnerFlags adds --policy, --agents and --model-config.
func runnerFlags(c *cobra.Command, opt *runnerOptions) {
	c.Flags().StringVar(&opt.PolicyDir, "policy", "", "policy folder (default: each role may call its agents' tools and the built-in ones)")
	c.Flags().StringVar(&opt.AgentsDir, "agents", "", "folder of agent profiles, with abilities/ (default: the example agents)")
	c.Flags().StringVar(&opt.ModelConfig, "model-config", "", "file with a models: section (default: sanad.yaml in the home folder, if any)")
}

// openRunner opens the home for writing and a runner over it with the
// models of opt, and registers the built-in playbooks named in want (with
// opt's agents and policy); a name that is not built in is skipped.
func (a *app) openRunner(ctx context.Context, opt runnerOptions, want ...string) (*runner.Runner, error) {
	cfg := runner.Config{Dir: a.home(), CheckpointDirs: a.homeConfig(false).CheckpointDirs}
	if !opt.NoModels {
		s, err := loadModels(a.home(), opt.ModelConfig, os.Environ())
		if err != nil {
			return nil, err
		}
		if cfg.Models, err = s.open(); err != nil {
			return nil, err
		}
	}
	r, err := runner.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	pbs, err := examples.Playbooks()
	if err == nil {
		err = a.registerAll(r, opt, pbs, want)
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// registerAll registers those of pbs named in want, with opt's agents and
// policy.
func (a *app) registerAll(r *runner.Runner, opt runnerOptions, pbs []*playbook.Playbook, want []string) error {
	if contains(want, deal.Name) {
		pb, err := deal.New()
		if err != nil {
			return err
		}
		if err := r.Register(pb); err != nil {
			return err
		}
	}
	if slices.ContainsFunc(want, func(n string) bool { return contains(caseworkNames, n) }) {
		cpbs, err := casework.Playbooks(opt.Casework)
		if err != nil {
			return err
		}
		for _, pb := range cpbs {
			if contains(want, pb.Name) {
				if err := r.Register(pb); err != nil {
					return err
				}
			}
		}
	}
	if contains(want, rag.Name) {
		emb, err := a.embedder(opt.ModelConfig)
		if err != nil {
			return err
		}
		if _, err := rag.Register(r, rag.Config{Embedder: emb}); err != nil {
			return err
		}
	}
	for _, p := range pbs {
		if !contains(want, p.Name) {
			continue
		}
		if p.Workflow != nil {
			if err := customize(p, opt); err != nil {
				return err
			}
		}
		if err := r.Register(p); err != nil {
			return usageError{err}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// customize gives p the agents of opt.AgentsDir and the policy of
// opt.PolicyDir, when set.
func customize(p *playbook.Playbook, opt runnerOptions) error {
	if opt.AgentsDir != "" {
		if st, err := os.Stat(opt.AgentsDir); err != nil || !st.IsDir() {
			return usagef("--agents %s: not a folder of agent profiles", opt.AgentsDir)
		}
		agents, abilities, err := playbook.LoadAgents(os.DirFS(opt.AgentsDir), ".")
		if err != nil {
			return usageError{err}
		}
		p.Agents, p.Abilities = agents, abilities
	}
	if opt.PolicyDir != "" {
		set, err := policy.Load(opt.PolicyDir)
		if err != nil {
			return usageError{err}
		}
		p.Policy = set
	}
	return nil
}

// filePlaybook returns the playbook of a workflow file or a playbook folder,
// with opt's agents and policy. A workflow file's playbook has the example
// agents unless opt names others.
func filePlaybook(arg string, opt runnerOptions) (*playbook.Playbook, error) {
	st, err := os.Stat(arg)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		p, err := playbook.Load(os.DirFS(arg))
		if err != nil {
			return nil, usageError{err}
		}
		return p, customize(p, opt)
	}
	f, err := os.Open(arg)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, workflow.MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	def, err := workflow.Parse(arg, data)
	if err != nil {
		return nil, usageError{err}
	}
	return definitionPlaybook(def, opt)
}

// definitionPlaybook returns the playbook of a workflow definition: named
// after it, with the example agents, or opt's agents and policy.
func definitionPlaybook(def *workflow.Definition, opt runnerOptions) (*playbook.Playbook, error) {
	agents, abilities, err := playbook.LoadAgents(examples.FS, "agents")
	if err != nil {
		return nil, err
	}
	p := &playbook.Playbook{Name: def.Name, Description: def.Description, Agents: agents, Abilities: abilities, Workflow: def}
	return p, customize(p, opt)
}

// builtinNames lists the built-in workflow playbooks.
func builtinNames() []string {
	files, _ := fs.Glob(examples.FS, "workflows/*.yaml")
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(filepath.Base(f), ".yaml")
	}
	return append(append(names, rag.Name, deal.Name), caseworkNames...)
}

// caseworkNames are the casework playbooks, one per kind of case request.
var caseworkNames = []string{casework.Open, casework.Interview, casework.Map, casework.Promote, casework.Export}

// isNotExist reports whether err says a file does not exist.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
