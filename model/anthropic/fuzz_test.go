package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/internal/call"
	rt "github.com/sanadhq/sanad/model/internal/replaytest"
)

func checkReply(t *testing.T, resp model.Response) {
	for _, c := range resp.ToolCalls {
		if c.Name == "" || c.ID == "" || !json.Valid(c.Arguments) || !bytes.HasPrefix(bytes.TrimSpace(c.Arguments), []byte("{")) {
			t.Fatalf("parsed a bad tool call %+v", c)
		}
	}
	if u := resp.Usage; u.InputTokens < 0 || u.OutputTokens < 0 || u.TotalTokens != u.InputTokens+u.OutputTokens {
		t.Fatalf("parsed bad usage %+v", u)
	}
}

func FuzzParseMessage(f *testing.F) {
	for _, ia := range rt.Load(f, "anthropic.") {
		f.Add(ia.Response)
	}
	f.Add([]byte(`{"type":"message","content":[{"type":"tool_use","id":"t","name":"f","input":null}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := parseMessage(body)
		if err == nil {
			checkReply(t, resp)
		}
	})
}

func FuzzParseStream(f *testing.F) {
	for _, ia := range rt.Load(f, "anthropic.messages") {
		for _, line := range strings.Split(sse(f, ia.Reply), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				f.Add([]byte(data))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := call.NewAssembler(newStreamState())
		start := []byte(`{"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":1}}}`)
		if _, _, err := s.Event(start); err != nil {
			t.Fatalf("message_start failed: %v", err)
		}
		for range 2 {
			if _, _, err := s.Event(data); err != nil {
				return
			}
		}
		if _, _, err := s.Event([]byte(`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`)); err != nil {
			t.Fatalf("message_delta failed: %v", err)
		}
		resp, err := s.Response()
		if err == nil {
			checkReply(t, resp)
		}
	})
}

// FuzzAnthropicResponse serves random bytes as the body of a 200 answer and
// of an event stream, through the whole adapter.
func FuzzAnthropicResponse(f *testing.F) {
	for _, ia := range rt.Load(f, "anthropic.messages") {
		f.Add(ia.Response)
		f.Add([]byte(sse(f, ia.Reply)))
	}
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := "application/json"
		if bytes.Contains(body, []byte("data:")) {
			ct = "text/event-stream"
		}
		w.Header().Set("Content-Type", ct)
		w.Write(body)
	}))
	f.Cleanup(srv.Close)
	m := newModel(f, Config{BaseURL: srv.URL})
	f.Fuzz(func(t *testing.T, b []byte) {
		body = b
		resp, err := m.Generate(context.Background(), hello)
		expect(t, resp, err)
		resp, err = model.Collect(m.Stream(context.Background(), hello))
		expect(t, resp, err)
	})
}

func expect(t *testing.T, resp model.Response, err error) {
	if err != nil {
		var se *sanad.Error
		if !errors.As(err, &se) {
			t.Fatalf("got %T %v, want a *sanad.Error", err, err)
		}
		return
	}
	checkReply(t, resp)
}
