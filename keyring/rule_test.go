package keyring_test

import (
	"crypto/ed25519"
	"fmt"
	"testing"

	"github.com/sanadhq/sanad/internal/sigtest"
	"github.com/sanadhq/sanad/keyring"
)

// crafted are the kinds of signature that only the cofactored equation
// accepts, each made with the private key.
var crafted = map[string]func(ed25519.PrivateKey, []byte) []byte{
	"R with a component of order 8": sigtest.MixedR,
	"non-canonical R":               sigtest.NonCanonicalR,
}

// Finding 7: a signature that the cofactored equation accepts and the
// cofactorless one refuses gets the same verdict from Verify and from
// VerifyAll, alone and in batches of valid signatures, wherever it sits:
// accepted, as ZIP-215 says.
func TestIntegrity7_BatchAndSingleVerifyAgree(t *testing.T) {
	seed := make([]byte, ed25519.SeedSize)
	seed[0] = 7
	priv := ed25519.NewKeyFromSeed(seed)
	pub := priv.Public().(ed25519.PublicKey)
	for name, craft := range crafted {
		msg := []byte("sanad.event.v1 crafted")
		sig := craft(priv, msg)
		if ed25519.Verify(pub, msg, sig) {
			t.Fatalf("%s: crypto/ed25519 accepts it, so it tells the rules apart in nothing", name)
		}
		if !keyring.Verify(pub, msg, sig) {
			t.Errorf("%s: Verify refuses it, ZIP-215 accepts it", name)
		}
		for _, n := range []int{1, 2, 3, 16} {
			for _, at := range []int{0, n / 2, n - 1} {
				items := make([]keyring.Signed, n)
				for i := range items {
					m := []byte(fmt.Sprint("sanad.event.v1 ", i))
					items[i] = keyring.Signed{Public: pub, Msg: m, Sig: ed25519.Sign(priv, m)}
				}
				items[at] = keyring.Signed{Public: pub, Msg: msg, Sig: sig}
				got := keyring.VerifyAll(items)
				for i, it := range items {
					if want := keyring.Verify(it.Public, it.Msg, it.Sig); got[i] != want {
						t.Errorf("%s, batch of %d at %d: item %d VerifyAll %v, Verify %v", name, n, at, i, got[i], want)
					}
				}
			}
		}
	}
}
