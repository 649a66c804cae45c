package anthropic

import (
	"context"
	"errors"
	"iter"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"

	"github.com/sanadhq/sanad/model"
)

// Stream sends req to the Messages API as a stream. The call is retried,
// like Generate, until the first event arrives; after that a broken stream
// ends with DEPENDENCY_DOWN.
func (m *Model) Stream(ctx context.Context, req model.Request) iter.Seq2[model.Delta, error] {
	return func(yield func(model.Delta, error) bool) {
		const op = "anthropic.stream"
		if err := req.Validate(); err != nil {
			yield(model.Delta{}, err)
			return
		}
		params, err := m.params(req)
		if err != nil {
			yield(model.Delta{}, err)
			return
		}
		ctx, cancel := m.ep.Deadline(ctx)
		defer cancel()
		start := m.ep.Now()
		var hr *http.Response
		err = m.ep.Do(ctx, op, func(ctx context.Context) error {
			var r *http.Response
			_, err := m.messages.New(ctx, params, option.WithJSONSet("stream", true), option.WithResponseBodyInto(&r))
			if err != nil {
				return attemptError(err, r)
			}
			if r == nil || r.Body == nil {
				return m.ep.Invalid(op, "the stream has no body")
			}
			hr = r
			return nil
		})
		if err != nil {
			yield(model.Delta{}, err)
			return
		}
		defer hr.Body.Close()

		st := newStreamState()
		dec := ssestream.NewDecoder(hr)
		for dec.Next() {
			deltas, done, err := st.event(dec.Event().Data)
			if err != nil {
				yield(model.Delta{}, m.streamError(ctx, op, err))
				return
			}
			for _, d := range deltas {
				m.ep.RedactDelta(&d)
				if !yield(d, nil) {
					return
				}
			}
			if done {
				break
			}
		}
		if err := dec.Err(); err != nil {
			yield(model.Delta{}, m.ep.Interrupted(ctx, op, err))
			return
		}
		resp, err := st.response()
		if err != nil {
			yield(model.Delta{}, m.streamError(ctx, op, err))
			return
		}
		resp.RequestID = hr.Header.Get(requestIDHeader)
		m.finish(&resp, req, start)
		yield(model.Delta{Response: &resp}, nil)
	}
}

// streamError classifies a failure met in the events of a stream: the
// provider's own error event and a stream cut short are the provider
// failing; anything else is a malformed answer.
func (m *Model) streamError(ctx context.Context, op string, err error) error {
	var se *errStreamError
	if errors.As(err, &se) || errors.Is(err, errUnfinished) {
		return m.ep.Interrupted(ctx, op, err)
	}
	return m.ep.Invalid(op, "%s", err.Error())
}
