package memory

import (
	"math"
	"runtime"
	"sync"
)

// quantized is a VectorSet in 8 bits a value, for a first pass of the search
// that reads a quarter of the bytes; every row the first pass cannot rule
// out is scored again in float32, so the search stays exact.
//
// Row i is s·a + e, a the row's codes (integers in [−127, 127]), s its
// scale and e what rounding left. A query q is t·b + f the same way, so
//
//	v·q = s·t·(a·b) + s·(a·f) + e·q
//
// and the last two terms are bounded by Cauchy–Schwarz: |s·(a·f)| ≤
// s·‖a‖·‖f‖ and |e·q| ≤ ‖e‖·‖q‖. a·b is an exact integer. With the
// rounding error of the float32 dot product the search ranks by (at most
// γ·‖v‖·‖q‖, γ = d·u/(1 − d·u), u = 2⁻²⁴, whatever the order of the
// additions), the first pass knows for each row an interval that holds
// the score the float32 pass would give it.
type quantized struct {
	stride int       // codes a row: Dim rounded up to a multiple of 32
	a      []int8    // row i is a[i*stride:(i+1)*stride], zero-padded
	scale  []float32 // s
	normA  []float64 // s·‖a‖
	// slack is ‖e‖ + γ·‖v‖, rounded up: the parts of the bound that
	// multiply ‖q‖; +Inf for a row encode refuses.
	slack []float64
	gamma float64
}

// codeStride is the multiple of values a row of codes is padded to.
const codeStride = 32

// quantize returns set in 8 bits a value.
func quantize(set *VectorSet) *quantized {
	n, dim := len(set.Keys), set.Dim
	c := &quantized{
		stride: (dim + codeStride - 1) / codeStride * codeStride,
		scale:  make([]float32, n),
		normA:  make([]float64, n),
		slack:  make([]float64, n),
		gamma:  roundingBound(dim),
	}
	c.a = make([]int8, n*c.stride)
	parts := 1
	if n*dim >= parallelWork {
		parts = min(runtime.GOMAXPROCS(0), 4)
	}
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := p * n / parts; i < (p+1)*n/parts; i++ {
				s, na, ne, nv, ok := encode(set.Data[i*dim:(i+1)*dim], c.a[i*c.stride:(i+1)*c.stride])
				if !ok {
					c.slack[i] = math.Inf(1)
					continue
				}
				c.scale[i], c.normA[i] = s, na
				c.slack[i] = up(ne + c.gamma*nv)
			}
		}()
	}
	wg.Wait()
	return c
}

// maxCoded is the largest magnitude encode accepts: beyond it a float32 dot
// product could overflow, and the rounding bound would not hold. Unit
// vectors are far below it.
const maxCoded = 1 << 40

// encode writes the codes of v to a and returns the scale s, s·‖a‖, ‖e‖ and
// ‖v‖ (the norms rounded up); ok is false when v holds a value that is not
// finite or is larger than maxCoded.
func encode(v []float32, a []int8) (s float32, normA, normE, normV float64, ok bool) {
	var top float64
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.Abs(float64(x)) > maxCoded {
			return 0, 0, 0, 0, false
		}
		top = max(top, math.Abs(float64(x)))
	}
	if top == 0 {
		return 0, 0, 0, 0, true // the zero vector: codes 0, every score exactly 0
	}
	s = float32(top / 127)
	inv := 1 / float64(s) // k need not be the nearest code: e is what is left of it
	var aa, ee, vv float64
	for j, x := range v {
		k := math.Round(float64(x) * inv)
		k = min(max(k, -127), 127)
		a[j] = int8(k)
		e := float64(x) - k*float64(s)
		aa += k * k
		ee += e * e
		vv += float64(x) * float64(x)
	}
	return s, up(float64(s) * math.Sqrt(aa)), up(math.Sqrt(ee)), up(math.Sqrt(vv)), true
}

// roundingBound is γ for a float32 dot product of dim values.
func roundingBound(dim int) float64 {
	du := float64(dim) * 0x1p-24
	return du / (1 - du)
}

// up rounds x up by more than the float64 rounding errors of computing it
// from a few hundred terms.
func up(x float64) float64 { return x*(1+1e-9) + 1e-12 }

// query is a query vector as the first pass uses it.
type query struct {
	b     []int16 // codes, zero-padded to the stride, widened for the dot product
	t     float64 // scale
	normF float64 // ‖f‖, rounded up
	normQ float64 // ‖q‖, rounded up
	ok    bool    // false: encode refused q, or q is zero
}

func (c *quantized) query(q []float32) query {
	a := make([]int8, c.stride)
	t, _, nf, nq, ok := encode(q, a)
	out := query{b: make([]int16, c.stride), t: float64(t), normF: nf, normQ: nq, ok: ok && nq > 0}
	for i, x := range a {
		out.b[i] = int16(x)
	}
	return out
}

// bounds returns an interval that holds row i's float32 score for q.
func (c *quantized) bounds(i int, q *query) (lo, hi float64) {
	ab := dotCodes(c.a[i*c.stride:(i+1)*c.stride], q.b)
	mid := float64(c.scale[i]) * q.t * float64(ab)
	r := c.normA[i]*q.normF + c.slack[i]*q.normQ
	r = up(r + 1e-12) // the products above, rounded
	return mid - r, mid + r
}

// dotCodesGo is the dot product of a row of codes and a query's, in Go.
func dotCodesGo(a []int8, b []int16) int32 {
	b = b[:len(a)]
	var s int32
	for j, x := range a {
		s += int32(x) * int32(b[j])
	}
	return s
}
