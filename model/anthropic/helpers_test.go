package anthropic

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
		cfg.Model = "claude-sonnet-4-5"
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

// blocks returns recorded message content as a list of blocks.
func blocks(v any) []map[string]any {
	if s, ok := v.(string); ok {
		return []map[string]any{{"type": "text", "text": s}}
	}
	var out []map[string]any
	for _, x := range v.([]any) {
		b, _ := x.(map[string]any)
		out = append(out, b)
	}
	return out
}

// requestFromBody builds the model.Request whose Messages body is the
// recorded one. skip says why a recording cannot be expressed.
func requestFromBody(body map[string]any) (req model.Request, skip string) {
	if body["thinking"] != nil {
		return req, "the recording uses extended thinking, which model.Request does not ask for"
	}
	sys, ok := rt.Text(body["system"])
	if !ok {
		return req, "system blocks that are not text"
	}
	req.System = sys
	for _, raw := range rt.List(body, "messages") {
		m := raw.(map[string]any)
		role := rt.Str(m, "role")
		var assistant *model.Message
		if role == "assistant" {
			assistant = &model.Message{Role: model.RoleAssistant}
		}
		for _, b := range blocks(m["content"]) {
			switch typ := rt.Str(b, "type"); {
			case role == "user" && typ == "text":
				req.Messages = append(req.Messages, model.Message{Role: model.RoleUser, Content: rt.Str(b, "text")})
			case role == "user" && typ == "tool_result":
				content, ok := rt.Text(b["content"])
				if !ok {
					return req, "a tool result that is not text"
				}
				req.Messages = append(req.Messages, model.Message{Role: model.RoleTool, ToolCallID: rt.Str(b, "tool_use_id"), Content: content})
			case role == "assistant" && typ == "text":
				assistant.Content += rt.Str(b, "text")
			case role == "assistant" && typ == "tool_use":
				input, _ := json.Marshal(b["input"])
				assistant.ToolCalls = append(assistant.ToolCalls, model.ToolCall{ID: rt.Str(b, "id"), Name: rt.Str(b, "name"), Arguments: input})
			default:
				return req, fmt.Sprintf("a %s block in a %s message", typ, role)
			}
		}
		if assistant != nil {
			req.Messages = append(req.Messages, *assistant)
		}
	}
	for _, raw := range rt.List(body, "tools") {
		t := raw.(map[string]any)
		if t["type"] != nil || t["defer_loading"] != nil {
			return req, "a server-side or deferred tool"
		}
		schema, _ := json.Marshal(t["input_schema"])
		req.Tools = append(req.Tools, model.Tool{Name: rt.Str(t, "name"), Description: rt.Str(t, "description"), Parameters: schema})
	}
	if tc := rt.Obj(body, "tool_choice"); tc != nil {
		switch rt.Str(tc, "type") {
		case "auto":
			req.ToolChoice.Mode = model.ToolChoiceAuto
		case "any":
			req.ToolChoice.Mode = model.ToolChoiceRequired
		case "none":
			req.ToolChoice.Mode = model.ToolChoiceNone
		case "tool":
			req.ToolChoice = model.UseTool(rt.Str(tc, "name"))
		}
	}
	req.MaxTokens = int(rt.Int(body, "max_tokens"))
	return req, ""
}

// spell returns a recorded block in one spelling.
func spell(b map[string]any) string {
	switch rt.Str(b, "type") {
	case "text":
		return "text:" + rt.Str(b, "text")
	case "tool_use":
		in, _ := json.Marshal(b["input"])
		return "tool_use:" + rt.Str(b, "id") + ":" + rt.Str(b, "name") + ":" + canon(in)
	case "tool_result":
		t, _ := rt.Text(b["content"])
		return "tool_result:" + rt.Str(b, "tool_use_id") + ":" + t
	}
	return "?" + rt.Str(b, "type")
}

func canon(raw []byte) string {
	var v any
	_ = json.Unmarshal(raw, &v)
	out, _ := json.Marshal(v)
	return string(out)
}

// matchBody compares the body the adapter sent with the recorded one, on
// what model.Request expresses.
func matchBody(got, want map[string]any) string {
	for _, k := range []string{"model", "max_tokens"} {
		if fmt.Sprint(got[k]) != fmt.Sprint(want[k]) {
			return fmt.Sprintf("%s: got %v, want %v", k, got[k], want[k])
		}
	}
	gs, _ := rt.Text(got["system"])
	ws, _ := rt.Text(want["system"])
	if gs != ws {
		return fmt.Sprintf("system: got %q, want %q", gs, ws)
	}
	gm, wm := rt.List(got, "messages"), rt.List(want, "messages")
	if len(gm) != len(wm) {
		return fmt.Sprintf("got %d messages, want %d", len(gm), len(wm))
	}
	for i := range wm {
		g, w := gm[i].(map[string]any), wm[i].(map[string]any)
		if rt.Str(g, "role") != rt.Str(w, "role") {
			return fmt.Sprintf("message %d: got role %s, want %s", i, rt.Str(g, "role"), rt.Str(w, "role"))
		}
		gb, wb := blocks(g["content"]), blocks(w["content"])
		if len(gb) != len(wb) {
			return fmt.Sprintf("message %d: got %d blocks, want %d", i, len(gb), len(wb))
		}
		for j := range wb {
			if spell(gb[j]) != spell(wb[j]) {
				return fmt.Sprintf("message %d block %d: got %s, want %s", i, j, spell(gb[j]), spell(wb[j]))
			}
		}
	}
	gt, wt := rt.List(got, "tools"), rt.List(want, "tools")
	if len(gt) != len(wt) {
		return fmt.Sprintf("got %d tools, want %d", len(gt), len(wt))
	}
	for i := range wt {
		g, w := gt[i].(map[string]any), wt[i].(map[string]any)
		if rt.Str(g, "name") != rt.Str(w, "name") || rt.Str(g, "description") != rt.Str(w, "description") ||
			!rt.SameJSON(g["input_schema"], w["input_schema"]) {
			return fmt.Sprintf("tool %d: got %v, want %v", i, g, w)
		}
	}
	if !rt.SameJSON(got["tool_choice"], want["tool_choice"]) && (got["tool_choice"] != nil || want["tool_choice"] != nil) {
		return fmt.Sprintf("tool_choice: got %v, want %v", got["tool_choice"], want["tool_choice"])
	}
	if gs, ws := got["stream"] == true, want["stream"] == true; gs != ws {
		return fmt.Sprintf("stream: got %v, want %v", gs, ws)
	}
	return ""
}

var stopReasons = map[string]model.FinishReason{
	"end_turn":   model.FinishStop,
	"tool_use":   model.FinishToolCalls,
	"max_tokens": model.FinishLength,
}

// reply is the recorded answer as a model.Response, read independently of
// the adapter.
func reply(r map[string]any) model.Response {
	u := rt.Obj(r, "usage")
	in := rt.Int(u, "input_tokens") + rt.Int(u, "cache_creation_input_tokens") + rt.Int(u, "cache_read_input_tokens")
	want := model.Response{
		FinishReason: stopReasons[rt.Str(r, "stop_reason")],
		Model:        rt.Str(r, "model"),
		ID:           rt.Str(r, "id"),
		Provider:     "anthropic",
		Usage:        model.Usage{InputTokens: in, OutputTokens: rt.Int(u, "output_tokens"), TotalTokens: in + rt.Int(u, "output_tokens")},
	}
	for _, b := range blocks(r["content"]) {
		switch rt.Str(b, "type") {
		case "text":
			want.Text += rt.Str(b, "text")
		case "tool_use":
			in, _ := json.Marshal(b["input"])
			want.ToolCalls = append(want.ToolCalls, model.ToolCall{ID: rt.Str(b, "id"), Name: rt.Str(b, "name"), Arguments: in})
		}
	}
	return want
}

// sameReply reports how got differs from want, or "".
func sameReply(got, want model.Response) string {
	return rt.SameReply(got, want, false)
}
