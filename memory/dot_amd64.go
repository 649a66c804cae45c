//go:build !purego

package memory

import "golang.org/x/sys/cpu"

// fastCodes reports whether dotCodes runs in vector instructions; without
// them the 8-bit first pass is slower than the float32 scan it would spare.
var fastCodes = cpu.X86.HasAVX2

// dotCodes returns a·b; len(a) is a multiple of 32 and len(b) at least
// len(a).
func dotCodes(a []int8, b []int16) int32 {
	if !fastCodes || len(a) == 0 {
		return dotCodesGo(a, b)
	}
	b = b[:len(a)]
	return dotCodesAVX2(&a[0], &b[0], len(a))
}

// dotCodesAVX2 is dotCodes with AVX2; n is a positive multiple of 32.
//
//go:noescape
func dotCodesAVX2(a *int8, b *int16, n int) int32
