package rag

import (
	"context"
	"encoding/json"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/dbwrite"
	"github.com/sanadhq/sanad/guard"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
)

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
