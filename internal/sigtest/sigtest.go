// Package sigtest makes Ed25519 signatures that an honest signer never makes,
// for tests of the verification rule (see the keyring package): each is valid
// under the cofactored equation of ZIP-215 and refused by the cofactorless
// one of crypto/ed25519. They are made with the private key, as only its
// holder can make them.
package sigtest

import (
	"crypto/ed25519"
	"crypto/sha512"
	"encoding/hex"

	"filippo.io/edwards25519"
)

// order8 is the canonical encoding of a point of order 8.
const order8 = "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"

// identityNegX encodes the identity (y = 1, x = 0) with the sign bit of x
// set: a non-canonical encoding, which ZIP-215 decodes and RFC 8032 refuses.
const identityNegX = "0100000000000000000000000000000000000000000000000000000000000080"

// MixedR returns a signature of msg by priv whose R is rB + T, with T a
// point of order 8: [8]SB = [8]R + [8]kA holds, SB = R + kA does not (it
// is off by T). The nonce r is derived from the key and msg, as RFC 8032
// derives it, so the result is deterministic.
func MixedR(priv ed25519.PrivateKey, msg []byte) []byte {
	s, prefix := expand(priv)
	d := sha512.New()
	d.Write([]byte("sigtest mixed R"))
	d.Write(prefix)
	d.Write(msg)
	r, err := edwards25519.NewScalar().SetUniformBytes(d.Sum(nil))
	if err != nil {
		panic(err)
	}
	T, err := new(edwards25519.Point).SetBytes(mustHex(order8))
	if err != nil {
		panic(err)
	}
	R := new(edwards25519.Point).ScalarBaseMult(r)
	R.Add(R, T)
	return sign(R.Bytes(), r, s, priv, msg)
}

// NonCanonicalR returns a signature of msg by priv whose R is a
// non-canonical encoding of the identity and whose S is k·s: [8]SB =
// [8]kA holds, and a cofactorless verifier, which compares R's bytes with
// the encoding of SB - kA, refuses it. Its S reveals the private scalar
// (s = S/k): use it with test keys only.
func NonCanonicalR(priv ed25519.PrivateKey, msg []byte) []byte {
	s, _ := expand(priv)
	return sign(mustHex(identityNegX), edwards25519.NewScalar(), s, priv, msg)
}

// sign returns the signature R || S of msg by priv for the encoded nonce
// point R, with S = r + k·s and k = SHA-512(R || A || msg) mod L.
func sign(R []byte, r, s *edwards25519.Scalar, priv ed25519.PrivateKey, msg []byte) []byte {
	d := sha512.New()
	d.Write(R)
	d.Write(priv.Public().(ed25519.PublicKey))
	d.Write(msg)
	k, err := edwards25519.NewScalar().SetUniformBytes(d.Sum(nil))
	if err != nil {
		panic(err)
	}
	S := edwards25519.NewScalar().MultiplyAdd(k, s, r)
	return append(append([]byte(nil), R...), S.Bytes()...)
}

// expand returns the secret scalar and the nonce prefix of priv (RFC 8032
// §5.1.5).
func expand(priv ed25519.PrivateKey) (*edwards25519.Scalar, []byte) {
	h := sha512.Sum512(priv.Seed())
	s, err := edwards25519.NewScalar().SetBytesWithClamping(h[:32])
	if err != nil {
		panic(err)
	}
	return s, h[32:]
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
