package calc

import (
	"fmt"
	"math"
	"strings"

	"github.com/sanadhq/sanad"
)

// The range and grid [IRR] searches: rates from MinRate to MaxRate, on
// irrGrid points evenly spaced in log(1 + rate).
const (
	MinRate = -0.999
	MaxRate = 100.0
	irrGrid = 4000
)

// NPV returns the net present value of cashFlows at rate per period:
// cash_flow[t] / (1 + rate)^t summed from t = 0. Flows must share currency
// and unit; rate (a ratio) must be above -1.
func NPV(rate Input, cashFlows ...Input) (*Result, error) {
	const op = "calc.NPV"
	f := mustFormula("npv")
	in, err := bind(op, f, append([]Input{rate}, cashFlows...))
	if err != nil {
		return nil, err
	}
	if err := ratioInput(op, in[0]); err != nil {
		return nil, err
	}
	if in[0].Value <= -1 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "rate must be above -1, got %g", in[0].Value)
	}
	flows, err := series(op, in[1:])
	if err != nil {
		return nil, err
	}
	v := npv(in[0].Value, flows)
	return finish(op, f, in, v, in[1].Unit, in[1].Currency, nil)
}

// IRR returns the internal rate of return of cashFlows (per period): the
// rate at which their NPV is zero. It looks for every sign change of NPV on a
// grid over [MinRate, MaxRate] and refines each with Brent's method. If there
// is none, the error wraps [ErrNoSolution]. If there are several, Result.Roots
// holds them all in increasing order, Value is the lowest and Notes says so.
func IRR(cashFlows ...Input) (*Result, error) {
	const op = "calc.IRR"
	f := mustFormula("irr")
	in, err := bind(op, f, cashFlows)
	if err != nil {
		return nil, err
	}
	if len(in) < 2 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "irr needs at least two cash flows, got %d", len(in))
	}
	flows, err := series(op, in)
	if err != nil {
		return nil, err
	}
	changes := signChanges(flows)
	if changes == 0 {
		return nil, sanad.Wrap(ErrNoSolution, sanad.CodeInvalidInput, op,
			"the cash flows never change sign, so no rate sets their NPV to zero")
	}
	roots := irrRoots(flows)
	if len(roots) == 0 {
		return nil, sanad.Wrap(ErrNoSolution, sanad.CodeInvalidInput, op,
			fmt.Sprintf("no rate between %g and %g sets the NPV of these cash flows to zero", MinRate, MaxRate))
	}
	var notes []string
	if changes > 1 {
		notes = append(notes, fmt.Sprintf("the cash flows change sign %d times, so the IRR may not be unique", changes))
	}
	r, err := finish(op, f, in, roots[0], UnitRatio, "", notes)
	if err != nil {
		return nil, err
	}
	if len(roots) > 1 {
		r.Roots = roots
		s := make([]string, len(roots))
		for i, x := range roots {
			s[i] = fmt.Sprintf("%.6g", x)
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%d rates set the NPV to zero (%s); value is the lowest", len(roots), strings.Join(s, ", ")))
	}
	return r, nil
}

// series checks that cash flows share currency and unit and returns their
// values.
func series(op string, in []Input) ([]float64, error) {
	out := make([]float64, len(in))
	for i, x := range in {
		if err := sameMoney(op, in[0], x); err != nil {
			return nil, err
		}
		out[i] = x.Value
	}
	return out, nil
}

func signChanges(flows []float64) int {
	n, last := 0, 0.0
	for _, v := range flows {
		if v == 0 {
			continue
		}
		if last != 0 && (v > 0) != (last > 0) {
			n++
		}
		last = v
	}
	return n
}

// npv evaluates the flows at rate by Horner's rule in 1 / (1 + rate).
func npv(rate float64, flows []float64) float64 {
	d := 1 / (1 + rate)
	s := 0.0
	for i := len(flows) - 1; i >= 0; i-- {
		s = s*d + flows[i]
	}
	return s
}

// irrRoots brackets every sign change of npv on the grid and refines it.
// Grid points where npv is not finite break the bracketing.
func irrRoots(flows []float64) []float64 {
	lo, hi := math.Log1p(MinRate), math.Log1p(MaxRate)
	rate := func(i int) float64 { return math.Expm1(lo + (hi-lo)*float64(i)/irrGrid) }
	var roots []float64
	add := func(r float64) {
		if n := len(roots); n > 0 && math.Abs(roots[n-1]-r) <= 1e-9*math.Max(1, math.Abs(r)) {
			return
		}
		roots = append(roots, r)
	}
	f := func(r float64) float64 { return npv(r, flows) }
	pa := rate(0)
	fa := f(pa)
	for i := 1; i <= irrGrid; i++ {
		pb := rate(i)
		fb := f(pb)
		switch {
		case math.IsNaN(fa) || math.IsInf(fa, 0) || math.IsNaN(fb) || math.IsInf(fb, 0):
		case fa == 0:
			add(pa)
		case fb == 0:
			// taken as fa of the next interval
		case (fa < 0) != (fb < 0):
			if r, ok := brent(f, pa, pb, fa, fb); ok {
				add(r)
			}
		}
		pa, fa = pb, fb
	}
	if fa == 0 {
		add(pa)
	}
	return roots
}

// brent finds a root of f in [a, b], where fa and fb have opposite signs, by
// Brent's method (inverse quadratic interpolation, secant and bisection).
func brent(f func(float64) float64, a, b, fa, fb float64) (float64, bool) {
	const tol = 1e-14
	if math.Abs(fa) < math.Abs(fb) {
		a, b, fa, fb = b, a, fb, fa
	}
	c, fc := a, fa
	d := b - a
	mflag := true
	for range 200 {
		if fb == 0 || math.Abs(b-a) <= tol*math.Max(1, math.Abs(b)) {
			return b, true
		}
		var s float64
		if fa != fc && fb != fc {
			s = a*fb*fc/((fa-fb)*(fa-fc)) + b*fa*fc/((fb-fa)*(fb-fc)) + c*fa*fb/((fc-fa)*(fc-fb))
		} else {
			s = b - fb*(b-a)/(fb-fa)
		}
		lo, hi := (3*a+b)/4, b
		if lo > hi {
			lo, hi = hi, lo
		}
		if s < lo || s > hi ||
			(mflag && math.Abs(s-b) >= math.Abs(b-c)/2) ||
			(!mflag && math.Abs(s-b) >= math.Abs(c-d)/2) ||
			(mflag && math.Abs(b-c) < tol) ||
			(!mflag && math.Abs(c-d) < tol) ||
			math.IsNaN(s) {
			s = (a + b) / 2
			mflag = true
		} else {
			mflag = false
		}
		fs := f(s)
		if math.IsNaN(fs) || math.IsInf(fs, 0) {
			return 0, false
		}
		d, c, fc = c, b, fb
		if (fa < 0) != (fs < 0) {
			b, fb = s, fs
		} else {
			a, fa = s, fs
		}
		if math.Abs(fa) < math.Abs(fb) {
			a, b, fa, fb = b, a, fb, fa
		}
	}
	return b, true
}
