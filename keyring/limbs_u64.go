//go:build (amd64 || arm64) && !force32bit

package keyring

import (
	"unsafe"

	"github.com/oasisprotocol/curve25519-voi/curve"
)

// edwardsLimbs is how curve25519-voi (at the version go.mod pins) holds a
// curve.EdwardsPoint on 64-bit platforms: extended coordinates X, Y, Z, T,
// each a field element of five 51-bit limbs (curve/edwards.go and
// internal/field/field_u64.go). batchEncodes checks the reading against
// voi's own encoding before it is used.
type edwardsLimbs struct{ X, Y, Z, T [5]uint64 }

// limbsReadable says limbs may be called: the layouts have the same size.
const limbsReadable = unsafe.Sizeof(curve.EdwardsPoint{}) == unsafe.Sizeof(edwardsLimbs{})

// limbs returns the limbs of p's X, Y and Z, in place.
func limbs(p *curve.EdwardsPoint) (x, y, z *[5]uint64) {
	l := (*edwardsLimbs)(unsafe.Pointer(p))
	return &l.X, &l.Y, &l.Z
}
