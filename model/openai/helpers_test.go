package openai

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sanadhq/sanad/model"
	rt "github.com/sanadhq/sanad/model/internal/replaytest"
)

func newModel(tb testing.TB, cfg Config) *Model {
	tb.Helper()
	if cfg.Model == "" {
		cfg.Model = "gpt-4o-mini"
	}
	if cfg.Retry.Sleep == nil {
		cfg.Retry = (&rt.NoSleep{}).Retry()
	}
	m, err := New(cfg)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return m
}

// requestFromBody builds the model.Request whose Chat Completions body is
// the recorded one. skip says why a recording cannot be expressed.
func requestFromBody(body map[string]any) (req model.Request, skip string) {
	for i, raw := range rt.List(body, "messages") {
		m, _ := raw.(map[string]any)
		content, ok := rt.Text(m["content"])
		if !ok {
			return req, "the recording sends images or files, which model.Request does not carry"
		}
		switch role := rt.Str(m, "role"); role {
		case "system":
			if i == 0 {
				req.System = content
			} else {
				req.Messages = append(req.Messages, model.Message{Role: model.RoleSystem, Content: content})
			}
		case "user":
			req.Messages = append(req.Messages, model.Message{Role: model.RoleUser, Content: content})
		case "assistant":
			msg := model.Message{Role: model.RoleAssistant, Content: content}
			for _, c := range rt.List(m, "tool_calls") {
				tc, _ := c.(map[string]any)
				fn := rt.Obj(tc, "function")
				msg.ToolCalls = append(msg.ToolCalls, model.ToolCall{
					ID: rt.Str(tc, "id"), Name: rt.Str(fn, "name"), Arguments: json.RawMessage(rt.Str(fn, "arguments")),
				})
			}
			req.Messages = append(req.Messages, msg)
		case "tool":
			req.Messages = append(req.Messages, model.Message{Role: model.RoleTool, Content: content, ToolCallID: rt.Str(m, "tool_call_id")})
		default:
			return req, "role " + role
		}
	}
	for _, raw := range rt.List(body, "tools") {
		fn := rt.Obj(raw.(map[string]any), "function")
		params, _ := json.Marshal(fn["parameters"])
		req.Tools = append(req.Tools, model.Tool{Name: rt.Str(fn, "name"), Description: rt.Str(fn, "description"), Parameters: params})
	}
	switch tc := body["tool_choice"].(type) {
	case string:
		mode := model.ToolChoiceMode(tc)
		if tc == "any" { // Mistral's word for required
			mode = model.ToolChoiceRequired
		}
		req.ToolChoice = model.ToolChoice{Mode: mode}
	case map[string]any:
		req.ToolChoice = model.UseTool(rt.Str(rt.Obj(tc, "function"), "name"))
	}
	if rf := rt.Obj(body, "response_format"); rf != nil {
		if rt.Str(rf, "type") != "json_schema" {
			return req, "response_format " + rt.Str(rf, "type") + " is not used (structured output is json_schema)"
		}
		js := rt.Obj(rf, "json_schema")
		schema, _ := json.Marshal(js["schema"])
		req.Output = &model.OutputSchema{Name: rt.Str(js, "name"), Schema: schema}
	}
	for _, k := range []string{"max_tokens", "max_completion_tokens"} {
		if n := rt.Int(body, k); n > 0 {
			req.MaxTokens = int(n)
		}
	}
	return req, ""
}

// toolChoice returns a Chat Completions tool_choice in one spelling.
func toolChoice(v any) string {
	switch v := v.(type) {
	case string:
		if v == "any" {
			return "required"
		}
		return v
	case map[string]any:
		return "tool:" + rt.Str(rt.Obj(v, "function"), "name")
	}
	return ""
}

// matchBody compares the body the adapter sent with the recorded one, on
// what model.Request expresses.
func matchBody(got, want map[string]any) string {
	if g, w := rt.Str(got, "model"), rt.Str(want, "model"); g != w {
		return fmt.Sprintf("model: got %q, want %q", g, w)
	}
	gm, wm := rt.List(got, "messages"), rt.List(want, "messages")
	if len(gm) != len(wm) {
		return fmt.Sprintf("got %d messages, want %d", len(gm), len(wm))
	}
	for i := range wm {
		g, _ := gm[i].(map[string]any)
		w, _ := wm[i].(map[string]any)
		if rt.Str(g, "role") != rt.Str(w, "role") {
			return fmt.Sprintf("message %d: got role %q, want %q", i, rt.Str(g, "role"), rt.Str(w, "role"))
		}
		gt, _ := rt.Text(g["content"])
		wt, _ := rt.Text(w["content"])
		if gt != wt {
			return fmt.Sprintf("message %d: got content %q, want %q", i, gt, wt)
		}
		if rt.Str(g, "tool_call_id") != rt.Str(w, "tool_call_id") {
			return fmt.Sprintf("message %d: got tool_call_id %q, want %q", i, rt.Str(g, "tool_call_id"), rt.Str(w, "tool_call_id"))
		}
		gc, wc := rt.List(g, "tool_calls"), rt.List(w, "tool_calls")
		if len(gc) != len(wc) {
			return fmt.Sprintf("message %d: got %d tool calls, want %d", i, len(gc), len(wc))
		}
		for j := range wc {
			gcall, wcall := gc[j].(map[string]any), wc[j].(map[string]any)
			gf, wf := rt.Obj(gcall, "function"), rt.Obj(wcall, "function")
			if rt.Str(gcall, "id") != rt.Str(wcall, "id") || rt.Str(gf, "name") != rt.Str(wf, "name") ||
				!rt.SameJSON(json.RawMessage(rt.Str(gf, "arguments")), json.RawMessage(rt.Str(wf, "arguments"))) {
				return fmt.Sprintf("message %d: tool call %d: got %v, want %v", i, j, gcall, wcall)
			}
		}
	}
	gt, wt := rt.List(got, "tools"), rt.List(want, "tools")
	if len(gt) != len(wt) {
		return fmt.Sprintf("got %d tools, want %d", len(gt), len(wt))
	}
	for i := range wt {
		gf, wf := rt.Obj(gt[i].(map[string]any), "function"), rt.Obj(wt[i].(map[string]any), "function")
		if rt.Str(gf, "name") != rt.Str(wf, "name") || rt.Str(gf, "description") != rt.Str(wf, "description") ||
			!rt.SameJSON(gf["parameters"], wf["parameters"]) {
			return fmt.Sprintf("tool %d: got %v, want %v", i, gf, wf)
		}
	}
	if g, w := toolChoice(got["tool_choice"]), toolChoice(want["tool_choice"]); g != w {
		return fmt.Sprintf("tool_choice: got %q, want %q", g, w)
	}
	if w := rt.Obj(rt.Obj(want, "response_format"), "json_schema"); w != nil {
		g := rt.Obj(rt.Obj(got, "response_format"), "json_schema")
		if rt.Str(g, "name") != rt.Str(w, "name") || !rt.SameJSON(g["schema"], w["schema"]) {
			return fmt.Sprintf("response_format: got %v, want %v", got["response_format"], want["response_format"])
		}
	}
	if gs, ws := got["stream"] == true, want["stream"] == true; gs != ws {
		return fmt.Sprintf("stream: got %v, want %v", gs, ws)
	}
	return ""
}

// reply is the recorded answer as a model.Response, read independently of
// the adapter.
func reply(r map[string]any) model.Response {
	ch, _ := rt.List(r, "choices")[0].(map[string]any)
	msg := rt.Obj(ch, "message")
	usage := rt.Obj(r, "usage")
	want := model.Response{
		Text:         rt.Str(msg, "content"),
		FinishReason: model.FinishReason(rt.Str(ch, "finish_reason")),
		Model:        rt.Str(r, "model"),
		ID:           rt.Str(r, "id"),
		Provider:     "openai",
		Usage: model.Usage{
			InputTokens:  rt.Int(usage, "prompt_tokens"),
			OutputTokens: rt.Int(usage, "completion_tokens"),
			TotalTokens:  rt.Int(usage, "total_tokens"),
		},
	}
	for _, c := range rt.List(msg, "tool_calls") {
		tc := c.(map[string]any)
		fn := rt.Obj(tc, "function")
		want.ToolCalls = append(want.ToolCalls, model.ToolCall{ID: rt.Str(tc, "id"), Name: rt.Str(fn, "name"), Arguments: json.RawMessage(rt.Str(fn, "arguments"))})
	}
	return want
}

// sameReply reports how got differs from want, or "". A tool call the
// provider sent without an id must have been given one.
func sameReply(got, want model.Response) string {
	return rt.SameReply(got, want, true)
}
