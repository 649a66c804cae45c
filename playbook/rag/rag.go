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
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/dbwrite"
	"github.com/sanadhq/sanad/guard"
	"github.com/sanadhq/sanad/guard/pii"
	"github.com/sanadhq/sanad/home"
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

func decode[T any](raw json.RawMessage, what string) (T, error) {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, sanad.Wrap(err, sanad.CodeInvalidInput, "rag", what)
	}
	return v, nil
}

func output(v any, summary string) (agent.Output, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return agent.Output{}, sanad.Wrap(err, sanad.CodeInternal, "rag", summary)
	}
	return agent.Output{Content: raw, Summary: summary}, nil
}

func call[T any](ctx context.Context, in agent.Input, name string, arg any) (T, error) {
	var v T
	raw, err := json.Marshal(arg)
	if err != nil {
		return v, sanad.Wrap(err, sanad.CodeInternal, "rag", name)
	}
	out, err := in.Tools.Call(ctx, name, raw)
	if err != nil {
		return v, err
	}
	return decode[T](out, name+" output")
}

// screen is the guardrails' first step: the question, checked.
func screen(ctx context.Context, in agent.Input) (agent.Output, error) {
	q, err := decode[Input](in.Input, "the question")
	if err != nil {
		return agent.Output{}, err
	}
	out, err := call[guard.Output](ctx, in, ToolGuardCheck, guard.Input{Content: q.Question, CheckType: guard.InputValidation})
	if err != nil {
		return agent.Output{}, err
	}
	verdict := "safe"
	if !out.IsSafe {
		verdict = "blocked: " + out.RiskCategory
	}
	return output(out, "the question is "+verdict)
}

// orchestrate is the orchestrator: the plan (after screen), or the saved
// conversation and the executed plan (after answer).
func orchestrate(ctx context.Context, in agent.Input) (agent.Output, error) {
	q, err := decode[Input](in.Input, "the question")
	if err != nil {
		return agent.Output{}, err
	}
	g, err := decode[guard.Output](in.Inputs["screen"], "the screening")
	if err != nil {
		return agent.Output{}, err
	}
	if _, answered := in.Inputs["answer"]; !answered {
		var p Plan
		if !g.IsSafe && g.RiskCategory == "injection" {
			p = Blocked(g.SanitizedContent, "The question was blocked: "+g.Reasoning)
		} else {
			var history []string
			for _, m := range q.History {
				if m.Role == "user" {
					history = append(history, m.Content)
				}
			}
			p = Analyze(g.SanitizedContent, history)
		}
		return output(p, fmt.Sprintf("%s: %d retrievals planned", p.Intent, len(p.SubQueries)))
	}
	p, err := decode[Plan](in.Inputs["plan"], "the plan")
	if err != nil {
		return agent.Output{}, err
	}
	r, err := decode[Retrieved](in.Inputs["retrieve"], "the retrieval")
	if err != nil {
		return agent.Output{}, err
	}
	a, err := decode[Answer](in.Inputs["answer"], "the answer")
	if err != nil {
		return agent.Output{}, err
	}
	steps := executed(p, r, a)
	st := State{SessionID: q.SessionID, UserID: q.UserID, History: slices.Clone(q.History),
		UserPreferences: q.Preferences, Turns: q.Turns + 1, CurrentPlan: steps, AccumulatedContext: []ContextRef{}}
	if st.UserPreferences == nil {
		st.UserPreferences = map[string]any{}
	}
	if q.Persona != "" {
		st.UserPreferences["persona"] = q.Persona
	}
	st.AddMessage("user", p.Question, q.At)
	st.AddMessage("assistant", a.Content, q.At)
	for _, c := range r.Context {
		st.AccumulatedContext = append(st.AccumulatedContext, ContextRef{ChunkID: c.ChunkID, SourceID: c.SourceID, RelevanceScore: c.RelevanceScore})
	}
	if _, err := call[json.RawMessage](ctx, in, ToolSave, st); err != nil {
		steps[len(steps)-1].Status, steps[len(steps)-1].Note = StatusFailed, err.Error()
	} else {
		steps[len(steps)-1].Status = StatusCompleted
	}
	return output(Outcome{FinalResponse: a, ExecutionPlan: steps, Intent: p.Intent, Question: p.Question, SessionID: q.SessionID},
		fmt.Sprintf("turn %d of session %s saved", st.Turns, q.SessionID))
}

// executed returns the plan's steps with the statuses the turn reached.
func executed(p Plan, r Retrieved, a Answer) []PlanStep {
	steps := slices.Clone(p.Steps)
	if len(r.Steps) == len(steps) {
		steps = slices.Clone(r.Steps)
	}
	for i := range steps {
		if steps[i].ToolCall == ToolCompose {
			steps[i].Status = StatusCompleted
			if a.Refused {
				steps[i].Note = "refused: " + a.Reason
			}
		}
		if steps[i].ToolCall == ToolGuardCheck && i > 0 {
			steps[i].Status = StatusCompleted
			if a.Code == sanad.CodeGuardrailUnsafe {
				steps[i].Status = StatusFailed
			}
		}
	}
	return steps
}

// retrieve is the memory agent: one search per retrieve step of the plan,
// broadened when it finds nothing, then every passage screened.
func retrieve(ctx context.Context, in agent.Input) (agent.Output, error) {
	q, err := decode[Input](in.Input, "the question")
	if err != nil {
		return agent.Output{}, err
	}
	p, err := decode[Plan](in.Inputs["plan"], "the plan")
	if err != nil {
		return agent.Output{}, err
	}
	r := Retrieved{Context: []memory.Result{}, Parts: [][]string{}, SetAside: []SetAside{}, Searched: []string{}, Steps: slices.Clone(p.Steps)}
	topK := q.TopK
	if topK <= 0 {
		topK = DefaultTopK
	}
	seen := map[string]int{}
	for i, s := range r.Steps {
		if s.ToolCall != ToolSearch {
			continue
		}
		r.Searched = append(r.Searched, s.Query)
		found, note, err := search(ctx, in, memory.Query{QueryText: s.Query, TopK: topK, MinRelevanceScore: q.MinRelevance, Filters: q.Filters})
		if err != nil {
			return agent.Output{}, err
		}
		r.Steps[i].Status, r.Steps[i].Note = StatusCompleted, note
		if len(found) == 0 {
			r.Steps[i].Status = StatusFailed
		}
		var ids []string
		for _, c := range found {
			ids = append(ids, c.ChunkID)
			if _, dup := seen[c.ChunkID]; !dup {
				seen[c.ChunkID] = len(r.Context)
				r.Context = append(r.Context, c)
			}
		}
		r.Parts = append(r.Parts, ids)
	}
	if len(r.Context) > 0 {
		items := make([]screenItem, len(r.Context))
		for i, c := range r.Context {
			items[i] = screenItem{ID: c.ChunkID, Content: c.Content}
		}
		verdicts, err := call[screenOutput](ctx, in, ToolGuardScreen, screenInput{CheckType: guard.InputValidation, Items: items})
		if err != nil {
			return agent.Output{}, err
		}
		flagged := map[string]string{}
		for _, v := range verdicts.Results {
			if !v.IsSafe && v.RiskCategory == guard.RiskInjection {
				flagged[v.ID] = v.Reasoning
			}
		}
		clean, err := salvage(ctx, in, r.Context, flagged)
		if err != nil {
			return agent.Output{}, err
		}
		kept := r.Context[:0:0]
		for _, c := range r.Context {
			why, bad := flagged[c.ChunkID]
			if !bad {
				kept = append(kept, c)
				continue
			}
			title, _ := c.Metadata["title"].(string)
			aside := SetAside{ChunkID: c.ChunkID, SourceID: c.SourceID, Title: title, Reason: why}
			if text, ok := clean[c.ChunkID]; ok {
				aside.Partly = true
				c.Content = text
				c.Metadata = maps.Clone(c.Metadata)
				c.Metadata["set_aside_paragraphs"] = true
				kept = append(kept, c)
			}
			r.SetAside = append(r.SetAside, aside)
		}
		r.Context = kept
		keptIDs := map[string]bool{}
		for _, c := range kept {
			keptIDs[c.ChunkID] = true
		}
		for i := range r.Parts {
			r.Parts[i] = slices.DeleteFunc(r.Parts[i], func(id string) bool { return !keptIDs[id] })
		}
	}
	// The relative cut comes once passages that carry instructions are set
	// aside, so that such a passage cannot crowd the others out.
	byID := map[string]memory.Result{}
	for _, c := range r.Context {
		byID[c.ChunkID] = c
	}
	keep := map[string]bool{}
	for i, ids := range r.Parts {
		var rs []memory.Result
		for _, id := range ids {
			if c, ok := byID[id]; ok {
				rs = append(rs, c)
			}
		}
		r.Parts[i] = r.Parts[i][:0]
		for _, c := range relevant(rs) {
			r.Parts[i] = append(r.Parts[i], c.ChunkID)
			keep[c.ChunkID] = true
		}
	}
	r.Context = slices.DeleteFunc(r.Context, func(c memory.Result) bool { return !keep[c.ChunkID] })
	for i := range r.Steps {
		if r.Steps[i].ToolCall == ToolGuardScreen {
			r.Steps[i].Status = StatusCompleted
			if len(r.SetAside) > 0 {
				r.Steps[i].Note = fmt.Sprintf("%d passage(s) set aside", len(r.SetAside))
			}
		}
	}
	return output(r, fmt.Sprintf("%d passages kept, %d set aside", len(r.Context), len(r.SetAside)))
}

// salvage screens, paragraph by paragraph, the passages the guardrails
// flagged, and returns for each the paragraphs that carry no instruction
// (none when every paragraph does, or the passage is one paragraph): the
// facts of a supplier's email stay usable while the note that tells the
// assistant what to say is set aside.
func salvage(ctx context.Context, in agent.Input, context []memory.Result, flagged map[string]string) (map[string]string, error) {
	var items []screenItem
	paras := map[string][]string{}
	for _, c := range context {
		if _, bad := flagged[c.ChunkID]; !bad {
			continue
		}
		ps := paragraphs(c.Content)
		if len(ps) < 2 {
			continue
		}
		paras[c.ChunkID] = ps
		for i, p := range ps {
			items = append(items, screenItem{ID: fmt.Sprintf("%s#%d", c.ChunkID, i), Content: p})
		}
	}
	out := map[string]string{}
	if len(items) == 0 {
		return out, nil
	}
	verdicts, err := call[screenOutput](ctx, in, ToolGuardScreen, screenInput{CheckType: guard.InputValidation, Items: items})
	if err != nil {
		return nil, err
	}
	bad := map[string]bool{}
	for _, v := range verdicts.Results {
		if !v.IsSafe && v.RiskCategory == guard.RiskInjection {
			bad[v.ID] = true
		}
	}
	for id, ps := range paras {
		var keep []string
		for i, p := range ps {
			if !bad[fmt.Sprintf("%s#%d", id, i)] {
				keep = append(keep, p)
			}
		}
		if len(keep) > 0 && len(keep) < len(ps) {
			out[id] = strings.Join(keep, "\n\n")
		}
	}
	return out, nil
}

// paragraphs splits Markdown text at blank lines.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if strings.TrimSpace(p) != "" {
			out = append(out, strings.TrimSpace(p))
		}
	}
	return out
}

// search runs one retrieval; when nothing clears the threshold
// (ERR_MEMORY_NO_RESULTS) it broadens once: no threshold, no filters.
func search(ctx context.Context, in agent.Input, mq memory.Query) ([]memory.Result, string, error) {
	out, err := call[memory.Output](ctx, in, ToolSearch, mq)
	var te *agent.ToolError
	if err != nil && asToolError(err, &te) && te.Code == sanad.CodeMemoryNoResults && (mq.MinRelevanceScore > 0 || len(mq.Filters) > 0) {
		mq.MinRelevanceScore, mq.Filters = 0, nil
		out, err = call[memory.Output](ctx, in, ToolSearch, mq)
		if err == nil {
			return out.Results, fmt.Sprintf("broadened: %d found without threshold or filters", len(out.Results)), nil
		}
	}
	if err != nil {
		if asToolError(err, &te) && te.Code == sanad.CodeMemoryNoResults {
			return nil, "nothing found", nil
		}
		return nil, "", err
	}
	return out.Results, fmt.Sprintf("%d found", len(out.Results)), nil
}

// RelativeCut is the share of the best passage's score a passage must
// reach to be kept: below it, a passage matched the query only on words
// most passages hold (the company's name), and would dilute the answer.
const RelativeCut = 0.1

// relevant returns the results that score at least RelativeCut of the
// best one.
func relevant(rs []memory.Result) []memory.Result {
	if len(rs) == 0 {
		return rs
	}
	best := rs[0].RelevanceScore
	for _, r := range rs {
		best = max(best, r.RelevanceScore)
	}
	var out []memory.Result
	for _, r := range rs {
		if r.RelevanceScore >= RelativeCut*best {
			out = append(out, r)
		}
	}
	return out
}

func asToolError(err error, te **agent.ToolError) bool {
	e, ok := err.(*agent.ToolError)
	if ok {
		*te = e
	}
	return ok
}

// answer is the tailor: the cited answer from the kept passages, checked by
// the guardrails; unsafe output gets one stricter retry, then a refusal.
func answer(ctx context.Context, in agent.Input) (agent.Output, error) {
	q, err := decode[Input](in.Input, "the question")
	if err != nil {
		return agent.Output{}, err
	}
	p, err := decode[Plan](in.Inputs["plan"], "the plan")
	if err != nil {
		return agent.Output{}, err
	}
	r, err := decode[Retrieved](in.Inputs["retrieve"], "the retrieval")
	if err != nil {
		return agent.Output{}, err
	}
	a := Answer{SetAside: r.SetAside, Mode: "offline"}
	if in.Model != nil {
		a.Mode = "model"
	}
	if p.Reply != "" {
		a.Output = tailor.Output{Content: p.Reply, Citations: []tailor.Citation{}, Sentences: []tailor.Sentence{},
			FollowUpSuggestions: []string{}, ToneUsed: persona(q.Persona), Refused: p.Intent == IntentBlocked}
		if p.Intent == IntentBlocked {
			a.Code, a.Reason = sanad.CodeGuardrailInjection, p.Reply
		}
		return output(a, "no retrieval: "+p.Intent)
	}
	ti := tailor.Input{UserQuery: p.Question, ContextChunks: r.Context, Persona: persona(q.Persona), Searched: r.Searched}
	if len(p.SubQueries) > 1 {
		ti.SubQueries = p.SubQueries
	}
	compose := func(ti tailor.Input) (tailor.Output, error) {
		if in.Model != nil {
			return tailor.Write(ctx, in.Model, ti)
		}
		return tailor.Compose(ti)
	}
	out, err := compose(ti)
	if err != nil {
		return agent.Output{}, err
	}
	for attempt := 0; ; attempt++ {
		g, err := call[guard.Output](ctx, in, ToolGuardCheck, guard.Input{Content: out.Content, CheckType: guard.OutputSafety})
		if err != nil {
			return agent.Output{}, err
		}
		if g.IsSafe || g.RiskCategory == "pii" {
			a.Redacted = g.SanitizedContent != out.Content
			out.Content = g.SanitizedContent
			break
		}
		if attempt == 1 {
			out = tailor.Output{Content: "I can't give that answer: the check of its content failed twice (" + g.Reasoning + ").",
				Citations: []tailor.Citation{}, Sentences: []tailor.Sentence{}, FollowUpSuggestions: []string{},
				ToneUsed: ti.Persona, Refused: true, Reason: g.Reasoning}
			a.Code = sanad.CodeGuardrailUnsafe
			break
		}
		a.Retried = true
		ti.Strict = true
		if out, err = compose(ti); err != nil {
			return agent.Output{}, err
		}
	}
	if out.Refused && a.Code == "" {
		a.Code = sanad.CodeMemoryNoResults
		if len(r.Context) > 0 {
			a.Code = sanad.CodeTailorHallucination
		}
	}
	if n := len(r.SetAside); n > 0 {
		out.Content += "\n\n" + setAsideNote(r.SetAside)
	}
	a.Output = out
	summary := fmt.Sprintf("%d sentences, %d citations", len(out.Sentences), len(out.Citations))
	if out.Refused {
		summary = "refused: " + string(a.Code)
	}
	return output(a, summary)
}

func setAsideNote(s []SetAside) string {
	var names []string
	for _, x := range s {
		name := "a passage of " + cmpOr(x.Title, x.SourceID)
		if x.Partly {
			name = "part of a passage of " + cmpOr(x.Title, x.SourceID)
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if len(names) > 0 {
		names[0] = strings.ToUpper(names[0][:1]) + names[0][1:]
	}
	return fmt.Sprintf("Note: %s %s set aside: %s instructions addressed to the assistant, which were not followed.",
		strings.Join(names, "; "), pluralize(len(names) > 1, "was", "were"), pluralize(len(names) > 1, "it contains", "they contain"))
}

func pluralize(many bool, one, more string) string {
	if many {
		return more
	}
	return one
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func persona(p string) string {
	switch strings.ToLower(p) {
	case "technical":
		return "Technical"
	case "executive":
		return "Executive"
	default:
		return "General"
	}
}

type screenItem struct {
	ID      string `json:"id"`
	Content string `json:"content"`
}

type screenInput struct {
	CheckType string       `json:"check_type"`
	Items     []screenItem `json:"items"`
}

type screenResult struct {
	ID string `json:"id"`
	guard.Output
}

type screenOutput struct {
	Results []screenResult `json:"results"`
}

// tools returns the playbook's tools over home h.
func tools(h *home.Home, cfg Config, pol *policy.Set) []tool.Spec {
	index := &memory.Index{Store: h.DB, Embedder: cfg.Embedder}
	writer := &dbwrite.Writer{Policy: pol, Runs: h.Runs, Artifacts: h.Artifacts}
	object := json.RawMessage(`{"type":"object"}`)
	return []tool.Spec{
		{
			Name: ToolGuardCheck, Description: "Screen one text for prompt injection and personal data (seed 004 GuardrailsInput → GuardrailsOutput).",
			InputSchema:  json.RawMessage(`{"type":"object","required":["content","check_type"],"properties":{"content":{"type":"string"},"check_type":{"enum":["input_validation","output_safety"]},"metadata":{"type":"object"}}}`),
			OutputSchema: object, Risk: "check", SideEffect: tool.SideEffectNone, Idempotent: true,
			Func: func(ctx context.Context, c tool.Call) (json.RawMessage, error) {
				var gi guard.Input
				if err := json.Unmarshal(c.Input, &gi); err != nil {
					return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolGuardCheck, "input")
				}
				out, err := cfg.Guard.Check(gi)
				if err != nil {
					return nil, err
				}
				return json.Marshal(out)
			},
		},
		{
			Name: ToolGuardScreen, Description: "Screen retrieved passages, each for instructions addressed to the assistant and for personal data.",
			InputSchema:  json.RawMessage(`{"type":"object","required":["check_type","items"],"properties":{"check_type":{"enum":["input_validation","output_safety"]},"items":{"type":"array","maxItems":1000,"items":{"type":"object","required":["id","content"],"properties":{"id":{"type":"string"},"content":{"type":"string"}}}}}}`),
			OutputSchema: object, Risk: "check", SideEffect: tool.SideEffectNone, Idempotent: true,
			Func: func(ctx context.Context, c tool.Call) (json.RawMessage, error) {
				var si screenInput
				if err := json.Unmarshal(c.Input, &si); err != nil {
					return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolGuardScreen, "input")
				}
				out := screenOutput{Results: make([]screenResult, 0, len(si.Items))}
				for _, it := range si.Items {
					g, err := cfg.Guard.Check(guard.Input{Content: it.Content, CheckType: si.CheckType, Metadata: map[string]any{"retrieved": true}})
					if err != nil {
						return nil, err
					}
					g.SanitizedContent = "" // the passage is in the index; its verdict is what is recorded
					out.Results = append(out.Results, screenResult{ID: it.ID, Output: g})
				}
				return json.Marshal(out)
			},
		},
		{
			Name: ToolSearch, Description: "Search the case's memory index (seed 004 MemoryQuery → MemoryOutput).",
			InputSchema:  json.RawMessage(`{"type":"object","required":["query_text"],"properties":{"query_text":{"type":"string","minLength":1,"maxLength":4000},"top_k":{"type":"integer","minimum":0,"maximum":100},"min_relevance_score":{"type":"number","minimum":0,"maximum":1},"filters":{"type":"object"}}}`),
			OutputSchema: object, Risk: "read", SideEffect: tool.SideEffectNone, Idempotent: true,
			// ERR_TIMEOUT: retry once, then fail (seed 004).
			Timeout: SearchTimeout, Retry: tool.Retry{MaxAttempts: 2},
			Func: func(ctx context.Context, c tool.Call) (json.RawMessage, error) {
				var mq memory.Query
				if err := json.Unmarshal(c.Input, &mq); err != nil {
					return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolSearch, "input")
				}
				out, err := index.Search(ctx, c.Principal.Scope, mq)
				if err != nil {
					return nil, err
				}
				return json.Marshal(out)
			},
		},
		{
			Name: ToolSave, Description: "Save a session's conversation state at the end of a turn, through the conversations lane.",
			InputSchema:  json.RawMessage(`{"type":"object","required":["session_id","history"],"properties":{"session_id":{"type":"string","minLength":1,"maxLength":128},"history":{"type":"array"}}}`),
			OutputSchema: object, Risk: "record", SideEffect: tool.SideEffectInternal, Idempotent: true,
			Func: func(ctx context.Context, c tool.Call) (json.RawMessage, error) {
				var st State
				if err := json.Unmarshal(c.Input, &st); err != nil {
					return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolSave, "input")
				}
				if err := validSessionID(st.SessionID); err != nil {
					return nil, err
				}
				rec, err := h.DB.Run(ctx, c.Run)
				if err != nil {
					return nil, err
				}
				parent, err := h.Runs.Attach(rec, "")
				if err != nil {
					return nil, err
				}
				res, err := writer.Write(ctx, parent, c.Principal, dbwrite.Request{Lane: Lane, Table: Table, Op: dbwrite.Upsert, Key: st.SessionID, Record: c.Input})
				if err != nil {
					return nil, err
				}
				return json.Marshal(res)
			},
		},
	}
}
