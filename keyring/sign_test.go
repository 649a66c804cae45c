package keyring_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/sanadhq/sanad/keyring"
	"pgregory.net/rapid"
)

// TestSignAllMatchesEd25519: SignAll makes, for every batch size and any mix
// of keys, exactly the signatures crypto/ed25519 makes, and they verify;
// Key.Sign makes the same.
func TestSignAllMatchesEd25519(t *testing.T) {
	var keys []*keyring.Key
	var privs []ed25519.PrivateKey
	for _, id := range []string{"analyst", "critic", "sanad-runtime"} {
		_, priv, err := ed25519.GenerateKey(nil)
		if err != nil {
			t.Fatal(err)
		}
		keys, privs = append(keys, keyring.NewKey(id, priv)), append(privs, priv)
	}
	for _, n := range []int{1, 2, 3, 14, 16, 65} {
		ks := make([]*keyring.Key, n)
		msgs := make([][]byte, n)
		want := make([][]byte, n)
		for i := range msgs {
			k := (i*7 + n) % len(keys)
			ks[i] = keys[k]
			msgs[i] = []byte(fmt.Sprintf("sanad.event.v1 %d of %d", i, n))
			if i%5 == 4 {
				msgs[i] = nil // the empty message too
			}
			want[i] = ed25519.Sign(privs[k], msgs[i])
		}
		sigs := keyring.SignAll(ks, msgs)
		for i := range msgs {
			if !bytes.Equal(sigs[i], want[i]) {
				t.Fatalf("batch of %d, message %d: SignAll %x, ed25519.Sign %x", n, i, sigs[i], want[i])
			}
			if !keyring.Verify(ks[i].Public, msgs[i], sigs[i]) {
				t.Fatalf("batch of %d, message %d: signature does not verify", n, i)
			}
			if one := ks[i].Sign(msgs[i]); !bytes.Equal(one, want[i]) {
				t.Fatalf("message %d: Key.Sign %x, ed25519.Sign %x", i, one, want[i])
			}
		}
	}
	if keyring.SignAll(nil, nil) != nil {
		t.Fatal("SignAll of nothing returned signatures")
	}
}

// TestSignAllRandom: for random keys and messages (any length, the empty
// one too) in batches of random size, odd and even, SignAll makes the
// signatures crypto/ed25519 makes. Every nonce point is one SignAll
// computed (voi's fixed-base multiplication) and encoded itself.
func TestSignAllRandom(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		nkeys := rapid.IntRange(1, n).Draw(t, "keys")
		privs := make([]ed25519.PrivateKey, nkeys)
		keys := make([]*keyring.Key, nkeys)
		for i := range privs {
			seed := rapid.SliceOfN(rapid.Byte(), ed25519.SeedSize, ed25519.SeedSize).Draw(t, "seed")
			privs[i] = ed25519.NewKeyFromSeed(seed)
			keys[i] = keyring.NewKey("random", privs[i])
		}
		ks := make([]*keyring.Key, n)
		msgs := make([][]byte, n)
		which := make([]int, n)
		for i := range msgs {
			which[i] = rapid.IntRange(0, nkeys-1).Draw(t, "key")
			ks[i] = keys[which[i]]
			msgs[i] = rapid.SliceOfN(rapid.Byte(), 0, 300).Draw(t, "msg")
		}
		for i, sig := range keyring.SignAll(ks, msgs) {
			if want := ed25519.Sign(privs[which[i]], msgs[i]); !bytes.Equal(sig, want) {
				t.Fatalf("batch of %d, message %d: SignAll %x, ed25519.Sign %x", n, i, sig, want)
			}
		}
	})
}

// TestSignAllRFC8032: the test vectors of RFC 8032 §7.1 (TEST 1, 2, 3 and
// SHA(abc)), signed in one batch.
func TestSignAllRFC8032(t *testing.T) {
	vectors := []struct{ seed, pub, msg, sig string }{
		{"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
			"d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
			"e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
		{"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
			"3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
			"92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
		{"c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
			"fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
			"6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"},
	}
	var keys []*keyring.Key
	var msgs, want [][]byte
	for _, v := range vectors {
		seed, _ := hex.DecodeString(v.seed)
		priv := ed25519.NewKeyFromSeed(seed)
		if got := hex.EncodeToString(priv.Public().(ed25519.PublicKey)); got != v.pub {
			t.Fatalf("public key of seed %s: %s, want %s", v.seed, got, v.pub)
		}
		keys = append(keys, keyring.NewKey("rfc8032", priv))
		msg, _ := hex.DecodeString(v.msg)
		sig, _ := hex.DecodeString(v.sig)
		msgs, want = append(msgs, msg), append(want, sig)
	}
	for i, sig := range keyring.SignAll(keys, msgs) {
		if !bytes.Equal(sig, want[i]) {
			t.Errorf("vector %d: %x, want %x", i+1, sig, want[i])
		}
	}
}

// BenchmarkSignAll compares SignAll with crypto/ed25519 on the same key and
// messages.
func BenchmarkSignAll(b *testing.B) {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		b.Fatal(err)
	}
	k := keyring.NewKey("bench", priv)
	for _, n := range []int{1, 14, 64} {
		keys := make([]*keyring.Key, n)
		msgs := make([][]byte, n)
		for i := range msgs {
			keys[i], msgs[i] = k, []byte(fmt.Sprint("sanad.event.v1 ", i))
		}
		b.Run(fmt.Sprint("crypto_ed25519/", n), func(b *testing.B) {
			for b.Loop() {
				for i := range msgs {
					ed25519.Sign(priv, msgs[i])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/sig")
		})
		b.Run(fmt.Sprint("SignAll/", n), func(b *testing.B) {
			for b.Loop() {
				keyring.SignAll(keys, msgs)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/sig")
		})
	}
}
