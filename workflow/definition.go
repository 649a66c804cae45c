package workflow

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/schemafile"
)

// Strategy says what a workflow does when a step fails (seed 003 INV-PE-003).
type Strategy string

// The failure strategies.
const (
	// FailFast stops at the first failure: no further step starts, and
	// steps already running finish.
	FailFast Strategy = "failFast"
	// ContinueOnError runs every step whose dependencies succeeded and
	// reports all failures together.
	ContinueOnError Strategy = "continueOnError"
	// Rollback stops like FailFast, then compensates the completed steps in
	// the reverse order of their completion.
	Rollback Strategy = "rollback"
)

// MaxFileBytes is the largest workflow file Parse accepts.
const MaxFileBytes = 1 << 20

// Definition is a validated workflow: ordered steps, optionally a DAG.
type Definition struct {
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	// Agent is the default acting agent of steps that name none.
	Agent  string   `json:"agent,omitempty"`
	Agents []string `json:"agents,omitempty"`
	// Strategy is FailFast when empty.
	Strategy Strategy `json:"strategy,omitempty"`
	// MaxConcurrency bounds how many steps run at once (1 when zero). Steps
	// run in parallel only when it is above 1 (INV-AGT-003).
	MaxConcurrency int             `json:"max_concurrency,omitempty"`
	Input          json.RawMessage `json:"input,omitempty"`
	Steps          []Step          `json:"steps"`
}

// Step is one step of a workflow.
type Step struct {
	ID          string `json:"id"`
	Description string `json:"description,omitempty"`
	// Agent acts in the step (the workflow's agent when empty).
	Agent string `json:"agent,omitempty"`
	// Task is what the agent is asked to do, for actions that run an agent.
	Task string `json:"task,omitempty"`
	// Uses names the registered action the step runs ("tool" when Tool is
	// set and Uses is empty).
	Uses string `json:"uses,omitempty"`
	// Tool is the tool the "tool" action calls.
	Tool string `json:"tool,omitempty"`
	// Tools are the tools the step may call; Tool is always among them.
	Tools []string        `json:"tools,omitempty"`
	With  json.RawMessage `json:"with,omitempty"`
	// DependsOn lists steps whose outputs this step needs.
	DependsOn []string `json:"depends_on,omitempty"`
	// Compensate undoes the step during a rollback.
	Compensate *Action `json:"compensate,omitempty"`
	// Round is the debate round the step is part of (0 when none): every
	// tool call of the step carries it, with the workflow run's id as its
	// debate id, so that the gateway records both (seed 000 §6.1) and
	// applies its per-round limits (§6.2) to the round.
	Round int `json:"round,omitempty"`
}

// Action is a compensation: an action and its input.
type Action struct {
	Uses string          `json:"uses"`
	Tool string          `json:"tool,omitempty"`
	With json.RawMessage `json:"with,omitempty"`
}

//go:embed schema/workflow.schema.json
var schemaFiles embed.FS

var schema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	all, err := schemafile.Compile(schemaFiles, "https://sanad.dev/schema/", "workflow")
	if err != nil {
		return nil, err
	}
	return all["workflow"], nil
})

// patternHints word the schema's patterns for authors.
var patternHints = map[string]string{
	`^[a-z0-9]+([-_][a-z0-9]+)*$`: "use lower case letters and digits in words joined by '-' or '_', such as due-diligence",
	`^[a-z][a-z0-9_.-]*$`:         "an action or tool name is lower case letters, digits, '_', '.' or '-', starting with a letter",
}

// Parse reads a workflow file (YAML or JSON), checks it against the workflow
// schema and the rules a schema cannot state (unique step ids, known
// dependencies, no cycles), and returns the definition. Every failure is an
// INVALID_INPUT error that names the file, and the line for what the schema
// refuses.
func Parse(file string, data []byte) (*Definition, error) {
	const op = "workflow.parse"
	root, err := schemafile.Parse(file, data, schemafile.Limits{MaxBytes: MaxFileBytes})
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, err.Error())
	}
	s, err := schema()
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, "the workflow schema does not compile")
	}
	if err := schemafile.Validate(file, root, s, patternHints); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, err.Error())
	}
	raw, err := json.Marshal(root.Value())
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, file+": "+err.Error())
	}
	var d Definition
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, file+": "+err.Error())
	}
	if err := d.Validate(); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, file+": "+sanad.ErrorMessage(err))
	}
	return &d, nil
}

// Validate checks what the schema cannot: unique step ids, dependencies on
// known steps, no cycles, a known strategy, and an agent for every step. It
// fills in defaults.
func (d *Definition) Validate() error {
	const op = "workflow.validate"
	if d.Strategy == "" {
		d.Strategy = FailFast
	}
	switch d.Strategy {
	case FailFast, ContinueOnError, Rollback:
	default:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "strategy %q: want failFast, continueOnError or rollback", d.Strategy)
	}
	if d.MaxConcurrency == 0 {
		d.MaxConcurrency = 1
	}
	if d.MaxConcurrency < 1 {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "max_concurrency %d: want at least 1", d.MaxConcurrency)
	}
	if len(d.Steps) == 0 {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "a workflow needs at least one step")
	}
	index := make(map[string]int, len(d.Steps))
	for i := range d.Steps {
		s := &d.Steps[i]
		if s.ID == "" {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "step %d has no id", i+1)
		}
		if j, dup := index[s.ID]; dup {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "steps %d and %d are both named %q: step ids are unique", j+1, i+1, s.ID)
		}
		index[s.ID] = i
		if s.Agent == "" {
			s.Agent = d.Agent
		}
		if s.Agent == "" {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "step %q names no agent and the workflow has no default agent", s.ID)
		}
		if s.Uses == "" && s.Tool != "" {
			s.Uses = "tool"
		}
		if s.Uses == "" {
			s.Uses = "agent"
		}
		if s.Tool != "" && !contains(s.Tools, s.Tool) {
			s.Tools = append(s.Tools, s.Tool)
		}
		if s.Uses == "tool" && s.Tool == "" {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "step %q uses tool but names none", s.ID)
		}
		if s.Round < 0 {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "step %q: round %d is negative", s.ID, s.Round)
		}
		if c := s.Compensate; c != nil && c.Uses == "tool" && c.Tool == "" {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "the compensation of step %q uses tool but names none", s.ID)
		}
		for _, raw := range []json.RawMessage{s.With, compensateWith(s)} {
			if len(raw) > 0 {
				if _, err := canon.Parse(raw); err != nil {
					return sanad.Wrap(err, sanad.CodeInvalidInput, op, fmt.Sprintf("step %q: with is not valid JSON: %v", s.ID, err))
				}
			}
		}
	}
	for _, s := range d.Steps {
		for _, dep := range s.DependsOn {
			if _, ok := index[dep]; !ok {
				return sanad.Errorf(sanad.CodeInvalidInput, op, "step %q depends on %q, which is not a step of this workflow", s.ID, dep)
			}
			if dep == s.ID {
				return sanad.Errorf(sanad.CodeInvalidInput, op, "step %q depends on itself", s.ID)
			}
		}
	}
	if cycle := d.cycle(index); cycle != nil {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "the steps depend on each other in a cycle: %s", strings.Join(cycle, " → "))
	}
	return nil
}

func compensateWith(s *Step) json.RawMessage {
	if s.Compensate == nil {
		return nil
	}
	return s.Compensate.With
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// cycle returns one dependency cycle (its step ids, the first repeated at the
// end), or nil when the steps form a DAG.
func (d *Definition) cycle(index map[string]int) []string {
	const (
		unseen = iota
		open
		done
	)
	state := make([]int, len(d.Steps))
	var stack []string
	var visit func(i int) []string
	visit = func(i int) []string {
		state[i] = open
		stack = append(stack, d.Steps[i].ID)
		for _, dep := range d.Steps[i].DependsOn {
			j := index[dep]
			switch state[j] {
			case open:
				for k, id := range stack {
					if id == dep {
						return append(append([]string(nil), stack[k:]...), dep)
					}
				}
			case unseen:
				if c := visit(j); c != nil {
					return c
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[i] = done
		return nil
	}
	for i := range d.Steps {
		if state[i] == unseen {
			if c := visit(i); c != nil {
				return c
			}
		}
	}
	return nil
}

// Canonical returns the definition's canonical JSON: what a run records.
func (d *Definition) Canonical() ([]byte, error) {
	c, err := canon.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("workflow definition: %w", err)
	}
	return c, nil
}

// Digest is the hash of the definition's canonical JSON: what a run records
// and a resume checks.
func (d *Definition) Digest() (canon.Digest, error) {
	c, err := d.Canonical()
	if err != nil {
		return canon.Digest{}, err
	}
	return canon.Sum(c), nil
}

// step returns the index of the step named id, or -1.
func (d *Definition) step(id string) int {
	for i := range d.Steps {
		if d.Steps[i].ID == id {
			return i
		}
	}
	return -1
}
