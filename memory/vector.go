package memory

import (
	"container/heap"
	"context"
	"math"
	"runtime"
	"sync"

	"github.com/viterin/vek/vek32"

	"github.com/sanadhq/sanad"
)

type cacheKey struct {
	scope sanad.Scope
	model string
}

// cachedSet is one scope's vectors of one model.
type cachedSet struct {
	mu  sync.Mutex // guards set; held while it loads
	set *VectorSet

	used uint64 // guarded by Index.mu
}

// vectors returns the vectors of scope made by modelKey, loading them when
// the scope's index changed since they were loaded.
func (x *Index) vectors(ctx context.Context, scope sanad.Scope, modelKey string) (*VectorSet, error) {
	gen, err := x.Store.Generation(ctx, scope)
	if err != nil {
		return nil, err
	}
	e := x.entry(cacheKey{scope, modelKey})
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.set != nil && e.set.Generation == gen {
		return e.set, nil
	}
	set, err := x.Store.Vectors(ctx, scope, modelKey)
	if err != nil {
		return nil, err
	}
	if set.Dim > 0 && len(set.Data) != len(set.Keys)*set.Dim || len(set.DocOf) != len(set.Keys) {
		return nil, sanad.Errorf(sanad.CodeInternal, "memory.vectors", "the store returned %d keys, %d document refs and %d values of dimension %d", len(set.Keys), len(set.DocOf), len(set.Data), set.Dim)
	}
	e.set = set
	return set, nil
}

func (x *Index) entry(k cacheKey) *cachedSet {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.cache == nil {
		x.cache = map[cacheKey]*cachedSet{}
	}
	x.tick++
	e := x.cache[k]
	if e == nil {
		e = &cachedSet{}
		x.cache[k] = e
		limit := x.CachedScopes
		if limit <= 0 {
			limit = DefaultCachedScopes
		}
		for len(x.cache) > limit {
			var oldest cacheKey
			first := true
			for ck, ce := range x.cache {
				if ck != k && (first || ce.used < x.cache[oldest].used) {
					oldest, first = ck, false
				}
			}
			delete(x.cache, oldest)
		}
	}
	e.used = x.tick
	return e
}

// forget drops the cached vectors of scope.
func (x *Index) forget(scope sanad.Scope) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for k := range x.cache {
		if k.scope == scope {
			delete(x.cache, k)
		}
	}
}

// scored is a row of a VectorSet and its similarity to the query (or a
// bound of it).
type scored struct {
	row   int
	score float64
}

// parallelWork is the number of values (rows times dimension) above which
// Nearest splits the scan between cores.
const parallelWork = 1 << 21

// codesWork is the number of values above which Nearest runs a first pass
// over the set's 8-bit codes; below it, the float32 scan is fast enough.
const codesWork = 1 << 20

// Nearest returns the k rows of set most similar to the unit vector q, best
// first, among the rows whose document keep accepts (every row when keep is
// nil). The search is exact: it returns the rows a float32 dot product (the
// cosine, vectors being unit length) of q with every row ranks first, ties
// going to the earlier row (a row whose score is not a number, which only a
// vector holding one has, is left out). A large set is scanned in parts on
// up to four cores (GOMAXPROCS), each part keeping its own best k, merged at
// the end.
//
// Where the CPU has the vector instructions for it (AVX2), a large set is
// first scanned in 8 bits a value, a quarter of the bytes: that pass gives
// each row an interval sure to hold its float32 score (see quantized), and
// only the rows whose upper bound reaches the k-th best lower bound are
// scored in float32. The first search of a set makes its codes (a quarter
// of its size again).
func Nearest(set *VectorSet, q []float32, k int, keep func(doc int) bool) []int {
	return nearest(set, q, k, keep, fastCodes && len(set.Data) >= codesWork)
}

// nearest is Nearest, with or without the first pass over codes.
func nearest(set *VectorSet, q []float32, k int, keep func(doc int) bool, withCodes bool) []int {
	if k <= 0 || set.Dim == 0 || len(q) != set.Dim {
		return nil
	}
	n := len(set.Keys)
	var allowed []bool
	if keep != nil {
		allowed = make([]bool, len(set.Docs))
		for i := range allowed {
			allowed[i] = keep(i)
		}
	}
	var c *quantized
	var cq query
	if withCodes && n > k {
		c = set.quantized()
		if cq = c.query(q); !cq.ok {
			c = nil // zero, or a value not finite or too large: no bound holds
		}
	}
	parts := 1
	if n*set.Dim >= parallelWork {
		parts = min(runtime.GOMAXPROCS(0), 4)
	}
	heaps := make([]minHeap, parts)
	cands := make([][]scored, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo, hi := p*n/parts, (p+1)*n/parts
			if c != nil {
				heaps[p], cands[p] = c.scan(set, &cq, k, allowed, lo, hi)
			} else {
				heaps[p] = scan(set, q, k, allowed, lo, hi)
			}
		}()
	}
	wg.Wait()
	h := heaps[0]
	for _, other := range heaps[1:] {
		for _, s := range other {
			push(&h, s, k)
		}
	}
	if c != nil {
		h = rescore(set, q, k, h, cands)
	}
	out := make([]int, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(scored).row
	}
	return out
}

// scan returns the best k of rows [lo, hi).
func scan(set *VectorSet, q []float32, k int, allowed []bool, lo, hi int) minHeap {
	h := make(minHeap, 0, k)
	dim := set.Dim
	for i := lo; i < hi; i++ {
		if allowed != nil && !allowed[set.DocOf[i]] {
			continue
		}
		push(&h, scored{i, float64(vek32.Dot(q, set.Data[i*dim:(i+1)*dim]))}, k)
	}
	return h
}

// scan is the first pass over rows [lo, hi): it returns the k best lower
// bounds, and the rows whose upper bound reached the k-th best lower bound
// seen so far, with that upper bound. The k-th lower bound only grows, so
// every row whose upper bound reaches its final value is among them.
func (c *quantized) scan(set *VectorSet, q *query, k int, allowed []bool, lo, hi int) (minHeap, []scored) {
	lower := make(minHeap, 0, k)
	cands := make([]scored, 0, 4*k)
	for i := lo; i < hi; i++ {
		if allowed != nil && !allowed[set.DocOf[i]] {
			continue
		}
		l, u := c.bounds(i, q)
		if len(lower) < k || u >= lower[0].score {
			cands = append(cands, scored{i, u})
		}
		push(&lower, scored{i, l}, k)
	}
	return lower, cands
}

// rescore returns the best k of the candidates by their float32 scores.
// lower holds the k best lower bounds of the whole set: the k-th best
// float32 score is at least the k-th of them, so a candidate whose upper
// bound is below it is not among the best k and need not be scored.
func rescore(set *VectorSet, q []float32, k int, lower minHeap, cands [][]scored) minHeap {
	floor := math.Inf(-1)
	if len(lower) == k {
		floor = lower[0].score
	}
	h := make(minHeap, 0, k)
	dim := set.Dim
	for _, part := range cands {
		for _, s := range part {
			if s.score >= floor {
				push(&h, scored{s.row, float64(vek32.Dot(q, set.Data[s.row*dim:(s.row+1)*dim]))}, k)
			}
		}
	}
	return h
}

// push adds s to h if it is among the best k; a score that is not a number
// (a stored vector holding one) is never among them.
func push(h *minHeap, s scored, k int) {
	if math.IsNaN(s.score) {
		return
	}
	if len(*h) < k {
		heap.Push(h, s)
	} else if better(s, (*h)[0]) {
		(*h)[0] = s
		heap.Fix(h, 0)
	}
}

// better reports whether a ranks before b: a higher score, or the same score
// and an earlier row.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.row < b.row
}

// minHeap keeps the best k rows seen, the worst of them on top; ties put
// the later row on top, so that the earlier row wins.
type minHeap []scored

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
