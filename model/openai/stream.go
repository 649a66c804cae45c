package openai

import (
	"context"
	"iter"
	"net/http"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/internal/call"
)

// Stream sends req to the Chat Completions API as a stream (with usage). The
// call is retried, like Generate, until the first event arrives; after that
// a broken stream ends with DEPENDENCY_DOWN.
func (m *Model) Stream(ctx context.Context, req model.Request) iter.Seq2[model.Delta, error] {
	return call.Stream(ctx, m.c, req, m.streamParams, m.chat.New, newStreamState)
}

// streamParams builds the request of a stream, usage included.
func (m *Model) streamParams(req model.Request) (sdk.ChatCompletionNewParams, error) {
	p, err := m.params(req)
	if err != nil {
		return p, err
	}
	p.StreamOptions = sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)}
	return p, nil
}

// events decodes the server-sent events of a stream.
func events(hr *http.Response) call.Events {
	dec := ssestream.NewDecoder(hr)
	return call.Events{Next: dec.Next, Data: func() []byte { return dec.Event().Data }, Err: dec.Err}
}
