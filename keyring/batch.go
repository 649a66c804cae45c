package keyring

import (
	"crypto/ed25519"

	"github.com/hdevalence/ed25519consensus"
)

// Signed is a message, its signature and the public key said to have made it.
type Signed struct {
	Public ed25519.PublicKey
	Msg    []byte
	Sig    []byte
}

// VerifyAll reports, for each item, whether its signature verifies. It checks
// them together in one batch verification (random linear combination, ZIP-215
// rules, github.com/hdevalence/ed25519consensus), which costs about half as
// much per signature as checking one at a time; only when the batch fails
// does it check each with [Verify], to say which.
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
	bv := ed25519consensus.NewBatchVerifier()
	n := 0
	for i, it := range items {
		if len(it.Public) != ed25519.PublicKeySize || len(it.Sig) != ed25519.SignatureSize {
			continue // fails; checked one by one below
		}
		bv.Add(it.Public, it.Msg, it.Sig)
		ok[i] = true
		n++
	}
	if n == len(items) && n > 1 && bv.Verify() {
		return ok
	}
	for i, it := range items { // one item, a malformed one, or a failed batch
		ok[i] = Verify(it.Public, it.Msg, it.Sig)
	}
	return ok
}
