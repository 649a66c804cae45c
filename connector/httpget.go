package connector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sanadhq/sanad"
)

// MaxRedirects bounds the redirects one request follows.
const MaxRedirects = 10

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// RedirectPolicy decides whether a redirect to req is followed; via holds
// the requests made so far, oldest first. It has the shape of
// http.Client.CheckRedirect. An error it returns ends the request and is
// returned from [HTTP.Get] as it is when it is a *sanad.Error.
type RedirectPolicy func(req *http.Request, via []*http.Request) error

// SameSiteRedirects follows a redirect only to the same site as the first
// request (see [SameSite]) and refuses any other with ErrOffSite
// (CodePolicyDenied): a source never leads the connector to another host
// silently.
func SameSiteRedirects(req *http.Request, via []*http.Request) error {
	from := via[0].URL
	if !SameSite(from, req.URL) {
		return sanad.Wrap(ErrOffSite, sanad.CodePolicyDenied, "connector.http",
			fmt.Sprintf("%s redirected to %s, another site: refused", Redact(from), Redact(req.URL)))
	}
	return nil
}

// SameSite reports whether b is on the site of a: the same host and port,
// and the same scheme or an upgrade from http to https on the default
// ports.
func SameSite(a, b *url.URL) bool {
	if !strings.EqualFold(a.Hostname(), b.Hostname()) {
		return false
	}
	as, bs := strings.ToLower(a.Scheme), strings.ToLower(b.Scheme)
	ap, bp := portOf(a), portOf(b)
	if as == bs {
		return ap == bp
	}
	return as == "http" && bs == "https" && ap == "80" && bp == "443"
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// Redact returns u as text without its user information, for messages.
func Redact(u *url.URL) string {
	if u.User == nil {
		return u.String()
	}
	c := *u
	c.User = nil
	return c.String()
}

// Verdict is how a connector treats a response status it did not expect.
type Verdict struct {
	Code    sanad.Code
	Retry   bool   // a later attempt may succeed
	Message string // names the source and says what to do
}

// ClassifyFunc returns the verdict on a non-2xx response to a request for
// source; body holds at most the first 64 KiB of the response.
type ClassifyFunc func(source string, status int, header http.Header, body []byte) Verdict

// ClassifyStatus is the default verdict: 401 and 403 are CodeConnectorAuth,
// 404 and 410 CodeConnectorNotFound, 408 CodeTimeout, 429 CodeUnavailable,
// 500, 502, 503 and 504 CodeDependencyDown (all four of the last retried),
// other 4xx CodeInvalidInput and other statuses CodeDependencyDown.
func ClassifyStatus(source string, status int, _ http.Header, _ []byte) Verdict {
	st := fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return Verdict{Code: sanad.CodeConnectorAuth, Message: fmt.Sprintf("%s refused access (%s): check the credentials and their permissions", source, st)}
	case http.StatusNotFound, http.StatusGone:
		return Verdict{Code: sanad.CodeConnectorNotFound, Message: fmt.Sprintf("%s does not exist (%s)", source, st)}
	case http.StatusRequestTimeout:
		return Verdict{Code: sanad.CodeTimeout, Retry: true, Message: fmt.Sprintf("%s timed out (%s)", source, st)}
	case http.StatusTooManyRequests:
		return Verdict{Code: sanad.CodeUnavailable, Retry: true, Message: fmt.Sprintf("%s is rate limiting requests (%s): try again later", source, st)}
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return Verdict{Code: sanad.CodeDependencyDown, Retry: true, Message: fmt.Sprintf("%s failed on the server side (%s)", source, st)}
	}
	if status >= 400 && status < 500 {
		return Verdict{Code: sanad.CodeInvalidInput, Message: fmt.Sprintf("%s rejected the request (%s)", source, st)}
	}
	return Verdict{Code: sanad.CodeDependencyDown, Message: fmt.Sprintf("%s answered with an unexpected status (%s)", source, st)}
}

// HTTP sends GET requests for the connectors: spaced per host by a
// [HostLimiter] (from the end of one request to the start of the next), each bounded by Options.Timeout, retried by
// Options.Retry, with redirects checked by a [RedirectPolicy]. It is safe
// for concurrent use.
type HTTP struct {
	opt     Options
	client  *http.Client
	limiter *HostLimiter
	// interval returns the spacing of requests to a host.
	interval func(host string) time.Duration
}

// NewHTTP returns an HTTP sending through opt.HTTPClient with the redirect
// policy given (SameSiteRedirects when nil). interval returns the least time
// between requests to a host (opt.MinInterval for every host when nil).
func NewHTTP(opt Options, redirect RedirectPolicy, interval func(host string) time.Duration) *HTTP {
	opt = opt.WithDefaults()
	if redirect == nil {
		redirect = SameSiteRedirects
	}
	if interval == nil {
		interval = func(string) time.Duration { return max(opt.MinInterval, 0) }
	}
	h := &HTTP{opt: opt, limiter: NewHostLimiter(opt.Now), interval: interval}
	return h.WithRedirects(MaxRedirects, redirect)
}

// WithRedirects returns a copy of h, sharing its rate limits, that follows
// at most max redirects (at most MaxRedirects) as policy allows.
func (h *HTTP) WithRedirects(max int, policy RedirectPolicy) *HTTP {
	max = min(max, MaxRedirects)
	c := *h.opt.HTTPClient
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > max {
			return sanad.Errorf(sanad.CodeDependencyDown, "connector.http", "%s redirected more than %d times", Redact(via[0].URL), max)
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return sanad.Errorf(sanad.CodePolicyDenied, "connector.http", "%s redirected to a %s: URL: refused", Redact(via[0].URL), req.URL.Scheme)
		}
		return policy(req, via)
	}
	return &HTTP{opt: h.opt, client: &c, limiter: h.limiter, interval: h.interval}
}

// Request is one GET.
type Request struct {
	URL    string
	Header http.Header
	// Source names the item in messages (a URL without credentials, a Drive
	// file id); URL when empty.
	Source string
	// Classify gives the verdict on non-2xx statuses (ClassifyStatus when
	// nil).
	Classify ClassifyFunc
	// Authorize, when set, adds credentials to each attempt's request; an
	// error it returns ends the request as it is when it is a *sanad.Error,
	// or as CodeConnectorAuth otherwise.
	Authorize func(ctx context.Context, req *http.Request) error
}

// Get sends r, retrying transient failures, and calls read with the first
// 2xx or 304 response; read must consume what it needs of the body before
// it returns (the request's timeout covers it). An error read returns that
// is a *sanad.Error ends Get with it; any other (the body broke off) is
// retried as a network error.
//
// Errors: CodeTimeout when an attempt or ctx's deadline passed,
// CodeCancelled when ctx was cancelled, the verdict's code for a status,
// CodeDependencyDown for network errors, and a redirect policy's error.
// Each names r's source.
func (h *HTTP) Get(ctx context.Context, r Request, read func(*http.Response) error) error {
	const op = "connector.http"
	src := r.Source
	if src == "" {
		src = r.URL
	}
	u, err := url.Parse(r.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "%s is not an http or https URL", src)
	}
	classify := r.Classify
	if classify == nil {
		classify = ClassifyStatus
	}
	var last error
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return ctxError(ctx, op, src, last)
		}
		host := strings.ToLower(u.Host)
		if err := h.limiter.Wait(ctx, host, h.interval(host)); err != nil {
			return ctxError(ctx, op, src, last)
		}
		wait, err := h.attempt(ctx, r, u, src, classify, read)
		h.limiter.Done(host, h.interval(host))
		if err == nil {
			return nil
		}
		var se *sanad.Error
		if !errors.As(err, &se) || !retryable(err) || attempt >= h.opt.Retry.MaxAttempts {
			return unmark(err)
		}
		last = err
		if wait < 0 {
			wait = h.opt.Retry.Backoff(attempt, h.opt.Jitter())
		}
		h.opt.Logger.Info("retrying a request", "source", src, "attempt", attempt+1, "wait", wait, "error", err)
		if !sleep(ctx, h.opt.Now(), wait) {
			// No time is left to wait: the last failure is the answer.
			return unmark(err)
		}
	}
}

// retryMark flags an error as worth another attempt.
type retryMark struct{ error }

func (m retryMark) Unwrap() error { return m.error }

func unmark(err error) error {
	if m, ok := err.(retryMark); ok {
		return m.error
	}
	return err
}

func retryable(err error) bool {
	var m retryMark
	return errors.As(err, &m)
}

// attempt sends r once. It returns the wait a Retry-After header asked for
// (-1 when none) and the failure, marked with retryMark when transient.
func (h *HTTP) attempt(ctx context.Context, r Request, u *url.URL, src string, classify ClassifyFunc, read func(*http.Response) error) (time.Duration, error) {
	const op = "connector.http"
	actx, cancel := context.WithTimeout(ctx, h.opt.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, u.String(), nil)
	if err != nil {
		return -1, sanad.Wrap(err, sanad.CodeInvalidInput, op, "cannot make a request for "+src)
	}
	for k, vs := range r.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Set("User-Agent", h.opt.UserAgent)
	if r.Authorize != nil {
		if err := r.Authorize(actx, req); err != nil {
			var se *sanad.Error
			if errors.As(err, &se) {
				return -1, err
			}
			if ctx.Err() != nil {
				return -1, ctxError(ctx, op, src, nil)
			}
			return -1, sanad.Wrap(err, sanad.CodeConnectorAuth, op, "cannot authorize the request for "+src)
		}
	}
	resp, err := h.client.Do(req)
	if err != nil {
		var se *sanad.Error
		switch {
		case errors.As(err, &se):
			return -1, se
		case errors.Is(err, ErrPrivateNetwork):
			return -1, sanad.Wrap(err, sanad.CodePolicyDenied, op, src+" is on a loopback, private or other non-public address: refused (allow private networks to fetch from internal hosts)")
		case ctx.Err() != nil:
			return -1, ctxError(ctx, op, src, nil)
		case isTimeout(actx, err):
			return -1, retryMark{sanad.Wrap(err, sanad.CodeTimeout, op, fmt.Sprintf("no answer from %s within %v", src, h.opt.Timeout))}
		}
		return -1, retryMark{sanad.Wrap(err, sanad.CodeDependencyDown, op, fmt.Sprintf("cannot reach %s: %s", src, netReason(err)))}
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 || resp.StatusCode == http.StatusNotModified {
		err := read(resp)
		if err == nil {
			return -1, nil
		}
		var se *sanad.Error
		switch {
		case errors.As(err, &se):
			return -1, err
		case ctx.Err() != nil:
			return -1, ctxError(ctx, op, src, nil)
		case isTimeout(actx, err):
			return -1, retryMark{sanad.Wrap(err, sanad.CodeTimeout, op, fmt.Sprintf("%s did not finish sending within %v", src, h.opt.Timeout))}
		}
		return -1, retryMark{sanad.Wrap(err, sanad.CodeDependencyDown, op, fmt.Sprintf("%s broke off while sending: %s", src, netReason(err)))}
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	v := classify(src, resp.StatusCode, resp.Header, body)
	if v.Code == "" {
		v = ClassifyStatus(src, resp.StatusCode, resp.Header, body)
	}
	e := sanad.Errorf(v.Code, op, "%s", v.Message)
	if !v.Retry {
		return -1, e
	}
	wait := time.Duration(-1)
	if d, ok := ParseRetryAfter(resp.Header.Get("Retry-After"), h.opt.Now()); ok {
		wait = min(d, h.opt.Retry.MaxRetryAfter)
	}
	return wait, retryMark{e}
}

// ctxError is the error for a ctx that is done: CodeTimeout past its
// deadline, CodeCancelled otherwise; last is the failure before, if any.
func ctxError(ctx context.Context, op, src string, last error) error {
	err := ctx.Err()
	if err == nil {
		err = context.DeadlineExceeded
	}
	if errors.Is(err, context.DeadlineExceeded) {
		msg := "the deadline passed before " + src + " was fetched"
		if last != nil {
			msg += " (last failure: " + sanad.ErrorMessage(last) + ")"
		}
		return sanad.Wrap(err, sanad.CodeTimeout, op, msg)
	}
	return sanad.Wrap(err, sanad.CodeCancelled, op, "fetching "+src+" was cancelled")
}

func isTimeout(actx context.Context, err error) bool {
	if errors.Is(actx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// netReason is a short description of a network error for a user.
func netReason(err error) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(err, &dns):
		return "the host name does not resolve"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "the connection closed early"
	case errors.As(err, &op):
		return op.Op + " failed"
	}
	return "network error"
}
