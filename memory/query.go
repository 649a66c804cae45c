package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of a [Query].
const (
	DefaultTopK   = 5
	MaxTopK       = 1000
	MaxQueryBytes = 8 << 10
	// MaxQueryTerms is how many distinct words of a query the lexical
	// retriever uses; later ones are ignored.
	MaxQueryTerms = 64
)

// Query is seed 004's MemoryQuery.
type Query struct {
	QueryText string `json:"query_text"`
	// TopK is how many results to return at most (DefaultTopK when 0).
	TopK int `json:"top_k,omitempty"`
	// MinRelevanceScore drops results scored below it. Zero keeps every
	// result: the seed's default of 0.7 is for callers that speak its
	// schema to apply (see the package documentation for what a score
	// means).
	MinRelevanceScore float64 `json:"min_relevance_score,omitempty"`
	// Filters restrict the documents searched; see [ParseFilters].
	Filters map[string]any `json:"filters,omitempty"`
}

// Output is seed 004's MemoryOutput.
type Output struct {
	Results []Result `json:"results"`
	// TotalFound is how many chunks cleared the threshold among those the
	// retrievers returned (each returns at most Index.Depth or TopK,
	// whichever is larger), before the cut to TopK.
	TotalFound int `json:"total_found"`
}

// Result is seed 004's RetrievedContext.
type Result struct {
	ChunkID string `json:"chunk_id"`
	Content string `json:"content"`
	// SourceID is the document's ID.
	SourceID  string `json:"source_id"`
	SourceURL string `json:"source_url,omitempty"`
	// RelevanceScore is in [0, 1]; the package documentation says what it
	// means.
	RelevanceScore float64 `json:"relevance_score"`
	// Metadata says where the chunk came from: document_id, version,
	// source, source_type, title, format, ingested, page, page_end,
	// headings, start, end, layout_type, bbox, document_metadata; and how
	// it scored: lexical_score, vector_score, rank_score (the fused
	// reciprocal-rank score), lexical_rank and vector_rank (1-based, absent
	// when that retriever did not return it).
	Metadata map[string]any `json:"metadata"`
}

// Terms returns the words of a query: runs of letters and digits, lower-cased,
// in order, repeated words kept (each occurrence counts in BM25). Stop words
// are left out unless keepStop is set or the query has nothing else. The
// result is plain words: nothing in it is query syntax.
func Terms(text string, keepStop bool) []string {
	var all, content []string
	for w := range words(text) {
		all = append(all, w)
		if !stopWords[w] {
			content = append(content, w)
		}
	}
	if keepStop || len(content) == 0 {
		return all
	}
	return content
}

// words yields the lower-cased runs of letters, digits and combining marks
// of text.
func words(text string) func(func(string) bool) {
	return func(yield func(string) bool) {
		start := -1
		for i := 0; i <= len(text); {
			r, size := utf8.RuneError, 1
			if i < len(text) {
				r, size = utf8.DecodeRuneInString(text[i:])
			}
			word := i < len(text) && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) && start >= 0)
			if word && start < 0 {
				start = i
			}
			if !word && start >= 0 {
				if !yield(strings.ToLower(text[start:i])) {
					return
				}
				start = -1
			}
			i += size
		}
	}
}

// stopWords are English function words: they say little about what a text
// is about, and a query's content words rank better without them.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because
	been before being below between both but by can could did do does doing down during each few for from
	further had has have having he her here hers herself him himself his how i if in into is it its itself
	just me more most my myself no nor not now of off on once only or other our ours ourselves out over own
	same she should so some such than that the their theirs them themselves then there these they this those
	through to too under until up very was we were what when where which while who whom why will with would
	you your yours yourself yourselves`) {
		m[w] = true
	}
	return m
}()
