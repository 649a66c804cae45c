// Package modeltest holds fake model servers for tests, so that a test can
// drive the real adapters through model/provider without a network.
//
// [NewOpenAI] and [NewAnthropic] start a [Fake] that answers as the OpenAI
// Chat Completions API or the Anthropic Messages API does, whole or
// streamed, with the turns of a [Script]: text, tool calls (parallel ones
// too) or an HTTP error. [Sequence] scripts a conversation turn by turn.
// The fake keeps what it saw of each request, the same for both providers
// ([Request]): the system prompt, the messages with the assistant's tool
// calls and the tool results sent back, the tools and the tool choice. It
// is what a test of an agent's tool loop needs.
//
// [NewServer] is the older, lower-level fake of the OpenAI API: a [Reply]
// writes each answer's status and body itself.
package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
)

// Model is the model name the default replies give.
const Model = "gpt-test"

// BadKey is the API key the default reply refuses with 401.
const BadKey = "bad"

// Reply returns the status and JSON body of the server's answer to its
// n-th chat completion request (from 1), made with the bearer key key ("" for
// none) and the request body body.
type Reply func(n int, key string, body []byte) (status int, response string)

// Server is a fake OpenAI-compatible server. It is safe for concurrent use.
type Server struct {
	*httptest.Server
	reply Reply

	mu     sync.Mutex // guards the fields below
	n      int
	bodies [][]byte
}

// NewServer starts a server that answers with reply (Default when nil).
// The caller closes it.
func NewServer(reply Reply) *Server {
	if reply == nil {
		reply = Default
	}
	s := &Server{reply: reply}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the base URL to configure: the server's URL and "/v1".
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests returns how many chat completion requests the server has had.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// Bodies returns the bodies of the chat completion requests, in order.
func (s *Server) Bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, `{"error":{"message":"unreadable body"}}`, http.StatusBadRequest)
		return
	}
	key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	s.n++
	n := s.n
	s.bodies = append(s.bodies, body)
	s.mu.Unlock()
	status, resp := s.reply(n, key, body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-Id", "req-test-"+strconv.Itoa(n))
	w.WriteHeader(status)
	io.WriteString(w, resp)
}

// Default answers every request with Completion("OK"), except one made
// with BadKey, which it refuses with Unauthorized.
func Default(n int, key string, _ []byte) (int, string) {
	if key == BadKey {
		return http.StatusUnauthorized, Unauthorized(key)
	}
	return http.StatusOK, Completion(n, "OK")
}

// Completion returns the body of the n-th chat completion, whose reply is
// text: 12 prompt tokens, 1 completion token.
func Completion(n int, text string) string {
	return fmt.Sprintf(`{"id":"chatcmpl-test-%d","object":"chat.completion","created":1700000000,"model":%s,`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}`, n, quote(Model), quote(text))
}

// Unauthorized returns the body of a 401 that quotes the key it refused, as
// careless servers do: what a client records of it must not hold the key.
func Unauthorized(key string) string {
	return fmt.Sprintf(`{"error":{"message":%s,"type":"invalid_request_error","code":"invalid_api_key"}}`, quote("Incorrect API key provided: "+key))
}

// quote returns s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
