package keyring

import (
	"crypto/ed25519"
	"crypto/sha512"

	"filippo.io/edwards25519"
	"filippo.io/edwards25519/field"
)

// expandedKey is a private key as signing uses it (RFC 8032 §5.1.6 step 1):
// the clamped scalar s, the nonce prefix, and the encoded public key.
type expandedKey struct {
	s      edwards25519.Scalar
	prefix [32]byte
	pub    [32]byte
}

func (k *Key) expand() *expandedKey {
	k.expandOnce.Do(func() {
		h := sha512.Sum512(k.private.Seed())
		if _, err := k.expanded.s.SetBytesWithClamping(h[:32]); err != nil {
			panic("keyring: clamping a 32-byte scalar failed: " + err.Error())
		}
		copy(k.expanded.prefix[:], h[32:])
		copy(k.expanded.pub[:], k.Public)
	})
	return &k.expanded
}

// SignAll signs msgs[i] with keys[i] and returns the signatures, each the
// same bytes ed25519.Sign makes (RFC 8032 signatures are deterministic). It
// makes them together: the nonce points R are computed in projective
// coordinates and brought to their encoding with one field inversion for
// all of them (Montgomery's trick) instead of one each, which is about a
// quarter of a signature's cost. It panics if the lengths differ.
func SignAll(keys []*Key, msgs [][]byte) [][]byte {
	if len(keys) != len(msgs) {
		panic("keyring: SignAll needs one key per message")
	}
	n := len(msgs)
	if n == 0 {
		return nil
	}
	type nonce struct {
		r edwards25519.Scalar
		R edwards25519.Point
	}
	nonces := make([]nonce, n)
	zs := make([]field.Element, n)      // Z of each R
	partial := make([]field.Element, n) // Z_0 ⋯ Z_{i-1}
	acc := new(field.Element).One()
	var h [sha512.Size]byte
	for i, msg := range msgs {
		ek := keys[i].expand()
		d := sha512.New()
		d.Write(ek.prefix[:])
		d.Write(msg)
		d.Sum(h[:0])
		if _, err := nonces[i].r.SetUniformBytes(h[:]); err != nil {
			panic("keyring: reducing a 64-byte hash failed: " + err.Error())
		}
		nonces[i].R.ScalarBaseMult(&nonces[i].r)
		_, _, z, _ := nonces[i].R.ExtendedCoordinates()
		zs[i] = *z
		partial[i] = *acc
		acc.Multiply(acc, z)
	}
	inv := new(field.Element).Invert(acc) // 1 / (Z_0 ⋯ Z_{n-1})
	sigs := make([][]byte, n)
	buf := make([]byte, n*ed25519.SignatureSize)
	var zinv, x, y field.Element
	var k, S edwards25519.Scalar
	for i := n - 1; i >= 0; i-- {
		zinv.Multiply(inv, &partial[i]) // 1 / Z_i
		inv.Multiply(inv, &zs[i])       // 1 / (Z_0 ⋯ Z_{i-1})
		X, Y, _, _ := nonces[i].R.ExtendedCoordinates()
		x.Multiply(X, &zinv)
		y.Multiply(Y, &zinv)
		sig := buf[i*ed25519.SignatureSize : (i+1)*ed25519.SignatureSize : (i+1)*ed25519.SignatureSize]
		copy(sig[:32], y.Bytes())
		sig[31] |= byte(x.IsNegative() << 7)
		ek := keys[i].expand()
		d := sha512.New()
		d.Write(sig[:32])
		d.Write(ek.pub[:])
		d.Write(msgs[i])
		d.Sum(h[:0])
		if _, err := k.SetUniformBytes(h[:]); err != nil {
			panic("keyring: reducing a 64-byte hash failed: " + err.Error())
		}
		S.MultiplyAdd(&k, &ek.s, &nonces[i].r)
		copy(sig[32:], S.Bytes())
		sigs[i] = sig
	}
	return sigs
}
