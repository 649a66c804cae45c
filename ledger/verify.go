package ledger

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/tlog"
	"golang.org/x/mod/sumdb/note"
)

// VerifyError is the first failure a verification found: where (trace and
// seq, or leaf index for the log itself) and why.
type VerifyError struct {
	Trace  string
	Seq    uint64
	Index  int64 // leaf index, or -1 when not known
	Reason string
}

func (e *VerifyError) Error() string {
	switch {
	case e.Trace != "":
		return fmt.Sprintf("trace %s seq %d: %s", e.Trace, e.Seq, e.Reason)
	case e.Index >= 0:
		return fmt.Sprintf("log leaf %d: %s", e.Index, e.Reason)
	}
	return e.Reason
}

// Is makes every VerifyError match [ErrVerify].
func (e *VerifyError) Is(target error) bool { return target == ErrVerify }

// ErrVerify matches every verification failure (errors.Is).
var ErrVerify = errors.New("ledger: verification failed")

// KeyLookup returns the public key registered under a key id.
type KeyLookup func(keyID string) (keyring.PublicKey, bool)

// KeyMap adapts a map of public keys by id to a [KeyLookup].
func KeyMap(m map[string]keyring.PublicKey) KeyLookup {
	return func(id string) (keyring.PublicKey, bool) { k, ok := m[id]; return k, ok }
}

// Checker verifies events: each one alone ([Checker.CheckEvent]: hash,
// signature, signer, body schema; safe to call concurrently) and each trace in
// order ([Checker.Next]: seq, chain, ordering rules; not concurrent).
type Checker struct {
	Types           *Types
	Keys            KeyLookup
	RuntimeIdentity string

	traces map[string]*chainState
}

type chainState struct {
	seq   uint64
	prev  canon.Digest
	rules []Rule
}

// CheckEvent verifies what can be verified of ev alone.
func (c *Checker) CheckEvent(ev *Event) error {
	return c.CheckEvents([]*Event{ev})[0]
}

// CheckEvents verifies what can be verified of each event alone, as
// CheckEvent does, checking their signatures together in one batch
// ([keyring.VerifyAll]). The i-th error is evs[i]'s.
func (c *Checker) CheckEvents(evs []*Event) []error {
	errs := make([]error, len(evs))
	signed := make([]keyring.Signed, 0, len(evs))
	at := make([]int, 0, len(evs))
	for i, ev := range evs {
		pub, err := c.checkUnsigned(ev)
		if err != nil {
			errs[i] = err
			continue
		}
		signed = append(signed, keyring.Signed{Public: pub, Msg: SigningMessage(ev.Hash), Sig: ev.Sig})
		at = append(at, i)
	}
	for j, ok := range keyring.VerifyAll(signed) {
		if !ok {
			ev := evs[at[j]]
			errs[at[j]] = &VerifyError{Trace: ev.Trace, Seq: ev.Seq, Index: -1, Reason: fmt.Sprintf("signature does not verify with key %s", ev.Actor.Key)}
		}
	}
	return errs
}

// checkUnsigned checks all of ev but its signature, and returns the public
// key the signature must verify with.
func (c *Checker) checkUnsigned(ev *Event) (ed25519.PublicKey, error) {
	fail := func(format string, args ...any) (ed25519.PublicKey, error) {
		return nil, &VerifyError{Trace: ev.Trace, Seq: ev.Seq, Index: -1, Reason: fmt.Sprintf(format, args...)}
	}
	buf := encodeBufs.Get().(*[]byte)
	var h canon.Digest
	h, *buf = ev.computeHash(*buf)
	encodeBufs.Put(buf)
	if h != ev.Hash {
		return fail("event hash does not match its content")
	}
	key, ok := c.Keys(ev.Actor.Key)
	if !ok {
		return fail("signing key %s is unknown", ev.Actor.Key)
	}
	if key.Identity != ev.Actor.Agent {
		return fail("key %s belongs to %q, not to actor %q", ev.Actor.Key, key.Identity, ev.Actor.Agent)
	}
	if keyring.KeyID(ed25519.PublicKey(key.Public)) != ev.Actor.Key {
		return fail("key %s does not match its id", ev.Actor.Key)
	}
	def, ok := c.Types.defs[ev.Type]
	if !ok {
		return fail("event type %q is not declared", ev.Type)
	}
	isRuntime := ev.Actor.Agent == c.RuntimeIdentity
	if def.Signer == SignedByRuntime && !isRuntime {
		return fail("%s must be signed by the runtime, not by %q", ev.Type, ev.Actor.Agent)
	}
	if def.Signer == SignedByAgent && isRuntime {
		return fail("%s must be signed by the acting agent, not by the runtime", ev.Type)
	}
	var err error
	if ev.tree != nil {
		err = c.Types.validate(ev.Type, ev.tree)
	} else {
		err = c.Types.validateCanonical(ev.Type, ev.Body) // Decode checked it is canonical
	}
	if err != nil {
		return fail("%v", err)
	}
	return ed25519.PublicKey(key.Public), nil
}

// Next checks that ev is the next event of its trace: seq, prev link and the
// ordering rules.
func (c *Checker) Next(ev *Event) error {
	if c.traces == nil {
		c.traces = make(map[string]*chainState)
	}
	st, ok := c.traces[ev.Trace]
	if !ok {
		st = &chainState{rules: c.Types.Rules()}
		c.traces[ev.Trace] = st
	}
	fail := func(format string, args ...any) error {
		return &VerifyError{Trace: ev.Trace, Seq: ev.Seq, Index: -1, Reason: fmt.Sprintf(format, args...)}
	}
	if ev.Seq != st.seq+1 {
		if ev.Seq <= st.seq {
			return fail("seq %d repeats or goes back after %d", ev.Seq, st.seq)
		}
		return fail("seq %d follows %d: events are missing", ev.Seq, st.seq)
	}
	if ev.Prev != st.prev {
		return fail("prev %s is not the hash of event %d", ev.Prev, st.seq)
	}
	for _, r := range st.rules {
		if err := r.Check(ev); err != nil {
			return fail("ordering: %v", err)
		}
	}
	st.seq, st.prev = ev.Seq, ev.Hash
	return nil
}

// Finish runs the end-of-trace rules of every trace seen, in trace order.
func (c *Checker) Finish() error {
	names := make([]string, 0, len(c.traces))
	for n := range c.traces {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		st := c.traces[n]
		for _, r := range st.rules {
			if err := r.Finish(); err != nil {
				return &VerifyError{Trace: n, Seq: st.seq, Index: -1, Reason: fmt.Sprintf("ordering: %v", err)}
			}
		}
	}
	return nil
}

// Head returns the last seq and hash checked for trace.
func (c *Checker) Head(trace string) (uint64, canon.Digest) {
	if st, ok := c.traces[trace]; ok {
		return st.seq, st.prev
	}
	return 0, canon.Digest{}
}

// Report summarizes a successful verification.
type Report struct {
	Traces      int    `json:"traces"`
	Events      int    `json:"events"`
	TreeSize    uint64 `json:"tree_size"`
	Checkpoints int    `json:"checkpoints"`
	RootHash    []byte `json:"root_hash"`
}

// PublicKeys returns the public keys the log has registered, by key id.
func (l *Ledger) PublicKeys(ctx context.Context) (map[string]keyring.PublicKey, error) {
	ks, err := LoadKeys(ctx, l.cfg.Store)
	if err != nil {
		return nil, err
	}
	return ks.Keys, nil
}

// Verify checks the whole log (trace "") or one trace and returns the first
// failure as a *VerifyError; see [Audit], which it is with the ledger's
// store, types and origin.
func (l *Ledger) Verify(ctx context.Context, trace string) (Report, error) {
	return Audit(ctx, AuditConfig{Store: l.cfg.Store, Types: l.cfg.Types, Origin: l.cfg.Origin, Mirrors: l.cfg.Mirrors}, trace)
}

// AuditConfig is what [Audit] reads a log with: no private key is needed.
type AuditConfig struct {
	Store Store
	Types *Types
	// Origin is the log's name, the first line of its checkpoints.
	Origin string
	// Mirrors hold checkpoints the log signed outside its store: the log
	// must extend each (see [Mirror]).
	Mirrors []Mirror
}

// auditor verifies one log.
type auditor struct {
	AuditConfig
	prover tlog.Prover
	keys   *KeySet
	notes  [][]byte // the stored checkpoints, oldest first
}

// Audit checks the whole log of cfg.Store (trace "") or one trace, with the
// keys the log itself registered (see [LoadKeys]): nothing else is trusted,
// and no private key is read. It returns the first failure as a
// *VerifyError. For the whole log it checks every event (strict decoding,
// hash, signature with the key registered for it before it, signer, body
// schema), that the store files each event where its signed fields say,
// every trace's chain and ordering rules, that the leaves are exactly the
// event hashes in order, that the stored tree has the root recomputed from
// them, and that every stored checkpoint is signed by the registered log key
// and has the root of the log at its size. For one trace it walks the log
// from the trace's first event, so that no event of the trace can hide from
// it, checks the trace's events and chain, each event's inclusion in the
// current tree, and that every stored checkpoint is consistent with it.
func Audit(ctx context.Context, cfg AuditConfig, trace string) (Report, error) {
	ks, err := LoadKeys(ctx, cfg.Store)
	if err != nil {
		return Report{}, err
	}
	if len(ks.Keys) == 0 {
		size, err := cfg.Store.TreeSize(ctx)
		if err != nil {
			return Report{}, err
		}
		if size > 0 {
			return Report{}, &VerifyError{Index: -1, Reason: "the log registers no keys: nothing it holds can be verified"}
		}
	}
	a := &auditor{AuditConfig: cfg, prover: tlog.Prover{Nodes: cfg.Store}, keys: ks}
	runtime := ks.Keys[ks.Runtime]
	chk := &Checker{Types: cfg.Types, Keys: KeyMap(ks.Keys), RuntimeIdentity: runtime.Identity}
	var cps []tlog.Checkpoint
	if ks.Log != "" {
		vkey, err := note.NewEd25519VerifierKey(cfg.Origin, ed25519.PublicKey(ks.Keys[ks.Log].Public))
		if err != nil {
			return Report{}, &VerifyError{Index: -1, Reason: fmt.Sprintf("the registered log key: %v", err)}
		}
		v, err := keyring.NewNoteVerifier(vkey)
		if err != nil {
			return Report{}, &VerifyError{Index: -1, Reason: fmt.Sprintf("the registered log key: %v", err)}
		}
		if cps, err = a.openCheckpoints(ctx, v); err != nil {
			return Report{}, err
		}
		if cps, err = a.mirrored(v, cps); err != nil {
			return Report{}, err
		}
	}
	if trace == "" {
		return a.verifyLog(ctx, chk, cps)
	}
	return a.verifyTrace(ctx, chk, cps, trace)
}

// mirrored adds to cps the checkpoints the mirrors hold, each checked
// against the log like a stored one: a database rolled back or rewritten
// since a mirror took its checkpoint fails.
func (a *auditor) mirrored(v note.Verifier, cps []tlog.Checkpoint) ([]tlog.Checkpoint, error) {
	for _, m := range a.Mirrors {
		signed, err := m.Load()
		if err != nil {
			return nil, &VerifyError{Index: -1, Reason: fmt.Sprintf("cannot read the checkpoint in %s: %v", m.Name(), err)}
		}
		if signed == nil {
			continue
		}
		cp, err := tlog.Open(signed, v)
		if err != nil {
			return nil, &VerifyError{Index: -1, Reason: fmt.Sprintf("the checkpoint in %s is not signed by the log's registered key: %v", m.Name(), err)}
		}
		i := sort.Search(len(cps), func(i int) bool { return cps[i].Size >= cp.Size })
		if i == len(cps) {
			// Newer than every stored checkpoint: the database lost the
			// row of the latest (a power loss after the mirror was
			// written, or a removal); opening the home for writing
			// stores it again. It must follow the latest stored one.
			if err := chained(cp, a.notes, m.Name()); err != nil {
				return nil, err
			}
		}
		switch {
		case i < len(cps) && cps[i].Size == cp.Size && !bytes.Equal(cps[i].Hash, cp.Hash):
			return nil, &VerifyError{Index: -1, Reason: fmt.Sprintf("fork: the checkpoint in %s and a stored one have size %d and different roots", m.Name(), cp.Size)}
		case i < len(cps) && cps[i].Size == cp.Size:
		default:
			cps = append(cps[:i], append([]tlog.Checkpoint{cp}, cps[i:]...)...)
		}
	}
	return cps, nil
}

// rollback describes a log smaller than a checkpoint it signed.
func rollback(signed, size uint64) string {
	return fmt.Sprintf("rollback: the log signed a checkpoint of %d events but holds %d: the database was restored from an older copy or lost events", signed, size)
}

// registeredBefore reports, as a *VerifyError, an event signed with a key
// registered after it: keys are registered before they sign.
func (a *auditor) registeredBefore(st Stored, ev *Event) error {
	at, ok := a.keys.At[ev.Actor.Key]
	if !ok || at < st.Index || at == st.Index && ev.Type == TypeKeyRegistered && ev.Actor.Key == a.keys.Runtime {
		return nil
	}
	return &VerifyError{Trace: ev.Trace, Seq: ev.Seq, Index: int64(st.Index), Reason: fmt.Sprintf("signed with key %s, which the log registers only later (leaf %d)", ev.Actor.Key, at)}
}

func (a *auditor) openCheckpoints(ctx context.Context, v note.Verifier) ([]tlog.Checkpoint, error) {
	notes, err := a.Store.Checkpoints(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]tlog.Checkpoint, 0, len(notes))
	for i, n := range notes {
		cp, err := tlog.Open(n, v)
		if err != nil {
			return nil, &VerifyError{Index: -1, Reason: fmt.Sprintf("stored checkpoint %d: %v", i, err)}
		}
		if i > 0 && cp.Size <= out[i-1].Size {
			return nil, &VerifyError{Index: -1, Reason: fmt.Sprintf("stored checkpoints out of order at size %d", cp.Size)}
		}
		if err := chained(cp, notes[:i], "the database"); err != nil {
			return nil, err
		}
		out = append(out, cp)
	}
	a.notes = notes
	return out, nil
}

// chained reports, as a *VerifyError, a checkpoint that does not follow the
// last of before, the checkpoints stored before it: one was removed. A
// checkpoint with no Prev is a log's first, or was signed before checkpoints
// were chained; it can only come first.
func chained(cp tlog.Checkpoint, before [][]byte, where string) error {
	n := len(before)
	switch {
	case n == 0 && cp.Prev != nil:
		return &VerifyError{Index: -1, Reason: fmt.Sprintf("the checkpoint of size %d in %s follows one the database no longer holds: stored checkpoints were removed", cp.Size, where)}
	case n > 0 && cp.Prev != nil && !bytes.Equal(cp.Prev, tlog.NoteHash(before[n-1])):
		return &VerifyError{Index: -1, Reason: fmt.Sprintf("the checkpoint of size %d in %s does not follow the one stored before it: a stored checkpoint was removed or replaced", cp.Size, where)}
	case n > 0 && cp.Prev == nil && chainedAny(before):
		return &VerifyError{Index: -1, Reason: fmt.Sprintf("the checkpoint of size %d in %s names no previous checkpoint though the log chains them", cp.Size, where)}
	}
	return nil
}

// chainedAny reports whether a stored checkpoint names its previous one
// (the stored notes are known to open).
func chainedAny(notes [][]byte) bool {
	for _, n := range notes {
		if bytes.Contains(n, []byte("\nprev ")) {
			return true
		}
	}
	return false
}

type verifyItem struct {
	st  Stored
	ev  *Event
	err error
	// full says the event had every check; otherwise only that it decodes
	// and that its content hashes to its hash.
	full bool
}

type verifyBatch struct {
	items []verifyItem
	done  chan struct{}
}

// checkStream decodes and checks events read by read on all cores and hands
// them, in read order, to next. Events full selects get every check of
// [Checker.CheckEvents]; the others (full nil selects all) are decoded and
// their hashes checked.
func checkStream(ctx context.Context, chk *Checker, read func(fn func(Stored) error) error, full func(Stored) bool, next func(verifyItem) error) error {
	const batchSize = 256
	workers := runtime.GOMAXPROCS(0)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan *verifyBatch, workers*2)
	ordered := make(chan *verifyBatch, workers*4)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				if ctx.Err() != nil { // a failure was found: skip the rest
					close(b.done)
					continue
				}
				evs := make([]*Event, 0, len(b.items))
				var buf []byte
				for i := range b.items {
					it := &b.items[i]
					it.full = full == nil || full(it.st)
					if it.ev, it.err = decodeOwned(it.st.Raw); it.err != nil {
						continue
					}
					if it.full {
						evs = append(evs, it.ev)
						continue
					}
					var h canon.Digest
					if h, buf = it.ev.computeHash(buf); h != it.ev.Hash {
						it.err = &VerifyError{Trace: it.ev.Trace, Seq: it.ev.Seq, Index: -1, Reason: "event hash does not match its content"}
					}
				}
				errs := chk.CheckEvents(evs)
				for i, j := 0, 0; i < len(b.items); i++ {
					if it := &b.items[i]; it.err == nil && it.full {
						it.err = errs[j]
						j++
					}
				}
				close(b.done)
			}
		}()
	}
	readErr := make(chan error, 1)
	go func() {
		defer close(ordered)
		defer close(work)
		b := &verifyBatch{done: make(chan struct{})}
		flush := func() bool {
			select {
			case work <- b:
			case <-ctx.Done():
				return false
			}
			select {
			case ordered <- b:
			case <-ctx.Done():
				return false
			}
			b = &verifyBatch{done: make(chan struct{})}
			return true
		}
		err := read(func(s Stored) error {
			s.Raw = append([]byte(nil), s.Raw...)
			b.items = append(b.items, verifyItem{st: s})
			if len(b.items) == batchSize && !flush() {
				return ctx.Err()
			}
			return nil
		})
		if err == nil && len(b.items) > 0 {
			flush()
		}
		readErr <- err
	}()
	var firstErr error
	for b := range ordered {
		<-b.done
		if firstErr != nil {
			continue
		}
		for _, it := range b.items {
			if err := next(it); err != nil {
				firstErr = err
				cancel()
				break
			}
		}
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := <-readErr; err != nil {
		return err
	}
	return nil
}

func (a *auditor) verifyLog(ctx context.Context, chk *Checker, cps []tlog.Checkpoint) (Report, error) {
	tree := tlog.NewTree()
	var levels [][][]byte // computed nodes of level >= 1, by level and index
	collect := func(n tlog.Node) {
		if n.ID.Level == 0 {
			return
		}
		for len(levels) < int(n.ID.Level) {
			levels = append(levels, nil)
		}
		levels[n.ID.Level-1] = append(levels[n.ID.Level-1], n.Hash)
	}
	var rep Report
	cpi := 0
	checkCheckpoints := func() error {
		for cpi < len(cps) && cps[cpi].Size == tree.Size() {
			root, _ := tree.Root()
			if !bytes.Equal(root, cps[cpi].Hash) {
				return &VerifyError{Index: int64(tree.Size()) - 1, Reason: fmt.Sprintf("checkpoint of size %d has a root other than the log's", cps[cpi].Size)}
			}
			cpi++
		}
		return nil
	}
	if err := checkCheckpoints(); err != nil {
		return rep, err
	}
	filed := map[string][]uint64{} // trace → leaf index of each event, by signed seq
	err := checkStream(ctx, chk, func(fn func(Stored) error) error {
		return a.Store.ReadLog(ctx, 0, fn)
	}, nil, func(it verifyItem) error {
		if it.st.Index != tree.Size() {
			return &VerifyError{Index: int64(tree.Size()), Reason: fmt.Sprintf("leaf %d is missing (next stored is %d)", tree.Size(), it.st.Index)}
		}
		if it.err != nil {
			var ve *VerifyError
			if errors.As(it.err, &ve) {
				ve.Index = int64(it.st.Index)
				return ve
			}
			return &VerifyError{Index: int64(it.st.Index), Reason: it.err.Error()}
		}
		if it.st.Hash != it.ev.Hash {
			return &VerifyError{Trace: it.ev.Trace, Seq: it.ev.Seq, Index: int64(it.st.Index), Reason: "the stored leaf hash is not the event's hash"}
		}
		if err := it.st.Check(it.ev); err != nil {
			return err
		}
		if err := a.registeredBefore(it.st, it.ev); err != nil {
			return err
		}
		if err := chk.Next(it.ev); err != nil {
			return err
		}
		filed[it.ev.Trace] = append(filed[it.ev.Trace], it.st.Index)
		if err := tree.Append(tlog.LeafHash(it.ev.Hash[:]), collect); err != nil {
			return err
		}
		rep.Events++
		return checkCheckpoints()
	})
	if err != nil {
		return rep, err
	}
	if err := chk.Finish(); err != nil {
		return rep, err
	}
	if cpi < len(cps) {
		return rep, &VerifyError{Index: -1, Reason: rollback(cps[cpi].Size, tree.Size())}
	}
	size, err := a.Store.TreeSize(ctx)
	if err != nil {
		return rep, err
	}
	if size != tree.Size() {
		return rep, &VerifyError{Index: int64(tree.Size()), Reason: fmt.Sprintf("tree size %d but %d events", size, tree.Size())}
	}
	root, _ := tree.Root()
	stored, err := a.prover.RootAt(ctx, size)
	if err != nil {
		return rep, &VerifyError{Index: -1, Reason: fmt.Sprintf("stored tree: %v", err)}
	}
	if !bytes.Equal(root, stored) {
		return rep, &VerifyError{Index: -1, Reason: "stored Merkle tree nodes do not match the event hashes"}
	}
	if err := checkStoredNodes(ctx, a.Store, levels); err != nil {
		return rep, err
	}
	if err := checkTraceIndex(ctx, a.Store, filed); err != nil {
		return rep, err
	}
	rep.Traces, rep.TreeSize, rep.Checkpoints, rep.RootHash = len(chk.traces), size, len(cps), root
	return rep, nil
}

// checkTraceIndex reads the store's index of traces and compares it with
// where the log holds each trace's events (filed: trace → leaf index by
// signed seq): every lookup by trace and seq must find the event the log
// has there, and no other.
func checkTraceIndex(ctx context.Context, r Reader, filed map[string][]uint64) error {
	seen := 0
	err := r.ReadTraceIndex(ctx, func(f Filed) error {
		at, ok := filed[f.Trace]
		if !ok || f.Seq < 1 || f.Seq > uint64(len(at)) || at[f.Seq-1] != f.Index {
			return &VerifyError{Trace: f.Trace, Seq: f.Seq, Index: int64(f.Index), Reason: "the store's index of traces files leaf " + fmt.Sprint(f.Index) + " here, which is not where the log holds this trace's event"}
		}
		seen++
		return nil
	})
	if err != nil {
		return err
	}
	total := 0
	for _, at := range filed {
		total += len(at)
	}
	if seen != total {
		return &VerifyError{Index: -1, Reason: fmt.Sprintf("the store's index of traces lists %d events, the log holds %d", seen, total)}
	}
	return nil
}

// checkStoredNodes compares every stored node of level >= 1 with the node
// recomputed from the events. A store may keep only some nodes and hash the
// others from them when read (proofs are checked against the root, which is
// recomputed from the events); every node it does keep must be right, and
// a [NodeKeeper] must have every node of the levels it keeps.
func checkStoredNodes(ctx context.Context, ts TreeStore, levels [][][]byte) error {
	count := make([]int, len(levels))
	err := ts.ReadTreeNodes(ctx, func(n tlog.Node) error {
		lv := int(n.ID.Level) - 1
		if lv < 0 || lv >= len(levels) || n.ID.Index >= uint64(len(levels[lv])) {
			return &VerifyError{Index: -1, Reason: fmt.Sprintf("stored Merkle node (level %d, index %d) is outside the tree", n.ID.Level, n.ID.Index)}
		}
		if !bytes.Equal(levels[lv][n.ID.Index], n.Hash) {
			return &VerifyError{Index: -1, Reason: fmt.Sprintf("stored Merkle node (level %d, index %d) does not match the event hashes", n.ID.Level, n.ID.Index)}
		}
		count[lv]++
		return nil
	})
	if err != nil {
		return err
	}
	nk, ok := ts.(NodeKeeper)
	if !ok {
		return nil
	}
	for lv := range levels {
		// Each stored node matched a distinct node of its level: as many
		// as the level has means none is missing.
		if nk.KeepsLevel(uint(lv+1)) && count[lv] != len(levels[lv]) {
			return &VerifyError{Index: -1, Reason: fmt.Sprintf("the store keeps %d of the %d Merkle nodes of level %d: a node it keeps is missing, and proofs that need it fail", count[lv], len(levels[lv]), lv+1)}
		}
	}
	return nil
}

func (a *auditor) verifyTrace(ctx context.Context, chk *Checker, cps []tlog.Checkpoint, trace string) (Report, error) {
	var rep Report
	// Where the store's index files the trace's events. The index is not
	// signed: it only says where to start looking.
	var filed []uint64
	err := a.Store.ReadTrace(ctx, trace, 0, func(s Stored) error {
		filed = append(filed, s.Index)
		return nil
	})
	if err != nil {
		return rep, err
	}
	if len(filed) == 0 {
		return rep, sanad.Errorf(sanad.CodeNotFound, "ledger.verify", "trace %q has no events", trace)
	}
	// The trace's events are where their signed fields say: walking the log
	// from the first of them finds every one, also those the index hides or
	// files elsewhere. Every event on the way must decode and hash, since a
	// damaged one could be the trace's; only the trace's get every check.
	needle := []byte(`"trace":"` + trace + `"`)
	mine := func(s Stored) bool { return s.Trace == trace || bytes.Contains(s.Raw, needle) }
	at := make(map[uint64]canon.Digest) // leaf index → hash of this trace's events
	next := filed[0]
	err = checkStream(ctx, chk, func(fn func(Stored) error) error {
		return a.Store.ReadLog(ctx, filed[0], fn)
	}, mine, func(it verifyItem) error {
		if it.st.Index != next {
			return &VerifyError{Trace: trace, Index: int64(next), Reason: fmt.Sprintf("leaf %d is missing (next stored is %d)", next, it.st.Index)}
		}
		next++
		if it.err != nil {
			var ve *VerifyError
			if errors.As(it.err, &ve) {
				ve.Index = int64(it.st.Index)
				if it.full {
					ve.Trace = trace
				}
				return ve
			}
			return &VerifyError{Trace: trace, Index: int64(it.st.Index), Reason: it.err.Error()}
		}
		if it.st.Hash != it.ev.Hash {
			return &VerifyError{Trace: it.ev.Trace, Seq: it.ev.Seq, Index: int64(it.st.Index), Reason: "the stored leaf hash is not the event's hash"}
		}
		if err := it.st.Check(it.ev); err != nil {
			return err
		}
		if it.ev.Trace != trace {
			return nil
		}
		if rep.Events >= len(filed) || filed[rep.Events] != it.st.Index {
			return &VerifyError{Trace: trace, Seq: it.ev.Seq, Index: int64(it.st.Index), Reason: "the store's index of this trace does not list this event where the log holds it: lookups would not find it"}
		}
		if err := a.registeredBefore(it.st, it.ev); err != nil {
			return err
		}
		if err := chk.Next(it.ev); err != nil {
			return err
		}
		at[it.st.Index] = it.ev.Hash
		rep.Events++
		return nil
	})
	if err != nil {
		return rep, err
	}
	if rep.Events != len(filed) {
		return rep, &VerifyError{Trace: trace, Index: -1, Reason: fmt.Sprintf("the store's index lists %d events of this trace, the log holds %d", len(filed), rep.Events)}
	}
	if err := chk.Finish(); err != nil {
		return rep, err
	}
	// The trace's events must sit in the log at their indexes, and the log's
	// leaves must make the stored root and every checkpoint's root. Reading
	// the leaves (hashes only) also catches an event of this trace deleted
	// from the end: its leaf would be missing or belong to another event.
	tree := tlog.NewTree()
	cpi := 0
	seen := 0
	err = a.Store.ReadLeaves(ctx, 0, func(idx uint64, h canon.Digest) error {
		if idx != tree.Size() {
			return &VerifyError{Index: int64(tree.Size()), Reason: fmt.Sprintf("leaf %d is missing (next stored is %d)", tree.Size(), idx)}
		}
		if want, ok := at[idx]; ok {
			if want != h {
				return &VerifyError{Trace: trace, Index: int64(idx), Reason: "the log's leaf is not this trace's event"}
			}
			seen++
		}
		if err := tree.Append(tlog.LeafHash(h[:]), nil); err != nil {
			return err
		}
		for cpi < len(cps) && cps[cpi].Size == tree.Size() {
			root, _ := tree.Root()
			if !bytes.Equal(root, cps[cpi].Hash) {
				return &VerifyError{Index: int64(idx), Reason: fmt.Sprintf("checkpoint of size %d has a root other than the log's", cps[cpi].Size)}
			}
			cpi++
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	if seen != len(at) {
		return rep, &VerifyError{Trace: trace, Index: -1, Reason: "events of this trace are outside the Merkle log"}
	}
	if next != tree.Size() {
		return rep, &VerifyError{Index: int64(next), Reason: fmt.Sprintf("the log has %d leaves but events stop at leaf %d", tree.Size(), next)}
	}
	if cpi < len(cps) {
		return rep, &VerifyError{Index: -1, Reason: rollback(cps[cpi].Size, tree.Size())}
	}
	root, _ := tree.Root()
	stored, err := a.prover.RootAt(ctx, tree.Size())
	if err != nil {
		return rep, &VerifyError{Index: -1, Reason: fmt.Sprintf("stored tree: %v", err)}
	}
	if !bytes.Equal(root, stored) {
		return rep, &VerifyError{Index: -1, Reason: "stored Merkle tree nodes do not match the event hashes"}
	}
	rep.Traces, rep.TreeSize, rep.Checkpoints, rep.RootHash = 1, tree.Size(), len(cps), root
	return rep, nil
}
