package memory_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/openai"
)

// embeddingsServer is an OpenAI-compatible /embeddings endpoint on the
// loopback interface whose vectors are model.HashEmbedder's. It records the
// size of each request's batch.
func embeddingsServer(t *testing.T) (*httptest.Server, func() []int) {
	t.Helper()
	var mu sync.Mutex // guards batches
	var batches []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "test-embed" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		mu.Lock()
		batches = append(batches, len(req.Input))
		mu.Unlock()
		emb, _ := model.HashEmbedder{Dim: 128}.Embed(r.Context(), req.Input)
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		resp := struct {
			Object string         `json:"object"`
			Data   []item         `json:"data"`
			Model  string         `json:"model"`
			Usage  map[string]int `json:"usage"`
		}{Object: "list", Model: "test-embed", Usage: map[string]int{"prompt_tokens": 1, "total_tokens": 1}}
		for i, v := range emb.Vectors {
			resp.Data = append(resp.Data, item{"embedding", i, v})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), batches...)
	}
}

// TestOpenAICompatibleEmbeddings: an index whose embedder is an
// OpenAI-compatible server embeds chunks in batches, stores their vectors
// and fuses the vector ranking with the lexical one.
func TestOpenAICompatibleEmbeddings(t *testing.T) {
	srv, batches := embeddingsServer(t)
	m, err := openai.New(openai.Config{Model: "test-embed", BaseURL: srv.URL + "/v1", Retry: model.Retry{MaxRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	x := newIndex(t)
	x.Embedder = m
	x.EmbedBatch = 2
	a := add(t, x, caseA, doc("lease", "v1", "Lease", nil), lease+"\n\n"+strings.ReplaceAll(loan, "# ", "# Lease "))
	if a.Embedded != a.Chunks || a.Chunks < 3 {
		t.Fatalf("added %+v", a)
	}
	got := batches()
	for _, n := range got {
		if n > 2 {
			t.Errorf("a batch of %d texts, want at most 2", n)
		}
	}
	if len(got) != (a.Chunks+1)/2 {
		t.Errorf("%d requests for %d chunks in batches of 2", len(got), a.Chunks)
	}
	add(t, x, caseA, doc("loan", "v1", "Loan", nil), loan)
	if u := add(t, x, caseA, doc("loan", "v1", "Loan", nil), loan); !u.Unchanged {
		t.Fatalf("same version: %+v", u)
	}
	before := len(batches())
	out := search(t, x, caseA, memory.Query{QueryText: "written notice to terminate", TopK: 3})
	if len(batches()) != before+1 {
		t.Errorf("the query was not embedded once")
	}
	top := out.Results[0]
	if top.SourceID != "lease" || !strings.Contains(top.Content, "notice") {
		t.Fatalf("top %s %q", top.SourceID, top.Content)
	}
	if _, ok := top.Metadata["vector_score"]; !ok {
		t.Errorf("no vector score in %v", top.Metadata)
	}

	// An embedder down: adding fails and writes nothing.
	srv.Close()
	if _, err := x.Add(t.Context(), caseA, doc("new", "v1", "New", nil), split("some new text", "v1")); err == nil {
		t.Fatal("add with the embedder down succeeded")
	}
	if _, err := x.Document(t.Context(), caseA, "new"); err == nil {
		t.Error("a document whose embedding failed was stored")
	}
}
