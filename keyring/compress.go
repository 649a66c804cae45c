package keyring

import (
	"encoding/binary"
	"math/bits"
	"sync"

	"filippo.io/edwards25519/field"
	"github.com/oasisprotocol/curve25519-voi/curve"
)

// compressAll writes the encodings of points into out, out[i] that of
// points[i] (RFC 8032 §5.1.2).
//
// Encoding a point divides its projective X and Y by Z, and the inversion
// of Z costs about as much as a third of a signature. A batch shares one
// inversion (Montgomery's trick: invert the product of all Zs, and recover
// each inverse with three multiplications), which takes the cost of
// encoding from ~3.2 µs a point to ~0.5 µs in batches of 16
// (BenchmarkCompressAll). curve25519-voi does not expose a point's
// coordinates; on the platforms where its points hold them as five 51-bit
// limbs (see limbs), they are read in place and the arithmetic is done with
// filippo.io/edwards25519/field, in constant time like the rest of signing.
// Elsewhere, or if the layout does not give voi's own encodings (checked
// once, on known points), each point is encoded by voi.
func compressAll(points []curve.EdwardsPoint, out []curve.CompressedEdwardsY) {
	if len(points) < 2 || !batchEncodes() {
		for i := range points {
			out[i].SetEdwardsPoint(&points[i])
		}
		return
	}
	compressBatch(points, out)
}

// compressBatch is compressAll with one shared inversion; limbs must be
// able to read the points.
func compressBatch(points []curve.EdwardsPoint, out []curve.CompressedEdwardsY) {
	n := len(points)
	all := make([]field.Element, 4*n)
	xs, ys, zs := all[:n], all[n:2*n], all[2*n:3*n]
	prefix := all[3*n:] // prefix[i] = zs[0]·…·zs[i]
	for i := range points {
		x, y, z := limbs(&points[i])
		fromLimbs(&xs[i], x)
		fromLimbs(&ys[i], y)
		fromLimbs(&zs[i], z)
		if i == 0 {
			prefix[0].Set(&zs[0])
		} else {
			prefix[i].Multiply(&prefix[i-1], &zs[i])
		}
	}
	var inv, zInv, x, y field.Element
	inv.Invert(&prefix[n-1]) // 1/(z0·…·z(n-1))
	for i := n - 1; i >= 0; i-- {
		if i > 0 {
			zInv.Multiply(&inv, &prefix[i-1]) // 1/zi
			inv.Multiply(&inv, &zs[i])        // 1/(z0·…·z(i-1))
		} else {
			zInv.Set(&inv)
		}
		x.Multiply(&xs[i], &zInv)
		y.Multiply(&ys[i], &zInv)
		copy(out[i][:], y.Bytes())
		out[i][31] ^= byte(x.IsNegative()) << 7
	}
}

// fromLimbs sets fe to l[0] + l[1]·2^51 + … + l[4]·2^204 modulo 2^255-19,
// for any limb values, in constant time: the sum is formed exactly in 320
// bits and reduced by field.Element.SetWideBytes.
func fromLimbs(fe *field.Element, l *[5]uint64) {
	var w [5]uint64
	for i, limb := range l {
		word, off := 51*i/64, uint(51*i%64)
		addAt(&w, word, limb<<off)
		if off > 0 {
			addAt(&w, word+1, limb>>(64-off))
		}
	}
	var b [64]byte
	for i, v := range w {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	if _, err := fe.SetWideBytes(b[:]); err != nil {
		panic("keyring: a 64-byte field element was refused: " + err.Error())
	}
}

// addAt adds v to w at word i, carrying through every higher word.
func addAt(w *[5]uint64, i int, v uint64) {
	var c uint64
	w[i], c = bits.Add64(w[i], v, 0)
	for j := i + 1; j < len(w); j++ {
		w[j], c = bits.Add64(w[j], 0, c)
	}
}

// batchEncodes reports whether compressBatch gives voi's encodings here:
// limbs can read points on this platform, and a batch of known points
// (multiples of the base point, the identity among them) encodes as voi
// encodes them one by one.
var batchEncodes = sync.OnceValue(func() bool {
	if !limbsReadable {
		return false
	}
	points := make([]curve.EdwardsPoint, 9)
	points[0].Identity()
	for i := 1; i < len(points); i++ {
		points[i].Add(&points[i-1], curve.ED25519_BASEPOINT_POINT)
		points[i].Add(&points[i], &points[i-1]) // 2·P(i-1) + B: varied Zs
	}
	got := make([]curve.CompressedEdwardsY, len(points))
	compressBatch(points, got)
	for i := range points {
		var want curve.CompressedEdwardsY
		if want.SetEdwardsPoint(&points[i]); want != got[i] {
			return false
		}
	}
	return true
})
