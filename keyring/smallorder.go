package keyring

import "filippo.io/edwards25519"

// WeakPublicKey reports whether pub is not a usable Ed25519 public key: not
// a point of the curve, or a point of small order. Under the cofactored rule
// (see [Verify]) a small-order key verifies signatures anyone can make, so
// the log never registers one; keys this package makes are never weak.
func WeakPublicKey(pub []byte) bool {
	p, err := new(edwards25519.Point).SetBytes(pub)
	if err != nil {
		return true
	}
	return new(edwards25519.Point).MultByCofactor(p).Equal(edwards25519.NewIdentityPoint()) == 1
}
