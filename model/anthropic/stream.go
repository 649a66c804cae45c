package anthropic

import (
	"context"
	"iter"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"

	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/internal/call"
)

// Stream sends req to the Messages API as a stream. The call is retried,
// like Generate, until the first event arrives; after that a broken stream
// ends with DEPENDENCY_DOWN.
func (m *Model) Stream(ctx context.Context, req model.Request) iter.Seq2[model.Delta, error] {
	return call.Stream(ctx, m.c, req, m.params, m.messages.New, newStreamState)
}

// events decodes the server-sent events of a stream.
func events(hr *http.Response) call.Events {
	dec := ssestream.NewDecoder(hr)
	return call.Events{Next: dec.Next, Data: func() []byte { return dec.Event().Data }, Err: dec.Err}
}
