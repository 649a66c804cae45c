package memory

import (
	"context"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/sanadhq/sanad"
)

// BenchResult is what `sanad bench search --json` prints for the vector
// search.
type BenchResult struct {
	N       int     `json:"n"`
	Dim     int     `json:"dim"`
	Queries int     `json:"queries"`
	K       int     `json:"k"`
	P50MS   float64 `json:"p50_ms"`
	P90MS   float64 `json:"p90_ms"`
	// Recall is the recall@K of the search against a float64 brute-force
	// ranking, over the first queries (1.0: the search is exact).
	Recall float64 `json:"recall"`
}

// BenchK is how many neighbours a benchmark query asks for.
const BenchK = 10

// BenchVectors measures [Nearest], the exact search an index runs over a
// scope's vectors: n random unit vectors of dim float32 values (a fixed
// seed), queries random unit queries, one after the other, after one
// untimed query (the first search of a set makes its 8-bit codes). It
// reports the median and 90th percentile latency and the recall@10 of up to
// 10 queries against a float64 brute force.
func BenchVectors(ctx context.Context, n, dim, queries int) (BenchResult, error) {
	const op = "memory.bench_vectors"
	if n <= 0 || dim <= 0 || queries <= 0 || n > 10_000_000 || dim > 8192 {
		return BenchResult{}, sanad.Errorf(sanad.CodeInvalidInput, op, "n, dim and queries must be positive (n up to 10,000,000, dim up to 8192)")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	set := RandomVectors(rng, n, dim)
	res := BenchResult{N: n, Dim: dim, Queries: queries, K: BenchK}
	Nearest(set, RandomVectors(rng, 1, dim).Data, BenchK, nil) // makes the set's codes, once
	took := make([]time.Duration, 0, queries)
	var found, want int
	for i := range queries {
		if err := ctx.Err(); err != nil {
			return res, sanad.Wrap(err, sanad.CodeCancelled, op, "benchmark cancelled")
		}
		q := RandomVectors(rng, 1, dim).Data
		start := time.Now()
		got := Nearest(set, q, BenchK, nil)
		took = append(took, time.Since(start))
		if i < 10 {
			exact := bruteForce(set, q, BenchK)
			for _, r := range got {
				if slices.Contains(exact, r) {
					found++
				}
			}
			want += len(exact)
		}
	}
	slices.Sort(took)
	res.P50MS = float64(took[len(took)/2]) / 1e6
	res.P90MS = float64(took[len(took)*9/10]) / 1e6
	if want > 0 {
		res.Recall = float64(found) / float64(want)
	}
	return res, nil
}

// RandomVectors returns n random unit vectors of dim values (normal
// coordinates, normalised), each its own chunk of one document.
func RandomVectors(rng *rand.Rand, n, dim int) *VectorSet {
	set := &VectorSet{Dim: dim, Keys: make([]int64, n), DocOf: make([]int32, n), Docs: []Document{{}}, Data: make([]float32, n*dim)}
	v := make([]float32, dim)
	for i := range n {
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		copy(set.Data[i*dim:], normalized(v))
		set.Keys[i] = int64(i + 1)
	}
	return set
}

// bruteForce returns the k rows nearest to q computed in float64, best
// first.
func bruteForce(set *VectorSet, q []float32, k int) []int {
	type rs struct {
		row int
		s   float64
	}
	all := make([]rs, len(set.Keys))
	for i := range all {
		var s float64
		for j, x := range set.Data[i*set.Dim : (i+1)*set.Dim] {
			s += float64(x) * float64(q[j])
		}
		all[i] = rs{i, s}
	}
	sort.Slice(all, func(a, b int) bool {
		if all[a].s != all[b].s {
			return all[a].s > all[b].s
		}
		return all[a].row < all[b].row
	})
	out := make([]int, 0, k)
	for _, r := range all[:min(k, len(all))] {
		out = append(out, r.row)
	}
	return out
}
