package keyring_test

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/sanadhq/sanad/keyring"
)

// speccheckZIP215 is the ZIP-215 verdict on each vector of
// testdata/speccheck_cases.json: the row of Zebra, the ZIP-215 reference,
// in ed25519-speccheck's results.md (crypto/ed25519 accepts 0-3 and 11).
var speccheckZIP215 = []struct {
	valid bool
	what  string
}{
	{true, "small-order A, small-order R"},
	{true, "small-order A, mixed-order R"},
	{true, "mixed-order A, small-order R"},
	{true, "mixed-order A, mixed-order R"},
	{true, "cofactored equation only"},
	{true, "cofactored equation only, 8(kA) rather than (8k mod L)A"},
	{false, "non-canonical S (S > L)"},
	{false, "non-canonical S (S >> L)"},
	{false, "mixed-order A, non-canonical small-order R, valid only if R is reduced before hashing"},
	{true, "mixed-order A, non-canonical small-order R, hashed as given"},
	{true, "non-canonical small-order A, mixed-order R, valid if cofactored or if A is reduced before hashing"},
	{true, "non-canonical small-order A, mixed-order R, valid if cofactored or if A is hashed as given"},
}

// vector is one signature to check and the verdict ZIP-215 gives it.
type vector struct {
	name  string
	pub   ed25519.PublicKey
	msg   []byte
	sig   []byte
	valid bool
}

// edgeVectors reads the speccheck and ZIP-215 vectors of testdata.
func edgeVectors(t testing.TB) []vector {
	t.Helper()
	unhex := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatalf("vector: %v", err)
		}
		return b
	}
	var spec []struct {
		Message   string `json:"message"`
		PublicKey string `json:"pub_key"`
		Signature string `json:"signature"`
	}
	readJSON(t, "testdata/speccheck_cases.json", &spec)
	if len(spec) != len(speccheckZIP215) {
		t.Fatalf("%d speccheck vectors, %d verdicts", len(spec), len(speccheckZIP215))
	}
	var out []vector
	for i, v := range spec {
		out = append(out, vector{fmt.Sprintf("speccheck %d (%s)", i, speccheckZIP215[i].what),
			unhex(v.PublicKey), unhex(v.Message), unhex(v.Signature), speccheckZIP215[i].valid})
	}
	var zip [][2]string
	readJSON(t, "testdata/zip215.json", &zip)
	if len(zip) != 196 {
		t.Fatalf("%d ZIP-215 vectors, want 196", len(zip))
	}
	for i, v := range zip {
		out = append(out, vector{fmt.Sprintf("zip215 %d", i), unhex(v[0]), []byte("Zcash"), unhex(v[1]), true})
	}
	return out
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestIntegrity7_EdgeCaseVectors: on every ZIP-215 and "Taming the many
// EdDSAs" vector, Verify gives ZIP-215's verdict, and so does VerifyAll,
// with the vector alone and at each end and the middle of a batch of valid
// signatures; and what crypto/ed25519 accepts, Verify accepts.
func TestIntegrity7_EdgeCaseVectors(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	pub := priv.Public().(ed25519.PublicKey)
	valid := func(n int) []keyring.Signed {
		items := make([]keyring.Signed, n)
		for i := range items {
			msg := []byte(fmt.Sprint("sanad.event.v1 ", i))
			items[i] = keyring.Signed{Public: pub, Msg: msg, Sig: ed25519.Sign(priv, msg)}
		}
		return items
	}
	for _, v := range edgeVectors(t) {
		if got := keyring.Verify(v.pub, v.msg, v.sig); got != v.valid {
			t.Errorf("%s: Verify %v, ZIP-215 %v", v.name, got, v.valid)
		}
		if ed25519.Verify(v.pub, v.msg, v.sig) && !v.valid {
			t.Errorf("%s: crypto/ed25519 accepts what ZIP-215 refuses", v.name)
		}
		for _, n := range []int{1, 2, 5} {
			for _, at := range []int{0, n / 2, n - 1} {
				items := valid(n)
				items[at] = keyring.Signed{Public: v.pub, Msg: v.msg, Sig: v.sig}
				for i, ok := range keyring.VerifyAll(items) {
					if want := i != at || v.valid; ok != want {
						t.Errorf("%s in a batch of %d at %d: item %d VerifyAll %v, want %v", v.name, n, at, i, ok, want)
					}
				}
			}
		}
	}
}
