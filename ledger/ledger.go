package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
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
	DefaultMaxAge          = time.Millisecond
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
	// MaxBatch bounds how many appends share one commit (DefaultMaxBatch):
	// a batch that holds that many is committed at once.
	MaxBatch int
	// MaxAge bounds how long an append nobody waits for (see Enqueue) stays
	// in the open batch, gathering more into the same commit
	// (DefaultMaxAge); negative commits as soon as the committer is free.
	// An append someone waits for ([Pending.Wait], Append) is committed
	// without waiting for its age.
	MaxAge time.Duration
	// QueueSize bounds appends waiting for a commit (DefaultQueueSize). A full
	// queue makes Append wait, within its context's deadline.
	QueueSize int
	// Crash is called at PointBeforeCommit and PointAfterCommit, so that a
	// test can stop the process there; nil does nothing.
	Crash func(point string)
	// Mirrors keep the latest signed checkpoint outside the store. With
	// any, Open refuses a store that does not extend it, and Close signs a
	// checkpoint of what was appended since the last one.
	Mirrors []Mirror
}

// Crash points of a commit.
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

	// batcher signs sealed appends and commits them in batches.
	batcher *batcher

	registering sync.Mutex // held while a key is registered: one at a time
	regMu       sync.Mutex // guards reg
	reg         registry

	cpMu   sync.Mutex      // serializes checkpoint issuance; guards latest
	latest tlog.Checkpoint // the latest checkpoint the log is known to have signed
	closed atomic.Bool     // Close has signed its checkpoint
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
	if cfg.MaxAge == 0 {
		cfg.MaxAge = DefaultMaxAge
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
		cfg:     cfg,
		runtime: rt,
		log:     lg,
		prover:  tlog.Prover{Nodes: cfg.Store},
		traces:  make(map[string]*traceHead),
	}
	if err := l.checkMirrors(context.Background()); err != nil {
		return nil, err
	}
	l.batcher = newBatcher(l, cfg.MaxBatch, cfg.QueueSize, cfg.MaxAge)
	if err := l.openKeys(context.Background()); err != nil {
		l.batcher.close(context.Background())
		return nil, err
	}
	return l, nil
}

// Close commits every queued append and stops the ledger; appends after
// Close fail with UNAVAILABLE. If ctx ends first, the appends still in the
// open batch fail with UNAVAILABLE, unwritten, and Close returns an error
// with code CANCELLED or TIMEOUT once the commit in flight, if any, is done
// (nil if there were none to fail). Either way nothing of the ledger runs
// after Close returns. Close may be called more than once.
func (l *Ledger) Close(ctx context.Context) error {
	if err := l.batcher.close(ctx); err != nil {
		return err
	}
	if len(l.cfg.Mirrors) == 0 || l.closed.Swap(true) {
		return nil
	}
	// What was appended since the last checkpoint is signed now, so that a
	// rollback to before this close is refused at the next open.
	_, _, err := l.Checkpoint(context.WithoutCancel(ctx))
	return err
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
// whole call with INVALID_INPUT before anything is written. ctx bounds the
// wait for room in the queue; once the drafts are queued, AppendAll waits
// for the outcome of their commit even if ctx ends, so that an error always
// means nothing was written (use Enqueue and [Pending.Wait] to stop waiting
// earlier).
func (l *Ledger) AppendAll(ctx context.Context, drafts ...Draft) ([]*Event, error) {
	for attempt := 0; ; attempt++ {
		// Held: the Wait below makes the batch due at once.
		p, err := l.enqueue(ctx, true, drafts)
		if err != nil {
			return nil, err
		}
		if p == nil {
			return nil, nil
		}
		err = p.Wait(context.WithoutCancel(ctx))
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
	keys  []*keyring.Key // the signers' keys, one per event; nil once signed
	held  bool           // does not start its batch's clock (Hold)
	// Batch fields, guarded by the batcher's mu: when the append joined
	// the open batch (unless held), whether someone waits for it, whether
	// its batch was cut, and, if the signer took it, a channel closed once
	// it is signed.
	queuedAt time.Time
	waited   bool
	cut      bool
	signing  chan struct{}
	// done is closed once the append is committed or failed; err says
	// which.
	done chan struct{}
	err  error
	// stale says the append failed because an earlier one of its trace
	// did: it was never offered to the store.
	stale bool
}

// Wait blocks until the events are durable, or their commit failed, and
// reports which; an append still in the open batch is committed without
// waiting for its age (Config.MaxAge). If ctx ends first, Wait returns an
// error with code CANCELLED or TIMEOUT, and the append goes on: it is
// committed or fails as if nobody had waited, and a later Wait reports
// which. Wait may be called more than once, from any goroutine.
func (p *Pending) Wait(ctx context.Context) error {
	select {
	case <-p.done:
		return p.err
	default:
	}
	p.l.batcher.want(p)
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		code := sanad.CodeCancelled
		if ctx.Err() == context.DeadlineExceeded {
			code = sanad.CodeTimeout
		}
		return sanad.Wrap(ctx.Err(), code, "ledger.wait", "stopped waiting for an append to commit; it may still commit")
	}
}

// Events returns the sealed events; they are durable once Wait returns nil.
// Their signatures are written in by the batcher before their commit.
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
//
// The append joins the open batch, which commits when it holds
// Config.MaxBatch appends, when its oldest append has waited Config.MaxAge,
// when someone waits for an append in it, or at Close.
func (l *Ledger) Enqueue(ctx context.Context, drafts ...Draft) (*Pending, error) {
	return l.enqueue(ctx, false, drafts)
}

// Hold is Enqueue for appends the caller will follow with one it waits for:
// they do not start their batch's clock (Config.MaxAge), so they commit
// with that later append, in one commit instead of two (a tool call's start
// and its outcome). A held append also commits with any batch that falls due
// meanwhile, and at Close; its Pending can be waited for like any other.
// Until then it holds a queue slot.
func (l *Ledger) Hold(ctx context.Context, drafts ...Draft) (*Pending, error) {
	return l.enqueue(ctx, true, drafts)
}

// enqueue seals and queues drafts; a held append does not start its
// batch's clock.
func (l *Ledger) enqueue(ctx context.Context, held bool, drafts []Draft) (*Pending, error) {
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
	// The chain needs only the hashes: the batcher signs the events while
	// this goroutine goes on.
	p := &Pending{l: l, evs: evs, keys: keys, head: h, epoch: h.sealed, held: held, done: make(chan struct{})}
	if err := l.batcher.add(ctx, p); err != nil {
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
		if err := s.Check(ev); err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, "ledger.append", fmt.Sprintf("trace %s: %v: run sanad ledger verify", trace, err))
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
	key, unregistered, err := l.signingKey(agent)
	if err != nil {
		return nil, nil, err
	}
	if unregistered {
		if err := l.register(context.Background(), key, KeyRoleAgent); err != nil {
			return nil, nil, err
		}
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
