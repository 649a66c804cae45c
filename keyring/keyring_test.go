package keyring_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/keyring"
)

func open(tb testing.TB, dir string) *keyring.Keyring {
	tb.Helper()
	kr, err := keyring.Open(dir)
	if err != nil {
		tb.Fatalf("keyring.Open(%s): got error %v, want nil", dir, err)
	}
	return kr
}

func key(tb testing.TB, kr *keyring.Keyring, identity string) *keyring.Key {
	tb.Helper()
	k, err := kr.Key(identity)
	if err != nil {
		tb.Fatalf("Key(%q): got error %v, want nil", identity, err)
	}
	return k
}

// keyFile is the documented content of a key file.
type keyFile struct {
	Identity  string `json:"identity"`
	KeyID     string `json:"key_id"`
	Algorithm string `json:"algorithm"`
	Seed      []byte `json:"seed"`
}

// TestKeyCreatedOnFirstUse: the first Key of an identity creates its file,
// mode 0600 in a 0700 folder, holding the identity, algorithm, seed and the
// key id of the public key.
func TestKeyCreatedOnFirstUse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	kr := open(t, dir)
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("key folder: got mode %v (error %v), want 0700", fi.Mode().Perm(), err)
	}
	path := filepath.Join(dir, "intake-agent.key")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("before first use: got stat error %v, want not exist", err)
	}
	k := key(t, kr, "intake-agent")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("after first use: %v", err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("key file mode: got %v, want 0600", got)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f keyFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("key file is not JSON: %v", err)
	}
	if f.Identity != "intake-agent" || f.Algorithm != keyring.Algorithm || len(f.Seed) != ed25519.SeedSize || f.KeyID != k.ID {
		t.Errorf("key file: got identity %q algorithm %q seed of %d bytes key id %q; want intake-agent, %s, %d, %s",
			f.Identity, f.Algorithm, len(f.Seed), f.KeyID, keyring.Algorithm, ed25519.SeedSize, k.ID)
	}
	if pub := ed25519.NewKeyFromSeed(f.Seed).Public().(ed25519.PublicKey); !pub.Equal(k.Public) {
		t.Errorf("key file seed: got public key %x, want %x", pub, k.Public)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("key folder: got %d entries, want 1 (no temporary file left behind)", len(entries))
	}
	if _, err := kr.Existing("intake-agent"); err != nil {
		t.Errorf("Existing after Key: got error %v, want nil", err)
	}
}

// TestKeyIDFormat: a key id is "ed25519:" and the first 16 hex digits of the
// SHA-256 of the public key, and the key recorded under it is that key.
func TestKeyIDFormat(t *testing.T) {
	kr := open(t, t.TempDir())
	re := regexp.MustCompile(`^ed25519:[0-9a-f]{16}$`)
	seen := map[string]bool{}
	for _, id := range []string{"a", "sanad-runtime", "sanad-log", "risk_officer", "agent.v2", "0"} {
		k := key(t, kr, id)
		if !re.MatchString(k.ID) {
			t.Errorf("Key(%q).ID: got %q, want ed25519:<16 hex digits>", id, k.ID)
		}
		sum := sha256.Sum256(k.Public)
		if want := "ed25519:" + hex.EncodeToString(sum[:8]); k.ID != want || keyring.KeyID(k.Public) != want {
			t.Errorf("Key(%q).ID: got %q (KeyID %q), want %q", id, k.ID, keyring.KeyID(k.Public), want)
		}
		if k.Identity != id || len(k.Public) != ed25519.PublicKeySize {
			t.Errorf("Key(%q): got identity %q and a %d-byte public key", id, k.Identity, len(k.Public))
		}
		if seen[k.ID] {
			t.Errorf("Key(%q): key id %s repeats another identity's", id, k.ID)
		}
		seen[k.ID] = true
	}
}

// TestKeySameOnReopen: a keyring opened again on the same folder returns the
// same key for an identity, and its signatures verify with the first one's
// public key.
func TestKeySameOnReopen(t *testing.T) {
	dir := t.TempDir()
	k1 := key(t, open(t, dir), "arbiter")
	k2 := key(t, open(t, dir), "arbiter")
	k3, err := open(t, dir).Existing("arbiter")
	if err != nil {
		t.Fatalf("Existing: got error %v, want nil", err)
	}
	for _, k := range []*keyring.Key{k2, k3} {
		if k.ID != k1.ID || !k.Public.Equal(k1.Public) {
			t.Fatalf("after reopen: got key %s %x, want %s %x", k.ID, k.Public, k1.ID, k1.Public)
		}
	}
	msg := []byte("the contract was breached")
	if !keyring.Verify(k1.Public, msg, k2.Sign(msg)) {
		t.Error("a signature by the reopened key does not verify with the first key")
	}
}

// TestSignVerify: Verify accepts a key's signature of its message and
// nothing else.
func TestSignVerify(t *testing.T) {
	kr := open(t, t.TempDir())
	a, b := key(t, kr, "alice"), key(t, kr, "bob")
	msg := []byte("message")
	sig := a.Sign(msg)
	tests := []struct {
		name string
		pub  ed25519.PublicKey
		msg  []byte
		sig  []byte
		want bool
	}{
		{"good", a.Public, msg, sig, true},
		{"other key", b.Public, msg, sig, false},
		{"other message", a.Public, []byte("messagE"), sig, false},
		{"flipped signature", a.Public, msg, append(append([]byte(nil), sig[:63]...), sig[63]^1), false},
		{"short signature", a.Public, msg, sig[:32], false},
		{"empty signature", a.Public, msg, nil, false},
		{"short public key", a.Public[:31], msg, sig, false},
		{"no public key", nil, msg, sig, false},
	}
	for _, tt := range tests {
		if got := keyring.Verify(tt.pub, tt.msg, tt.sig); got != tt.want {
			t.Errorf("%s: Verify got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestKeyRefusesBadFiles: a key file that others can read, that is damaged,
// or that holds another identity's key is refused with INTEGRITY and is left
// as it was; it is never replaced by a new key.
func TestKeyRefusesBadFiles(t *testing.T) {
	good := func(tb testing.TB, dir string) []byte {
		tb.Helper()
		key(tb, open(tb, dir), "arbiter")
		b, err := os.ReadFile(filepath.Join(dir, "arbiter.key"))
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	var f keyFile
	tests := []struct {
		name string
		mod  func(path string, orig []byte) error
	}{
		{"group readable", func(p string, _ []byte) error { return os.Chmod(p, 0o640) }},
		{"world readable", func(p string, _ []byte) error { return os.Chmod(p, 0o604) }},
		{"group writable", func(p string, _ []byte) error { return os.Chmod(p, 0o620) }},
		{"not JSON", func(p string, _ []byte) error { return os.WriteFile(p, []byte("-----BEGIN PRIVATE KEY-----"), 0o600) }},
		{"empty", func(p string, _ []byte) error { return os.WriteFile(p, nil, 0o600) }},
		{"truncated", func(p string, orig []byte) error { return os.WriteFile(p, orig[:len(orig)/2], 0o600) }},
		{"short seed", func(p string, orig []byte) error { return rewrite(p, orig, &f, func() { f.Seed = f.Seed[:31] }) }},
		{"other algorithm", func(p string, orig []byte) error { return rewrite(p, orig, &f, func() { f.Algorithm = "rsa" }) }},
		{"other identity", func(p string, orig []byte) error { return rewrite(p, orig, &f, func() { f.Identity = "mallory" }) }},
		{"key id of another key", func(p string, orig []byte) error {
			return rewrite(p, orig, &f, func() { f.KeyID = "ed25519:0000000000000000" })
		}},
		{"seed of another key", func(p string, orig []byte) error {
			return rewrite(p, orig, &f, func() { f.Seed = bytes.Repeat([]byte{7}, ed25519.SeedSize) })
		}},
		{"a folder", func(p string, _ []byte) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Mkdir(p, 0o700)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "arbiter.key")
			orig := good(t, dir)
			if err := tt.mod(path, orig); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			fiBefore, _ := os.Stat(path)
			kr := open(t, dir)
			for _, get := range []func(string) (*keyring.Key, error){kr.Key, kr.Existing} {
				k, err := get("arbiter")
				if code := sanad.ErrorCode(err); code != sanad.CodeIntegrity {
					t.Fatalf("got key %v, error %v (code %q); want code %s", k, err, code, sanad.CodeIntegrity)
				}
			}
			if _, err := kr.Public(); sanad.ErrorCode(err) != sanad.CodeIntegrity {
				t.Errorf("Public: got error %v, want code %s", err, sanad.CodeIntegrity)
			}
			after, _ := os.ReadFile(path)
			fiAfter, _ := os.Stat(path)
			if !bytes.Equal(after, before) || fiAfter.Mode() != fiBefore.Mode() {
				t.Errorf("key file: changed by the refused load, want it left as it was")
			}
		})
	}
}

func rewrite(path string, orig []byte, f *keyFile, edit func()) error {
	*f = keyFile{}
	if err := json.Unmarshal(orig, f); err != nil {
		return err
	}
	edit()
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// TestKeyIdentityNames: only lower-case names of letters, digits, '.', '_'
// and '-', up to 64 characters, name keys; anything else is INVALID_INPUT and
// touches no file.
func TestKeyIdentityNames(t *testing.T) {
	dir := t.TempDir()
	kr := open(t, dir)
	for _, name := range []string{"", "Alice", "../alice", "alice/bob", "alice bob", ".hidden", "-dash", "_x", string(bytes.Repeat([]byte("a"), 65)), "al\x00ice", "ålice"} {
		if keyring.ValidIdentity(name) {
			t.Errorf("ValidIdentity(%q): got true, want false", name)
		}
		if _, err := kr.Key(name); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("Key(%q): got error %v, want code %s", name, err, sanad.CodeInvalidInput)
		}
	}
	for _, name := range []string{"a", "0", "alice", "sanad-runtime", "risk_officer", "agent.v2", string(bytes.Repeat([]byte("a"), 64))} {
		if !keyring.ValidIdentity(name) {
			t.Errorf("ValidIdentity(%q): got false, want true", name)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("key folder: got %d entries after refused names, want 0", len(entries))
	}
	if _, err := kr.Existing("nobody"); sanad.ErrorCode(err) != sanad.CodeNotFound {
		t.Errorf("Existing of a key never made: got error %v, want code %s", err, sanad.CodeNotFound)
	}
	if _, err := os.Stat(filepath.Join(dir, "nobody.key")); !os.IsNotExist(err) {
		t.Errorf("Existing created a key file (stat error %v), want none", err)
	}
}

// TestKeyringPublic: Public lists every key in the folder by key id — also
// keys another keyring instance created — with identity, algorithm and
// public key, and skips files that are not key files.
func TestKeyringPublic(t *testing.T) {
	dir := t.TempDir()
	kr := open(t, dir)
	want := map[string]*keyring.Key{}
	for _, id := range []string{"alice", "bob", "sanad-runtime"} {
		k := key(t, kr, id)
		want[k.ID] = k
	}
	k := key(t, open(t, dir), "carol")
	want[k.ID] = k
	os.WriteFile(filepath.Join(dir, "README"), []byte("not a key"), 0o600)
	os.WriteFile(filepath.Join(dir, "Upper.key"), []byte("not a valid identity"), 0o600)
	os.WriteFile(filepath.Join(dir, ".tmp-123"), []byte("a temporary file"), 0o600)
	pubs, err := kr.Public()
	if err != nil {
		t.Fatalf("Public: got error %v, want nil", err)
	}
	if len(pubs) != len(want) {
		t.Fatalf("Public: got %d keys, want %d", len(pubs), len(want))
	}
	for id, k := range want {
		p, ok := pubs[id]
		if !ok || p.Identity != k.Identity || p.Algorithm != keyring.Algorithm || !bytes.Equal(p.Public, k.Public) {
			t.Errorf("Public()[%s]: got %+v, want %s %s %x", id, p, k.Identity, keyring.Algorithm, k.Public)
		}
	}
}

// TestKeyConcurrentFirstUse: many goroutines asking for the same new
// identity at once all get the one key that was written.
func TestKeyConcurrentFirstUse(t *testing.T) {
	dir := t.TempDir()
	kr := open(t, dir)
	const n = 32
	keys := make([]*keyring.Key, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys[i], errs[i] = kr.Key("shared")
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || keys[i].ID != keys[0].ID {
			t.Fatalf("goroutine %d: got key %v error %v, want key %s", i, keys[i], errs[i], keys[0].ID)
		}
	}
	if k := key(t, open(t, dir), "shared"); k.ID != keys[0].ID {
		t.Fatalf("reopened: got key %s, want %s", k.ID, keys[0].ID)
	}
}
