package call

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
)

func endpoint(waits *[]time.Duration) *Endpoint {
	return New(Endpoint{Provider: "openai", Model: "m", BaseURL: "http://x", KeyEnv: "KEY_ENV", Key: "sk-secret-key-123456",
		Retry: model.Retry{Sleep: func(ctx context.Context, d time.Duration) error {
			*waits = append(*waits, d)
			return ctx.Err()
		}}})
}

func TestDo(t *testing.T) {
	transport := errors.New("dial tcp: connection refused")
	tests := []struct {
		name     string
		errs     []error // what attempts 1, 2, … return; the last repeats
		code     sanad.Code
		attempts int
		waits    string
	}{
		{"success", []error{nil}, "", 1, "[]"},
		{"transport then success", []error{transport, nil}, "", 2, "[500ms]"},
		{"transport throughout", []error{transport}, sanad.CodeDependencyDown, 3, "[500ms 1s]"},
		{"503 with Retry-After", []error{&HTTPError{Status: 503, RetryAfter: "2"}, nil}, "", 2, "[2s]"},
		{"429 with retry-after-ms", []error{&HTTPError{Status: 429, RetryAfterMS: "20", RetryAfter: "5"}, nil}, "", 2, "[20ms]"},
		{"429 asking too much", []error{&HTTPError{Status: 429, RetryAfter: "31"}}, sanad.CodeModelRateLimit, 1, "[]"},
		{"401", []error{&HTTPError{Status: 401}}, sanad.CodeModelAuth, 1, "[]"},
		{"422", []error{&HTTPError{Status: 422}}, sanad.CodeInvalidInput, 1, "[]"},
		{"malformed answer", []error{sanad.Errorf(sanad.CodeModelOutput, "x", "bad")}, sanad.CodeModelOutput, 1, "[]"},
		{"deadline", []error{context.DeadlineExceeded}, sanad.CodeTimeout, 1, "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var waits []time.Duration
			e := endpoint(&waits)
			n := 0
			err := e.Do(context.Background(), "op", func(context.Context) error {
				n++
				return tt.errs[min(n, len(tt.errs))-1]
			})
			if sanad.ErrorCode(err) != tt.code {
				t.Errorf("got %v, want code %q", err, tt.code)
			}
			if n != tt.attempts || fmt.Sprint(waits) != tt.waits {
				t.Errorf("got %d attempts and waits %v, want %d and %s", n, waits, tt.attempts, tt.waits)
			}
		})
	}
}

func TestDoContext(t *testing.T) {
	var waits []time.Duration
	e := endpoint(&waits)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := e.Do(ctx, "op", func(ctx context.Context) error { return ctx.Err() })
	if sanad.ErrorCode(err) != sanad.CodeCancelled || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want CANCELLED wrapping context.Canceled", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	err = e.Do(ctx, "op", func(ctx context.Context) error { return fmt.Errorf("wrapped: %w", ctx.Err()) })
	if sanad.ErrorCode(err) != sanad.CodeTimeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline: got %v, want ERR_TIMEOUT wrapping DeadlineExceeded", err)
	}
}

func TestFinalMessagesAreRedacted(t *testing.T) {
	var waits []time.Duration
	e := endpoint(&waits)
	for _, attempt := range []error{
		&HTTPError{Status: 401, Message: "bad key sk-secret-key-123456"},
		&HTTPError{Status: 500, Message: "echo sk-secret-key-123456", RequestID: "sk-secret-key-123456"},
		errors.New("dial sk-secret-key-123456"),
	} {
		err := e.Do(context.Background(), "op", func(context.Context) error { return attempt })
		for x := error(err); x != nil; x = errors.Unwrap(x) {
			if strings.Contains(x.Error(), "sk-secret") || strings.Contains(fmt.Sprintf("%+v", x), "sk-secret") {
				t.Errorf("%v leaks the key", x)
			}
		}
	}
	for _, cause := range []error{
		errors.New("saw sk-secret-key-123456"),
		sanad.Wrap(errors.New("echo sk-secret-key-123456"), sanad.CodeModelOutput, "model.output", "saw sk-secret-key-123456"),
	} {
		err := e.Invalid("op", cause)
		for x := err; x != nil; x = errors.Unwrap(x) {
			if strings.Contains(x.Error(), "sk-secret") {
				t.Errorf("Invalid leaks the key: %v", x)
			}
		}
	}
	resp := model.Response{Text: "k sk-secret-key-123456", ToolCalls: []model.ToolCall{{ID: "x", Name: "f", Arguments: json.RawMessage(`{"k":"sk-secret-key-123456"}`)}}}
	e.RedactResponse(&resp)
	if strings.Contains(fmt.Sprintf("%+v %s", resp, resp.ToolCalls[0].Arguments), "sk-secret") || !json.Valid(resp.ToolCalls[0].Arguments) {
		t.Errorf("RedactResponse: got %+v", resp)
	}
}

func TestProviderMessage(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`, "Incorrect API key provided"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded"},
		{`{"error":"model not found"}`, "model not found"},
		{`{"message":"quota"}`, "quota"},
		{`{"detail":"Not Found"}`, "Not Found"},
		{"<html>\n  <h1>502</h1>\n</html>", "<html> <h1>502</h1> </html>"},
		{strings.Repeat("é", 400), strings.Repeat("é", 150) + "…"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := ProviderMessage([]byte(tt.body)); got != tt.want {
			t.Errorf("ProviderMessage(%.40q): got %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestSchema(t *testing.T) {
	got, err := Schema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(got)
	if want := `{"properties":{"n":{"type":"integer","maximum":9007199254740993}},"type":"object"}`; string(out) != want {
		t.Errorf("got %s, want %s", out, want)
	}
	empty, _ := Schema(nil)
	out, _ = json.Marshal(empty)
	if string(out) != `{"properties":{},"type":"object"}` {
		t.Errorf("empty: got %s", out)
	}
	if _, err := Schema(json.RawMessage(`[1]`)); err == nil {
		t.Error("an array schema: want an error")
	}
}

func TestToolCallID(t *testing.T) {
	a := ToolCallID("r", 0, "f", []byte(`{}`))
	if a != ToolCallID("r", 0, "f", []byte(`{}`)) || a == ToolCallID("r", 1, "f", []byte(`{}`)) || !strings.HasPrefix(a, "call_") || len(a) != 29 {
		t.Errorf("ToolCallID is not a stable call_ id of 24 hex digits per call: %q", a)
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name, model, base string
		want              string // the base URL kept, or "" for INVALID_INPUT
	}{
		{"default base", "m", "", "https://default.example/v1"},
		{"own base", "m", "http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"},
		{"no model", " ", "", ""},
		{"no scheme", "m", "localhost:8080", ""},
		{"other scheme", "m", "ftp://host/v1", ""},
		{"no host", "m", "http:///v1", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Check("test.new", Endpoint{Model: tc.model, BaseURL: tc.base}, "https://default.example/v1", "https://example")
			if tc.want == "" {
				if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
					t.Fatalf("got %v, want INVALID_INPUT", err)
				}
				return
			}
			if err != nil || e.BaseURL != tc.want || e.Timeout != model.DefaultTimeout || e.Logger == nil {
				t.Fatalf("got %+v, %v; want base %s with defaults", e, err, tc.want)
			}
		})
	}
}

func TestInvalidKeepsCause(t *testing.T) {
	var waits []time.Duration
	e := endpoint(&waits)
	sentinel := errors.New("the body is empty")
	inner := sanad.Wrap(sentinel, sanad.CodeModelOutput, "model.output", "tool f: bad arguments")
	err := e.Invalid("op", inner)
	var se *sanad.Error
	if !errors.As(err, &se) || se.Code != sanad.CodeModelOutput || se.Op != "op" {
		t.Fatalf("got %#v, want the op MODEL_OUTPUT_INVALID error", err)
	}
	if !strings.HasSuffix(se.Message, "sent a malformed answer: tool f: bad arguments") {
		t.Errorf("message %q does not end with the cause's message", se.Message)
	}
	if !errors.Is(err, inner) || !errors.Is(err, sentinel) {
		t.Errorf("%v does not keep its cause", err)
	}
}
