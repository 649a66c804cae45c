package memory

import (
	"container/heap"
	"context"
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

// scored is a row of a VectorSet and its similarity to the query.
type scored struct {
	row   int
	score float32
}

// parallelWork is the number of values (rows times dimension) above which
// Nearest splits the scan between cores.
const parallelWork = 1 << 21

// Nearest returns the k rows of set most similar to the unit vector q, best
// first, among the rows whose document keep accepts (every row when keep is
// nil). The search is exact: every row is compared, by dot product (the
// cosine, vectors being unit length). A large set is scanned in parts on up
// to four cores (GOMAXPROCS), each part keeping its own best k, merged at
// the end.
func Nearest(set *VectorSet, q []float32, k int, keep func(doc int) bool) []int {
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
	parts := 1
	if n*set.Dim >= parallelWork {
		parts = min(runtime.GOMAXPROCS(0), 4)
	}
	heaps := make([]minHeap, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			heaps[p] = scan(set, q, k, allowed, p*n/parts, (p+1)*n/parts)
		}()
	}
	wg.Wait()
	h := heaps[0]
	for _, other := range heaps[1:] {
		for _, s := range other {
			push(&h, s, k)
		}
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
		push(&h, scored{i, vek32.Dot(q, set.Data[i*dim:(i+1)*dim])}, k)
	}
	return h
}

// push adds s to h if it is among the best k.
func push(h *minHeap, s scored, k int) {
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
