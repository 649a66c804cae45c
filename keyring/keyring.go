// Package keyring keeps the ed25519 keys that sign sanad's records: one key per
// identity (an agent, the runtime, the log), each in its own file readable only
// by its owner, created on first use. A key is named by its key id, a short
// hash of its public key, which events record so a verifier can find it.
//
// # The signature rule
//
// Signatures are made as RFC 8032 makes them (the bytes crypto/ed25519.Sign
// makes), and every signature sanad checks — of an event, one at a time or
// in a batch, and of a signed note (checkpoints, bundle heads) — is checked
// by one rule, ZIP-215, the rule of Zcash and ed25519consensus, through
// [Verify], [VerifyAll] and [NewNoteVerifier]: S must be canonical (below
// the group order); A and R may be any encodings that decode to curve
// points, non-canonical ones and points of small order included; and the
// equation is the cofactored one, [8]SB = [8]R + [8]kA, with k =
// SHA-512(R || A || M) over the encodings as given. Batch verification needs
// the cofactored equation (a random linear combination of cofactorless
// equations does not accept exactly what each accepts), so with this rule a
// batch and a one-by-one check give the same verdict on every signature.
//
// Every signature crypto/ed25519.Verify accepts, ZIP-215 accepts. The
// signatures ZIP-215 accepts besides (an R with a small-order component, a
// non-canonical R) are never made by a signer that follows RFC 8032, as
// sanad's does; only the holder of the private key can make one, so a
// verified signature still proves that the key holder signed the message. A
// verifier outside sanad that checks by crypto/ed25519's rule (as
// golang.org/x/mod/sumdb/note does for notes) accepts everything sanad signs.
package keyring

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"
	"github.com/sanadhq/sanad"
)

// Algorithm is the only signature algorithm sanad uses.
const Algorithm = "ed25519"

// ValidIdentity reports whether name can name a key: 1–64 characters of
// lower-case letters, digits, '.', '_' and '-', starting with a letter or digit.
func ValidIdentity(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// KeyID returns the key id of pub: "ed25519:" and the first 16 hex digits of
// SHA-256 over the public key.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return Algorithm + ":" + hex.EncodeToString(sum[:8])
}

// Key is one identity's key pair. It is safe for concurrent use.
type Key struct {
	Identity string
	ID       string
	Public   ed25519.PublicKey
	private  ed25519.PrivateKey

	expandOnce sync.Once
	expanded   expandedKey // for signing
}

// Sign signs msg with the private key.
func (k *Key) Sign(msg []byte) []byte {
	return SignAll([]*Key{k}, [][]byte{msg})[0]
}

// PublicKey describes a key for verifiers, as bundles and `sanad ledger key`
// publish it.
type PublicKey struct {
	Identity  string `json:"identity"`
	Algorithm string `json:"algorithm"`
	Public    []byte `json:"public_key"` // 32 bytes, base64 in JSON
}

// file is a key file's content.
type file struct {
	Identity  string `json:"identity"`
	KeyID     string `json:"key_id"`
	Algorithm string `json:"algorithm"`
	Seed      []byte `json:"seed"`
}

// Keyring is a folder of key files, <dir>/<identity>.key, each mode 0600. It is
// safe for concurrent use within one process.
type Keyring struct {
	dir string

	mu   sync.Mutex // guards keys
	keys map[string]*Key
}

// Open opens the keyring in dir, creating the folder (0700) if needed. Keys
// are read lazily.
func Open(dir string) (*Keyring, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, "keyring.open", fmt.Sprintf("cannot create key folder %s: %v", dir, err))
	}
	return &Keyring{dir: dir, keys: make(map[string]*Key)}, nil
}

// Dir returns the keyring's folder.
func (r *Keyring) Dir() string { return r.dir }

// Key returns the key of identity, creating it on first use.
func (r *Keyring) Key(identity string) (*Key, error) {
	return r.key(identity, true)
}

// Existing returns the key of identity, or an error with code NOT_FOUND if it
// has never been created.
func (r *Keyring) Existing(identity string) (*Key, error) {
	return r.key(identity, false)
}

func (r *Keyring) key(identity string, create bool) (*Key, error) {
	const op = "keyring.key"
	if !ValidIdentity(identity) {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "identity %q is not a valid key name", identity)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if k, ok := r.keys[identity]; ok {
		return k, nil
	}
	k, err := r.load(identity)
	if errors.Is(err, fs.ErrNotExist) {
		if !create {
			return nil, sanad.Errorf(sanad.CodeNotFound, op, "no key for %q in %s", identity, r.dir)
		}
		k, err = r.create(identity)
	}
	if err != nil {
		return nil, err
	}
	r.keys[identity] = k
	return k, nil
}

func (r *Keyring) path(identity string) string { return filepath.Join(r.dir, identity+".key") }

func (r *Keyring) load(identity string) (*Key, error) {
	const op = "keyring.load"
	p := r.path(identity)
	info, err := os.Lstat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, fmt.Sprintf("cannot read key %s: %v", p, err))
	}
	if !info.Mode().IsRegular() {
		return nil, sanad.Errorf(sanad.CodeIntegrity, op, "key %s is not a regular file (a link, a folder or a device): keys are files of their own", p)
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, sanad.Errorf(sanad.CodeIntegrity, op, "key %s is readable by others (mode %v): run chmod 600 on it", p, info.Mode().Perm())
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, fmt.Sprintf("cannot read key %s: %v", p, err))
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil || f.Algorithm != Algorithm || len(f.Seed) != ed25519.SeedSize || f.Identity != identity {
		return nil, sanad.Errorf(sanad.CodeIntegrity, op, "key file %s is damaged or not a sanad ed25519 key", p)
	}
	priv := ed25519.NewKeyFromSeed(f.Seed)
	pub := priv.Public().(ed25519.PublicKey)
	if KeyID(pub) != f.KeyID {
		return nil, sanad.Errorf(sanad.CodeIntegrity, op, "key file %s: key id %s does not match its key", p, f.KeyID)
	}
	return NewKey(identity, priv), nil
}

// NewKey returns the key of identity with the private key priv (kept only in
// memory: the keyring's own keys come from Keyring.Key).
func NewKey(identity string, priv ed25519.PrivateKey) *Key {
	pub := priv.Public().(ed25519.PublicKey)
	return &Key{Identity: identity, ID: KeyID(pub), Public: pub, private: priv}
}

func (r *Keyring) create(identity string) (*Key, error) {
	const op = "keyring.create"
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, "cannot generate key")
	}
	f := file{Identity: identity, KeyID: KeyID(pub), Algorithm: Algorithm, Seed: priv.Seed()}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, "cannot encode key")
	}
	if err := writeFileSync(r.path(identity), append(data, '\n'), 0o600); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeDependencyDown, op, fmt.Sprintf("cannot write key for %s: %v", identity, err))
	}
	return NewKey(identity, priv), nil
}

// Public returns the public keys of every key in the folder, by key id.
func (r *Keyring) Public() (map[string]PublicKey, error) {
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeIntegrity, "keyring.public", fmt.Sprintf("cannot list keys in %s: %v", r.dir, err))
	}
	out := make(map[string]PublicKey)
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".key")
		if !ok || !ValidIdentity(name) {
			continue
		}
		k, err := r.Existing(name)
		if err != nil {
			return nil, err
		}
		out[k.ID] = PublicKey{Identity: k.Identity, Algorithm: Algorithm, Public: k.Public}
	}
	return out, nil
}

// writeFileSync writes data to path atomically and durably: a temporary file
// in the same folder, fsync, rename, then fsync of the folder. An existing
// file is never replaced.
func writeFileSync(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Verify reports whether sig is a valid signature of msg by pub, by the
// ZIP-215 rule (see the package documentation), which [VerifyAll] follows
// too. A public key or signature of the wrong length is not valid.
func Verify(pub ed25519.PublicKey, msg, sig []byte) bool {
	return len(pub) == ed25519.PublicKeySize && len(sig) == ed25519.SignatureSize &&
		voi.VerifyWithOptions(voi.PublicKey(pub), msg, sig, zip215)
}

// EncodePublic returns the standard base64 text of a public key.
func EncodePublic(pub ed25519.PublicKey) string { return base64.StdEncoding.EncodeToString(pub) }
