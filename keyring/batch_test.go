package keyring_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/sanadhq/sanad/internal/sigtest"
	"github.com/sanadhq/sanad/keyring"
)

// TestVerifyAllAgreesWithVerify: for batches of valid signatures with, in
// turn, each kind of bad item at each position, VerifyAll gives exactly
// Verify's answer for every item.
func TestVerifyAllAgreesWithVerify(t *testing.T) {
	pubs := make([]ed25519.PublicKey, 3)
	privs := make([]ed25519.PrivateKey, 3)
	for i := range pubs {
		pubs[i], privs[i], _ = ed25519.GenerateKey(rand.Reader)
	}
	valid := func(n int) []keyring.Signed {
		items := make([]keyring.Signed, n)
		for i := range items {
			msg := []byte(fmt.Sprintf("event hash %d", i))
			items[i] = keyring.Signed{Public: pubs[i%3], Msg: msg, Sig: ed25519.Sign(privs[i%3], msg)}
		}
		return items
	}
	spoil := map[string]func(*keyring.Signed){
		"flipped signature bit": func(s *keyring.Signed) { s.Sig = append([]byte(nil), s.Sig...); s.Sig[5] ^= 1 },
		"other message":         func(s *keyring.Signed) { s.Msg = []byte("something else") },
		"other key":             func(s *keyring.Signed) { s.Public = pubs[(indexOf(pubs, s.Public)+1)%3] },
		"short signature":       func(s *keyring.Signed) { s.Sig = s.Sig[:10] },
		"short key":             func(s *keyring.Signed) { s.Public = s.Public[:31] },
		"non-canonical S":       func(s *keyring.Signed) { s.Sig = append([]byte(nil), s.Sig...); s.Sig[63] |= 0xf0 },
	}
	for _, n := range []int{1, 2, 7, 64} {
		items := valid(n)
		for i, ok := range keyring.VerifyAll(items) {
			if !ok {
				t.Fatalf("batch of %d valid: item %d refused", n, i)
			}
		}
		for name, fn := range spoil {
			for _, bad := range []int{0, n / 2, n - 1} {
				items := valid(n)
				fn(&items[bad])
				got := keyring.VerifyAll(items)
				for i, it := range items {
					if want := keyring.Verify(it.Public, it.Msg, it.Sig); got[i] != want {
						t.Fatalf("batch of %d, %s at %d: item %d VerifyAll %v, Verify %v", n, name, bad, i, got[i], want)
					}
				}
				if got[bad] {
					t.Fatalf("batch of %d, %s at %d: accepted", n, name, bad)
				}
			}
		}
	}
	if len(keyring.VerifyAll(nil)) != 0 {
		t.Fatal("VerifyAll(nil) is not empty")
	}
}

func indexOf(pubs []ed25519.PublicKey, p ed25519.PublicKey) int {
	for i, q := range pubs {
		if q.Equal(p) {
			return i
		}
	}
	return 0
}

// FuzzVerifyAll: on any bytes VerifyAll does not panic and gives, for every
// item, exactly Verify's verdict (one rule, ZIP-215, in a batch and alone):
// for a fuzzed signature of a real key, for a signature crafted to pass only
// the cofactored equation, and for any public key, each beside valid
// signatures in the same batch. Whatever crypto/ed25519 accepts, Verify
// accepts. The seeds include the edge-case vectors of testdata.
func FuzzVerifyAll(f *testing.F) {
	priv := ed25519.NewKeyFromSeed(make([]byte, 32))
	good := []byte("sanad.event.v1 good")
	goodSig := ed25519.Sign(priv, good)
	f.Add(make([]byte, 32), []byte("m"), goodSig, make([]byte, 32), byte(0))
	f.Add([]byte{1}, []byte(""), make([]byte, 64), append([]byte{1}, make([]byte, 31)...), byte(1))
	f.Add([]byte{2}, []byte("x"), goodSig, make([]byte, 32), byte(2))
	for _, v := range edgeVectors(f) {
		f.Add([]byte{3}, v.msg, v.sig, []byte(v.pub), byte(0))
	}
	f.Fuzz(func(t *testing.T, seed, msg, sig, pub []byte, mode byte) {
		if len(seed) != ed25519.SeedSize {
			seed = append(seed, make([]byte, 32)...)[:32]
		}
		k := ed25519.NewKeyFromSeed(seed)
		kpub := k.Public().(ed25519.PublicKey)
		switch mode % 3 {
		case 1:
			sig = sigtest.MixedR(k, msg)
		case 2:
			sig = sigtest.NonCanonicalR(k, msg)
		}
		valid := keyring.Signed{Public: priv.Public().(ed25519.PublicKey), Msg: good, Sig: goodSig}
		batches := [][]keyring.Signed{
			{valid, {Public: kpub, Msg: msg, Sig: sig}, {Public: kpub, Msg: msg, Sig: ed25519.Sign(k, msg)}},
			{valid, {Public: pub, Msg: msg, Sig: sig}},
			{{Public: pub, Msg: msg, Sig: sig}, valid, valid},
		}
		for b, items := range batches {
			got := keyring.VerifyAll(items)
			for i, it := range items {
				want := keyring.Verify(it.Public, it.Msg, it.Sig)
				if got[i] != want {
					t.Fatalf("batch %d, item %d: VerifyAll %v, Verify %v", b, i, got[i], want)
				}
				if len(it.Public) == ed25519.PublicKeySize && ed25519.Verify(it.Public, it.Msg, it.Sig) && !want {
					t.Fatalf("batch %d, item %d: crypto/ed25519 accepts it, Verify refuses it", b, i)
				}
			}
		}
		if mode%3 != 0 && !keyring.Verify(kpub, msg, sig) {
			t.Fatalf("a crafted signature (mode %d) is refused", mode%3)
		}
	})
}

// BenchmarkVerifyAll measures verifying batches of valid signatures with
// VerifyAll against one Verify call each, per signature.
func BenchmarkVerifyAll(b *testing.B) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 16, 64, 256} {
		items := make([]keyring.Signed, n)
		for i := range items {
			msg := []byte(fmt.Sprint("sanad.event.v1 ", i))
			items[i] = keyring.Signed{Public: pub, Msg: msg, Sig: ed25519.Sign(priv, msg)}
		}
		b.Run(fmt.Sprint("Verify/", n), func(b *testing.B) {
			for b.Loop() {
				for _, it := range items {
					if !keyring.Verify(it.Public, it.Msg, it.Sig) {
						b.Fatal("refused")
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/sig")
		})
		b.Run(fmt.Sprint("VerifyAll/", n), func(b *testing.B) {
			for b.Loop() {
				keyring.VerifyAll(items)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/sig")
		})
	}
}
