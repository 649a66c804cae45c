// Package eval measures the retrieval index on a test collection in the BEIR
// layout: corpus.jsonl ({"_id", "title", "text"} per line), queries.jsonl
// ({"_id", "text"}) and qrels/test.tsv (query-id, corpus-id, score, with a
// header line). The corpus goes through the real pipeline: each document is
// one document.Document of one text block, cut by chunk.Split, added to a
// memory.Index over the SQLite store of a temporary home; every query with
// judgements is searched, and its chunks ranked as documents (a document
// ranks where its best chunk does).
//
// Metrics are the standard ones, as trec_eval computes them: nDCG@10 with
// graded gains (the qrels score) and log2 discounts, the ideal ranking made
// of every judged relevant document; recall@100, the fraction of a query's
// relevant documents in its first 100.
package eval

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/chunk"
	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/memory"
)

// Variant names a lexical pipeline.
type Variant string

// Variants.
const (
	// VariantDefault is memory.DefaultLexical().
	VariantDefault Variant = "default"
	// VariantBM25 is memory.PlainBM25(), the baseline.
	VariantBM25 Variant = "bm25"
)

// Lexical returns the configuration of v.
func (v Variant) Lexical() (memory.LexicalConfig, error) {
	switch v {
	case VariantDefault, "":
		return memory.DefaultLexical(), nil
	case VariantBM25:
		return memory.PlainBM25(), nil
	}
	return memory.LexicalConfig{}, sanad.Errorf(sanad.CodeInvalidInput, "eval.variant", "unknown pipeline %q: want %s or %s", v, VariantDefault, VariantBM25)
}

// Config configures [Evaluate].
type Config struct {
	// Dir is the collection's folder.
	Dir string
	// Home is an empty folder for the temporary home; "" makes one in the
	// system's temporary folder and removes it afterwards.
	Home    string
	Variant Variant
	// Lexical, when set, is used instead of Variant's pipeline.
	Lexical *memory.LexicalConfig
	// Embedder, when set, adds the vector retriever.
	Embedder memory.Embedder
}

// Result is what a run measured.
type Result struct {
	NDCG10    float64 `json:"ndcg_at_10"`
	Recall100 float64 `json:"recall_at_100"`
	Queries   int     `json:"queries"`
}

// Evaluate indexes the collection in cfg.Dir and runs its queries.
func Evaluate(ctx context.Context, cfg Config) (Result, error) {
	lex := cfg.Lexical
	if lex == nil {
		l, err := cfg.Variant.Lexical()
		if err != nil {
			return Result{}, err
		}
		lex = &l
	}
	ds, err := Load(cfg.Dir)
	if err != nil {
		return Result{}, err
	}
	dir := cfg.Home
	if dir == "" {
		if dir, err = os.MkdirTemp("", "sanad-eval-"); err != nil {
			return Result{}, sanad.Wrap(err, sanad.CodeUnavailable, "eval", "temporary home: "+err.Error())
		}
		defer os.RemoveAll(dir)
	}
	h, err := home.Open(ctx, home.Config{Dir: dir})
	if err != nil {
		return Result{}, err
	}
	defer h.Close()
	x := &memory.Index{Store: h.DB, Embedder: cfg.Embedder, Lexical: lex}
	if err := ds.Index(ctx, x, Scope); err != nil {
		return Result{}, err
	}
	return ds.Run(ctx, x, Scope)
}

// Scope is where Evaluate indexes a collection.
var Scope = sanad.Scope{Tenant: "eval", Case: "collection"}

// Dataset is a test collection.
type Dataset struct {
	Docs    []Doc
	Queries []Query
	// Qrels maps a query id to its judged documents and their grades.
	Qrels map[string]map[string]int
}

// Doc is a document of the corpus.
type Doc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Query is a query of the collection.
type Query struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// Load reads the collection in dir.
func Load(dir string) (*Dataset, error) {
	const op = "eval.load"
	ds := &Dataset{Qrels: map[string]map[string]int{}}
	if err := readJSONL(filepath.Join(dir, "corpus.jsonl"), func(b []byte) error {
		var d Doc
		if err := json.Unmarshal(b, &d); err != nil {
			return err
		}
		ds.Docs = append(ds.Docs, d)
		return nil
	}); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "corpus.jsonl: "+err.Error())
	}
	if err := readJSONL(filepath.Join(dir, "queries.jsonl"), func(b []byte) error {
		var q Query
		if err := json.Unmarshal(b, &q); err != nil {
			return err
		}
		ds.Queries = append(ds.Queries, q)
		return nil
	}); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "queries.jsonl: "+err.Error())
	}
	f, err := os.Open(filepath.Join(dir, "qrels", "test.tsv"))
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeNotFound, op, err.Error())
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); line++ {
		fields := strings.Split(strings.TrimSpace(sc.Text()), "\t")
		if line == 0 && len(fields) > 0 && fields[0] == "query-id" || len(fields) == 1 && fields[0] == "" {
			continue
		}
		if len(fields) != 3 {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "qrels line %d: %d fields, want 3", line+1, len(fields))
		}
		grade, err := strconv.Atoi(fields[2])
		if err != nil {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "qrels line %d: score %q", line+1, fields[2])
		}
		if ds.Qrels[fields[0]] == nil {
			ds.Qrels[fields[0]] = map[string]int{}
		}
		ds.Qrels[fields[0]][fields[1]] = grade
	}
	if err := sc.Err(); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "qrels: "+err.Error())
	}
	return ds, nil
}

func readJSONL(path string, each func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if err := each(sc.Bytes()); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return sc.Err()
}

// Chunks returns the chunks of a corpus document as ingestion makes them:
// one text block, split by chunk.Split with its default sizes.
func Chunks(d Doc, version string) []chunk.Chunk {
	doc := document.Document{Format: "txt", Title: d.Title, Pages: 1, Blocks: []document.Block{{Kind: document.Text, Text: d.Text}}}
	md, spans := doc.MarkdownSpans()
	return chunk.Split(&doc, md, spans, version, chunk.Options{})
}

// Index adds every document of the corpus to x in scope.
func (ds *Dataset) Index(ctx context.Context, x *memory.Index, scope sanad.Scope) error {
	for _, d := range ds.Docs {
		sum := sha256.Sum256([]byte(d.Title + "\x00" + d.Text))
		version := hex.EncodeToString(sum[:8])
		doc := memory.Document{ID: d.ID, Version: version, Source: "corpus/" + d.ID, SourceType: memory.SourceLocal,
			Title: d.Title, Format: "txt", Pages: 1}
		if _, err := x.Add(ctx, scope, doc, Chunks(d, version)); err != nil {
			return err
		}
	}
	return nil
}

// Depth is how many documents a query's ranking holds.
const Depth = 100

// Run searches every query that has judgements and averages the metrics.
func (ds *Dataset) Run(ctx context.Context, x *memory.Index, scope sanad.Scope) (Result, error) {
	var res Result
	for _, q := range ds.Queries {
		rels := ds.Qrels[q.ID]
		if !judged(rels) {
			continue
		}
		ranked, err := Rank(ctx, x, scope, q.Text, Depth)
		if err != nil {
			return Result{}, err
		}
		res.NDCG10 += NDCG(ranked, rels, 10)
		res.Recall100 += Recall(ranked, rels, 100)
		res.Queries++
	}
	if res.Queries > 0 {
		res.NDCG10 /= float64(res.Queries)
		res.Recall100 /= float64(res.Queries)
	}
	return res, nil
}

func judged(rels map[string]int) bool {
	for _, g := range rels {
		if g > 0 {
			return true
		}
	}
	return false
}

// Rank returns the first n documents for a query, each where its best chunk
// ranks. A query without results ranks nothing.
func Rank(ctx context.Context, x *memory.Index, scope sanad.Scope, text string, n int) ([]string, error) {
	out, err := x.Search(ctx, scope, memory.Query{QueryText: text, TopK: min(3*n, memory.MaxTopK)})
	if sanad.ErrorCode(err) == sanad.CodeMemoryNoResults {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var ranked []string
	for _, r := range out.Results {
		if !seen[r.SourceID] {
			seen[r.SourceID] = true
			ranked = append(ranked, r.SourceID)
		}
	}
	return ranked[:min(n, len(ranked))], nil
}

// NDCG returns nDCG@k of a ranking: the sum over its first k documents of
// grade/log2(rank+1), over the same sum for the ideal ranking.
func NDCG(ranked []string, rels map[string]int, k int) float64 {
	var dcg float64
	for i, id := range ranked[:min(k, len(ranked))] {
		if g := rels[id]; g > 0 {
			dcg += float64(g) / math.Log2(float64(i+2))
		}
	}
	var grades []int
	for _, g := range rels {
		if g > 0 {
			grades = append(grades, g)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	var ideal float64
	for i, g := range grades[:min(k, len(grades))] {
		ideal += float64(g) / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// Recall returns the fraction of the relevant documents (grade > 0) among
// the first k of a ranking.
func Recall(ranked []string, rels map[string]int, k int) float64 {
	relevant, found := 0, 0
	for _, g := range rels {
		if g > 0 {
			relevant++
		}
	}
	for _, id := range ranked[:min(k, len(ranked))] {
		if rels[id] > 0 {
			found++
		}
	}
	if relevant == 0 {
		return 0
	}
	return float64(found) / float64(relevant)
}
