package claim

import (
	"math"
	"strconv"
	"strings"
)

// Compare reports whether a and b state the same amount, and their
// relative difference |a-b| / max(|a|, |b|). Two amounts are the same when
// they differ by no more than the rounding each was written with (its
// Precision, or when zero, half the unit of its last significant digit):
// £48.2m (±£0.05m) and £48,213k (±£500) are the same, 12.4 and 11.9 are
// not. Values of different units, or of different currencies when both are
// known, are never the same, and their relative difference is +Inf.
// Compare looks only at the amounts: [Chain] matches metric, period and
// entity first.
func Compare(a, b Value) (same bool, relDiff float64) {
	if a.Unit != b.Unit || a.Currency != "" && b.Currency != "" && a.Currency != b.Currency {
		return false, math.Inf(1)
	}
	if math.IsNaN(a.Value) || math.IsNaN(b.Value) {
		return false, math.Inf(1)
	}
	d := math.Abs(a.Value - b.Value)
	if m := math.Max(math.Abs(a.Value), math.Abs(b.Value)); m > 0 {
		relDiff = d / m
	}
	tol := precision(a) + precision(b)
	return d <= tol*(1+1e-9), relDiff
}

// precision is v's rounding: its Precision, or half the unit of the last
// significant digit of its value (0.05 for 12.4, 50,000 for 48,200,000).
func precision(v Value) float64 {
	if v.Precision > 0 {
		return v.Precision
	}
	if math.IsInf(v.Value, 0) || math.IsNaN(v.Value) {
		return 0
	}
	s := strconv.FormatFloat(math.Abs(v.Value), 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return 0.5 * math.Pow(10, -float64(len(s)-i-1))
	}
	zeros := len(s) - len(strings.TrimRight(s, "0"))
	if zeros == len(s) {
		return 0.5
	}
	return 0.5 * math.Pow(10, float64(zeros))
}
