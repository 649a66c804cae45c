package memory

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/sanadhq/sanad"
)

// RRFK is the k of reciprocal rank fusion: a chunk at rank r of a list adds
// 1/(RRFK + r) to its fused score.
const RRFK = 60

// LexicalConfig configures the lexical retriever. Each stage was measured
// on Cranfield (memory/eval); DefaultLexical has the ones that helped.
type LexicalConfig struct {
	// Fields weigh the chunk's text, headings and document title; the zero
	// value weighs all three 1.
	Fields FieldWeights
	// KeepStopWords searches a query's function words too ("the", "of").
	KeepStopWords bool
	// Proximity boosts chunks in which consecutive query words occur close
	// together; the zero value is off.
	Proximity Proximity
	// Feedback expands the query with words of the best first-pass chunks;
	// the zero value is off.
	Feedback Feedback
}

// Proximity is the sequential-dependence boost: for each pair of
// consecutive content words of the query, a clause that they occur next to
// each other in that order (Near 0), or within Near words of each other.
type Proximity struct {
	// Weight multiplies each pair clause's BM25 score; 0 turns the boost
	// off.
	Weight float64
	Near   int
}

// Feedback is RM3 pseudo-relevance feedback: the Docs best chunks of a
// first pass are taken as relevant; the Terms words most probable in them
// (weighting each chunk by its score) are mixed into the query, the
// original words keeping OriginalWeight of the weight, and the query is run
// again. The expanded query weighs as much in all as the original (its
// weights sum to the original's word count), so that its score bound is
// comparable.
//
// Feedback is the costly stage: it runs a second query of about three times
// as many words. Measured here (a shared 2-core machine), a TopK 10 search
// took 9 ms of CPU on Cranfield with plain BM25 and 41 ms with the default
// pipeline; on 100,000 synthetic chunks of Cranfield's vocabulary the
// median search took 0.40 s and 1.7–2.1 s (docs/performance.md says where
// the time goes). Where latency matters more than its +0.023 nDCG@10, turn
// it off with the zero Feedback.
type Feedback struct {
	Docs           int // 0: off
	Terms          int
	OriginalWeight float64
}

// DefaultFields weighs every field the same. On Cranfield, where a
// document's title is also the first sentence of its text, weighing the
// title 0.5, 1.5, 2 or 3 times changed nDCG@10 by less than 0.003 either
// way (title 2: 0.3890 against 0.3875), and the text twice lost 0.017
// (memory/eval); Cranfield has no headings to weigh.
var DefaultFields = FieldWeights{Content: 1, Headings: 1, Title: 1}

// DefaultLexical returns the lexical pipeline the index uses when
// Index.Lexical is nil: stop words dropped from the query, a proximity boost
// of exact word pairs weighing a quarter, and RM3 feedback from the 10 best
// chunks adding 20 words at half the weight. Each stage's effect on
// Cranfield (nDCG@10 / recall@100; memory/eval):
//
//	plain BM25, every word of the query   0.3808 / 0.7281
//	stop words dropped                    0.3875 / 0.7404
//	  + exact pairs, weight 0.25          0.4009 / 0.7498
//	  + RM3 (10 chunks, 20 words, 0.5)    0.4241 / 0.7945
//
// Pairs within 3 words (NEAR) instead of exact pairs gave 0.3964, RM3 without
// pairs 0.4155. Among the other settings tried (before the store's scope
// column, which moved figures by less than 0.001), pair weights of 0.1 and
// 0.5 gave 0.3954 and 0.4025, RM3 with 10 words 0.4173 and from 5 chunks
// 0.4150.
func DefaultLexical() LexicalConfig {
	return LexicalConfig{
		Fields:    DefaultFields,
		Proximity: Proximity{Weight: 0.25},
		Feedback:  Feedback{Docs: 10, Terms: 20, OriginalWeight: 0.5},
	}
}

// PlainBM25 returns BM25 over every word of the query, every field weighed
// the same, without boosts: the baseline the default is measured against.
func PlainBM25() LexicalConfig {
	return LexicalConfig{Fields: DefaultFields, KeepStopWords: true}
}

func (x *Index) lexical() LexicalConfig {
	if x.Lexical != nil {
		return *x.Lexical
	}
	return DefaultLexical()
}

// candidate is a chunk returned by a retriever.
type candidate struct {
	key              int64
	lex, vec         float64 // normalised component scores
	lexRank, vecRank int     // 1-based; 0: not returned
	bm25             float64
	rrf, score       float64
}

// Search returns the chunks of scope most relevant to q, best first, at most
// q.TopK, each scoring at least q.MinRelevanceScore (the package
// documentation says what a score means). Nothing that clears the threshold
// is ERR_MEMORY_NO_RESULTS; a malformed query or filter is INVALID_INPUT.
func (x *Index) Search(ctx context.Context, scope sanad.Scope, q Query) (Output, error) {
	const op = "memory.search"
	if err := scope.Validate(); err != nil {
		return Output{}, err
	}
	topK := q.TopK
	switch {
	case topK == 0:
		topK = DefaultTopK
	case topK < 0 || topK > MaxTopK:
		return Output{}, sanad.Errorf(sanad.CodeInvalidInput, op, "top_k is %d; it must be between 1 and %d", q.TopK, MaxTopK)
	}
	if q.MinRelevanceScore < 0 || q.MinRelevanceScore > 1 || math.IsNaN(q.MinRelevanceScore) {
		return Output{}, sanad.Errorf(sanad.CodeInvalidInput, op, "min_relevance_score is %g; it must be between 0 and 1", q.MinRelevanceScore)
	}
	if strings.TrimSpace(q.QueryText) == "" {
		return Output{}, sanad.Errorf(sanad.CodeInvalidInput, op, "the query text is empty")
	}
	if len(q.QueryText) > MaxQueryBytes {
		return Output{}, sanad.Errorf(sanad.CodeInvalidInput, op, "the query text is %d bytes; the limit is %d", len(q.QueryText), MaxQueryBytes)
	}
	filter, err := ParseFilters(q.Filters)
	if err != nil {
		return Output{}, err
	}
	depth := max(x.Depth, topK)
	if x.Depth <= 0 {
		depth = max(DefaultDepth, topK)
	}

	byKey := map[int64]*candidate{}
	get := func(k int64) *candidate {
		c := byKey[k]
		if c == nil {
			c = &candidate{key: k}
			byKey[k] = c
		}
		return c
	}
	lex, err := x.searchLexical(ctx, scope, q.QueryText, filter, depth)
	if err != nil {
		return Output{}, err
	}
	for i, h := range lex.hits {
		c := get(h.Key)
		c.lexRank = i + 1
		c.bm25 = h.TermScore + h.PhraseScore
		c.lex = normalizedBM25(c.bm25, lex.bound)
	}
	if x.Embedder != nil {
		set, rows, sims, err := x.searchVectors(ctx, scope, q.QueryText, filter, depth)
		if err != nil {
			return Output{}, err
		}
		for i, r := range rows {
			c := get(set.Keys[r])
			c.vecRank = i + 1
			c.vec = min(max(sims[i], 0), 1)
		}
	}

	cands := make([]*candidate, 0, len(byKey))
	for _, c := range byKey {
		if c.lexRank > 0 {
			c.rrf += 1 / float64(RRFK+c.lexRank)
		}
		if c.vecRank > 0 {
			c.rrf += 1 / float64(RRFK+c.vecRank)
		}
		c.score = max(c.lex, c.vec)
		if c.score >= q.MinRelevanceScore && c.score > 0 {
			cands = append(cands, c)
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.rrf != b.rrf {
			return a.rrf > b.rrf
		}
		if a.score != b.score {
			return a.score > b.score
		}
		return a.key < b.key
	})
	total := len(cands)
	if total == 0 {
		return Output{}, noResults(scope, q.MinRelevanceScore)
	}
	cands = cands[:min(topK, len(cands))]
	keys := make([]int64, len(cands))
	for i, c := range cands {
		keys[i] = c.key
	}
	stored, err := x.Store.Chunks(ctx, scope, keys)
	if err != nil {
		return Output{}, err
	}
	out := Output{TotalFound: total, Results: make([]Result, 0, len(stored))}
	for _, s := range stored {
		out.Results = append(out.Results, result(s, byKey[s.Key], lex.bound))
	}
	if len(out.Results) == 0 { // every chunk found was superseded meanwhile
		return Output{}, noResults(scope, q.MinRelevanceScore)
	}
	return out, nil
}

func noResults(scope sanad.Scope, threshold float64) error {
	if threshold > 0 {
		return sanad.Errorf(sanad.CodeMemoryNoResults, "memory.search", "no chunk in %s scored %.2f or more for the query", scope, threshold)
	}
	return sanad.Errorf(sanad.CodeMemoryNoResults, "memory.search", "no chunk in %s matched the query", scope)
}

// normalizedBM25 is a BM25 score as a fraction of its bound, in [0, 1].
func normalizedBM25(score, bound float64) float64 {
	if bound <= 0 || score <= 0 {
		return 0
	}
	return min(score/bound, 1)
}

func result(s StoredChunk, c *candidate, bound float64) Result {
	d := &s.Doc
	m := map[string]any{
		"document_id": d.ID,
		"version":     d.Version,
		"source":      d.Source,
		"source_type": d.SourceType,
		"title":       d.Title,
		"format":      d.Format,
		"ingested":    d.Ingested,
		"page":        s.Chunk.Page,
		"page_end":    s.Chunk.PageEnd,
		"headings":    s.Chunk.Headings,
		"start":       s.Chunk.Start,
		"end":         s.Chunk.End,
		"layout_type": s.Chunk.LayoutType,
		"rank_score":  c.rrf,
	}
	if s.Chunk.BBox != nil {
		m["bbox"] = s.Chunk.BBox
	}
	if len(d.Metadata) > 0 {
		m["document_metadata"] = d.Metadata
	}
	if c.lexRank > 0 {
		m["lexical_score"] = c.lex
		m["lexical_rank"] = c.lexRank
		m["bm25"] = c.bm25
		m["bm25_bound"] = bound
	}
	if c.vecRank > 0 {
		m["vector_score"] = c.vec
		m["vector_rank"] = c.vecRank
	}
	return Result{
		ChunkID:        s.Chunk.ID,
		Content:        s.Chunk.Content,
		SourceID:       d.ID,
		SourceURL:      d.SourceURL,
		RelevanceScore: c.score,
		Metadata:       m,
	}
}

// searchVectors returns the depth chunks nearest to the query's embedding
// and their cosine similarity.
func (x *Index) searchVectors(ctx context.Context, scope sanad.Scope, text string, f Filter, depth int) (*VectorSet, []int, []float64, error) {
	emb, err := x.Embedder.Embed(ctx, []string{text})
	if err != nil {
		return nil, nil, nil, err
	}
	if len(emb.Vectors) != 1 || len(emb.Vectors[0]) == 0 {
		return nil, nil, nil, sanad.Errorf(sanad.CodeModelOutput, "memory.search", "the embedder returned %d vectors for one query", len(emb.Vectors))
	}
	q := normalized(emb.Vectors[0])
	set, err := x.vectors(ctx, scope, modelKey(emb, len(q)))
	if err != nil {
		return nil, nil, nil, err
	}
	var keep func(int) bool
	if !f.Empty() {
		keep = func(doc int) bool { return f.Match(&set.Docs[doc]) }
	}
	rows := Nearest(set, q, depth, keep)
	sims := make([]float64, len(rows))
	for i, r := range rows {
		var s float64
		for j, v := range set.Data[r*set.Dim : (r+1)*set.Dim] {
			s += float64(v) * float64(q[j])
		}
		sims[i] = s
	}
	return set, rows, sims, nil
}
