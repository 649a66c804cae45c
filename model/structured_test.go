package model_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
)

var citySchema = &model.OutputSchema{Name: "city", Schema: json.RawMessage(`{
	"type": "object",
	"properties": {"city": {"type": "string"}, "country": {"type": "string"}},
	"required": ["city", "country"],
	"additionalProperties": false
}`)}

func cityRequest() model.Request {
	return model.Request{Messages: []model.Message{user("Largest city of Mexico?")}, Output: citySchema}
}

// replies returns a fake that answers call n with texts[n-1].
func replies(texts ...string) *fake {
	return &fake{generate: func(req model.Request, n int) (model.Response, error) {
		return model.Response{Text: texts[min(n, len(texts))-1], Model: "m", Usage: model.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}}, nil
	}}
}

func TestStructuredRepair(t *testing.T) {
	const good = `{"city":"Mexico City","country":"Mexico"}`
	tests := []struct {
		name      string
		texts     []string
		calls     int
		code      sanad.Code
		violation string // in the repair message and, on failure, in the error
	}{
		{"valid at once", []string{good}, 1, "", ""},
		{"fenced JSON is fine", []string{"```json\n" + good + "\n```"}, 1, "", ""},
		{"missing property repaired once", []string{`{"city":"Mexico City"}`, good}, 2, "", "at /: missing property 'country'"},
		{"not JSON repaired once", []string{"Mexico City, Mexico", good}, 2, "", "not a JSON value"},
		{"empty repaired once", []string{"", good}, 2, "", "empty"},
		{"wrong type twice", []string{`{"city":1,"country":"Mexico"}`, `{"city":2,"country":"Mexico"}`}, 2, sanad.CodeModelOutput, "at /city: got number, want string"},
		{"extra property twice", []string{`{"city":"a","country":"b","pop":1}`}, 2, sanad.CodeModelOutput, "additional properties 'pop' not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := replies(tt.texts...)
			resp, err := model.Structured(inner).Generate(context.Background(), cityRequest())
			if sanad.ErrorCode(err) != tt.code {
				t.Fatalf("got %v, want code %q", err, tt.code)
			}
			if len(inner.requests) != tt.calls {
				t.Fatalf("got %d calls, want %d", len(inner.requests), tt.calls)
			}
			if want := (model.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}); resp.Usage != (model.Usage{
				InputTokens: want.InputTokens * int64(tt.calls), OutputTokens: want.OutputTokens * int64(tt.calls), TotalTokens: want.TotalTokens * int64(tt.calls)}) {
				t.Errorf("Usage: got %+v, want the sum of %d calls", resp.Usage, tt.calls)
			}
			if tt.calls == 2 {
				repair := inner.requests[1].Messages
				last := repair[len(repair)-1]
				if last.Role != model.RoleUser || !strings.Contains(last.Content, tt.violation) || !strings.Contains(last.Content, `"city"`) {
					t.Errorf("the repair message %q does not name the violation %q", last.Content, tt.violation)
				}
				if tt.texts[0] != "" && (repair[len(repair)-2].Role != model.RoleAssistant || repair[len(repair)-2].Content != tt.texts[0]) {
					t.Errorf("the repair request does not hold the bad reply: %+v", repair)
				}
				if len(cityRequest().Messages) != 1 {
					t.Error("the caller's request was changed")
				}
			}
			if err != nil {
				if !strings.Contains(err.Error(), tt.violation) || !strings.Contains(err.Error(), "after one repair") {
					t.Errorf("message %q does not name the violation %q", err, tt.violation)
				}
				return
			}
			if !json.Valid(resp.Output) || !strings.Contains(string(resp.Output), "Mexico City") {
				t.Errorf("Output: got %s, want the city", resp.Output)
			}
		})
	}
}

func TestStructuredPassesThrough(t *testing.T) {
	calls := &fake{generate: func(model.Request, int) (model.Response, error) {
		return model.Response{ToolCalls: []model.ToolCall{{ID: "c", Name: "lookup", Arguments: json.RawMessage(`{}`)}}}, nil
	}}
	resp, err := model.Structured(calls).Generate(context.Background(), cityRequest())
	if err != nil || len(calls.requests) != 1 || resp.Output != nil {
		t.Errorf("a reply with tool calls: got %v, %d calls, output %s; want it unchecked", err, len(calls.requests), resp.Output)
	}

	plain := replies("not JSON, and no schema asked")
	if _, err := model.Structured(plain).Generate(context.Background(), model.Request{Messages: []model.Message{user("hi")}}); err != nil || len(plain.requests) != 1 {
		t.Errorf("a request without a schema: got %v and %d calls", err, len(plain.requests))
	}
}

func TestStructuredBadSchema(t *testing.T) {
	for _, schema := range []string{
		`{"type": 5}`,
		`{"$ref": "file:///etc/passwd"}`,
		`{"$ref": "https://example.com/schema.json"}`,
		`{"pattern": "("}`,
	} {
		inner := replies("{}")
		req := cityRequest()
		req.Output = &model.OutputSchema{Schema: json.RawMessage(schema)}
		_, err := model.Structured(inner).Generate(context.Background(), req)
		if sanad.ErrorCode(err) != sanad.CodeInvalidInput || len(inner.requests) != 0 {
			t.Errorf("schema %s: got %v after %d calls, want INVALID_INPUT before any call", schema, err, len(inner.requests))
		}
	}
}

func TestStructuredStream(t *testing.T) {
	for _, tt := range []struct {
		text string
		code sanad.Code
	}{
		{`{"city":"Mexico City","country":"Mexico"}`, ""},
		{`{"city":"Mexico City"}`, sanad.CodeModelOutput},
	} {
		inner := replies(tt.text)
		resp, err := model.Collect(model.Stream(context.Background(), model.Structured(inner), cityRequest()))
		if sanad.ErrorCode(err) != tt.code {
			t.Errorf("%s: got %v, want %q", tt.text, err, tt.code)
		}
		if err == nil && resp.Output == nil {
			t.Errorf("%s: no output", tt.text)
		}
		if len(inner.requests) != 1 {
			t.Errorf("%s: got %d calls, want 1 (no repair in a stream)", tt.text, len(inner.requests))
		}
	}
}

// TestStructuredConcurrent shares one wrapper and schema among goroutines.
func TestStructuredConcurrent(t *testing.T) {
	var mu sync.Mutex
	m := model.Structured(&locked{mu: &mu, m: replies(`{"city":"a","country":"b"}`)})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if _, err := m.Generate(context.Background(), cityRequest()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

type locked struct {
	mu *sync.Mutex
	m  model.Model
}

func (l *locked) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Generate(ctx, req)
}

func (l *locked) Embed(ctx context.Context, texts []string) (model.Embeddings, error) {
	return l.m.Embed(ctx, texts)
}
