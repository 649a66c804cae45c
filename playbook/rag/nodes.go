package rag

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/guard"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/tailor"
)

func decode[T any](raw json.RawMessage, what string) (T, error) {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, sanad.Wrap(err, sanad.CodeInvalidInput, "rag", what)
	}
	return v, nil
}

// turn is what a step reads: the question, and the outputs of the steps
// before it that it depends on (nil when it does not).
type turn struct {
	q         Input
	screen    *guard.Output
	plan      *Plan
	retrieved *Retrieved
	answer    *Answer
}

// readTurn decodes the input of a step.
func readTurn(in agent.Input) (turn, error) {
	var t turn
	var err error
	if t.q, err = decode[Input](in.Input, "the question"); err != nil {
		return t, err
	}
	if t.screen, err = stepOutput[guard.Output](in, "screen"); err != nil {
		return t, err
	}
	if t.plan, err = stepOutput[Plan](in, "plan"); err != nil {
		return t, err
	}
	if t.retrieved, err = stepOutput[Retrieved](in, "retrieve"); err != nil {
		return t, err
	}
	t.answer, err = stepOutput[Answer](in, "answer")
	return t, err
}

func stepOutput[T any](in agent.Input, step string) (*T, error) {
	raw, ok := in.Inputs[step]
	if !ok {
		return nil, nil
	}
	v, err := decode[T](raw, "the output of step "+step)
	return &v, err
}

// need fails a step whose input lacks the output of a step it depends on.
func need(ok bool, step string) error {
	if !ok {
		return sanad.Errorf(sanad.CodeInvalidInput, "rag", "the output of step %s is missing", step)
	}
	return nil
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
	t, err := readTurn(in)
	if err != nil {
		return agent.Output{}, err
	}
	out, err := call[guard.Output](ctx, in, ToolGuardCheck, guard.Input{Content: t.q.Question, CheckType: guard.InputValidation})
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
	t, err := readTurn(in)
	if err != nil {
		return agent.Output{}, err
	}
	if err := need(t.screen != nil, "screen"); err != nil {
		return agent.Output{}, err
	}
	q, g := t.q, *t.screen
	if t.answer == nil {
		var p Plan
		if !g.IsSafe && g.RiskCategory == guard.RiskInjection {
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
	if err := need(t.plan != nil && t.retrieved != nil, "plan or retrieve"); err != nil {
		return agent.Output{}, err
	}
	p, r, a := *t.plan, *t.retrieved, *t.answer
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
	// A turn whose conversation cannot be saved fails: the next turn would
	// not know it.
	if _, err := call[json.RawMessage](ctx, in, ToolSave, st); err != nil {
		return agent.Output{}, err
	}
	for i := range steps {
		if steps[i].ToolCall == ToolSave {
			steps[i].Status = StatusCompleted
		}
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
	t, err := readTurn(in)
	if err != nil {
		return agent.Output{}, err
	}
	if err := need(t.plan != nil, "plan"); err != nil {
		return agent.Output{}, err
	}
	q, p := t.q, *t.plan
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

func asToolError(err error, te **agent.ToolError) bool { return errors.As(err, te) }

// answer is the tailor: the cited answer from the kept passages, checked by
// the guardrails; unsafe output gets one stricter retry, then a refusal.
func answer(ctx context.Context, in agent.Input) (agent.Output, error) {
	t, err := readTurn(in)
	if err != nil {
		return agent.Output{}, err
	}
	if err := need(t.plan != nil && t.retrieved != nil, "plan or retrieve"); err != nil {
		return agent.Output{}, err
	}
	q, p, r := t.q, *t.plan, *t.retrieved
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
