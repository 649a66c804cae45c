package call

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
// and turned into the provider's parameters, send (the New method of the
// SDK's service) makes each attempt, and parse reads the body. Errors are
// those of the operation "<provider>.generate".
func Generate[P, O, R any](ctx context.Context, c *Client[O], req model.Request,
	params func(model.Request) (P, error),
	send func(context.Context, P, ...O) (R, error),
	parse func([]byte) (model.Response, error),
) (model.Response, error) {
	op := c.Provider + ".generate"
	if err := req.Validate(); err != nil {
		return model.Response{}, err
	}
	p, err := params(req)
	if err != nil {
		return model.Response{}, err
	}
	ctx, cancel := c.Deadline(ctx)
	defer cancel()
	start := c.Now()
	var resp model.Response
	err = c.Do(ctx, op, func(ctx context.Context) error {
		raw, hr, err := Send(ctx, c, send, p)
		if err != nil {
			return c.AttemptError(err, hr)
		}
		if resp, err = parse(raw); err != nil {
			return c.Invalid(op, err)
		}
		if hr != nil {
			resp.RequestID = hr.Header.Get(c.RequestIDHeader)
		}
		return nil
	})
	if err != nil {
		return model.Response{}, err
	}
	c.Finish(&resp, req, start)
	return resp, nil
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
