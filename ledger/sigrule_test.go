package ledger_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/internal/sigtest"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
)

// Finding 7: an event whose signature only the cofactored equation accepts
// (made with the signer's own key) gets one verdict from every path that
// checks event signatures: the whole-log verification (batches), the
// trace's, the checker alone (one event), and the verifier of the trace's
// bundle. Under ZIP-215 that verdict is: valid.
func TestIntegrity7_CraftedSignatureOneVerdict(t *testing.T) {
	for name, craft := range map[string]func(ed25519.PrivateKey, []byte) []byte{
		"R with a component of order 8": sigtest.MixedR,
		"non-canonical R":               sigtest.NonCanonicalR,
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir, traces := recordTraces(t, 1, 30)
			trace := traces[0]
			var crafted []byte
			ledgertest.Tamper(t, dir, func(db *sql.DB) error {
				var idx int64
				var raw []byte
				if err := db.QueryRow("SELECT idx, data FROM events WHERE trace = ? AND seq = 5", trace).Scan(&idx, &raw); err != nil {
					return err
				}
				h, err := canon.ParseDigest(ledgertest.Field(t, raw, "hash"))
				if err != nil {
					return err
				}
				priv := keyOf(t, dir, ledgertest.Field(t, raw, "actor.agent"))
				sig := craft(priv, ledger.SigningMessage(h))
				if ed25519.Verify(priv.Public().(ed25519.PublicKey), ledger.SigningMessage(h), sig) {
					t.Fatal("crypto/ed25519 accepts the crafted signature")
				}
				old := ledgertest.Field(t, raw, "sig")
				crafted = bytes.Replace(raw, []byte(old), []byte(base64.StdEncoding.EncodeToString(sig)), 1)
				_, err = db.Exec("UPDATE events SET data = ? WHERE idx = ?", crafted, idx)
				return err
			})
			h := ledgertest.Open(t, dir)
			defer ledgertest.Close(t, h)
			verdicts := map[string]error{}
			_, verdicts["whole-log verify"] = h.Ledger.Verify(ctx, "")
			_, verdicts["trace verify"] = h.Ledger.Verify(ctx, trace)
			ks, err := ledger.LoadKeys(ctx, h.DB)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := ledger.Decode(crafted)
			if err != nil {
				t.Fatal(err)
			}
			chk := &ledger.Checker{Types: h.Types, Keys: ledger.KeyMap(ks.Keys), RuntimeIdentity: ks.Keys[ks.Runtime].Identity}
			verdicts["CheckEvent"] = chk.CheckEvent(ev)
			var buf bytes.Buffer
			x := &bundle.Exporter{Ledger: h.Ledger, Artifacts: h.Artifacts, Runs: h.Runs}
			if _, err := x.Export(ctx, ledgertest.Scope, trace, &buf); err != nil {
				verdicts["export"] = err
			} else {
				logKey, err := h.Ledger.VerifierKey()
				if err != nil {
					t.Fatal(err)
				}
				_, verdicts["bundle verify"] = bundle.Verify(&buf, bundle.Options{Types: h.Types, LogKeys: bundle.PinLogKey(logKey)})
			}
			for path, err := range verdicts {
				if err != nil {
					t.Errorf("%s: %v; want the crafted signature accepted, as ZIP-215 and the other paths accept it", path, err)
				}
			}
		})
	}
}

// keyOf reads the private key of identity from the key files of the home in
// dir.
func keyOf(t *testing.T, dir, identity string) ed25519.PrivateKey {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "keys", identity+".key"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Seed []byte }
	if err := json.Unmarshal(data, &f); err != nil || len(f.Seed) != ed25519.SeedSize {
		t.Fatalf("key file of %s: %v", identity, err)
	}
	return ed25519.NewKeyFromSeed(f.Seed)
}
