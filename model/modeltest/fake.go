package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"unicode/utf8"
)

// Turn is one scripted reply of a [Fake]: text, tool calls (several in one
// turn are parallel tool calls), both, or an HTTP error.
type Turn struct {
	Text string
	// ToolCalls are the calls the model asks for, in order. A call without
	// an ID is given one: call_<n>_<i> (OpenAI) or toolu_<n>_<i>
	// (Anthropic), for request n and call i from 1.
	ToolCalls []ToolCall
	// Status, when not zero, makes the turn an error: the answer has this
	// HTTP status and an error body in the provider's format, whose
	// message is Text, or the provider's words for the status when Text is
	// empty.
	Status int
	// Usage is reported as given; zero counts no tokens.
	Usage Usage
}

// ToolCall is one tool call: in a [Turn], a call the model asks for; in a
// [Message] of a [Request], a call an assistant message carries back.
// Arguments is a JSON object as a string; in a Turn, empty sends {}, and
// arguments that are not a JSON object are sent as they are (as the string
// OpenAI puts them in, or as a JSON string for Anthropic's input), so that
// a test can see a client refuse them.
type ToolCall struct{ ID, Name, Arguments string }

// Usage counts the tokens of a turn.
type Usage struct{ InputTokens, OutputTokens int64 }

// Request is what a [Fake] saw of one request, normalized across the
// providers.
type Request struct {
	Model string
	// System is the system prompt: OpenAI's system and developer messages,
	// or Anthropic's system text blocks, in order, joined by a blank line.
	System   string
	Messages []Message
	Tools    []Tool
	// ToolChoice is "" when the request sets none, "auto", "none",
	// "required" (Anthropic's "any"), or "tool:NAME" for a named tool.
	ToolChoice string
	Stream     bool
	Raw        []byte // the body as it came
}

// Message is one message of a [Request]. Role is "user", "assistant" or
// "tool". Anthropic's tool results, tool_result blocks in a user turn,
// become one tool message each, and each text block of a user turn one user
// message, in the order of the blocks.
type Message struct {
	Role       string
	Content    string     // the text: content parts and text blocks joined
	ToolCalls  []ToolCall // an assistant message's calls
	ToolCallID string     // a tool message: the id of the call it answers
	IsError    bool       // a tool message: Anthropic's is_error (OpenAI has none)
}

// Tool is a tool a [Request] offers the model. Parameters is the JSON Schema
// of its arguments, as sent.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Script returns the reply to the n-th request a [Fake] has had (from 1).
// Requests that arrive together are scripted concurrently: a Script that
// keeps state guards it.
type Script func(n int, req Request) Turn

// Sequence returns the script that answers the n-th request with turns[n-1].
// A request past the end gets an error turn, a 400 whose message says so:
// the client's error shows it, and the fake's Requests count it.
func Sequence(turns ...Turn) Script {
	return func(n int, _ Request) Turn {
		if n >= 1 && n <= len(turns) {
			return turns[n-1]
		}
		return Turn{Status: http.StatusBadRequest, Text: fmt.Sprintf("modeltest: request %d is past the end of the script, which has %d turns", n, len(turns))}
	}
}

// Fake is a fake model server that answers as one provider's API does,
// with the turns of a [Script]. It is safe for concurrent use.
type Fake struct {
	srv    *httptest.Server
	api    api
	script Script

	mu   sync.Mutex // guards reqs
	reqs []Request
}

// api is one provider's API: where it is served, and how its requests and
// answers are written.
type api interface {
	// paths returns the path of the endpoint and what BaseURL adds to the
	// server's URL.
	paths() (endpoint, base string)
	requestIDHeader() string
	// decode reads a request body; usage says whether a stream must end
	// with the usage.
	decode(body []byte) (req Request, usage bool, err error)
	// reply writes the answer of turn t to request n, whole or streamed.
	reply(w http.ResponseWriter, n int, req Request, usage bool, t Turn)
	// fail writes an error answer of status to request n (0 for one that
	// was not counted).
	fail(w http.ResponseWriter, n int, status int, message string)
}

// maxBody bounds the request bodies a fake reads.
const maxBody = 8 << 20

func newFake(s Script, a api) *Fake {
	if s == nil {
		s = Sequence()
	}
	f := &Fake{api: a, script: s}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

// BaseURL is the base URL to configure the provider's adapter with.
func (f *Fake) BaseURL() string {
	_, base := f.api.paths()
	return f.srv.URL + base
}

// Requests returns what the fake saw of each request, in the order they
// arrived. A body that is not a request of the API is answered with a 400
// and is not counted.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.reqs...)
}

// Close shuts the server down, waiting for the requests in flight.
func (f *Fake) Close() { f.srv.Close() }

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	endpoint, _ := f.api.paths()
	if r.Method != http.MethodPost || r.URL.Path != endpoint {
		f.api.fail(w, 0, http.StatusNotFound, fmt.Sprintf("modeltest: no endpoint %s %s; this fake serves POST %s", r.Method, r.URL.Path, endpoint))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		f.api.fail(w, 0, http.StatusBadRequest, "modeltest: unreadable body: "+err.Error())
		return
	}
	req, usage, err := f.api.decode(body)
	if err != nil {
		f.api.fail(w, 0, http.StatusBadRequest, "modeltest: "+err.Error())
		return
	}
	req.Raw = body
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	n := len(f.reqs)
	f.mu.Unlock()

	t := f.script(n, req)
	w.Header().Set(f.api.requestIDHeader(), fmt.Sprintf("req_%d", n))
	if t.Status != 0 {
		f.api.fail(w, n, t.Status, t.Text)
		return
	}
	f.api.reply(w, n, req, usage, t)
}

// writeJSON writes v as the JSON body of an answer of status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// events writes server-sent events, each sent as soon as it is written.
type events struct{ w http.ResponseWriter }

func startEvents(w http.ResponseWriter) events {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return events{w}
}

// send writes one event: its name (none when empty) and its data, v as
// JSON or a string as it is.
func (e events) send(name string, v any) {
	data, ok := v.(string)
	if !ok {
		b, _ := json.Marshal(v)
		data = string(b)
	}
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", data)
	if fl, ok := e.w.(http.Flusher); ok {
		fl.Flush()
	}
}

// words splits text into the pieces a stream sends it in: a word each,
// with the spaces before it.
func words(text string) []string {
	var out []string
	start := 0
	for i := 1; i < len(text); i++ {
		if text[i] == ' ' && text[i-1] != ' ' {
			out = append(out, text[start:i])
			start = i
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// fragments splits tool-call arguments into the pieces a stream sends them
// in: at most 8 characters each, never inside a character.
func fragments(args string) []string {
	var out []string
	for len(args) > 0 {
		cut, runes := 0, 0
		for cut < len(args) && runes < 8 {
			_, size := utf8.DecodeRuneInString(args[cut:])
			cut += size
			runes++
		}
		out = append(out, args[:cut])
		args = args[cut:]
	}
	return out
}

// callID returns the id of call i (from 0) of the reply to request n.
func callID(prefix string, n, i int, c ToolCall) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("%s_%d_%d", prefix, n, i+1)
}

// text returns content that is a string, null, or a list of parts or
// blocks, as its text: the text of the parts of type "text", joined.
func text(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct{ Type, Text string }
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither text nor a list of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// arguments returns tool-call arguments as JSON: the object a Turn gives,
// "{}" for none, or the text as a JSON string when it is not an object.
func arguments(args string) json.RawMessage {
	s := strings.TrimSpace(args)
	if s == "" {
		return json.RawMessage("{}")
	}
	if strings.HasPrefix(s, "{") && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(args)
	return b
}
