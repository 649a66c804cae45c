package call

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
)

// attempt is what the options of one request of the fake SDK set.
type attempt struct {
	base, key string
	retries   int
	client    *http.Client
	json      map[string]any
	bodyInto  any
	respInto  **http.Response
}

type fakeOption func(*attempt)

// fakeSDK is an SDK whose options fill an attempt.
var fakeSDK = SDK[fakeOption]{
	WithBaseURL:          func(s string) fakeOption { return func(a *attempt) { a.base = s } },
	WithAPIKey:           func(s string) fakeOption { return func(a *attempt) { a.key = s } },
	WithHTTPClient:       func(hc *http.Client) fakeOption { return func(a *attempt) { a.client = hc } },
	WithMaxRetries:       func(n int) fakeOption { return func(a *attempt) { a.retries = n } },
	WithJSONSet:          func(k string, v any) fakeOption { return func(a *attempt) { a.json[k] = v } },
	WithResponseBodyInto: func(dst any) fakeOption { return func(a *attempt) { a.bodyInto = dst } },
	WithResponseInto:     func(dst **http.Response) fakeOption { return func(a *attempt) { a.respInto = dst } },
	Events: func(hr *http.Response) Events {
		body, err := io.ReadAll(hr.Body)
		lines := strings.Split(strings.TrimSpace(string(body)), "\n")
		i := -1
		return Events{
			Next: func() bool { i++; return err == nil && i < len(lines) },
			Data: func() []byte { return []byte(lines[i]) },
			Err:  func() error { return err },
		}
	},
}

// closer records whether a body was closed.
type closer struct {
	io.Reader
	closed bool
}

func (c *closer) Close() error { c.closed = true; return nil }

// fakeService answers every request with body, as an SDK service's New
// method does: into the destinations its options name.
type fakeService struct {
	body   string
	opened []*closer
	sent   []attempt
}

func (s *fakeService) New(_ context.Context, p string, opts ...fakeOption) (*struct{}, error) {
	a := attempt{json: map[string]any{"params": p}}
	for _, o := range opts {
		o(&a)
	}
	s.sent = append(s.sent, a)
	c := &closer{Reader: strings.NewReader(s.body)}
	s.opened = append(s.opened, c)
	hr := &http.Response{StatusCode: 200, Header: http.Header{"X-Request-Id": {"req-1"}}, Body: c}
	switch dst := a.bodyInto.(type) {
	case *[]byte:
		*dst, _ = io.ReadAll(c)
	case **http.Response:
		*dst = hr
	}
	if a.respInto != nil {
		*a.respInto = hr
	}
	return nil, nil
}

// lineReader reads a stream whose events are lines: "text …", "call i id
// name args" ("-" for an empty field), or "end".
type lineReader struct{ ended bool }

func (r *lineReader) Event(data []byte) ([]model.Delta, bool, error) {
	f := strings.SplitN(string(data), " ", 5)
	switch f[0] {
	case "text":
		return []model.Delta{{Text: f[1]}}, false, nil
	case "call":
		for j := range f {
			if f[j] == "-" {
				f[j] = ""
			}
		}
		i := int(f[1][0] - '0')
		return []model.Delta{{ToolCall: &model.ToolCallDelta{Index: i, ID: f[2], Name: f[3], Arguments: f[4]}}}, false, nil
	case "end":
		r.ended = true
		return nil, true, nil
	}
	return nil, false, errors.New("unknown event")
}

func (r *lineReader) Reply(toolCalls bool) (model.Response, error) {
	if !r.ended {
		return model.Response{}, ErrUnfinished
	}
	finish := model.FinishStop
	if toolCalls {
		finish = model.FinishToolCalls
	}
	return model.Response{ID: "r1", Model: "m-1", FinishReason: finish}, nil
}

func newLineReader() Reader { return &lineReader{} }

func fakeClient(t *testing.T) *Client[fakeOption] {
	t.Helper()
	c, err := Open(Endpoint{Provider: "fake", Model: "m", Key: "sk-secret-key-123456", RequestIDHeader: "X-Request-Id"},
		"https://fake.example/v1", "https://fake.example/v1", fakeSDK)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func params(req model.Request) (string, error) { return req.Messages[0].Content, nil }

var hi = model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}

func TestClientOptions(t *testing.T) {
	c := fakeClient(t)
	var a attempt
	for _, o := range c.Options() {
		o(&a)
	}
	if a.base != "https://fake.example/v1" || a.key != "sk-secret-key-123456" || a.client != http.DefaultClient || a.retries != 0 {
		t.Errorf("got %+v, want the default base URL, the key, http.DefaultClient and no retries", a)
	}
	c.Key = ""
	a = attempt{key: "unset"}
	for _, o := range c.Options() {
		o(&a)
	}
	if a.key != "unset" {
		t.Errorf("without a key: the options set key %q, want none", a.key)
	}
	if _, err := Open(Endpoint{Provider: "fake"}, "https://fake.example", "https://fake.example", fakeSDK); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("no model: got %v, want INVALID_INPUT", err)
	}
}

func TestGenerateWithSDK(t *testing.T) {
	c := fakeClient(t)
	svc := &fakeService{body: `{"text":"hello"}`}
	parse := func(raw []byte) (model.Response, error) {
		var v struct{ Text string }
		if err := Decode(raw, &v, "reply"); err != nil {
			return model.Response{}, err
		}
		return model.Response{Text: v.Text}, nil
	}
	resp, err := Generate(context.Background(), c, hi, params, svc.New, parse)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "hello" || resp.Provider != "fake" || resp.Model != "m" || resp.RequestID != "req-1" {
		t.Errorf("got %+v, want the parsed text, provider, model and request id", resp)
	}
	if len(svc.sent) != 1 || svc.sent[0].json["stream"] != nil {
		t.Errorf("got requests %+v, want one that is not a stream", svc.sent)
	}

	svc.body = `[1]`
	_, err = Generate(context.Background(), c, hi, params, svc.New, parse)
	var se *sanad.Error
	if !errors.As(err, &se) || se.Code != sanad.CodeModelOutput || se.Op != "fake.generate" || !strings.Contains(se.Message, "not a JSON object") {
		t.Errorf("got %v, want the fake.generate MODEL_OUTPUT_INVALID error of a body that is not an object", err)
	}
}

func TestStreamWithSDK(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		text  string
		calls string // "id name args; …"
		code  sanad.Code
	}{
		{"text", "text Hel\ntext lo\nend", "Hello", "", ""},
		{"tool calls", "call 0 c1 f {\"a\":\ncall 0 - - 1}\ncall 1 - g {}\nend", "", `c1 f {"a":1}; call_ g {}`, ""},
		{"cut short", "text Hel", "", "", sanad.CodeDependencyDown},
		{"cut short inside a tool call", "call 0 c1 f {\"a\":", "", "", sanad.CodeDependencyDown},
		{"broken tool call", "call 0 c1 f [1]\nend", "", "", sanad.CodeModelOutput},
		{"unknown event", "text Hel\nnonsense\nend", "", "", sanad.CodeModelOutput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &fakeService{body: tt.body}
			var text strings.Builder
			var last *model.Response
			var err error
			for d, derr := range Stream(context.Background(), fakeClient(t), hi, params, svc.New, newLineReader) {
				if err = derr; err != nil {
					break
				}
				text.WriteString(d.Text)
				last = d.Response
			}
			if sanad.ErrorCode(err) != tt.code {
				t.Fatalf("got %v, want code %q", err, tt.code)
			}
			if len(svc.sent) != 1 || svc.sent[0].json["stream"] != true || !svc.opened[0].closed {
				t.Errorf("got requests %+v, want one stream whose body is closed", svc.sent)
			}
			if err != nil {
				return
			}
			var calls []string
			for _, c := range last.ToolCalls {
				id := c.ID
				if strings.HasPrefix(id, "call_") {
					id = "call_"
				}
				calls = append(calls, id+" "+c.Name+" "+string(c.Arguments))
			}
			if last.Text != tt.text || text.String() != tt.text || strings.Join(calls, "; ") != tt.calls || last.RequestID != "req-1" || last.ID != "r1" {
				t.Errorf("got text %q (deltas %q), calls %q, reply %+v; want %q and %q", last.Text, text.String(), calls, last, tt.text, tt.calls)
			}
		})
	}
}

func TestStreamStopsEarlyClosesBody(t *testing.T) {
	svc := &fakeService{body: "text a\ntext b\nend"}
	for range Stream(context.Background(), fakeClient(t), hi, params, svc.New, newLineReader) {
		break
	}
	if len(svc.opened) != 1 || !svc.opened[0].closed {
		t.Error("breaking out of the stream left its body open")
	}
}

// TestAssemblerKeepsCause checks that tool calls that do not add up fail
// with the accumulator's own *sanad.Error, code and operation included.
func TestAssemblerKeepsCause(t *testing.T) {
	a := NewAssembler(newLineReader())
	for _, ev := range []string{`call 0 c1 f {"a":`, "end"} {
		if _, _, err := a.Event([]byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	_, err := a.Response()
	var se *sanad.Error
	if !errors.As(err, &se) || se.Code != sanad.CodeModelOutput || se.Op != "model.output" {
		t.Errorf("got %#v, want the model.output MODEL_OUTPUT_INVALID error", err)
	}
}
