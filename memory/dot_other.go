//go:build !amd64 || purego

package memory

// fastCodes reports whether dotCodes runs in vector instructions; without
// them the 8-bit first pass is slower than the float32 scan it would spare.
const fastCodes = false

// dotCodes returns a·b; len(b) is at least len(a).
func dotCodes(a []int8, b []int16) int32 { return dotCodesGo(a, b) }
