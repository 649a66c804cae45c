package openai

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

// seeds adds every recorded Chat Completions answer to f: whole bodies, or
// the events of a stream.
func seeds(f *testing.F, events bool) {
	for _, ia := range rt.Load(f, "openai.", "openai_compatible.", "mistral.") {
		switch {
		case ia.Stream != "" && events:
			for _, line := range strings.Split(ia.Stream, "\n") {
				if data, ok := strings.CutPrefix(line, "data: "); ok {
					f.Add([]byte(data))
				}
			}
		case ia.Stream == "" && !events:
			f.Add(ia.Response)
		}
	}
	f.Add([]byte(`{"choices":[{"message":{"tool_calls":[{"function":{"name":"f","arguments":"{"}}]}}]}`))
	f.Add([]byte(`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"}"}}]}}]}`))
	f.Add([]byte(`[DONE]`))
}

// checkReply fails when a parsed reply breaks what parsing promises.
func checkReply(t *testing.T, resp model.Response) {
	for _, c := range resp.ToolCalls {
		if c.Name == "" || c.ID == "" || !json.Valid(c.Arguments) || !bytes.HasPrefix(bytes.TrimSpace(c.Arguments), []byte("{")) {
			t.Fatalf("parsed a bad tool call %+v", c)
		}
	}
	if resp.Usage.InputTokens < 0 || resp.Usage.OutputTokens < 0 || resp.Usage.TotalTokens < 0 {
		t.Fatalf("parsed negative usage %+v", resp.Usage)
	}
}

func FuzzParseCompletion(f *testing.F) {
	seeds(f, false)
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := parseCompletion(body)
		if err == nil {
			checkReply(t, resp)
		}
	})
}

func FuzzParseStream(f *testing.F) {
	seeds(f, true)
	f.Fuzz(func(t *testing.T, data []byte) {
		// The same event twice and then a finish: fragments must add up
		// or be refused, never panic.
		s := call.NewAssembler(newStreamState())
		for range 2 {
			if _, _, err := s.Event(data); err != nil {
				return
			}
		}
		if _, _, err := s.Event([]byte(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)); err != nil {
			t.Fatalf("the finishing chunk failed: %v", err)
		}
		resp, err := s.Response()
		if err == nil {
			checkReply(t, resp)
		}
	})
}

func FuzzParseEmbeddings(f *testing.F) {
	f.Add([]byte(`{"data":[{"index":0,"embedding":[0.1,0.2]},{"index":1,"embedding":[0.3,0.4]}],"usage":{"prompt_tokens":2,"total_tokens":2}}`), 2)
	f.Add([]byte(`{"data":[{"embedding":[1]}]}`), 1)
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 0 || n > 64 {
			return
		}
		e, err := parseEmbeddings(body, n)
		if err != nil {
			return
		}
		if len(e.Vectors) != n {
			t.Fatalf("got %d vectors for %d texts", len(e.Vectors), n)
		}
		for _, v := range e.Vectors {
			if len(v) == 0 || len(v) != len(e.Vectors[0]) {
				t.Fatalf("vectors of different sizes: %v", e.Vectors)
			}
		}
	})
}

// FuzzOpenAIResponse serves random bytes as the body of a 200 answer and
// of an event stream, through the whole adapter: the call must return a
// reply or a *sanad.Error, never panic.
func FuzzOpenAIResponse(f *testing.F) {
	seeds(f, false)
	for _, ia := range rt.Load(f, "openai.") {
		if ia.Stream != "" {
			f.Add([]byte(ia.Stream))
		}
	}
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := "application/json"
		if strings.Contains(r.Header.Get("Accept"), "event-stream") || bytes.Contains(body, []byte("data:")) {
			ct = "text/event-stream"
		}
		w.Header().Set("Content-Type", ct)
		w.Write(body)
	}))
	f.Cleanup(srv.Close)
	m := newModel(f, Config{BaseURL: srv.URL})
	req := model.Request{
		Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}},
		Output:   &model.OutputSchema{Schema: json.RawMessage(`{"type":"object"}`)},
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		body = b
		resp, err := m.Generate(context.Background(), req)
		expect(t, resp, err)
		resp, err = model.Collect(m.Stream(context.Background(), req))
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
	if resp.Output != nil && !json.Valid(resp.Output) {
		t.Fatalf("Output %q is not JSON", resp.Output)
	}
}
