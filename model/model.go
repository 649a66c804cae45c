package model

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"math"
	"regexp"
	"time"

	"github.com/sanadhq/sanad"
)

// Model generates text and embeddings. Implementations are safe for
// concurrent use. Every error is a *sanad.Error (see the package
// documentation for the codes).
type Model interface {
	// Generate sends req and returns the model's reply.
	Generate(ctx context.Context, req Request) (Response, error)
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) (Embeddings, error)
}

// Streamer is the optional capability of a [Model] that can stream its
// reply. The sequence yields text and tool-call fragments as they arrive,
// then one last [Delta] whose Response holds the whole reply, equal to what
// Generate would have returned. It stops at the first error. Breaking out of
// the loop early ends the call and frees its connection.
type Streamer interface {
	Stream(ctx context.Context, req Request) iter.Seq2[Delta, error]
}

// Role says who wrote a [Message].
type Role string

// The roles of a conversation.
const (
	RoleSystem    Role = "system"    // instructions; also see Request.System
	RoleUser      Role = "user"      // the user or the calling agent
	RoleAssistant Role = "assistant" // the model; may carry tool calls
	RoleTool      Role = "tool"      // the result of one tool call
)

// Message is one turn of a conversation. An assistant message may carry tool
// calls; a tool message answers one of them and names it in ToolCallID.
type Message struct {
	Role       Role
	Content    string
	ToolCalls  []ToolCall // RoleAssistant only
	ToolCallID string     // RoleTool only: the ToolCall.ID answered
}

// ToolCall is a model's request to run a tool. Arguments is a JSON object.
type ToolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// Tool describes a tool the model may call. Parameters is the JSON Schema of
// its arguments, an object schema; empty means no arguments.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// ToolChoiceMode says whether and how the model must call tools.
type ToolChoiceMode string

// The tool choice modes. The zero mode leaves it to the provider, which
// means auto when tools are given.
const (
	ToolChoiceAuto     ToolChoiceMode = "auto"     // the model decides
	ToolChoiceNone     ToolChoiceMode = "none"     // the model must not call tools
	ToolChoiceRequired ToolChoiceMode = "required" // the model must call at least one tool
	ToolChoiceTool     ToolChoiceMode = "tool"     // the model must call the tool named in ToolChoice.Name
)

// ToolChoice says whether the model must call a tool, and which.
type ToolChoice struct {
	Mode ToolChoiceMode
	Name string // the tool to call when Mode is ToolChoiceTool
}

// UseTool returns the [ToolChoice] that makes the model call the named tool.
func UseTool(name string) ToolChoice { return ToolChoice{Mode: ToolChoiceTool, Name: name} }

// OutputSchema asks for a reply that is a JSON value matching Schema. Name
// identifies the schema to the provider (letters, digits, '_' and '-'; up to
// 64); empty means "output".
type OutputSchema struct {
	Name   string
	Schema json.RawMessage
}

// Request is one call to a model. Temperature is a pointer so that zero can
// be asked for; nil leaves the provider's default.
type Request struct {
	System      string
	Messages    []Message
	Tools       []Tool
	ToolChoice  ToolChoice
	Output      *OutputSchema
	MaxTokens   int // 0 leaves the provider's (or adapter's) default
	Temperature *float64
	Stop        []string
}

// FinishReason says why the model stopped. Providers' own reasons are
// mapped onto the constants below; a reason with no equivalent is passed
// through as the provider spells it.
type FinishReason string

// The finish reasons.
const (
	FinishStop          FinishReason = "stop"           // a natural end or a stop sequence
	FinishLength        FinishReason = "length"         // the token limit was reached
	FinishToolCalls     FinishReason = "tool_calls"     // the model called tools
	FinishContentFilter FinishReason = "content_filter" // the provider withheld or refused output
)

// Usage counts the tokens of one or more calls. InputTokens includes cached
// prompt tokens.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
	TotalTokens  int64
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:  u.InputTokens + v.InputTokens,
		OutputTokens: u.OutputTokens + v.OutputTokens,
		TotalTokens:  u.TotalTokens + v.TotalTokens,
	}
}

// Response is a model's reply. Output is set when the request had an
// [OutputSchema] and the reply is JSON (Structured checks it against the
// schema). ID is the provider's id of the reply (chatcmpl-…, msg_…) and
// RequestID the id of the HTTP request, when the provider sends one. Latency
// covers the whole call, retries included.
type Response struct {
	Text         string
	ToolCalls    []ToolCall
	Output       json.RawMessage
	FinishReason FinishReason
	Usage        Usage
	Model        string
	Provider     string
	ID           string
	RequestID    string
	Latency      time.Duration
}

// Message returns the reply as the assistant message to append to the
// conversation before the next call.
func (r Response) Message() Message {
	return Message{Role: RoleAssistant, Content: r.Text, ToolCalls: r.ToolCalls}
}

// Embeddings is the reply to Embed: one vector per text, in order.
type Embeddings struct {
	Vectors  [][]float32
	Model    string
	Provider string
	Usage    Usage
	Latency  time.Duration
}

// Delta is one event of a streamed reply: a piece of text, a fragment of a
// tool call, or, on the last event, the whole Response.
type Delta struct {
	Text     string
	ToolCall *ToolCallDelta
	Response *Response
}

// ToolCallDelta is a fragment of a tool call. Index is the call's position
// in Response.ToolCalls; ID and Name come with the first fragment of a call,
// Arguments is appended to what came before.
type ToolCallDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
}

const opRequest = "model.request"

// namePattern is what OpenAI and Anthropic both accept as a tool or schema
// name.
var namePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Validate reports, as an INVALID_INPUT error, the first thing in r that no
// provider would accept: an unknown role, a message without content, a tool
// message without its call id, tool-call arguments or schemas that are not
// JSON objects, duplicate or malformed tool names, a tool choice that names
// no given tool, an output schema that is not an object, a negative token
// limit, or a temperature outside [0, 2].
func (r Request) Validate() error {
	bad := func(format string, args ...any) error {
		return sanad.Errorf(sanad.CodeInvalidInput, opRequest, format, args...)
	}
	if len(r.Messages) == 0 {
		return bad("the request has no messages")
	}
	for i, m := range r.Messages {
		switch m.Role {
		case RoleSystem, RoleUser:
			if m.Content == "" {
				return bad("message %d (%s) has no content", i, m.Role)
			}
		case RoleAssistant:
			if m.Content == "" && len(m.ToolCalls) == 0 {
				return bad("message %d (assistant) has neither content nor tool calls", i)
			}
			for j, c := range m.ToolCalls {
				if c.ID == "" || c.Name == "" {
					return bad("message %d: tool call %d needs an id and a name", i, j)
				}
				if len(c.Arguments) > 0 && !isObject(c.Arguments) {
					return bad("message %d: the arguments of tool call %q are not a JSON object", i, c.Name)
				}
			}
		case RoleTool:
			if m.ToolCallID == "" {
				return bad("message %d (tool) does not name the tool call it answers", i)
			}
		default:
			return bad("message %d has unknown role %q (want system, user, assistant or tool)", i, m.Role)
		}
		if m.Role != RoleAssistant && len(m.ToolCalls) > 0 {
			return bad("message %d: only assistant messages carry tool calls", i)
		}
		if m.Role != RoleTool && m.ToolCallID != "" {
			return bad("message %d: only tool messages carry a tool call id", i)
		}
	}
	names := make(map[string]bool, len(r.Tools))
	for i, t := range r.Tools {
		if !namePattern.MatchString(t.Name) {
			return bad("tool %d: name %q must be 1 to 64 letters, digits, '_' or '-'", i, t.Name)
		}
		if names[t.Name] {
			return bad("tool %q is defined twice", t.Name)
		}
		names[t.Name] = true
		if len(t.Parameters) > 0 && !isObject(t.Parameters) {
			return bad("tool %q: parameters must be a JSON Schema object", t.Name)
		}
	}
	switch r.ToolChoice.Mode {
	case "", ToolChoiceAuto, ToolChoiceNone:
	case ToolChoiceRequired:
		if len(r.Tools) == 0 {
			return bad("tool choice %q needs tools", r.ToolChoice.Mode)
		}
	case ToolChoiceTool:
		if !names[r.ToolChoice.Name] {
			return bad("tool choice names %q, which is not one of the request's tools", r.ToolChoice.Name)
		}
	default:
		return bad("unknown tool choice %q (want auto, none, required or tool)", r.ToolChoice.Mode)
	}
	if r.Output != nil {
		if r.Output.Name != "" && !namePattern.MatchString(r.Output.Name) {
			return bad("output schema name %q must be 1 to 64 letters, digits, '_' or '-'", r.Output.Name)
		}
		if !isObject(r.Output.Schema) {
			return bad("the output schema must be a JSON object")
		}
	}
	if r.MaxTokens < 0 {
		return bad("max tokens is %d; want 0 (the default) or more", r.MaxTokens)
	}
	if t := r.Temperature; t != nil && (math.IsNaN(*t) || *t < 0 || *t > 2) {
		return bad("temperature %v is outside [0, 2]", *t)
	}
	return nil
}

// OutputName returns the name of the request's output schema, or "output".
func (r Request) OutputName() string {
	if r.Output == nil || r.Output.Name == "" {
		return "output"
	}
	return r.Output.Name
}

// isObject reports whether raw is one well-formed JSON object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
}

// OutputJSON returns text as structured output: the JSON value it holds,
// trimmed of white space and of a Markdown code fence around it, or nil when
// text is not one JSON value.
func OutputJSON(text string) json.RawMessage {
	b := bytes.TrimSpace([]byte(text))
	if bytes.HasPrefix(b, []byte("```")) && bytes.HasSuffix(b, []byte("```")) && len(b) >= 6 {
		b = b[3 : len(b)-3]
		if nl := bytes.IndexByte(b, '\n'); nl >= 0 && !bytes.ContainsAny(b[:nl], "{[\"") {
			b = b[nl+1:] // the fence's language tag: ```json
		}
		b = bytes.TrimSpace(b)
	}
	if len(b) == 0 || !json.Valid(b) {
		return nil
	}
	return json.RawMessage(b)
}
