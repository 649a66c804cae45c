package memory

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestNearestIsExact: the float32 scan returns the rows a float64 brute
// force ranks first, in its order, with and without a document filter; the
// set is large enough to be scanned in parts.
func TestNearestIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	set := RandomVectors(rng, 45000, 48)
	if len(set.Data) < parallelWork {
		t.Fatalf("the set is too small to be split")
	}
	set.Docs = []Document{{ID: "even"}, {ID: "odd"}}
	for i := range set.DocOf {
		set.DocOf[i] = int32(i % 2)
	}
	for range 20 {
		q := RandomVectors(rng, 1, 48).Data
		got := Nearest(set, q, 10, nil)
		if want := bruteForce(set, q, 10); !slices.Equal(got, want) {
			t.Fatalf("got rows %v, want %v", got, want)
		}
		odd := Nearest(set, q, 10, func(doc int) bool { return set.Docs[doc].ID == "odd" })
		if len(odd) != 10 {
			t.Fatalf("filtered search returned %d rows", len(odd))
		}
		for _, r := range odd {
			if r%2 != 1 {
				t.Fatalf("filtered search returned row %d of the other document", r)
			}
		}
	}
	if got := Nearest(set, make([]float32, 47), 10, nil); got != nil {
		t.Errorf("a query of the wrong dimension: %v, want nothing", got)
	}
}

func TestBenchVectorsSmall(t *testing.T) {
	res, err := BenchVectors(t.Context(), 2000, 64, 20)
	if err != nil {
		t.Fatal(err)
	}
	if res.Recall != 1 || res.N != 2000 || res.Dim != 64 || res.P50MS <= 0 {
		t.Fatalf("got %+v, want recall 1", res)
	}
}

// BenchmarkVectorSearch is the exact search over 100,000 vectors of 384
// dimensions; it reports the median query time and the recall against a
// float64 brute force (1 by construction).
func BenchmarkVectorSearch(b *testing.B) {
	const n, dim = 100_000, 384
	rng := rand.New(rand.NewPCG(1, 2))
	set := RandomVectors(rng, n, dim)
	queries := RandomVectors(rng, 64, dim)
	took := make([]time.Duration, 0, b.N)
	var found, want int
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := queries.Data[(i%64)*dim : (i%64+1)*dim]
		start := time.Now()
		got := Nearest(set, q, BenchK, nil)
		took = append(took, time.Since(start))
		if i < 5 {
			b.StopTimer()
			exact := bruteForce(set, q, BenchK)
			for _, r := range got {
				if slices.Contains(exact, r) {
					found++
				}
			}
			want += len(exact)
			b.StartTimer()
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2])/1e6, "p50_ms")
	b.ReportMetric(float64(found)/float64(want), "recall")
}
