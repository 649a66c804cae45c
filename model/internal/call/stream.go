package call

import (
	"context"
	"errors"
	"iter"
	"net/http"

	"github.com/sanadhq/sanad/model"
)

// Events reads the server-sent events of a stream, as an SDK's decoder
// does.
type Events struct {
	Next func() bool
	Data func() []byte // the data of the current event
	Err  func() error
}

// Reader reads the events of one streamed reply, in its provider's format.
// The text and the tool calls of the reply are put together from the
// deltas Event returns (see [Assembler]); the reader keeps the rest.
type Reader interface {
	// Event reads the data of one event and returns its deltas; done is
	// true at the provider's end of the stream.
	Event(data []byte) (deltas []model.Delta, done bool, err error)
	// Reply returns, once the stream has ended, what the events said of
	// the reply besides its text and tool calls: its id, model, usage and
	// finish reason (toolCalls says whether the deltas held tool calls).
	// It fails with ErrUnfinished when the stream ended before the model
	// finished.
	Reply(toolCalls bool) (model.Response, error)
}

// StreamError is an error the provider reports in the events of a stream.
type StreamError struct{ Msg string }

func (e *StreamError) Error() string { return "the provider reported an error mid-stream: " + e.Msg }

// ErrUnfinished is a stream that ended before the model finished.
var ErrUnfinished = errors.New("the stream ended before the model finished")

// Assembler puts a streamed reply together, event by event: its [Reader]
// reads each event, and the Assembler adds up the text and the tool-call
// fragments of the deltas, so that the final Response holds exactly what
// the deltas carried. It is not safe for concurrent use.
type Assembler struct {
	r     Reader
	acc   model.Accumulator
	calls bool // a delta carried a tool-call fragment
}

// NewAssembler returns the assembler of one stream read by r.
func NewAssembler(r Reader) *Assembler { return &Assembler{r: r} }

// Event reads the data of one event and returns its deltas; done is true
// at the provider's end of the stream.
func (a *Assembler) Event(data []byte) (deltas []model.Delta, done bool, err error) {
	deltas, done, err = a.r.Event(data)
	if err != nil {
		return nil, false, err
	}
	for _, d := range deltas {
		a.acc.Add(d)
		a.calls = a.calls || d.ToolCall != nil
	}
	return deltas, done, nil
}

// Response returns the whole reply once the stream has ended. A tool call
// that came without an id is given one (see [ToolCallID]). The tool calls
// fail with the *sanad.Error of model.Accumulator.ToolCalls when their
// fragments do not add up.
func (a *Assembler) Response() (model.Response, error) {
	resp, err := a.r.Reply(a.calls)
	if err != nil {
		return model.Response{}, err
	}
	calls, err := a.acc.ToolCalls()
	if err != nil {
		return model.Response{}, err
	}
	for i := range calls {
		if calls[i].ID == "" {
			calls[i].ID = ToolCallID(resp.ID, i, calls[i].Name, calls[i].Arguments)
		}
	}
	resp.Text, resp.ToolCalls = a.acc.Text(), calls
	return resp, nil
}

// Stream runs one streamed call. The call is retried, like [Generate],
// until send returns the response of the stream; after that a broken
// stream ends with DEPENDENCY_DOWN. reader, called once per run, reads the
// events. Errors are those of the operation "<provider>.stream". Breaking
// out of the loop early closes the response.
func Stream[P, O, R any](ctx context.Context, c *Client[O], req model.Request,
	params func(model.Request) (P, error),
	send func(context.Context, P, ...O) (R, error),
	reader func() Reader,
) iter.Seq2[model.Delta, error] {
	op := c.Provider + ".stream"
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
		ctx, cancel := c.Deadline(ctx)
		defer cancel()
		start := c.Now()
		var hr *http.Response
		err = c.Do(ctx, op, func(ctx context.Context) error {
			r, err := open(ctx, c, send, p)
			if err != nil {
				return c.AttemptError(err, r)
			}
			if r == nil || r.Body == nil {
				return c.Invalid(op, errors.New("the stream has no body"))
			}
			hr = r
			return nil
		})
		if err != nil {
			yield(model.Delta{}, err)
			return
		}
		defer hr.Body.Close()

		a := NewAssembler(reader())
		dec := c.sdk.Events(hr)
		for dec.Next() {
			deltas, done, err := a.Event(dec.Data())
			if err != nil {
				yield(model.Delta{}, c.streamError(ctx, op, err))
				return
			}
			for _, d := range deltas {
				c.RedactDelta(&d)
				if !yield(d, nil) {
					return
				}
			}
			if done {
				break
			}
		}
		if err := dec.Err(); err != nil {
			yield(model.Delta{}, c.Interrupted(ctx, op, err))
			return
		}
		resp, err := a.Response()
		if err != nil {
			yield(model.Delta{}, c.streamError(ctx, op, err))
			return
		}
		resp.RequestID = hr.Header.Get(c.RequestIDHeader)
		c.Finish(&resp, req, start)
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
