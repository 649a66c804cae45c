package ledger

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/keyring"
)

// The key registry: every identity's public key is recorded in the log, in
// its own trace, before the first event it signs. Verification reads keys
// from there and nowhere else, so the key set is as tamper-evident as the
// events, and a key file that differs from the record is refused.
const (
	// KeysTrace is the trace that records the keys.
	KeysTrace = "sanad.keys"
	// TypeKeyRegistered records one identity's public key.
	TypeKeyRegistered = "key.registered"
)

// KeysScope is the scope of the keys trace.
var KeysScope = sanad.Scope{Tenant: "sanad", Case: "keys"}

// The roles a registered key plays.
const (
	KeyRoleRuntime = "runtime" // signs what the runtime records, and registers keys
	KeyRoleLog     = "log"     // signs checkpoints
	KeyRoleAgent   = "agent"   // signs what an agent asserts
)

// KeyBody is the body of key.registered.
type KeyBody struct {
	Identity  string `json:"identity"`
	KeyID     string `json:"key_id"`
	PublicKey string `json:"public_key"` // base64 of the ed25519 public key
	Role      string `json:"role"`
}

// coreVocabulary is the ledger's own event type. Every [Types] has it.
func coreVocabulary() Vocabulary {
	return Vocabulary{
		Types: []TypeDef{{Name: TypeKeyRegistered, Signer: SignedByRuntime,
			Doc: "an identity's public key, recorded before the first event it signs",
			Schema: `{"type":"object","required":["identity","key_id","public_key","role"],"additionalProperties":false,"properties":{
 "identity":{"type":"string","minLength":1,"maxLength":64},"key_id":{"type":"string","pattern":"^ed25519:[0-9a-f]{16}$"},
 "public_key":{"type":"string","minLength":44,"maxLength":44},"role":{"enum":["runtime","log","agent"]}}}`}},
		Rules: []RuleFunc{func() Rule { return &keysRule{} }},
	}
}

// keysRule keeps key.registered events in the keys trace, and the keys
// trace to them: it opens with the runtime's key, registered by itself;
// every identity and every key is registered once; a key's id is that of its
// public key.
type keysRule struct {
	keysTrace  bool
	identities map[string]bool
	ids        map[string]bool
}

func (r *keysRule) Check(e *Event) error {
	inKeys := e.Trace == KeysTrace
	switch {
	case e.Type == TypeKeyRegistered && !inKeys:
		return fmt.Errorf("%s belongs in trace %s, not %s", TypeKeyRegistered, KeysTrace, e.Trace)
	case inKeys && e.Type != TypeKeyRegistered:
		return fmt.Errorf("trace %s holds only %s events, not %s", KeysTrace, TypeKeyRegistered, e.Type)
	case !inKeys:
		return nil
	}
	var b KeyBody
	if err := json.Unmarshal(e.Body, &b); err != nil {
		return fmt.Errorf("%s body: %w", TypeKeyRegistered, err)
	}
	pub, err := base64.StdEncoding.Strict().DecodeString(b.PublicKey)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("the public key of %s is not a base64 ed25519 key", b.Identity)
	}
	if keyring.KeyID(pub) != b.KeyID {
		return fmt.Errorf("key id %s is not the id of the public key of %s", b.KeyID, b.Identity)
	}
	if keyring.WeakPublicKey(pub) {
		return fmt.Errorf("the public key of %s is not a point of the curve or is of small order: it would verify signatures anyone can make", b.Identity)
	}
	if r.identities == nil {
		r.identities, r.ids = map[string]bool{}, map[string]bool{}
		if b.Role != KeyRoleRuntime || b.Identity != e.Actor.Agent || b.KeyID != e.Actor.Key {
			return fmt.Errorf("the keys trace must open with the runtime's key, registered by itself")
		}
	}
	if r.identities[b.Identity] {
		return fmt.Errorf("identity %s is registered a second time: a key that has signed is never replaced", b.Identity)
	}
	if r.ids[b.KeyID] {
		return fmt.Errorf("key %s is registered a second time", b.KeyID)
	}
	r.identities[b.Identity], r.ids[b.KeyID] = true, true
	return nil
}

func (r *keysRule) Finish() error { return nil }

// KeySet is the keys a log has registered: public keys by key id, each with
// the leaf index of its registration.
type KeySet struct {
	Keys    map[string]keyring.PublicKey
	At      map[string]uint64 // key id → leaf index of its key.registered
	Runtime string            // key id of the runtime's key
	Log     string            // key id of the log's key, "" if not registered
	byName  map[string]string // identity → key id
}

// ID returns the key id registered for identity.
func (ks *KeySet) ID(identity string) (string, bool) {
	id, ok := ks.byName[identity]
	return id, ok
}

// LoadKeys reads and checks the keys trace of store: each event as filed,
// decoded, hash-chained, following the keys rule, and signed by the runtime
// key the trace opens with. A log with no keys trace has an empty set.
func LoadKeys(ctx context.Context, store Reader) (*KeySet, error) {
	const op = "ledger.keys"
	ks := &KeySet{Keys: map[string]keyring.PublicKey{}, At: map[string]uint64{}, byName: map[string]string{}}
	rule := &keysRule{}
	var prev canon.Digest
	var seq uint64
	var buf []byte
	fail := func(s uint64, format string, args ...any) error {
		return &VerifyError{Trace: KeysTrace, Seq: s, Index: -1, Reason: fmt.Sprintf(format, args...)}
	}
	err := store.ReadTrace(ctx, KeysTrace, 0, func(st Stored) error {
		ev, err := Decode(st.Raw)
		if err != nil {
			return fail(seq+1, "%v", err)
		}
		if err := st.Check(ev); err != nil {
			return err
		}
		var h canon.Digest
		h, buf = ev.computeHash(buf)
		switch {
		case h != ev.Hash || st.Hash != ev.Hash:
			return fail(ev.Seq, "event hash does not match its content")
		case ev.Seq != seq+1 || ev.Prev != prev:
			return fail(ev.Seq, "the keys trace is broken: seq %d after %d", ev.Seq, seq)
		}
		if err := rule.Check(ev); err != nil {
			return fail(ev.Seq, "%v", err)
		}
		var b KeyBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return fail(ev.Seq, "%v", err)
		}
		pub, _ := base64.StdEncoding.DecodeString(b.PublicKey)
		if seq == 0 {
			ks.Runtime = b.KeyID
			ks.Keys[b.KeyID] = keyring.PublicKey{Identity: b.Identity, Algorithm: keyring.Algorithm, Public: pub}
		}
		runtime := ks.Keys[ks.Runtime]
		if ev.Actor.Key != ks.Runtime || ev.Actor.Agent != runtime.Identity || !keyring.Verify(ed25519.PublicKey(runtime.Public), SigningMessage(ev.Hash), ev.Sig) {
			return fail(ev.Seq, "a key registration is not signed by the runtime's registered key")
		}
		ks.Keys[b.KeyID] = keyring.PublicKey{Identity: b.Identity, Algorithm: keyring.Algorithm, Public: pub}
		ks.At[b.KeyID] = st.Index
		ks.byName[b.Identity] = b.KeyID
		if b.Role == KeyRoleLog {
			ks.Log = b.KeyID
		}
		seq, prev = ev.Seq, ev.Hash
		return nil
	})
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, "the keys trace: "+err.Error())
	}
	return ks, nil
}

// keyBody returns the registration of k in role.
func keyBody(k *keyring.Key, role string) KeyBody {
	return KeyBody{Identity: k.Identity, KeyID: k.ID, PublicKey: base64.StdEncoding.EncodeToString(k.Public), Role: role}
}

// registry is what the ledger keeps of the keys it has registered.
type registry struct {
	byName map[string]string // identity → key id
}

// signingKey returns the key identity signs with, and whether it must be
// registered first. A registered identity's key is read, never made: a key
// file that is gone, or holds another key than the one registered, is
// INTEGRITY, since the history it signed would no longer verify.
func (l *Ledger) signingKey(identity string) (*keyring.Key, bool, error) {
	const op = "ledger.key"
	l.regMu.Lock()
	id, registered := l.reg.byName[identity]
	l.regMu.Unlock()
	if !registered {
		k, err := l.cfg.Keys.Key(identity)
		return k, err == nil, err
	}
	var k *keyring.Key
	var err error
	if ex, ok := l.cfg.Keys.(interface {
		Existing(string) (*keyring.Key, error)
	}); ok {
		k, err = ex.Existing(identity)
	} else {
		k, err = l.cfg.Keys.Key(identity)
	}
	if sanad.ErrorCode(err) == sanad.CodeNotFound {
		return nil, false, sanad.Errorf(sanad.CodeIntegrity, op, "the key of %s, registered in the log as %s, is missing: restore its key file from backup (a key that has signed is never made anew)", identity, id)
	}
	if err != nil {
		return nil, false, err
	}
	if k.ID != id {
		return nil, false, sanad.Errorf(sanad.CodeIntegrity, op, "the key file of %s holds key %s, but the log registered %s for it: restore the registered key (a replaced key cannot sign for an identity)", identity, k.ID, id)
	}
	return k, false, nil
}

// register records k in the keys trace, durably, before anything it signs.
// It is done once per identity.
func (l *Ledger) register(ctx context.Context, k *keyring.Key, role string) error {
	l.registering.Lock()
	defer l.registering.Unlock()
	l.regMu.Lock()
	id, ok := l.reg.byName[k.Identity]
	l.regMu.Unlock()
	if ok {
		if id != k.ID {
			return sanad.Errorf(sanad.CodeIntegrity, "ledger.key", "identity %s is already registered with key %s", k.Identity, id)
		}
		return nil
	}
	_, err := l.Append(context.WithoutCancel(ctx), Draft{Trace: KeysTrace, Type: TypeKeyRegistered, Scope: KeysScope, Body: keyBody(k, role)})
	if err != nil {
		return err
	}
	l.regMu.Lock()
	l.reg.byName[k.Identity] = k.ID
	l.regMu.Unlock()
	return nil
}

// openKeys loads the log's key registry and checks the runtime's and the
// log's keys against it; a log that has none yet registers them (a log
// written before keys were registered also registers every key of its
// keyring, which is trusted as it stands).
func (l *Ledger) openKeys(ctx context.Context) error {
	const op = "ledger.open"
	ks, err := LoadKeys(ctx, l.cfg.Store)
	if err != nil {
		return err
	}
	l.regMu.Lock()
	l.reg.byName = map[string]string{}
	for id, pk := range ks.Keys {
		l.reg.byName[pk.Identity] = id
	}
	l.regMu.Unlock()
	if len(ks.Keys) > 0 {
		for _, k := range []*keyring.Key{l.runtime, l.log} {
			if id, ok := l.reg.byName[k.Identity]; ok && id != k.ID {
				return sanad.Errorf(sanad.CodeIntegrity, op, "the key file of %s holds key %s, but the log registered %s for it: restore the registered key from backup", k.Identity, k.ID, id)
			}
		}
		if ks.Runtime != l.runtime.ID {
			return sanad.Errorf(sanad.CodeIntegrity, op, "the log's keys were registered by key %s, not by this runtime's key %s", ks.Runtime, l.runtime.ID)
		}
		if _, ok := l.reg.byName[l.log.Identity]; ok {
			return nil
		}
		return l.register(ctx, l.log, KeyRoleLog)
	}
	// The runtime registers itself first, then the log's key.
	l.regMu.Lock()
	l.reg.byName[l.runtime.Identity] = l.runtime.ID
	l.regMu.Unlock()
	if _, err := l.Append(ctx, Draft{Trace: KeysTrace, Type: TypeKeyRegistered, Scope: KeysScope, Body: keyBody(l.runtime, KeyRoleRuntime), NewTrace: true}); err != nil {
		return err
	}
	if err := l.register(ctx, l.log, KeyRoleLog); err != nil {
		return err
	}
	size, err := l.cfg.Store.TreeSize(ctx)
	if err != nil || size <= 2 {
		return err
	}
	// A log written before keys were registered: its keyring's keys are
	// registered as they stand.
	type publisher interface {
		Public() (map[string]keyring.PublicKey, error)
	}
	p, ok := l.cfg.Keys.(publisher)
	if !ok {
		return nil
	}
	pubs, err := p.Public()
	if err != nil {
		return err
	}
	for id, pk := range pubs {
		if pk.Identity == l.runtime.Identity || pk.Identity == l.log.Identity {
			continue
		}
		k := &keyring.Key{Identity: pk.Identity, ID: id, Public: pk.Public}
		if err := l.register(ctx, k, KeyRoleAgent); err != nil {
			return err
		}
	}
	return nil
}

// WorkTraces lists the traces of r in order of their first event, but for
// the log's own keys trace: the traces of the work the log records.
func WorkTraces(ctx context.Context, r Reader) ([]string, error) {
	all, err := r.Traces(ctx)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, t := range all {
		if t != KeysTrace {
			out = append(out, t)
		}
	}
	return out, nil
}

// Register records the key of identity in the log now, ahead of the first
// event it signs (which would otherwise record it). It makes the key if the
// identity has none and has never signed; it does nothing for an identity
// already registered, whose key file must hold the registered key.
func (l *Ledger) Register(ctx context.Context, identity string) error {
	k, unregistered, err := l.signingKey(identity)
	if err != nil || !unregistered {
		return err
	}
	return l.register(ctx, k, KeyRoleAgent)
}
