package keyring

import (
	"crypto/rand"
	"fmt"
	"runtime"
	"testing"

	"github.com/oasisprotocol/curve25519-voi/curve"
	"github.com/oasisprotocol/curve25519-voi/curve/scalar"
)

// TestCompressAllMatchesVoi: points encoded in batches of every size up to
// 70 (nonce points of random scalars, as signing makes them, with the
// identity and the base point among them) are encoded as voi encodes each.
func TestCompressAllMatchesVoi(t *testing.T) {
	for n := 1; n <= 70; n++ {
		points := make([]curve.EdwardsPoint, n)
		for i := range points {
			var wide [64]byte
			if _, err := rand.Read(wide[:]); err != nil {
				t.Fatal(err)
			}
			var r scalar.Scalar
			if _, err := r.SetBytesModOrderWide(wide[:]); err != nil {
				t.Fatal(err)
			}
			points[i].MulBasepoint(curve.ED25519_BASEPOINT_TABLE, &r)
		}
		points[0].Identity()
		points[n/2].Set(curve.ED25519_BASEPOINT_POINT)
		got := make([]curve.CompressedEdwardsY, n)
		compressAll(points, got)
		for i := range points {
			var want curve.CompressedEdwardsY
			if want.SetEdwardsPoint(&points[i]); got[i] != want {
				t.Fatalf("batch of %d, point %d: %x, voi %x", n, i, got[i], want)
			}
		}
	}
}

// TestBatchEncodingInUse: on 64-bit x86 and ARM the batch encoding is in
// use; if a new curve25519-voi holds its points differently, this fails
// instead of signing going quietly slower.
func TestBatchEncodingInUse(t *testing.T) {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("points are encoded one by one on %s", runtime.GOARCH)
	}
	if !batchEncodes() {
		t.Fatal("curve25519-voi's points are not read as edwardsLimbs: the batch encoding is off")
	}
}

// BenchmarkCompressAll compares encoding nonce points one by one (voi) with
// encoding them in batches sharing one inversion.
func BenchmarkCompressAll(b *testing.B) {
	for _, n := range []int{1, 4, 16, 64} {
		points := make([]curve.EdwardsPoint, n)
		for i := range points {
			var r scalar.Scalar
			var wide [64]byte
			wide[0], wide[1] = byte(i), 7
			if _, err := r.SetBytesModOrderWide(wide[:]); err != nil {
				b.Fatal(err)
			}
			points[i].MulBasepoint(curve.ED25519_BASEPOINT_TABLE, &r)
		}
		out := make([]curve.CompressedEdwardsY, n)
		b.Run(fmt.Sprint("batch/", n), func(b *testing.B) {
			for b.Loop() {
				compressAll(points, out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/point")
		})
	}
	b.Run("voi/1", func(b *testing.B) {
		var p curve.EdwardsPoint
		p.Set(curve.ED25519_BASEPOINT_POINT)
		var c curve.CompressedEdwardsY
		for b.Loop() {
			c.SetEdwardsPoint(&p)
		}
	})
}
