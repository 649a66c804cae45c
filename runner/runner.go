// Package runner is sanad's front door: it opens a home, holds the playbooks
// registered with it (their agents and implementations, tools, policies,
// workflows and sessions) and the model classes agents may use, and runs,
// resumes, replays and cancels their work. The command line, and any Go
// program, are clients of it.
//
// A minimal program registers a playbook and runs it:
//
//	r, err := runner.Open(ctx, runner.Config{Dir: ".sanad"})
//	...
//	defer r.Close()
//	err = r.Register(&playbook.Playbook{Name: "greet", Agents: ..., Tools: ..., Workflow: ...})
//	res, err := r.Run(ctx, "greet", map[string]any{"name": "Ada"}, runner.Options{})
//
// Every step is a signed event of the run's trace; [Runner.Show] reads it
// back with each step's output.
package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"sort"
	"sync"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent/llmagent"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/tool/builtin"
	"github.com/sanadhq/sanad/workflow"
)

// DefaultAbilityBudget is the token budget of the abilities injected into an
// agent's system prompt when Config.AbilityBudget is zero.
const DefaultAbilityBudget = 1024

// The modes a playbook's agents run in.
const (
	// ModeDeterministic: no agent has a model; each is the offline agent
	// (or the playbook's own implementation).
	ModeDeterministic = "deterministic"
	// ModeModel: at least one agent's model class has a model.
	ModeModel = "model"
)

// Config configures a [Runner].
type Config struct {
	// Dir is the home folder to open; Home, when set instead, is an open
	// home the runner uses and does not close.
	Dir  string
	Home *home.Home
	// ReadOnly opens Dir without taking the writer lock: the runner can
	// show what is recorded, and runs nothing.
	ReadOnly bool
	// CheckpointDirs are folders outside the home that keep a copy of the
	// log's latest checkpoint (home.Config.CheckpointDirs).
	CheckpointDirs []string
	// Models are the model classes agents may use; nil or empty means
	// deterministic mode.
	Models *model.Registry
	// MaxTurns bounds the model calls of one agent task
	// (llmagent.DefaultMaxTurns when zero).
	MaxTurns int
	// AbilityBudget bounds, in tokens, the abilities injected into an
	// agent's system prompt (DefaultAbilityBudget when zero).
	AbilityBudget int
	// GateRole must be satisfied by whoever resolves the gates of a run
	// (workflow.DefaultGateRole when empty).
	GateRole string
	// WaitForGates makes a run wait for its open gates to be resolved
	// instead of stopping, still running, until a resume.
	WaitForGates bool
	// OnEvent is called with each step and effect event of a workflow run
	// once it is durable, for progress reports; it must not block.
	OnEvent func(*ledger.Event)
	// Crash is called at the named crash points of the engines, for crash
	// tests; nil does nothing.
	Crash func(point string)
}

// Runner runs the playbooks registered with it over one home. It is safe for
// concurrent use. Close it when done.
type Runner struct {
	cfg     Config
	home    *home.Home
	ownHome bool
	calls   *model.Recorder
	builtin []tool.Spec

	mu    sync.RWMutex // guards books
	books map[string]*book
}

// Open opens the home of cfg and returns a runner over it, with no playbook
// registered.
func Open(ctx context.Context, cfg Config) (*Runner, error) {
	const op = "runner.open"
	r := &Runner{cfg: cfg, books: map[string]*book{}}
	switch {
	case cfg.Home != nil:
		r.home = cfg.Home
	case cfg.Dir == "":
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "a runner needs a home: Config.Dir or Config.Home")
	default:
		h, err := home.Open(ctx, home.Config{Dir: cfg.Dir, ReadOnly: cfg.ReadOnly, CheckpointDirs: cfg.CheckpointDirs})
		if err != nil {
			return nil, err
		}
		r.home, r.ownHome = h, true
	}
	r.cfg.AbilityBudget = cmp.Or(r.cfg.AbilityBudget, DefaultAbilityBudget)
	r.cfg.MaxTurns = cmp.Or(r.cfg.MaxTurns, llmagent.DefaultMaxTurns)
	r.cfg.GateRole = cmp.Or(r.cfg.GateRole, workflow.DefaultGateRole)
	r.builtin = builtin.Tools(r.home.Artifacts)
	if r.home.Runs != nil {
		r.calls = &model.Recorder{Runs: r.home.Runs, Artifacts: r.home.Artifacts, Registry: cfg.Models}
	}
	return r, nil
}

// Close closes the home if the runner opened it.
func (r *Runner) Close() error {
	if r.ownHome {
		return r.home.Close()
	}
	return nil
}

// Home returns the runner's home.
func (r *Runner) Home() *home.Home { return r.home }

// Register adds p. Its agents, tools, policy and workflow are checked now
// (INVALID_INPUT naming what is wrong); a name already registered is
// CONFLICT. p must not be changed once registered.
func (r *Runner) Register(p *playbook.Playbook) error {
	b, err := r.newBook(p)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.books[p.Name]; dup {
		return sanad.Errorf(sanad.CodeConflict, "runner.register", "playbook %s is already registered", p.Name)
	}
	r.books[p.Name] = b
	return nil
}

// Playbook returns the registered playbook name.
func (r *Runner) Playbook(name string) (*playbook.Playbook, bool) {
	b, err := r.book(name)
	if err != nil {
		return nil, false
	}
	return b.pb, true
}

// Playbooks returns the registered playbooks, sorted by name.
func (r *Runner) Playbooks() []*playbook.Playbook {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*playbook.Playbook, 0, len(r.books))
	for _, b := range r.books {
		out = append(out, b.pb)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Tools returns the tools of the playbook name, built-in ones included,
// sorted by name.
func (r *Runner) Tools(name string) ([]tool.Spec, error) {
	b, err := r.book(name)
	if err != nil {
		return nil, err
	}
	return b.tools.List(), nil
}

// Mode returns the mode the agents of the playbook name run in.
func (r *Runner) Mode(name string) (string, error) {
	b, err := r.book(name)
	if err != nil {
		return "", err
	}
	return b.mode(), nil
}

func (r *Runner) book(name string) (*book, error) {
	r.mu.RLock()
	b, ok := r.books[name]
	r.mu.RUnlock()
	if !ok {
		return nil, sanad.Errorf(sanad.CodeNotFound, "runner", "no playbook %q is registered (registered: %v)", name, r.names())
	}
	return b, nil
}

func (r *Runner) names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.books))
	for n := range r.books {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// writable reports, as INVALID_INPUT, a runner that cannot record.
func (r *Runner) writable(op string) error {
	if r.home.Runs == nil {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "the home %s is open read-only: nothing can be run", r.home.Dir)
	}
	return nil
}

// inputJSON returns input as a JSON object: json.RawMessage and []byte as
// they are, anything else encoded; nil is the workflow's own input.
func inputJSON(input any) (json.RawMessage, error) {
	const op = "runner.input"
	var raw []byte
	switch v := input.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if len(v) == 0 {
			return nil, nil
		}
		raw = v
	case []byte:
		if len(v) == 0 {
			return nil, nil
		}
		raw = v
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "the input does not encode as JSON: "+err.Error())
		}
		raw = b
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "the input must be a JSON object, such as {\"target\": \"Acme\"}")
	}
	return raw, nil
}

// isCode reports whether err carries one of codes.
func isCode(err error, codes ...sanad.Code) bool {
	var se *sanad.Error
	if !errors.As(err, &se) {
		return false
	}
	for _, c := range codes {
		if se.Code == c {
			return true
		}
	}
	return false
}
