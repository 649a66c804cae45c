package call

import (
	"context"
	"net/http"
)

// SDK is what the plumbing uses of a provider's SDK: the constructors of
// the request options it sets, and the decoder of server-sent events. The
// SDKs of OpenAI and Anthropic are generated from one template, so they
// have the same options, each of the SDK's own type O, and their services
// send a request with a New method of one shape (see [Send]).
type SDK[O any] struct {
	WithBaseURL, WithAPIKey func(string) O
	WithHTTPClient          func(*http.Client) O
	WithMaxRetries          func(int) O
	WithJSONSet             func(key string, value any) O
	WithResponseBodyInto    func(dst any) O
	WithResponseInto        func(dst **http.Response) O
	// Events decodes the server-sent events of a stream.
	Events func(*http.Response) Events
}

// Client is an [Endpoint] and the SDK that reaches it. It is safe for
// concurrent use.
type Client[O any] struct {
	*Endpoint
	sdk SDK[O]
}

// Open checks e (see [Check]) and returns its client. defaultBase is the
// provider's API, example a base URL an error shows.
func Open[O any](e Endpoint, defaultBase, example string, sdk SDK[O]) (*Client[O], error) {
	ep, err := Check(e.Provider+".new", e, defaultBase, example)
	if err != nil {
		return nil, err
	}
	return &Client[O]{Endpoint: ep, sdk: sdk}, nil
}

// Options returns the options of every request to the endpoint, for the
// constructors of the SDK's services: its base URL and HTTP client, no
// retries of the SDK's own ([model.Retry] is the policy), and the API key
// when there is one. No option reads the environment.
func (c *Client[O]) Options() []O {
	opts := []O{c.sdk.WithBaseURL(c.BaseURL), c.sdk.WithHTTPClient(c.HTTPClient), c.sdk.WithMaxRetries(0)}
	if c.Key != "" {
		opts = append(opts, c.sdk.WithAPIKey(string(c.Key)))
	}
	return opts
}

// Send makes one attempt at a request answered with one JSON body, which
// the SDK leaves unread: send is the New method of one of the SDK's
// services. It returns the body and the HTTP response.
func Send[P, O, R any](ctx context.Context, c *Client[O], send func(context.Context, P, ...O) (R, error), p P) ([]byte, *http.Response, error) {
	var raw []byte
	var hr *http.Response
	_, err := send(ctx, p, c.sdk.WithResponseBodyInto(&raw), c.sdk.WithResponseInto(&hr))
	return raw, hr, err
}

// open makes one attempt at starting a stream: p is sent with "stream":
// true and the response comes back with its body unread.
func open[P, O, R any](ctx context.Context, c *Client[O], send func(context.Context, P, ...O) (R, error), p P) (*http.Response, error) {
	var hr *http.Response
	_, err := send(ctx, p, c.sdk.WithJSONSet("stream", true), c.sdk.WithResponseBodyInto(&hr))
	return hr, err
}
