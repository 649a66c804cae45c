package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/chunk"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/memory"
)

// LexicalBenchConfig configures [BenchLexical].
type LexicalBenchConfig struct {
	// Dir is the collection whose words and queries are used.
	Dir string
	// Home is an empty folder for the temporary home; "" makes one in the
	// system's temporary folder and removes it afterwards.
	Home    string
	N       int // chunks (default 100,000)
	Queries int // queries timed (default: every query of the collection)
	Variant Variant
}

// LexicalBenchResult is what `sanad bench search --json` prints for the
// lexical search.
type LexicalBenchResult struct {
	N       int     `json:"n"`
	Queries int     `json:"queries"`
	Variant Variant `json:"variant"`
	P50MS   float64 `json:"p50_ms"`
	P90MS   float64 `json:"p90_ms"`
	// IndexS is how long adding the N chunks took, in seconds.
	IndexS float64 `json:"index_s"`
}

// BenchLexical measures the lexical search on N synthetic chunks: text
// drawn from the collection's word frequencies, in chunks of the
// collection's document lengths, 100 chunks per document, added through
// memory.Index into a temporary home. It runs the collection's queries one
// after the other (TopK 10) and reports the median and 90th percentile time
// of Index.Search.
func BenchLexical(ctx context.Context, cfg LexicalBenchConfig) (LexicalBenchResult, error) {
	if cfg.N <= 0 {
		cfg.N = 100_000
	}
	lex, err := cfg.Variant.Lexical()
	if err != nil {
		return LexicalBenchResult{}, err
	}
	if cfg.Variant == "" {
		cfg.Variant = VariantDefault
	}
	ds, err := Load(cfg.Dir)
	if err != nil {
		return LexicalBenchResult{}, err
	}
	dir := cfg.Home
	if dir == "" {
		if dir, err = os.MkdirTemp("", "sanad-bench-"); err != nil {
			return LexicalBenchResult{}, sanad.Wrap(err, sanad.CodeUnavailable, "eval.bench", "temporary home: "+err.Error())
		}
		defer os.RemoveAll(dir)
	}
	h, err := home.Open(ctx, home.Config{Dir: dir})
	if err != nil {
		return LexicalBenchResult{}, err
	}
	defer h.Close()
	x := &memory.Index{Store: h.DB, Lexical: &lex}
	res := LexicalBenchResult{N: cfg.N, Variant: cfg.Variant}
	start := time.Now()
	if err := ds.Synthetic(ctx, x, Scope, cfg.N); err != nil {
		return res, err
	}
	res.IndexS = time.Since(start).Seconds()
	queries := ds.Queries
	if cfg.Queries > 0 && cfg.Queries < len(queries) {
		queries = queries[:cfg.Queries]
	}
	took := make([]time.Duration, 0, len(queries))
	for _, q := range queries {
		start := time.Now()
		_, err := x.Search(ctx, Scope, memory.Query{QueryText: q.Text, TopK: 10})
		if err != nil && sanad.ErrorCode(err) != sanad.CodeMemoryNoResults {
			return res, err
		}
		took = append(took, time.Since(start))
	}
	if len(took) == 0 {
		return res, sanad.Errorf(sanad.CodeInvalidInput, "eval.bench", "the collection has no queries")
	}
	slices.Sort(took)
	res.Queries = len(took)
	res.P50MS = float64(took[len(took)/2]) / 1e6
	res.P90MS = float64(took[len(took)*9/10]) / 1e6
	return res, nil
}

// Synthetic adds n chunks of text drawn from the corpus (a fixed seed):
// words with their corpus frequencies, chunk lengths those of corpus
// documents, 100 chunks per document.
func (ds *Dataset) Synthetic(ctx context.Context, x *memory.Index, scope sanad.Scope, n int) error {
	counts := map[string]int{}
	var lengths []int
	for _, d := range ds.Docs {
		ws := strings.Fields(d.Text)
		lengths = append(lengths, len(ws))
		for _, w := range ws {
			counts[w]++
		}
	}
	if len(counts) == 0 {
		return sanad.Errorf(sanad.CodeInvalidInput, "eval.synthetic", "the corpus has no words")
	}
	vocab := make([]string, 0, len(counts))
	for w := range counts {
		vocab = append(vocab, w)
	}
	sort.Strings(vocab)
	cum := make([]int, len(vocab))
	total := 0
	for i, w := range vocab {
		total += counts[w]
		cum[i] = total
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const perDoc = 100
	var b strings.Builder
	for d := 0; d*perDoc < n; d++ {
		chunks := make([]chunk.Chunk, min(perDoc, n-d*perDoc))
		for i := range chunks {
			b.Reset()
			for j := range max(lengths[rng.IntN(len(lengths))], 1) {
				if j > 0 {
					b.WriteByte(' ')
				}
				k, _ := slices.BinarySearch(cum, rng.IntN(total)+1)
				b.WriteString(vocab[k])
			}
			chunks[i] = chunk.Chunk{ID: fmt.Sprintf("s%d-%d", d, i), Index: i, Content: b.String(), LayoutType: "text", End: b.Len()}
		}
		id := fmt.Sprintf("synthetic-%d", d)
		doc := memory.Document{ID: id, Version: "1", Source: id, SourceType: memory.SourceLocal, Title: id, Format: "txt"}
		if _, err := x.Add(ctx, scope, doc, chunks); err != nil {
			return err
		}
	}
	return nil
}
