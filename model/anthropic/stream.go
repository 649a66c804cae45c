package anthropic

import (
	"context"
	"iter"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"

	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/internal/call"
)

// Stream sends req to the Messages API as a stream. The call is retried,
// like Generate, until the first event arrives; after that a broken stream
// ends with DEPENDENCY_DOWN.
func (m *Model) Stream(ctx context.Context, req model.Request) iter.Seq2[model.Delta, error] {
	return call.Stream(ctx, m.ep, "anthropic.stream", req, m.params, m.open, events, reader)
}

// open makes one attempt at starting a stream.
func (m *Model) open(ctx context.Context, p sdk.MessageNewParams) (*http.Response, error) {
	var r *http.Response
	_, err := m.messages.New(ctx, p, option.WithJSONSet("stream", true), option.WithResponseBodyInto(&r))
	return r, err
}

// events decodes the server-sent events of a stream.
func events(hr *http.Response) call.Events {
	dec := ssestream.NewDecoder(hr)
	return call.Events{Next: dec.Next, Data: func() []byte { return dec.Event().Data }, Err: dec.Err}
}

// reader reads the events of one stream.
func reader() call.StreamReader {
	st := newStreamState()
	return call.StreamReader{Event: st.event, Response: st.response}
}
