// Package rag is the playbook that answers a question from a case's
// documents (seed 004): the guardrails screen the question, the orchestrator
// analyses it against the conversation and plans one retrieval per part,
// the memory agent searches the case's index and sets aside any passage that
// carries instructions, the tailor writes an answer in which every sentence
// cites the passage that supports it (or says plainly that the documents do
// not say), the guardrails check the answer, and the orchestrator saves the
// conversation. Every step is a workflow step and every check, search and
// write a tool call through the gateway, so the whole exchange is signed in
// the ledger and exports as a bundle that verifies offline.
package rag

import (
	"embed"
	"io/fs"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/guard"
	"github.com/sanadhq/sanad/guard/pii"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tailor"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

// Name is the playbook's name.
const Name = "rag"

// The agents of the playbook, by id.
const (
	AgentGuardrails   = "guardrails"
	AgentOrchestrator = "orchestrator"
	AgentMemory       = "memory"
	AgentTailor       = "tailor"
)

// Defaults of a question.
const (
	// DefaultTopK is how many passages each retrieval keeps.
	DefaultTopK = 6
	// DefaultHistory is how many earlier messages a turn carries.
	DefaultHistory = 12
	// SearchTimeout bounds one attempt of a search.
	SearchTimeout = 20 * time.Second
)

//go:embed policy/*.yaml rag.yaml
var files embed.FS

// Config is what the playbook works with.
type Config struct {
	// Guard screens questions, passages and answers (a default guard when
	// nil).
	Guard *guard.Guard
	// Embedder, when set, gives the memory index vector search besides
	// BM25.
	Embedder memory.Embedder
}

// Policy returns the playbook's policy: which role may call which tool,
// and the lane conversations are written in.
func Policy() (*policy.Set, error) {
	sub, err := fs.Sub(files, "policy")
	if err != nil {
		return nil, err
	}
	return policy.LoadFS(sub)
}

// New returns the rag playbook.
func New(cfg Config) (*playbook.Playbook, error) {
	const op = "rag.new"
	if cfg.Guard == nil {
		g, err := DefaultGuard()
		if err != nil {
			return nil, err
		}
		cfg.Guard = g
	}
	pol, err := Policy()
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, "the rag policy")
	}
	data, err := files.ReadFile("rag.yaml")
	if err != nil {
		return nil, err
	}
	def, err := workflow.Parse("rag.yaml", data)
	if err != nil {
		return nil, err
	}
	pb := &playbook.Playbook{
		Name:        Name,
		Description: def.Description,
		Agents:      Agents(),
		Policy:      pol,
		Workflow:    def,
		Nodes: map[string]playbook.NodeFunc{
			AgentGuardrails:   func(p agent.Profile) agent.Node { return agent.Func(p, screen) },
			AgentOrchestrator: func(p agent.Profile) agent.Node { return agent.Func(p, orchestrate) },
			AgentMemory:       func(p agent.Profile) agent.Node { return agent.Func(p, retrieve) },
			AgentTailor:       func(p agent.Profile) agent.Node { return agent.Func(p, answer) },
		},
		Toolkit: func(env playbook.Env) ([]tool.Spec, error) {
			if env.Home == nil {
				return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "the rag playbook needs a home")
			}
			return tools(env.Home, cfg, pol), nil
		},
	}
	return pb, nil
}

// DefaultGuard returns the guard the playbook uses when its Config gives
// none: every built-in check, with personal data redacted except plain
// URLs and people's names, which are what a case's documents are about (a
// URL carrying credentials is still redacted).
func DefaultGuard() (*guard.Guard, error) {
	var types []string
	for _, t := range pii.BuiltinTypes() {
		if t != pii.TypeURL && t != pii.TypePerson {
			types = append(types, t)
		}
	}
	return guard.New(guard.Config{PII: pii.Config{Types: types}})
}

// Agents returns the profiles of the playbook's agents.
func Agents() []agent.Profile {
	return []agent.Profile{
		{ID: AgentGuardrails, Name: "Guardrails", Role: "GUARDRAILS", ModelClass: "none", Enabled: true, Version: "1.0.0",
			Description:    "The shield: screens questions, retrieved passages and answers for prompt injection and personal data.",
			PermittedTools: []string{ToolGuardCheck, ToolGuardScreen}},
		{ID: AgentOrchestrator, Name: "Orchestrator", Role: "ORCHESTRATOR", ModelClass: "none", Enabled: true, Version: "1.0.0",
			Description:    "The brain: analyses the question, plans one retrieval per part, and keeps the conversation.",
			PermittedTools: []string{ToolSave}},
		{ID: AgentMemory, Name: "Memory", Role: "RETRIEVER", ModelClass: "none", Enabled: true, Version: "1.0.0",
			Description:    "The librarian: searches the case's memory index and sets aside passages that carry instructions.",
			PermittedTools: []string{ToolSearch, ToolGuardScreen}},
		{ID: AgentTailor, Name: "Tailor", Role: "TAILOR", ModelClass: "reasoning", Enabled: true, Version: "1.0.0",
			Description:    "The editor: writes the answer from the retrieved passages, every sentence cited, or says the documents do not say.",
			PermittedTools: []string{ToolGuardCheck}},
	}
}

// Input is the input of one turn: the workflow's input.
type Input struct {
	Question  string `json:"question"`
	SessionID string `json:"session_id"`
	UserID    string `json:"user_id,omitempty"`
	Persona   string `json:"persona,omitempty"`
	// History is the conversation so far, as its state holds it.
	History     []Message      `json:"history,omitempty"`
	Preferences map[string]any `json:"preferences,omitempty"`
	Turns       int            `json:"turns,omitempty"`
	TopK        int            `json:"top_k,omitempty"`
	// MinRelevance is the score a passage must reach (0 keeps the best
	// TopK whatever they score).
	MinRelevance float64        `json:"min_relevance,omitempty"`
	Filters      map[string]any `json:"filters,omitempty"`
	// At is when the question was asked, the time of the turn's messages.
	At time.Time `json:"at"`
	// Redacted names the kinds of personal data the guardrails redacted
	// from the question before it was recorded (the values are not kept).
	Redacted []string `json:"redacted,omitempty"`
}

// Retrieved is the memory agent's output: the passages found, per part of
// the plan, and those set aside.
type Retrieved struct {
	Context  []memory.Result `json:"context"`
	Parts    [][]string      `json:"parts"` // chunk ids per sub-query
	SetAside []SetAside      `json:"set_aside"`
	Searched []string        `json:"searched"`
	Steps    []PlanStep      `json:"steps"`
}

// SetAside is a retrieved passage the guardrails flagged: it is not used,
// and the answer says so.
type SetAside struct {
	ChunkID  string `json:"chunk_id"`
	SourceID string `json:"source_id"`
	Title    string `json:"title,omitempty"`
	Reason   string `json:"reason"`
	// Partly says only the paragraphs that carry instructions were set
	// aside; the rest of the passage was used.
	Partly bool `json:"partly,omitempty"`
}

// Answer is the tailor's output: the seed's TailorOutput, with what was set
// aside and the code of a refusal.
type Answer struct {
	tailor.Output
	Code     sanad.Code `json:"code,omitempty"`
	SetAside []SetAside `json:"set_aside"`
	// Redacted says the guardrails redacted personal data from the answer.
	Redacted bool   `json:"redacted,omitempty"`
	Retried  bool   `json:"retried,omitempty"`
	Mode     string `json:"mode"`
}

// Outcome is the orchestrator's last output (seed 004 OrchestratorOutput,
// without the time it took: that is in the run's record, and a step's
// output depends only on the record).
type Outcome struct {
	FinalResponse Answer     `json:"final_response"`
	ExecutionPlan []PlanStep `json:"execution_plan"`
	Intent        string     `json:"intent"`
	Question      string     `json:"question"`
	SessionID     string     `json:"session_id"`
}
