package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/tlog"
)

// Defaults for [Config].
const (
	DefaultMaxBatch        = 512
	DefaultQueueSize       = 8192
	DefaultRuntimeIdentity = "sanad-runtime"
	DefaultLogIdentity     = "sanad-log"
	maxConflictRetries     = 3
)

// Keys gives the ledger the signing key of an identity, created on first use
// if the source allows it. *keyring.Keyring implements it.
type Keys interface {
	Key(identity string) (*keyring.Key, error)
}

// Config configures a [Ledger].
type Config struct {
	Store Store
	Keys  Keys
	Types *Types
	// Origin names the log in its checkpoints; it is also the name of the
	// checkpoint signing key. Required.
	Origin string
	// RuntimeIdentity signs what the runtime records (DefaultRuntimeIdentity).
	RuntimeIdentity string
	// LogIdentity signs checkpoints (DefaultLogIdentity).
	LogIdentity string
	// Now returns the time stamped on events (time.Now).
	Now func() time.Time
	// MaxBatch bounds how many appends share one commit (DefaultMaxBatch).
	MaxBatch int
	// QueueSize bounds appends waiting for a commit (DefaultQueueSize). A full
	// queue makes Append wait, within its context's deadline.
	QueueSize int
	// Linger is how long the background committer lets an append nobody
	// waits for (see Enqueue) stay queued, gathering more into the same
	// commit; zero or negative (the default) commits at once, which lets a
	// workflow's steps commit on the other core while it goes on. An append
	// someone waits for is committed by the waiter itself, at once.
	Linger time.Duration
	// Crash is called at PointBeforeCommit and PointAfterCommit, so that a
	// test can stop the process there; nil does nothing.
	Crash func(point string)
}

// Crash points of a commit (by a waiter or the background committer).
const (
	PointBeforeCommit = "ledger.before_commit" // a batch is about to be handed to the store
	PointAfterCommit  = "ledger.after_commit"  // the store committed it; no appender knows yet
)

var originRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/:-]{0,127}$`)

// Validate reports a missing or malformed setting.
func (c *Config) Validate() error {
	switch {
	case c.Store == nil || c.Keys == nil || c.Types == nil:
		return errors.New("ledger: config needs Store, Keys and Types")
	case !originRE.MatchString(c.Origin):
		return fmt.Errorf("ledger: origin %q is not a valid log name", c.Origin)
	case c.MaxBatch < 0 || c.QueueSize < 0:
		return errors.New("ledger: MaxBatch and QueueSize must not be negative")
	}
	return nil
}

// Ledger appends signed, hash-chained events to traces and keeps every event
// hash in one Merkle log. Appends to one trace are serialized; appends to
// different traces run in parallel and share commits. It is safe for
// concurrent use.
type Ledger struct {
	cfg     Config
	runtime *keyring.Key
	log     *keyring.Key
	prover  tlog.Prover

	tmu    sync.Mutex // guards traces, idle and every head's refs and idle links
	traces map[string]*traceHead
	idle   idleHeads // heads no append holds, least recently used last

	// Appends wait in queued, in the order they were sealed, until a
	// committer takes them. The committer is whoever holds commitMu: a
	// goroutine waiting for its append (Pending.Wait), which commits the
	// queue up to its own append itself, or the background committer, for
	// appends nobody waits for. A waiter that finds another committing
	// waits for its append or for turn, a token left by a committer that
	// stops with appends still queued.
	qmu      sync.Mutex // guards queued and closed
	queued   []*Pending
	closed   bool
	slots    chan struct{} // one per queued append; full makes Enqueue wait
	commitMu sync.Mutex
	turn     chan struct{} // capacity 1
	kick     chan struct{} // capacity 1: wakes the background committer
	signq    chan *Pending // appends to sign, in queue order
	signers  sync.WaitGroup
	spinning atomic.Bool   // a signer is polling signq (see nextToSign)
	signWake chan struct{} // wakes a parked signer
	done     chan struct{}
	batch    []*Pending // the committer's scratch, guarded by commitMu
	events   []*Event   // likewise

	cpMu sync.Mutex // serializes checkpoint issuance
}

// Open starts a ledger over cfg.Store. Close stops it.
func Open(cfg Config) (*Ledger, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.RuntimeIdentity == "" {
		cfg.RuntimeIdentity = DefaultRuntimeIdentity
	}
	if cfg.LogIdentity == "" {
		cfg.LogIdentity = DefaultLogIdentity
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxBatch == 0 {
		cfg.MaxBatch = DefaultMaxBatch
	}
	if cfg.QueueSize == 0 {
		cfg.QueueSize = DefaultQueueSize
	}
	rt, err := cfg.Keys.Key(cfg.RuntimeIdentity)
	if err != nil {
		return nil, err
	}
	lg, err := cfg.Keys.Key(cfg.LogIdentity)
	if err != nil {
		return nil, err
	}
	l := &Ledger{
		cfg:      cfg,
		runtime:  rt,
		log:      lg,
		prover:   tlog.Prover{Nodes: cfg.Store},
		traces:   make(map[string]*traceHead),
		slots:    make(chan struct{}, cfg.QueueSize),
		turn:     make(chan struct{}, 1),
		kick:     make(chan struct{}, 1),
		signq:    make(chan *Pending, cfg.QueueSize),
		signWake: make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
	for range max(runtime.GOMAXPROCS(0), 1) {
		l.signers.Add(1)
		go l.signLoop()
	}
	go l.commitLoop()
	return l, nil
}

// Close waits for queued appends to commit and stops the ledger. Appends after
// Close fail.
func (l *Ledger) Close() error {
	l.qmu.Lock()
	if !l.closed {
		l.closed = true
		close(l.kick)
	}
	l.qmu.Unlock()
	<-l.done
	return nil
}

// Types returns the event types the ledger accepts.
func (l *Ledger) Types() *Types { return l.cfg.Types }

// Store returns the ledger's store.
func (l *Ledger) Store() Store { return l.cfg.Store }

// RuntimeIdentity returns the identity whose key signs runtime events.
func (l *Ledger) RuntimeIdentity() string { return l.cfg.RuntimeIdentity }

// Draft is an event before the ledger sequences, hashes and signs it.
type Draft struct {
	Trace  string
	Type   string
	Run    string
	Parent string
	Root   string
	// Agent is the identity that signs. Empty means the runtime, which is
	// required for runtime-signed types.
	Agent string
	Role  string
	Scope sanad.Scope
	// Body is encoded as canonical JSON; a json.RawMessage is canonicalized.
	Body any
	Refs []sanad.ArtifactRef
	// NewTrace says the trace has no events yet (its id was just made), so
	// its head need not be read. If it does have events, the store refuses the
	// append as a conflict and the ledger retries on the real head.
	NewTrace bool
}

// ValidID reports whether s can be a trace or run id: 1–128 characters of
// letters, digits, '.', '_', ':' and '-', starting with a letter or digit.
// (Checked by hand: this runs for every append.)
func ValidID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != ':' && c != '-') {
			return false
		}
	}
	return true
}

// Append seals d as the next event of its trace and returns it once it is
// durable. Invalid drafts fail with INVALID_INPUT before anything is written.
// The returned event must not be modified.
func (l *Ledger) Append(ctx context.Context, d Draft) (*Event, error) {
	evs, err := l.AppendAll(ctx, d)
	if err != nil {
		return nil, err
	}
	return evs[0], nil
}

// AppendAll seals drafts, all of one trace, as its next events in order, and
// commits them together: all are durable when it returns, or none is
// written. Any invalid draft, or one refused by an ordering rule, fails the
// whole call with INVALID_INPUT before anything is written.
func (l *Ledger) AppendAll(ctx context.Context, drafts ...Draft) ([]*Event, error) {
	for attempt := 0; ; attempt++ {
		// Held: this goroutine commits them itself at once; waking the
		// background committer would only have it wait for the lock.
		p, err := l.enqueue(ctx, false, drafts)
		if err != nil {
			return nil, err
		}
		if p == nil {
			return nil, nil
		}
		err = p.Wait()
		if err == nil {
			return p.evs, nil
		}
		if sanad.ErrorCode(err) != sanad.CodeConflict || attempt >= maxConflictRetries {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, sanad.Wrap(ctx.Err(), sanad.CodeCancelled, "ledger.append", "append cancelled")
		}
		// Another writer appended to the trace, or an earlier append of
		// it failed: seal again on the head as stored.
		drafts = notNew(drafts)
	}
}

// notNew returns drafts with NewTrace cleared.
func notNew(drafts []Draft) []Draft {
	out := make([]Draft, len(drafts))
	for i, d := range drafts {
		d.NewTrace = false
		out[i] = d
	}
	return out
}

// Pending is an append queued for commit by Enqueue.
type Pending struct {
	l    *Ledger
	evs  []*Event
	head *traceHead
	// epoch is the head's epoch the events were chained in; a failed
	// commit of the trace ends the epoch and fails every later append
	// chained in it.
	epoch uint64
	keys  []*keyring.Key // the signers' keys, one per event
	// claimed is set by whoever signs the events (a signer or the
	// committer); signed is closed once they are signed and encoded.
	claimed atomic.Bool
	signed  chan struct{}
	// settled is set, and done closed, once the append is committed or
	// failed; err says which.
	settled atomic.Bool
	done    chan struct{}
	err     error
	// stale says the append failed because an earlier one of its trace
	// did: it was never offered to the store.
	stale bool
}

// Wait blocks until the events are durable, or their commit failed, and
// reports which. It may be called more than once. If no commit is under way,
// the calling goroutine commits the queue up to its append itself.
func (p *Pending) Wait() error {
	l := p.l
	for !p.settled.Load() {
		if l.commitMu.TryLock() {
			for !p.settled.Load() && l.commitNext() {
			}
			l.commitMu.Unlock()
			l.passTurn()
			continue
		}
		select {
		case <-p.done:
		case <-l.turn:
		}
	}
	return p.err
}

// Events returns the sealed events; they are durable once Wait returns nil.
// They must not be modified.
func (p *Pending) Events() []*Event { return p.evs }

// Enqueue seals drafts, all of one trace, as its next events and queues them
// for the next group commit without waiting for it: the caller may go on and
// enqueue more, and call Wait on each Pending when it needs them durable (at
// the latest before anything outside the ledger depends on them). Appends of
// one trace commit in the order they were enqueued. If one fails, every
// later append of the trace that was chained on it fails too, without being
// written, and the trace's head is read again from the store. Invalid drafts
// fail here with INVALID_INPUT, and nothing is queued. A nil Pending means
// there was nothing to append.
func (l *Ledger) Enqueue(ctx context.Context, drafts ...Draft) (*Pending, error) {
	return l.enqueue(ctx, true, drafts)
}

// Hold is Enqueue for appends the caller will follow with one it waits for:
// the background committer is not woken for them, so they commit with that
// later append, in one commit instead of two (a tool call's start and its
// outcome). A held append also commits with any commit another goroutine
// makes meanwhile, and at Close; its Pending can be waited for like any
// other. Until then it holds a queue slot.
func (l *Ledger) Hold(ctx context.Context, drafts ...Draft) (*Pending, error) {
	return l.enqueue(ctx, false, drafts)
}

// enqueue seals and queues drafts; kick wakes the background committer.
func (l *Ledger) enqueue(ctx context.Context, kick bool, drafts []Draft) (*Pending, error) {
	const op = "ledger.append"
	if len(drafts) == 0 {
		return nil, nil
	}
	trace := drafts[0].Trace
	evs := make([]*Event, len(drafts))
	keys := make([]*keyring.Key, len(drafts))
	for i, d := range drafts {
		if d.Trace != trace {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "drafts of one append must share a trace (%q, %q)", trace, d.Trace)
		}
		var err error
		if evs[i], keys[i], err = l.prepare(d); err != nil {
			return nil, err
		}
	}
	h := l.acquire(trace)
	if epoch := h.epoch.Load(); !h.loaded || h.sealed != epoch {
		h.sealed = epoch
		if drafts[0].NewTrace && !h.everLoaded {
			h.seq, h.hash, h.rules, h.loaded = 0, canon.Digest{}, l.cfg.Types.Rules(), true
		} else if err := l.loadHead(ctx, trace, h); err != nil {
			l.release(h)
			return nil, err
		}
	}
	h.everLoaded = true
	scratch := preimages.Get().(*[]byte)
	defer preimages.Put(scratch)
	buf := (*scratch)[:0]
	seq, prev := h.seq, h.hash
	for _, ev := range evs {
		ev.Seq, ev.Prev, ev.Time = seq+1, prev, l.cfg.Now().UTC()
		for _, r := range h.rules {
			if err := r.Check(ev); err != nil {
				h.loaded = false // the rules may have half-applied: rebuild their state
				l.release(h)
				return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%s refused: %v", ev.Type, err)
			}
		}
		buf = ev.seal(buf)
		seq, prev = ev.Seq, ev.Hash
	}
	if cap(buf) <= 64<<10 { // a huge event's buffer is not kept
		*scratch = buf
	}
	// The chain needs only the hashes: the signatures are made by the
	// signers while this goroutine goes on, or by the committer if it gets
	// there first.
	p := &Pending{l: l, evs: evs, keys: keys, head: h, epoch: h.sealed, done: make(chan struct{}), signed: make(chan struct{})}
	if err := l.queueUp(ctx, p, kick); err != nil {
		h.loaded = false
		l.release(h)
		return nil, err
	}
	// The head moves on before the commit: the next append of the trace
	// chains on these events. The trace's reference is kept until the
	// commit is done, so that the head stays cached meanwhile.
	h.seq, h.hash = seq, prev
	h.mu.Unlock()
	return p, nil
}

// preimages holds scratch buffers for the hash preimages enqueue seals
// events from.
var preimages = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// loadHead reads the trace's events to find its head and bring the ordering
// rules up to date with it.
func (l *Ledger) loadHead(ctx context.Context, trace string, h *traceHead) error {
	h.seq, h.hash, h.rules = 0, canon.Digest{}, l.cfg.Types.Rules()
	err := l.cfg.Store.ReadTrace(ctx, trace, 0, func(s Stored) error {
		ev, err := Decode(s.Raw)
		if err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, "ledger.append", fmt.Sprintf("trace %s seq %d: %v", trace, h.seq+1, err))
		}
		if ev.Seq != h.seq+1 || ev.Prev != h.hash {
			return sanad.Errorf(sanad.CodeIntegrity, "ledger.append", "trace %s is broken at seq %d: run sanad ledger verify", trace, ev.Seq)
		}
		for _, r := range h.rules {
			if err := r.Check(ev); err != nil {
				return sanad.Errorf(sanad.CodeIntegrity, "ledger.append", "trace %s seq %d breaks an ordering rule: %v", trace, ev.Seq, err)
			}
		}
		h.seq, h.hash = ev.Seq, ev.Hash
		return nil
	})
	if err != nil {
		return err
	}
	h.loaded = true
	return nil
}

// prepare validates d and builds the unsequenced event and its signing key.
func (l *Ledger) prepare(d Draft) (*Event, *keyring.Key, error) {
	const op = "ledger.append"
	if !ValidID(d.Trace) {
		return nil, nil, sanad.Errorf(sanad.CodeInvalidInput, op, "trace id %q is not valid", d.Trace)
	}
	for _, id := range []string{d.Run, d.Parent, d.Root} {
		if id != "" && !ValidID(id) {
			return nil, nil, sanad.Errorf(sanad.CodeInvalidInput, op, "run id %q is not valid", id)
		}
	}
	if err := d.Scope.Validate(); err != nil {
		return nil, nil, err
	}
	def, ok := l.cfg.Types.defs[d.Type]
	if !ok {
		return nil, nil, sanad.Errorf(sanad.CodeInvalidInput, op, "event type %q is not declared", d.Type)
	}
	agent := d.Agent
	if agent == "" {
		agent = l.cfg.RuntimeIdentity
	}
	isRuntime := agent == l.cfg.RuntimeIdentity
	if def.Signer == SignedByRuntime && !isRuntime {
		return nil, nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%s is recorded by the runtime, not by %q", d.Type, agent)
	}
	if def.Signer == SignedByAgent && isRuntime {
		return nil, nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%s must be signed by the acting agent", d.Type)
	}
	if agent == l.cfg.LogIdentity {
		return nil, nil, sanad.Errorf(sanad.CodeInvalidInput, op, "the log key signs only checkpoints")
	}
	body, err := encodeBody(d.Body)
	if err != nil {
		return nil, nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, fmt.Sprintf("body of %s: %v", d.Type, err))
	}
	if err := l.cfg.Types.validateCanonical(d.Type, body); err != nil {
		return nil, nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, err.Error())
	}
	for i := range d.Refs {
		if err := d.Refs[i].Validate(); err != nil {
			return nil, nil, err
		}
	}
	key, err := l.cfg.Keys.Key(agent)
	if err != nil {
		return nil, nil, err
	}
	ev := &Event{
		V: Version, Trace: d.Trace, Type: d.Type, Run: d.Run, Parent: d.Parent, Root: d.Root,
		Actor: Actor{Agent: agent, Role: d.Role, Key: key.ID},
		Scope: d.Scope, Body: body, Refs: append([]sanad.ArtifactRef(nil), d.Refs...),
	}
	return ev, key, nil
}

// encodeBody returns the body as canonical JSON (a JSON object), written in
// one pass from v (see [canon.AppendMarshal]).
func encodeBody(v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("{}"), nil
	}
	size := 512
	if raw, ok := v.(json.RawMessage); ok {
		size = len(raw)
	}
	body, err := canon.AppendMarshal(make([]byte, 0, size), v)
	if err != nil {
		return nil, err
	}
	if body[0] != '{' {
		return nil, errors.New("body must be a JSON object")
	}
	return body, nil
}

// queueUp queues p for commit, waiting for room within ctx, has it signed
// and, if kick, wakes the background committer.
func (l *Ledger) queueUp(ctx context.Context, p *Pending, kick bool) error {
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		return sanad.Wrap(ctx.Err(), sanad.CodeTimeout, "ledger.append", "append queue full until the deadline")
	}
	l.qmu.Lock()
	if l.closed {
		l.qmu.Unlock()
		<-l.slots
		return sanad.Errorf(sanad.CodeUnavailable, "ledger.append", "ledger is closed")
	}
	l.queued = append(l.queued, p)
	// A signer signs it ahead of its commit if one is free; if none is,
	// the committer does.
	select {
	case l.signq <- p:
		if !l.spinning.Load() {
			select {
			case l.signWake <- struct{}{}:
			default:
			}
		}
	default:
	}
	if kick {
		select {
		case l.kick <- struct{}{}:
		default:
		}
	}
	l.qmu.Unlock()
	return nil
}

// claim reports whether the caller is the one to sign p's events: the
// first to ask, a signer or a committer.
func (p *Pending) claim() bool { return p.claimed.CompareAndSwap(false, true) }

// signClaimed signs and encodes the events of appends the caller claimed,
// all in one keyring.SignAll batch, and tells their waiters.
func signClaimed(ps []*Pending) {
	n := 0
	for _, p := range ps {
		n += len(p.evs)
	}
	keys, msgs := make([]*keyring.Key, 0, n), make([][]byte, 0, n)
	buf := make([]byte, 0, n*signingMessageLen)
	for _, p := range ps {
		keys = append(keys, p.keys...)
		for _, ev := range p.evs {
			buf = appendSigningMessage(buf, ev.Hash)
			msgs = append(msgs, buf[len(buf)-signingMessageLen:])
		}
	}
	sigs := keyring.SignAll(keys, msgs)
	for _, p := range ps {
		for _, ev := range p.evs {
			ev.setSig(sigs[0])
			sigs = sigs[1:]
		}
		p.keys = nil
		close(p.signed)
	}
}

// maxSignBatch bounds how many queued appends a signer claims at once.
const maxSignBatch = 64

// signerSpin is how long an idle signer keeps polling the queue before it
// parks. Waking a parked thread takes 70–95 µs on a small virtual machine,
// longer than it takes to seal the next step of a workflow; a signer that
// parked between two steps would sign them late, on the committer's path.
const signerSpin = 200 * time.Microsecond

// nextToSign returns the next queued append, and false once the queue is
// closed. With none queued, one signer at a time polls for up to
// signerSpin, yielding its core to any other goroutine between polls; the
// others, and the poller once it gives up, park until queueUp wakes one.
// They do not park on signq itself: a send to a channel hands its value to
// a receiver blocked on it, which would take the append from the poller and
// sign it only once its thread is awake.
func (l *Ledger) nextToSign() (*Pending, bool) {
	for {
		if p, ok, got := l.pollSign(); got {
			return p, ok
		}
		if l.spinning.CompareAndSwap(false, true) {
			for deadline := time.Now().Add(signerSpin); time.Now().Before(deadline); {
				runtime.Gosched()
				if p, ok, got := l.pollSign(); got {
					l.spinning.Store(false)
					return p, ok
				}
			}
			l.spinning.Store(false)
			// An append queued while this signer gave up woke no one.
			if p, ok, got := l.pollSign(); got {
				return p, ok
			}
		}
		<-l.signWake
	}
}

// pollSign takes the next queued append if there is one (got), or learns
// that the queue is closed (got, !ok).
func (l *Ledger) pollSign() (p *Pending, ok, got bool) {
	select {
	case p, ok = <-l.signq:
		return p, ok, true
	default:
		return nil, false, false
	}
}

// signLoop signs queued appends ahead of their commit, taking whatever is
// queued together, until the ledger stops.
func (l *Ledger) signLoop() {
	defer l.signers.Done()
	var claimed []*Pending
	for {
		p, ok := l.nextToSign()
		if !ok {
			return
		}
		claimed = claimed[:0]
		if p.claim() {
			claimed = append(claimed, p)
		}
	more:
		for len(claimed) < maxSignBatch {
			select {
			case q, ok := <-l.signq:
				if !ok {
					break more
				}
				if q.claim() {
					claimed = append(claimed, q)
				}
			default:
				break more
			}
		}
		if len(claimed) > 0 {
			signClaimed(claimed)
		}
		clear(claimed)
	}
}

// settle reports p's outcome and lets its trace head go. A failure ends the
// head's epoch, so that later appends chained on p fail and the next one
// reads the head again.
func (l *Ledger) settle(p *Pending, err error) {
	if err != nil {
		p.head.epoch.CompareAndSwap(p.epoch, p.epoch+1)
	}
	p.err = err
	p.settled.Store(true)
	close(p.done)
	<-l.slots
	l.tmu.Lock()
	l.unref(p.head)
	l.tmu.Unlock()
}

// settleIfStale fails p, unwritten, if it was chained on an append of its
// trace whose commit failed, and reports whether it did.
func (l *Ledger) settleIfStale(p *Pending) bool {
	if p.head.epoch.Load() == p.epoch {
		return false
	}
	p.stale = true
	l.settle(p, sanad.Errorf(sanad.CodeConflict, "ledger.append", "an earlier append of trace %s failed, and these events were chained on it", p.head.trace))
	return true
}

// drain commits everything queued, then leaves a turn if more was queued
// meanwhile.
func (l *Ledger) drain() {
	l.commitMu.Lock()
	for l.commitNext() {
	}
	l.commitMu.Unlock()
	l.passTurn()
}

// passTurn leaves a turn for a waiter if appends are still queued after a
// committer stopped: a waiter that found the committer busy may be waiting
// for an append that committer did not take.
func (l *Ledger) passTurn() {
	l.qmu.Lock()
	more := len(l.queued) > 0
	l.qmu.Unlock()
	if more {
		select {
		case l.turn <- struct{}{}:
		default:
		}
	}
}

func (l *Ledger) crash(point string) {
	if l.cfg.Crash != nil {
		l.cfg.Crash(point)
	}
}

// commitLoop is the background committer: it commits appends nobody waits
// for, Linger after they were queued, and everything queued at Close.
func (l *Ledger) commitLoop() {
	defer close(l.done)
	var linger *time.Timer
	for range l.kick {
		if l.cfg.Linger > 0 {
			if linger == nil {
				linger = time.NewTimer(l.cfg.Linger)
			} else {
				linger.Reset(l.cfg.Linger)
			}
			<-linger.C
		}
		l.drain()
	}
	// Closed: nothing can be queued any more; commit what is.
	l.drain()
	close(l.signq)
	close(l.signWake)
	l.signers.Wait()
}

// commitNext commits the oldest queued appends, up to MaxBatch, and reports
// whether there were any. The caller holds commitMu.
func (l *Ledger) commitNext() bool {
	l.qmu.Lock()
	n := min(len(l.queued), l.cfg.MaxBatch)
	if n == 0 {
		l.qmu.Unlock()
		return false
	}
	batch := append(l.batch[:0], l.queued[:n]...)
	rest := copy(l.queued, l.queued[n:])
	clear(l.queued[rest:])
	l.queued = l.queued[:rest]
	l.qmu.Unlock()

	// Sign what the signers have not reached, in one batch, and wait for
	// what they are signing; appends chained on one that failed are failed,
	// unwritten.
	var claimed []*Pending
	for _, q := range batch {
		if q.claim() {
			claimed = append(claimed, q)
		}
	}
	if len(claimed) > 0 {
		signClaimed(claimed)
	}
	live, events := batch[:0], l.events[:0]
	for _, q := range batch {
		<-q.signed
		if l.settleIfStale(q) {
			continue
		}
		live = append(live, q)
		events = append(events, q.evs...)
	}
	defer func() {
		clear(batch[:n])
		clear(events)
		l.batch, l.events = batch[:0], events[:0]
	}()
	if len(live) == 0 {
		return true
	}
	l.crash(PointBeforeCommit)
	_, err := l.cfg.Store.AppendEvents(context.Background(), events)
	if err == nil {
		l.crash(PointAfterCommit)
		for _, q := range live {
			l.settle(q, nil)
		}
		return true
	}
	if len(live) > 1 && sanad.ErrorCode(err) == sanad.CodeConflict {
		// One conflicting append must not fail the others: commit
		// them one by one, in order.
		for _, q := range live {
			if l.settleIfStale(q) {
				continue
			}
			_, e := l.cfg.Store.AppendEvents(context.Background(), q.evs)
			l.settle(q, e)
		}
		return true
	}
	for _, q := range live {
		l.settle(q, err)
	}
	return true
}
