// Package replaytest replays recorded provider traffic for the tests of the
// model adapters. The recordings are the pydantic-ai VCR cassettes in
// ../shared/testdata/agent_protocols/llm-api-fixtures, converted to JSON:
// each interaction holds the request (method, URI, JSON body) and the
// response (status, content type, and a JSON body or, for a stream, the
// event-stream text).
//
// A test builds its model.Request from a recorded request body, points an
// adapter at [Serve], and compares the parsed reply with the recorded one.
// The server checks that the adapter sent the recorded request (method,
// path, and the body as the test's matcher compares it) before it answers
// with the recorded bytes.
package replaytest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sanadhq/sanad/internal/sharedtest"
)

// Dir returns the fixtures folder (failing under CI when it is missing,
// skipping elsewhere).
func Dir(tb testing.TB) string {
	tb.Helper()
	return sharedtest.Dir(tb, "agent_protocols", "llm-api-fixtures")
}

// Interaction is one recorded request and its response.
type Interaction struct {
	File  string // path relative to the fixtures folder
	Index int    // position in the cassette
	API   string // "openai.chat_completions", "anthropic.messages", …

	Method string
	URL    *url.URL
	Body   map[string]any // the request body; numbers are json.Number

	Status      int
	ContentType string
	Response    []byte         // the bytes to serve
	Reply       map[string]any // the response body when it is JSON; numbers are json.Number
	Stream      string         // the response body when it is an event stream
}

// Name returns "file#index", the name of the interaction's subtest.
func (ia *Interaction) Name() string {
	return strings.TrimSuffix(ia.File, ".json") + "#" + strconv.Itoa(ia.Index)
}

type cassette struct {
	Interactions []struct {
		API     string `json:"api"`
		Request struct {
			Method string          `json:"method"`
			URI    string          `json:"uri"`
			Body   json.RawMessage `json:"body"`
		} `json:"request"`
		Response struct {
			Status struct {
				Code int `json:"code"`
			} `json:"status"`
			ContentType []string        `json:"content_type"`
			Body        json.RawMessage `json:"body"`
		} `json:"response"`
	} `json:"interactions"`
}

// Load returns the interactions of every cassette under the fixtures
// folder whose API starts with one of the prefixes, in file order.
func Load(tb testing.TB, apiPrefixes ...string) []*Interaction {
	tb.Helper()
	dir := Dir(tb)
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		tb.Fatalf("walk %s: %v", dir, err)
	}
	sort.Strings(files)
	var out []*Interaction
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		for _, ia := range LoadFile(tb, rel) {
			for _, p := range apiPrefixes {
				if strings.HasPrefix(ia.API, p) {
					out = append(out, ia)
					break
				}
			}
		}
	}
	return out
}

// LoadFile returns the interactions of one cassette, named relative to the
// fixtures folder.
func LoadFile(tb testing.TB, rel string) []*Interaction {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(Dir(tb), rel))
	if err != nil {
		tb.Fatalf("read cassette: %v", err)
	}
	var c cassette
	if err := json.Unmarshal(data, &c); err != nil {
		tb.Fatalf("cassette %s: %v", rel, err)
	}
	out := make([]*Interaction, 0, len(c.Interactions))
	for i, raw := range c.Interactions {
		ia := &Interaction{File: filepath.ToSlash(rel), Index: i, API: raw.API, Method: raw.Request.Method, Status: raw.Response.Status.Code}
		if ia.URL, err = url.Parse(raw.Request.URI); err != nil {
			tb.Fatalf("%s: request URI: %v", ia.Name(), err)
		}
		// Some APIs (Bedrock) were recorded with a body that is not a JSON
		// object; Body stays nil for them.
		_ = decode(raw.Request.Body, &ia.Body)
		if len(raw.Response.ContentType) > 0 {
			ia.ContentType = raw.Response.ContentType[0]
		}
		var body map[string]any
		if err := decode(raw.Response.Body, &body); err != nil {
			tb.Fatalf("%s: response body: %v", ia.Name(), err)
		}
		if s, ok := body["string"].(string); ok && len(body) == 1 {
			ia.Stream, ia.Response = s, []byte(s)
		} else {
			ia.Reply = body
			if ia.Response, err = json.Marshal(body); err != nil {
				tb.Fatalf("%s: re-encode response: %v", ia.Name(), err)
			}
		}
		out = append(out, ia)
	}
	return out
}

// Find returns interaction i of the cassette rel.
func Find(tb testing.TB, rel string, i int) *Interaction {
	tb.Helper()
	all := LoadFile(tb, rel)
	if i < 0 || i >= len(all) {
		tb.Fatalf("%s has %d interactions, not %d", rel, len(all), i+1)
	}
	return all[i]
}

func decode(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// Matcher compares the body of a request the adapter sent with the
// recorded one; it returns what differs, or "".
type Matcher func(got, want map[string]any) string

// Server answers with the recorded responses of its interactions, in order,
// after checking that each request is the recorded one.
type Server struct {
	*httptest.Server
	tb    testing.TB
	match Matcher

	// mu guards next and Requests.
	mu   sync.Mutex
	next int
	all  []*Interaction
	// Requests holds the bodies received, in order.
	Requests []map[string]any
}

// Serve starts a server that replays ias in order, checking each request
// with match. It is closed when the test ends.
func Serve(tb testing.TB, match Matcher, ias ...*Interaction) *Server {
	tb.Helper()
	s := &Server{tb: tb, match: match, all: ias}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	tb.Cleanup(s.Close)
	return s
}

// BaseURL returns the server's URL with the path prefix of the recorded
// URI before suffix ("/v1" for ".../v1/chat/completions").
func (s *Server) BaseURL(ia *Interaction, suffix string) string {
	return s.URL + strings.TrimSuffix(ia.URL.Path, suffix)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var got map[string]any
	_ = decode(body, &got)
	s.mu.Lock()
	s.Requests = append(s.Requests, got)
	if s.next >= len(s.all) {
		s.mu.Unlock()
		s.tb.Errorf("replay: unexpected request %d: %s %s", s.next+1, r.Method, r.URL.Path)
		http.Error(w, "no more recorded interactions", http.StatusTeapot)
		return
	}
	ia := s.all[s.next]
	s.next++
	s.mu.Unlock()

	if r.Method != ia.Method || r.URL.Path != ia.URL.Path {
		s.tb.Errorf("replay %s: got %s %s, want %s %s", ia.Name(), r.Method, r.URL.Path, ia.Method, ia.URL.Path)
		http.Error(w, "request does not match the recording", http.StatusTeapot)
		return
	}
	if diff := s.match(got, ia.Body); diff != "" {
		s.tb.Errorf("replay %s: request body differs from the recording: %s\nsent: %s", ia.Name(), diff, body)
		http.Error(w, "request body does not match the recording", http.StatusTeapot)
		return
	}
	if ia.ContentType != "" {
		w.Header().Set("Content-Type", ia.ContentType)
	}
	w.WriteHeader(ia.Status)
	_, _ = w.Write(ia.Response)
}

// Served returns how many interactions were served.
func (s *Server) Served() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// Str returns v[key] as a string ("" when absent or not a string).
func Str(v map[string]any, key string) string {
	s, _ := v[key].(string)
	return s
}

// List returns v[key] as a list.
func List(v map[string]any, key string) []any {
	l, _ := v[key].([]any)
	return l
}

// Obj returns v[key] as an object.
func Obj(v map[string]any, key string) map[string]any {
	o, _ := v[key].(map[string]any)
	return o
}

// Int returns v[key] as an integer (0 when absent).
func Int(v map[string]any, key string) int64 {
	n, _ := v[key].(json.Number)
	i, _ := n.Int64()
	return i
}

// SameJSON reports whether a and b are the same JSON value. A
// json.RawMessage or []byte is JSON text; anything else, a string too, is a
// decoded value.
func SameJSON(a, b any) bool {
	return canon(a) == canon(b) && canon(a) != ""
}

func canon(v any) string {
	var raw []byte
	switch v := v.(type) {
	case json.RawMessage:
		raw = v
	case []byte:
		raw = v
	default:
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return ""
		}
	}
	var x any
	if decode(raw, &x) != nil {
		return ""
	}
	out, _ := json.Marshal(x)
	return string(out)
}
