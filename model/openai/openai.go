// Package openai is the model adapter for the OpenAI Chat Completions and
// Embeddings APIs, and for every server that speaks them: Ollama, vLLM,
// llama.cpp and hosted OpenAI-compatible APIs, reached through
// Config.BaseURL.
//
// Requests are built and sent with github.com/openai/openai-go/v3, with the
// SDK's own retries off ([model.Retry] is the policy) and its environment
// defaults unused (no OPENAI_* variable is read). Answers are decoded here,
// strictly: a body that is not JSON, lacks a field the reply needs, or holds
// tool-call arguments that are not a JSON object fails with
// MODEL_OUTPUT_INVALID instead of being coerced.
package openai

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/internal/call"
)

// DefaultBaseURL is the OpenAI API.
const DefaultBaseURL = "https://api.openai.com/v1"

// MaxEmbedBatch is the most texts sent in one embeddings request; Embed
// splits longer lists.
const MaxEmbedBatch = 256

// Config says which model to call and how.
type Config struct {
	Model   string
	BaseURL string // DefaultBaseURL when empty; http://127.0.0.1:11434/v1 for Ollama
	// APIKey is sent as a bearer token; empty sends none (local servers).
	APIKey model.Secret
	// APIKeyEnv names the environment variable APIKey came from, so an
	// authentication error can say where to look.
	APIKeyEnv  string
	HTTPClient *http.Client  // http.DefaultClient when nil
	Retry      model.Retry   // the retry policy; the zero value is the default
	Timeout    time.Duration // deadline of one call; model.DefaultTimeout when zero, none when negative
	Logger     *slog.Logger  // retries and failures; nil logs nothing
}

// Model is an OpenAI-compatible model. It is safe for concurrent use.
type Model struct {
	c     *call.Client[option.RequestOption]
	chat  sdk.ChatCompletionService
	embed sdk.EmbeddingService
	// legacyMaxTokens sends max_tokens instead of max_completion_tokens:
	// OpenAI's own API wants the second (its reasoning models refuse the
	// first); the compatible servers know the first.
	legacyMaxTokens bool
}

var (
	_ model.Model    = (*Model)(nil)
	_ model.Streamer = (*Model)(nil)
)

const provider = model.ProviderOpenAI

// New returns the model of cfg. It fails with INVALID_INPUT when the model
// name is missing or the base URL is not an http(s) URL.
func New(cfg Config) (*Model, error) {
	c, err := call.Open(call.Endpoint{
		Provider: provider, Model: cfg.Model, BaseURL: cfg.BaseURL, HTTPClient: cfg.HTTPClient,
		KeyEnv: cfg.APIKeyEnv, Key: cfg.APIKey, RequestIDHeader: requestIDHeader,
		Retry: cfg.Retry, Timeout: cfg.Timeout, Logger: cfg.Logger,
	}, DefaultBaseURL, "http://127.0.0.1:8080/v1", client)
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(c.BaseURL) // checked
	return &Model{
		c:               c,
		chat:            sdk.NewChatCompletionService(c.Options()...),
		embed:           sdk.NewEmbeddingService(c.Options()...),
		legacyMaxTokens: u.Host != "api.openai.com",
	}, nil
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

// Generate sends req to the Chat Completions API.
func (m *Model) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	return call.Generate(ctx, m.c, req, m.params, m.chat.New, parseCompletion)
}

const requestIDHeader = "X-Request-Id"

// params builds the Chat Completions request of req, which is valid.
func (m *Model) params(req model.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{Model: shared.ChatModel(m.c.Model)}
	if req.System != "" {
		p.Messages = append(p.Messages, sdk.SystemMessage(req.System))
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case model.RoleSystem:
			p.Messages = append(p.Messages, sdk.SystemMessage(msg.Content))
		case model.RoleUser:
			p.Messages = append(p.Messages, sdk.UserMessage(msg.Content))
		case model.RoleTool:
			p.Messages = append(p.Messages, sdk.ToolMessage(msg.Content, msg.ToolCallID))
		case model.RoleAssistant:
			var a sdk.ChatCompletionAssistantMessageParam
			if msg.Content != "" {
				a.Content.OfString = sdk.String(msg.Content)
			}
			for _, c := range msg.ToolCalls {
				args := strings.TrimSpace(string(c.Arguments))
				if args == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
					},
				})
			}
			p.Messages = append(p.Messages, sdk.ChatCompletionMessageParamUnion{OfAssistant: &a})
		}
	}
	for _, t := range req.Tools {
		params, err := call.Schema(t.Parameters)
		if err != nil {
			return p, sanad.Wrap(err, sanad.CodeInvalidInput, "openai.generate", "tool "+t.Name+": parameters are not a JSON object")
		}
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(params)}
		if t.Description != "" {
			def.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(def))
	}
	switch req.ToolChoice.Mode {
	case model.ToolChoiceAuto, model.ToolChoiceNone, model.ToolChoiceRequired:
		p.ToolChoice.OfAuto = sdk.String(string(req.ToolChoice.Mode))
	case model.ToolChoiceTool:
		p.ToolChoice = sdk.ToolChoiceOptionFunctionToolChoice(sdk.ChatCompletionNamedToolChoiceFunctionParam{Name: req.ToolChoice.Name})
	}
	if req.Output != nil {
		p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name:   req.OutputName(),
				Schema: req.Output.Schema,
				// Strict mode accepts only a subset of JSON Schema; the
				// schema is checked on our side instead (model.Structured).
				Strict: sdk.Bool(false),
			},
		}
	}
	if req.MaxTokens > 0 {
		if m.legacyMaxTokens {
			p.MaxTokens = sdk.Int(int64(req.MaxTokens))
		} else {
			p.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens))
		}
	}
	if req.Temperature != nil {
		p.Temperature = sdk.Float(*req.Temperature)
	}
	if len(req.Stop) > 0 {
		p.Stop.OfStringArray = req.Stop
	}
	return p, nil
}

// Embed returns the embedding of each text from the Embeddings API, in
// batches of at most MaxEmbedBatch texts. An empty text is INVALID_INPUT
// (the API refuses it); no texts is no call.
func (m *Model) Embed(ctx context.Context, texts []string) (model.Embeddings, error) {
	const op = "openai.embed"
	out := model.Embeddings{Provider: provider, Model: m.c.Model, Vectors: make([][]float32, 0, len(texts))}
	for i, t := range texts {
		if t == "" {
			return model.Embeddings{}, sanad.Errorf(sanad.CodeInvalidInput, op, "text %d is empty; the embeddings API refuses empty texts", i)
		}
	}
	if len(texts) == 0 {
		return out, nil
	}
	ctx, cancel := m.c.Deadline(ctx)
	defer cancel()
	start := m.c.Now()
	for lo := 0; lo < len(texts); lo += MaxEmbedBatch {
		batch := texts[lo:min(lo+MaxEmbedBatch, len(texts))]
		params := sdk.EmbeddingNewParams{
			Input:          sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: batch},
			Model:          sdk.EmbeddingModel(m.c.Model),
			EncodingFormat: sdk.EmbeddingNewParamsEncodingFormatFloat,
		}
		var got model.Embeddings
		err := m.c.Do(ctx, op, func(ctx context.Context) error {
			raw, hr, err := call.Send(ctx, m.c, m.embed.New, params)
			if err != nil {
				return m.c.AttemptError(err, hr)
			}
			if got, err = parseEmbeddings(raw, len(batch)); err != nil {
				return m.c.Invalid(op, err)
			}
			return nil
		})
		if err != nil {
			return model.Embeddings{}, err
		}
		out.Vectors = append(out.Vectors, got.Vectors...)
		out.Usage = out.Usage.Add(got.Usage)
		if got.Model != "" {
			out.Model = got.Model
		}
	}
	out.Latency = m.c.Now().Sub(start)
	return out, nil
}
