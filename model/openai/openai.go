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
	ep    *call.Endpoint
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
	ep, err := call.Check("openai.new", call.Endpoint{
		Provider: provider, Model: cfg.Model, BaseURL: cfg.BaseURL,
		KeyEnv: cfg.APIKeyEnv, Key: cfg.APIKey, RequestIDHeader: requestIDHeader,
		Retry: cfg.Retry, Timeout: cfg.Timeout, Logger: cfg.Logger,
	}, DefaultBaseURL, "http://127.0.0.1:8080/v1")
	if err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	opts := []option.RequestOption{
		option.WithBaseURL(ep.BaseURL),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(string(cfg.APIKey)))
	}
	u, _ := url.Parse(ep.BaseURL) // checked
	return &Model{
		ep:              ep,
		chat:            sdk.NewChatCompletionService(opts...),
		embed:           sdk.NewEmbeddingService(opts...),
		legacyMaxTokens: u.Host != "api.openai.com",
	}, nil
}

// Generate sends req to the Chat Completions API.
func (m *Model) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	return call.Generate(ctx, m.ep, "openai.generate", req, m.params, m.send, parseCompletion)
}

// send makes one attempt at a chat completion.
func (m *Model) send(ctx context.Context, p sdk.ChatCompletionNewParams) ([]byte, *http.Response, error) {
	var raw []byte
	var hr *http.Response
	_, err := m.chat.New(ctx, p, option.WithResponseBodyInto(&raw), option.WithResponseInto(&hr))
	return raw, hr, err
}

const requestIDHeader = "X-Request-Id"

// params builds the Chat Completions request of req, which is valid.
func (m *Model) params(req model.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{Model: shared.ChatModel(m.ep.Model)}
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
	out := model.Embeddings{Provider: provider, Model: m.ep.Model, Vectors: make([][]float32, 0, len(texts))}
	for i, t := range texts {
		if t == "" {
			return model.Embeddings{}, sanad.Errorf(sanad.CodeInvalidInput, op, "text %d is empty; the embeddings API refuses empty texts", i)
		}
	}
	if len(texts) == 0 {
		return out, nil
	}
	ctx, cancel := m.ep.Deadline(ctx)
	defer cancel()
	start := m.ep.Now()
	for lo := 0; lo < len(texts); lo += MaxEmbedBatch {
		batch := texts[lo:min(lo+MaxEmbedBatch, len(texts))]
		params := sdk.EmbeddingNewParams{
			Input:          sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: batch},
			Model:          sdk.EmbeddingModel(m.ep.Model),
			EncodingFormat: sdk.EmbeddingNewParamsEncodingFormatFloat,
		}
		var got model.Embeddings
		err := m.ep.Do(ctx, op, func(ctx context.Context) error {
			var raw []byte
			var hr *http.Response
			_, err := m.embed.New(ctx, params, option.WithResponseBodyInto(&raw), option.WithResponseInto(&hr))
			if err != nil {
				return m.ep.AttemptError(err, hr)
			}
			if got, err = parseEmbeddings(raw, len(batch)); err != nil {
				return m.ep.Invalid(op, err)
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
	out.Latency = m.ep.Now().Sub(start)
	return out, nil
}
