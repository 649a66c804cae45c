// Package anthropic is the model adapter for the Anthropic Messages API.
//
// Requests are built and sent with github.com/anthropics/anthropic-sdk-go,
// with the SDK's own retries off ([model.Retry] is the policy) and none of
// its credential sources used (no ANTHROPIC_* variable or profile file is
// read). Answers are decoded here, strictly: a body that is not JSON, lacks
// the content of the reply, or holds a tool call whose input is not a JSON
// object fails with MODEL_OUTPUT_INVALID.
//
// Anthropic has no system role inside the conversation and wants the
// results of parallel tool calls in one user turn: system messages are moved
// into the system prompt, in order, and consecutive messages of the same
// side are joined into one turn. Structured output uses the API's
// output_config JSON Schema format.
package anthropic

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/internal/call"
)

// DefaultBaseURL is the Anthropic API.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens is the token limit of a request that sets none: the
// Messages API requires one.
const DefaultMaxTokens = 4096

// Config says which model to call and how.
type Config struct {
	Model   string
	BaseURL string // DefaultBaseURL when empty
	APIKey  model.Secret
	// APIKeyEnv names the environment variable APIKey came from, so an
	// authentication error can say where to look.
	APIKeyEnv  string
	HTTPClient *http.Client  // http.DefaultClient when nil
	Retry      model.Retry   // the retry policy; the zero value is the default
	Timeout    time.Duration // deadline of one call; model.DefaultTimeout when zero, none when negative
	Logger     *slog.Logger  // retries and failures; nil logs nothing
	MaxTokens  int           // DefaultMaxTokens when zero
}

// Model is an Anthropic model. It is safe for concurrent use.
type Model struct {
	c         *call.Client[option.RequestOption]
	messages  sdk.MessageService
	maxTokens int
}

var (
	_ model.Model    = (*Model)(nil)
	_ model.Streamer = (*Model)(nil)
)

const provider = model.ProviderAnthropic

// requestIDHeader is where the API puts the id of a request.
const requestIDHeader = "Request-Id"

// New returns the model of cfg. It fails with INVALID_INPUT when the model
// name is missing or the base URL is not an http(s) URL.
func New(cfg Config) (*Model, error) {
	c, err := call.Open(call.Endpoint{
		Provider: provider, Model: cfg.Model, BaseURL: cfg.BaseURL, HTTPClient: cfg.HTTPClient,
		KeyEnv: cfg.APIKeyEnv, Key: cfg.APIKey, RequestIDHeader: requestIDHeader,
		Retry: cfg.Retry, Timeout: cfg.Timeout, Logger: cfg.Logger,
	}, DefaultBaseURL, "https://api.anthropic.com", client)
	if err != nil {
		return nil, err
	}
	// Without a request timeout of its own the SDK refuses a large
	// max_tokens outside a stream. The call's context carries the real
	// deadline; with none, the SDK's is a day.
	reqTimeout := c.Timeout
	if reqTimeout <= 0 {
		reqTimeout = 24 * time.Hour
	}
	opts := append(c.Options(), option.WithRequestTimeout(reqTimeout))
	maxTokens := cfg.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	return &Model{c: c, messages: sdk.NewMessageService(opts...), maxTokens: maxTokens}, nil
}

// client is the SDK as the shared plumbing drives it. The other adapter's
// reads the same: the two SDKs are generated from one template.
var client = call.SDK[option.RequestOption]{
	WithBaseURL:          option.WithBaseURL,
	WithAPIKey:           option.WithAPIKey,
	WithHTTPClient:       func(hc *http.Client) option.RequestOption { return option.WithHTTPClient(hc) },
	WithMaxRetries:       option.WithMaxRetries,
	WithJSONSet:          option.WithJSONSet,
	WithResponseBodyInto: option.WithResponseBodyInto,
	WithResponseInto:     option.WithResponseInto,
	Events:               events,
}

// Generate sends req to the Messages API.
func (m *Model) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	return call.Generate(ctx, m.c, req, m.params, m.messages.New, parseMessage)
}

// Embed fails with INVALID_INPUT: Anthropic has no embeddings API.
func (m *Model) Embed(context.Context, []string) (model.Embeddings, error) {
	return model.Embeddings{}, sanad.Errorf(sanad.CodeInvalidInput, "anthropic.embed",
		"anthropic has no embeddings API: configure the embedding class with an openai-compatible provider")
}

// params builds the Messages request of req, which is valid.
func (m *Model) params(req model.Request) (sdk.MessageNewParams, error) {
	const op = "anthropic.generate"
	p := sdk.MessageNewParams{Model: sdk.Model(m.c.Model), MaxTokens: int64(m.maxTokens)}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	if req.System != "" {
		p.System = append(p.System, sdk.TextBlockParam{Text: req.System})
	}
	turn := func(role sdk.MessageParamRole, blocks ...sdk.ContentBlockParamUnion) {
		if n := len(p.Messages); n > 0 && p.Messages[n-1].Role == role {
			p.Messages[n-1].Content = append(p.Messages[n-1].Content, blocks...)
			return
		}
		p.Messages = append(p.Messages, sdk.MessageParam{Role: role, Content: blocks})
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case model.RoleSystem:
			p.System = append(p.System, sdk.TextBlockParam{Text: msg.Content})
		case model.RoleUser:
			turn(sdk.MessageParamRoleUser, sdk.NewTextBlock(msg.Content))
		case model.RoleTool:
			result := sdk.ToolResultBlockParam{ToolUseID: msg.ToolCallID}
			if msg.Content != "" {
				// An empty text block is refused; an empty result is not.
				result.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: msg.Content}}}
			}
			turn(sdk.MessageParamRoleUser, sdk.ContentBlockParamUnion{OfToolResult: &result})
		case model.RoleAssistant:
			var blocks []sdk.ContentBlockParamUnion
			if msg.Content != "" {
				blocks = append(blocks, sdk.NewTextBlock(msg.Content))
			}
			for _, c := range msg.ToolCalls {
				args := json.RawMessage(strings.TrimSpace(string(c.Arguments)))
				if len(args) == 0 {
					args = json.RawMessage("{}")
				}
				blocks = append(blocks, sdk.NewToolUseBlock(c.ID, args, c.Name))
			}
			turn(sdk.MessageParamRoleAssistant, blocks...)
		}
	}
	for _, t := range req.Tools {
		schema, err := inputSchema(t.Parameters)
		if err != nil {
			return p, sanad.Wrap(err, sanad.CodeInvalidInput, op, "tool "+t.Name+": "+err.Error())
		}
		tp := &sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: tp})
	}
	switch req.ToolChoice.Mode {
	case model.ToolChoiceAuto:
		p.ToolChoice.OfAuto = &sdk.ToolChoiceAutoParam{}
	case model.ToolChoiceNone:
		p.ToolChoice.OfNone = &sdk.ToolChoiceNoneParam{}
	case model.ToolChoiceRequired:
		p.ToolChoice.OfAny = &sdk.ToolChoiceAnyParam{}
	case model.ToolChoiceTool:
		p.ToolChoice.OfTool = &sdk.ToolChoiceToolParam{Name: req.ToolChoice.Name}
	}
	if req.Output != nil {
		schema, err := call.Schema(req.Output.Schema)
		if err != nil {
			return p, sanad.Wrap(err, sanad.CodeInvalidInput, op, "the output schema is not a JSON object")
		}
		p.OutputConfig.Format = sdk.JSONOutputFormatParam{Schema: schema}
	}
	if req.Temperature != nil {
		p.Temperature = sdk.Float(*req.Temperature)
	}
	p.StopSequences = req.Stop
	return p, nil
}

// inputSchema splits a tool's JSON Schema into the fields the SDK names
// and the rest, each kept as raw JSON.
func inputSchema(raw json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	var s sdk.ToolInputSchemaParam
	members, err := call.Schema(raw)
	if err != nil {
		return s, err
	}
	for k, v := range members {
		rv := v.(json.RawMessage)
		switch k {
		case "type":
			var t string
			if json.Unmarshal(rv, &t) != nil || t != "object" {
				return s, errString("parameters must be an object schema (\"type\": \"object\")")
			}
		case "properties":
			s.Properties = rv
		case "required":
			if err := json.Unmarshal(rv, &s.Required); err != nil {
				return s, errString("\"required\" must be a list of property names")
			}
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = map[string]any{}
			}
			s.ExtraFields[k] = rv
		}
	}
	return s, nil
}

type errString string

func (e errString) Error() string { return string(e) }
