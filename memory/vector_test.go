package memory

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestNearestIsExact: the search returns the rows a float64 brute force
// ranks first, in its order, with and without a document filter and with
// and without the first pass over 8-bit codes; the set is large enough to
// be scanned in parts.
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
	for _, withCodes := range []bool{false, true} {
		for range 20 {
			q := RandomVectors(rng, 1, 48).Data
			got := nearest(set, q, 10, nil, withCodes)
			if want := bruteForce(set, q, 10); !slices.Equal(got, want) {
				t.Fatalf("codes %v: got rows %v, want %v", withCodes, got, want)
			}
			odd := nearest(set, q, 10, func(doc int) bool { return set.Docs[doc].ID == "odd" }, withCodes)
			if len(odd) != 10 {
				t.Fatalf("codes %v: filtered search returned %d rows", withCodes, len(odd))
			}
			for _, r := range odd {
				if r%2 != 1 {
					t.Fatalf("codes %v: filtered search returned row %d of the other document", withCodes, r)
				}
			}
		}
	}
	if got := Nearest(set, make([]float32, 47), 10, nil); got != nil {
		t.Errorf("a query of the wrong dimension: %v, want nothing", got)
	}
}

// TestCodesKeepTheFloat32Ranking: the first pass over codes changes nothing
// in what the float32 scan returns, ties included, on sets made to defeat
// it: rows that differ in their last bit, duplicates, zero rows, rows that
// are not finite, a dimension that is not a multiple of the codes' stride,
// a zero query, and more rows asked for than the filter lets through.
func TestCodesKeepTheFloat32Ranking(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	near := RandomVectors(rng, 3000, 37)
	base := near.Data[:37]
	for i := 1; i < 3000; i++ {
		row := near.Data[i*37 : (i+1)*37]
		copy(row, base)
		j := rng.IntN(37)
		row[j] = math.Nextafter32(row[j], float32(rng.IntN(3)-1))
	}
	odd := RandomVectors(rng, 3000, 37)
	for i := 0; i < 3000; i += 7 {
		clear(odd.Data[i*37 : (i+1)*37])
	}
	odd.Data[5*37+3] = float32(math.NaN())
	odd.Data[9*37] = float32(math.Inf(1))
	odd.Data[11*37+1] = 3e38 // finite, but its products overflow
	odd.Docs = []Document{{ID: "a"}, {ID: "b"}}
	for i := range odd.DocOf {
		odd.DocOf[i] = int32(min(i/2990, 1))
	}
	for _, tc := range []struct {
		name string
		set  *VectorSet
		k    int
		keep func(int) bool
	}{
		{"near-ties", near, 10, nil},
		{"near-ties, deep", near, 300, nil},
		{"zero and non-finite rows", odd, 10, nil},
		{"few allowed", odd, 20, func(doc int) bool { return doc == 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			queries := [][]float32{base, make([]float32, 37)}
			for range 10 {
				queries = append(queries, RandomVectors(rng, 1, 37).Data)
			}
			for _, q := range queries {
				want := nearest(tc.set, q, tc.k, tc.keep, false)
				if got := nearest(tc.set, q, tc.k, tc.keep, true); !slices.Equal(got, want) {
					t.Fatalf("got rows %v, want %v", got, want)
				}
			}
		})
	}
}

// TestDotCodes: the vector instructions compute the Go loop's integer.
func TestDotCodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{32, 64, 384, 8192} {
		a, b := make([]int8, n), make([]int16, n)
		for i := range a {
			a[i], b[i] = int8(rng.IntN(255)-127), int16(rng.IntN(255)-127)
		}
		a[0], b[0] = -127, -127
		if got, want := dotCodes(a, b), dotCodesGo(a, b); got != want {
			t.Errorf("n %d: got %d, want %d", n, got, want)
		}
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
	Nearest(set, queries.Data[:dim], BenchK, nil) // makes the set's codes
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

// BenchmarkVectorCodes is the one-time cost of the first search of a set of
// 100,000 vectors of 384 dimensions: making its 8-bit codes.
func BenchmarkVectorCodes(b *testing.B) {
	set := RandomVectors(rand.New(rand.NewPCG(1, 2)), 100_000, 384)
	for b.Loop() {
		quantize(set)
	}
}
