// Package call is what the provider adapters of model share, so that each
// adapter holds only what is its provider's own: how a model.Request
// becomes the provider's parameters, how an answer and the events of a
// stream are read, and which SDK sends them.
//
// Shared here: the checks and defaults of an adapter's settings
// ([Endpoint], [Open]), the options every request of an SDK carries
// ([Client.Options]), the retry loop with its Retry-After handling
// ([Endpoint.Do]), the deadline of a call, the mapping of failures onto
// sanad error codes, the redaction of the API key from everything a call
// returns or logs, and the loops of a whole ([Generate]) or streamed
// ([Stream]) call, in which an [Assembler] puts the reply of a stream
// together from the deltas of the provider's [Reader].
package call

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
)

// Endpoint is one provider model and how calls to it are made.
type Endpoint struct {
	Provider   string // "openai", "anthropic"
	Model      string
	BaseURL    string
	HTTPClient *http.Client
	KeyEnv     string       // the environment variable that held Key, named in auth errors
	Key        model.Secret // redacted from every message
	// RequestIDHeader is where the provider puts the id of a request.
	RequestIDHeader string
	Retry           model.Retry
	Timeout         time.Duration // negative: no deadline of its own
	Logger          *slog.Logger
}

// Check checks the settings every adapter requires, a model name and an
// http or https base URL with a host, and returns e with its defaults set
// (see [New]): BaseURL defaultBase when empty. example is a base URL the
// error shows.
func Check(op string, e Endpoint, defaultBase, example string) (*Endpoint, error) {
	if strings.TrimSpace(e.Model) == "" {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "no model name given")
	}
	if e.BaseURL == "" {
		e.BaseURL = defaultBase
	}
	u, err := url.Parse(e.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "base URL must be an http or https URL such as %s", example)
	}
	return New(e), nil
}

// New returns e with its defaults set: http.DefaultClient, the default
// retry policy, model.DefaultTimeout and a logger that discards.
func New(e Endpoint) *Endpoint {
	if e.HTTPClient == nil {
		e.HTTPClient = http.DefaultClient
	}
	e.Retry = e.Retry.WithDefaults()
	if e.Timeout == 0 {
		e.Timeout = model.DefaultTimeout
	}
	if e.Logger == nil {
		e.Logger = slog.New(slog.DiscardHandler)
	}
	return &e
}

// Now returns the current time of the endpoint's clock.
func (e *Endpoint) Now() time.Time { return e.Retry.Now() }

// Deadline returns ctx with the deadline of one call.
func (e *Endpoint) Deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if e.Timeout < 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, e.Timeout)
}

// Redact returns s without the API key.
func (e *Endpoint) Redact(s string) string { return e.Key.Redact(s) }

// RedactResponse removes the API key from every text of resp. A reply
// never needs the key; a server or a model that echoes it must not make it
// travel further.
func (e *Endpoint) RedactResponse(resp *model.Response) {
	resp.Text = e.Redact(resp.Text)
	resp.Model = e.Redact(resp.Model)
	resp.ID = e.Redact(resp.ID)
	resp.RequestID = e.Redact(resp.RequestID)
	if resp.Output != nil {
		resp.Output = json.RawMessage(e.Redact(string(resp.Output)))
	}
	for i := range resp.ToolCalls {
		c := &resp.ToolCalls[i]
		c.ID, c.Name = e.Redact(c.ID), e.Redact(c.Name)
		c.Arguments = json.RawMessage(e.Redact(string(c.Arguments)))
	}
}

// RedactDelta removes the API key from the fragments of d.
func (e *Endpoint) RedactDelta(d *model.Delta) {
	d.Text = e.Redact(d.Text)
	if tc := d.ToolCall; tc != nil {
		c := *tc
		c.ID, c.Name, c.Arguments = e.Redact(c.ID), e.Redact(c.Name), e.Redact(c.Arguments)
		d.ToolCall = &c
	}
	if d.Response != nil {
		e.RedactResponse(d.Response)
	}
}

// HTTPError is an error status from the provider, as an attempt reports it
// to [Endpoint.Do].
type HTTPError struct {
	Status       int
	RetryAfter   string // the Retry-After header
	RetryAfterMS string // the retry-after-ms header some providers add
	RequestID    string
	Message      string // the provider's own message, one line, bounded
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// FromResponse returns the HTTPError of an error response. The SDKs leave
// the body of an error response readable.
func FromResponse(hr *http.Response, requestIDHeader string) *HTTPError {
	e := &HTTPError{
		Status:       hr.StatusCode,
		RetryAfter:   hr.Header.Get("Retry-After"),
		RetryAfterMS: hr.Header.Get("Retry-After-Ms"),
		RequestID:    hr.Header.Get(requestIDHeader),
	}
	if hr.Body != nil {
		body, _ := io.ReadAll(io.LimitReader(hr.Body, 64<<10))
		e.Message = ProviderMessage(body)
	}
	return e
}

// maxProviderMessage bounds the provider's message quoted in an error.
const maxProviderMessage = 300

// ProviderMessage returns the message of a provider's error body ({"error":
// {"message": …}} and its variants), or the body itself, on one line and
// bounded.
func ProviderMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	msg := ""
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			msg = inner.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			msg = s
		case v.Message != "":
			msg = v.Message
		case v.Detail != "":
			msg = v.Detail
		}
	}
	if msg == "" {
		msg = string(body)
	}
	msg = strings.Join(strings.Fields(strings.ToValidUTF8(msg, "?")), " ")
	if len(msg) > maxProviderMessage {
		cut := maxProviderMessage
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}

// Do runs attempt until it succeeds, fails in a way a retry cannot mend, or
// the attempts run out, and returns nil or a *sanad.Error. An attempt
// reports an error status as an *HTTPError, a malformed answer as a
// *sanad.Error (returned as it is), and anything else as a failure to reach
// the provider.
func (e *Endpoint) Do(ctx context.Context, op string, attempt func(context.Context) error) error {
	attempts := e.Retry.Attempts()
	for n := 1; ; n++ {
		err := attempt(ctx)
		if err == nil {
			return nil
		}
		var se *sanad.Error
		if errors.As(err, &se) {
			return se
		}
		if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return e.contextError(ctx, op, err, n)
		}
		var he *HTTPError
		isHTTP := errors.As(err, &he)
		if isHTTP && !retryable(he.Status) {
			return e.final(op, err, n, 0)
		}
		wait, said := time.Duration(0), false
		if isHTTP {
			wait, said = e.retryAfter(he)
		}
		if n >= attempts {
			return e.final(op, err, n, 0)
		}
		if said && wait > e.Retry.MaxDelay {
			return e.final(op, err, n, wait)
		}
		if !said {
			wait = e.Retry.Backoff(n)
		}
		e.Logger.Warn("model call failed; retrying", "op", op, "provider", e.Provider, "model", e.Model,
			"attempt", n, "max_attempts", attempts, "error", e.Redact(err.Error()), "retry_in", wait)
		if serr := e.Retry.Sleep(ctx, wait); serr != nil {
			return e.contextError(ctx, op, serr, n)
		}
	}
}

// retryable reports whether a retry may mend an error status.
func retryable(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
}

// retryAfter returns the wait the provider asked for, if it did.
func (e *Endpoint) retryAfter(he *HTTPError) (time.Duration, bool) {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(he.RetryAfterMS), 64); err == nil && ms >= 0 && ms < 864e5 {
		return time.Duration(ms * float64(time.Millisecond)), true
	}
	return model.ParseRetryAfter(he.RetryAfter, e.Now())
}

// final turns the last failure of a call into its *sanad.Error. wait is the
// Retry-After that was too long to honour, if that is why the call ended.
func (e *Endpoint) final(op string, err error, attempts int, wait time.Duration) error {
	who := fmt.Sprintf("%s model %s", e.Provider, e.Model)
	tries := ""
	if attempts > 1 {
		tries = fmt.Sprintf(" after %d attempts", attempts)
	}
	var he *HTTPError
	if !errors.As(err, &he) {
		where := e.BaseURL
		if where == "" {
			where = "its default URL"
		}
		return e.fail(err, sanad.CodeDependencyDown, op, "could not reach %s at %s%s: %s", who, where, tries, err.Error())
	}
	status := fmt.Sprintf("%d %s", he.Status, http.StatusText(he.Status))
	said := ""
	if he.Message != "" {
		said = ": " + he.Message
	}
	if he.RequestID != "" {
		said += " (request id " + he.RequestID + ")"
	}
	if wait > 0 {
		tries += fmt.Sprintf(" (the provider asked to wait %s, longer than the retry limit of %s)", wait, e.Retry.MaxDelay)
	}
	switch {
	case he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden:
		if e.KeyEnv == "" {
			return e.fail(he, sanad.CodeModelAuth, op, "%s refused the call (%s): no API key is configured; set api_key_env for this model class%s", who, status, said)
		}
		return e.fail(he, sanad.CodeModelAuth, op, "%s refused the API key (%s): check the key in environment variable %s%s", who, status, e.KeyEnv, said)
	case he.Status == http.StatusTooManyRequests:
		return e.fail(he, sanad.CodeModelRateLimit, op, "%s is rate limited (%s)%s; try again later%s", who, status, tries, said)
	case retryable(he.Status):
		return e.fail(he, sanad.CodeDependencyDown, op, "%s failed (%s)%s%s", who, status, tries, said)
	}
	return e.fail(he, sanad.CodeInvalidInput, op, "%s refused the request (%s)%s", who, status, said)
}

// contextError is the error of a call whose context ended: ERR_TIMEOUT when
// a deadline passed, CANCELLED when the caller cancelled.
func (e *Endpoint) contextError(ctx context.Context, op string, err error, attempts int) error {
	who := fmt.Sprintf("%s model %s", e.Provider, e.Model)
	if errors.Is(ctx.Err(), context.Canceled) || (ctx.Err() == nil && errors.Is(err, context.Canceled)) {
		return sanad.Wrap(context.Canceled, sanad.CodeCancelled, op, fmt.Sprintf("the call to %s was cancelled", who))
	}
	limit := ""
	if e.Timeout > 0 {
		limit = fmt.Sprintf(" (timeout %s)", e.Timeout)
	}
	return sanad.Wrap(context.DeadlineExceeded, sanad.CodeTimeout, op,
		fmt.Sprintf("%s did not answer before the deadline%s; %d attempt(s) made", who, limit, attempts))
}

// Interrupted classifies an error met while reading a stream, after the
// call itself succeeded.
func (e *Endpoint) Interrupted(ctx context.Context, op string, err error) error {
	var se *sanad.Error
	if errors.As(err, &se) {
		return se
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return e.contextError(ctx, op, err, 1)
	}
	return e.fail(err, sanad.CodeDependencyDown, op, "the stream from %s model %s broke off: %s", e.Provider, e.Model, err.Error())
}

// Invalid returns the MODEL_OUTPUT_INVALID error of a malformed answer; err
// says what is wrong with it. The error keeps err as its cause, so that
// errors.Is and errors.As still find it, unless the key is in its text: then
// the cause is a copy with the key taken out (see [Endpoint.scrub]).
func (e *Endpoint) Invalid(op string, err error) error {
	msg := fmt.Sprintf("%s model %s sent a malformed answer: %s", e.Provider, e.Model, sanad.ErrorMessage(err))
	return sanad.Wrap(e.scrub(err), sanad.CodeModelOutput, op, e.Redact(msg))
}

// scrub returns err as a cause that may be kept: err itself when no error of
// its chain holds the API key in its text; otherwise a copy without the key,
// in which a *sanad.Error keeps its code and op. Only the adapters' own
// errors are scrubbed: an SDK error holds the HTTP request, headers
// included, and is never kept (see [Endpoint.fail]).
func (e *Endpoint) scrub(err error) error {
	if err == nil || !e.holdsKey(err) {
		return err
	}
	if se, ok := err.(*sanad.Error); ok {
		c := *se
		c.Message, c.Err = e.Redact(c.Message), e.scrub(c.Err)
		return &c
	}
	return errors.New(e.Redact(err.Error()))
}

// holdsKey reports whether the text of an error of err's chain holds the
// API key.
func (e *Endpoint) holdsKey(err error) bool {
	for x := err; x != nil; x = errors.Unwrap(x) {
		if s := x.Error(); e.Redact(s) != s {
			return true
		}
	}
	return false
}

// fail builds a *sanad.Error whose message and cause are free of the key.
// The cause is the redacted text of err: SDK errors hold the HTTP request,
// headers included, so they are never kept.
func (e *Endpoint) fail(err error, code sanad.Code, op, format string, args ...any) error {
	msg := e.Redact(fmt.Sprintf(format, args...))
	e.Logger.Warn("model call failed", "op", op, "provider", e.Provider, "model", e.Model, "code", string(code), "error", msg)
	var he *HTTPError
	if errors.As(err, &he) {
		c := *he
		c.Message, c.RequestID = e.Redact(c.Message), e.Redact(c.RequestID)
		return sanad.Wrap(&c, code, op, msg)
	}
	return sanad.Wrap(errors.New(e.Redact(err.Error())), code, op, msg)
}

// Schema returns a JSON object as a map whose values are the raw JSON of
// each member, which the SDKs' encoders write back byte for byte (numbers
// keep their precision). Empty means {"type": "object", "properties": {}}.
func Schema(raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{"type": json.RawMessage(`"object"`), "properties": json.RawMessage(`{}`)}, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out, nil
}

// ToolCallID returns the id of a tool call that came without one (some
// OpenAI-compatible servers send none): "call_" and 24 hex digits of a hash
// of the reply id, the call's position, name and arguments, so a replayed
// answer gets the same id.
func ToolCallID(replyID string, index int, name string, args []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00", replyID, index, name)
	h.Write(args)
	return "call_" + hex.EncodeToString(h.Sum(nil))[:24]
}
