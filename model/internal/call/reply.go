package call

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"time"

	"github.com/sanadhq/sanad/model"
)

// AttemptError is what one failed attempt reports to [Endpoint.Do]: the
// *HTTPError of an error status, or err itself.
func (e *Endpoint) AttemptError(err error, hr *http.Response) error {
	if hr != nil && hr.StatusCode >= 400 {
		return FromResponse(hr, e.RequestIDHeader)
	}
	return err
}

// Finish sets what every reply of the endpoint carries, and redacts it.
func (e *Endpoint) Finish(resp *model.Response, req model.Request, start time.Time) {
	resp.Provider = e.Provider
	if resp.Model == "" {
		resp.Model = e.Model
	}
	if req.Output != nil && len(resp.ToolCalls) == 0 {
		resp.Output = model.OutputJSON(resp.Text)
	}
	resp.Latency = e.Now().Sub(start)
	e.RedactResponse(resp)
}

// Generate runs one call that answers with a whole reply: req is validated
// and turned into the provider's parameters, send makes one attempt and
// returns the body and the HTTP response, and parse reads the body.
func Generate[P any](ctx context.Context, e *Endpoint, op string, req model.Request,
	params func(model.Request) (P, error),
	send func(context.Context, P) ([]byte, *http.Response, error),
	parse func([]byte) (model.Response, error),
) (model.Response, error) {
	if err := req.Validate(); err != nil {
		return model.Response{}, err
	}
	p, err := params(req)
	if err != nil {
		return model.Response{}, err
	}
	ctx, cancel := e.Deadline(ctx)
	defer cancel()
	start := e.Now()
	var resp model.Response
	err = e.Do(ctx, op, func(ctx context.Context) error {
		raw, hr, err := send(ctx, p)
		if err != nil {
			return e.AttemptError(err, hr)
		}
		if resp, err = parse(raw); err != nil {
			return e.Invalid(op, err)
		}
		if hr != nil {
			resp.RequestID = hr.Header.Get(e.RequestIDHeader)
		}
		return nil
	})
	if err != nil {
		return model.Response{}, err
	}
	e.Finish(&resp, req, start)
	return resp, nil
}

// Events reads the server-sent events of a stream, as an SDK's decoder
// does.
type Events struct {
	Next func() bool
	Data func() []byte // the data of the current event
	Err  func() error
}

// StreamReader puts a streamed reply together from the data of its events.
type StreamReader struct {
	// Event reads one event and returns its deltas; done is true at the
	// provider's end of the stream.
	Event func(data []byte) (deltas []model.Delta, done bool, err error)
	// Response returns the whole reply once the stream has ended.
	Response func() (model.Response, error)
}

// StreamError is an error the provider reports in the events of a stream.
type StreamError struct{ Msg string }

func (e *StreamError) Error() string { return "the provider reported an error mid-stream: " + e.Msg }

// ErrUnfinished is a stream that ended before the model finished.
var ErrUnfinished = errors.New("the stream ended before the model finished")

// Stream runs one streamed call. The call is retried, like [Generate],
// until open returns the response of the stream; after that a broken stream
// ends with DEPENDENCY_DOWN. events decodes the body and reader, called
// once per run, reads the events.
func Stream[P any](ctx context.Context, e *Endpoint, op string, req model.Request,
	params func(model.Request) (P, error),
	open func(context.Context, P) (*http.Response, error),
	events func(*http.Response) Events,
	reader func() StreamReader,
) iter.Seq2[model.Delta, error] {
	return func(yield func(model.Delta, error) bool) {
		if err := req.Validate(); err != nil {
			yield(model.Delta{}, err)
			return
		}
		p, err := params(req)
		if err != nil {
			yield(model.Delta{}, err)
			return
		}
		ctx, cancel := e.Deadline(ctx)
		defer cancel()
		start := e.Now()
		var hr *http.Response
		err = e.Do(ctx, op, func(ctx context.Context) error {
			r, err := open(ctx, p)
			if err != nil {
				return e.AttemptError(err, r)
			}
			if r == nil || r.Body == nil {
				return e.Invalid(op, errors.New("the stream has no body"))
			}
			hr = r
			return nil
		})
		if err != nil {
			yield(model.Delta{}, err)
			return
		}
		defer hr.Body.Close()

		rd := reader()
		dec := events(hr)
		for dec.Next() {
			deltas, done, err := rd.Event(dec.Data())
			if err != nil {
				yield(model.Delta{}, e.streamError(ctx, op, err))
				return
			}
			for _, d := range deltas {
				e.RedactDelta(&d)
				if !yield(d, nil) {
					return
				}
			}
			if done {
				break
			}
		}
		if err := dec.Err(); err != nil {
			yield(model.Delta{}, e.Interrupted(ctx, op, err))
			return
		}
		resp, err := rd.Response()
		if err != nil {
			yield(model.Delta{}, e.streamError(ctx, op, err))
			return
		}
		resp.RequestID = hr.Header.Get(e.RequestIDHeader)
		e.Finish(&resp, req, start)
		yield(model.Delta{Response: &resp}, nil)
	}
}

// streamError classifies a failure met in the events of a stream: the
// provider's own error event and a stream cut short are the provider
// failing; anything else is a malformed answer.
func (e *Endpoint) streamError(ctx context.Context, op string, err error) error {
	var se *StreamError
	if errors.As(err, &se) || errors.Is(err, ErrUnfinished) {
		return e.Interrupted(ctx, op, err)
	}
	return e.Invalid(op, err)
}

// Decode reads one JSON object into v, saying what is wrong in words that
// quote no part of the body.
func Decode(raw []byte, v any, what string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return fmt.Errorf("the %s is empty", what)
	}
	if !json.Valid(raw) {
		return fmt.Errorf("the %s is not JSON", what)
	}
	if raw[0] != '{' {
		return fmt.Errorf("the %s is not a JSON object", what)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("the %s has a %s where %s wants %s", what, te.Value, te.Field, te.Type)
		}
		return fmt.Errorf("the %s does not have the expected shape", what)
	}
	return nil
}
