package eval_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/internal/sharedtest"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/memory/eval"
)

// Figures measured on Cranfield (225 queries with judgements, 1,400
// documents) with `go test ./memory/eval -run Cranfield -v`. The test fails
// when a change loses more than margin.
const (
	bm25NDCG10       = 0.3808 // plain BM25 (memory.PlainBM25)
	bm25Recall100    = 0.7281
	defaultNDCG10    = 0.4241 // memory.DefaultLexical: stop words, pairs, RM3
	defaultRecall100 = 0.7945
	margin           = 0.005
)

func TestCranfieldRetrieval(t *testing.T) {
	ds, err := eval.Load(sharedtest.Dir(t, "retrieval", "cranfield"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Docs) != 1400 || len(ds.Queries) != 225 {
		t.Fatalf("%d documents and %d queries, want Cranfield's 1400 and 225", len(ds.Docs), len(ds.Queries))
	}
	h, err := home.Open(t.Context(), home.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	x := &memory.Index{Store: h.DB}
	if err := ds.Index(t.Context(), x, eval.Scope); err != nil {
		t.Fatal(err)
	}
	run := func(v eval.Variant) eval.Result {
		lex, err := v.Lexical()
		if err != nil {
			t.Fatal(err)
		}
		x.Lexical = &lex
		r, err := ds.Run(t.Context(), x, eval.Scope)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-8s nDCG@10 %.4f  recall@100 %.4f  (%d queries)", v, r.NDCG10, r.Recall100, r.Queries)
		return r
	}
	plain := run(eval.VariantBM25)
	def := run(eval.VariantDefault)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"plain BM25 nDCG@10", plain.NDCG10, bm25NDCG10},
		{"plain BM25 recall@100", plain.Recall100, bm25Recall100},
		{"default nDCG@10", def.NDCG10, defaultNDCG10},
		{"default recall@100", def.Recall100, defaultRecall100},
	} {
		if c.got < c.want-margin {
			t.Errorf("%s: got %.4f, want at least %.4f (measured %.4f)", c.name, c.got, c.want-margin, c.want)
		}
	}
	if def.NDCG10 < plain.NDCG10 {
		t.Errorf("default nDCG@10 %.4f is below plain BM25's %.4f", def.NDCG10, plain.NDCG10)
	}
}

func TestMetrics(t *testing.T) {
	rels := map[string]int{"a": 2, "b": 1, "c": 1, "z": 0}
	for _, tc := range []struct {
		ranked     []string
		ndcg3, rec float64
	}{
		{[]string{"a", "b", "c"}, 1, 1},
		{[]string{"x", "y", "w"}, 0, 0},
		{[]string{"z", "a"}, 2 / math.Log2(3) / (2 + 1/math.Log2(3) + 0.5), 1.0 / 3},
		{nil, 0, 0},
	} {
		if got := eval.NDCG(tc.ranked, rels, 3); math.Abs(got-tc.ndcg3) > 1e-12 {
			t.Errorf("NDCG(%v): got %v, want %v", tc.ranked, got, tc.ndcg3)
		}
		if got := eval.Recall(tc.ranked, rels, 3); math.Abs(got-tc.rec) > 1e-12 {
			t.Errorf("Recall(%v): got %v, want %v", tc.ranked, got, tc.rec)
		}
	}
}

func TestBenchLexicalSmall(t *testing.T) {
	res, err := eval.BenchLexical(t.Context(), eval.LexicalBenchConfig{
		Dir: sharedtest.Dir(t, "retrieval", "cranfield"), Home: t.TempDir(), N: 1000, Queries: 10, Variant: eval.VariantBM25,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.N != 1000 || res.Queries != 10 || res.P50MS <= 0 {
		t.Fatalf("got %+v", res)
	}
}

// BenchmarkLexicalSearch times Index.Search (TopK 10) over 100,000
// synthetic chunks of Cranfield's vocabulary, for plain BM25 and the
// default pipeline, and reports the median query time.
func BenchmarkLexicalSearch(b *testing.B) {
	ds, err := eval.Load(sharedtest.Dir(b, "retrieval", "cranfield"))
	if err != nil {
		b.Fatal(err)
	}
	h, err := home.Open(b.Context(), home.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	x := &memory.Index{Store: h.DB}
	if err := ds.Synthetic(b.Context(), x, eval.Scope, 100_000); err != nil {
		b.Fatal(err)
	}
	for _, v := range []eval.Variant{eval.VariantBM25, eval.VariantDefault} {
		b.Run(string(v), func(b *testing.B) {
			lex, _ := v.Lexical()
			y := &memory.Index{Store: h.DB, Lexical: &lex}
			var took []time.Duration
			for i := 0; b.Loop(); i++ {
				q := ds.Queries[i%len(ds.Queries)]
				start := time.Now()
				if _, err := y.Search(b.Context(), eval.Scope, memory.Query{QueryText: q.Text, TopK: 10}); err != nil && sanad.ErrorCode(err) != sanad.CodeMemoryNoResults {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2])/1e6, "p50_ms")
		})
	}
}
