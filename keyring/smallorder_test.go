package keyring

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"testing"
)

func TestWeakPublicKey(t *testing.T) {
	for range 20 {
		pub, _, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if WeakPublicKey(pub) {
			t.Fatalf("a generated key %x is called weak", pub)
		}
	}
	// Points of small order (the identity, order 2, order 4, order 8), as
	// the ZIP-215 and "Taming the many EdDSAs" vectors use them.
	for _, h := range []string{
		"0100000000000000000000000000000000000000000000000000000000000000",
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"0000000000000000000000000000000000000000000000000000000000000000",
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
	} {
		pub, _ := hex.DecodeString(h)
		if !WeakPublicKey(pub) {
			t.Errorf("small-order point %s is not called weak", h)
		}
	}
	if !WeakPublicKey([]byte{1, 2, 3}) {
		t.Error("a 3-byte key is not called weak")
	}
}
