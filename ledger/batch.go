package ledger

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/keyring"
)

// batcher groups sealed appends into commits. Appends join the open batch
// in the order they were sealed. The batch is cut when it holds maxSize
// appends, when its oldest append that starts the clock has waited maxAge,
// when someone waits for an append in it, or when the ledger closes; the
// committer then commits it in one store transaction. While the batch is
// open, the signer signs its appends (keyring.SignAll, one batch at a
// time), so that they are signed by the time it is cut, on another core if
// there is one, and while the previous batch commits; whatever the signer
// has not reached when the batch is cut, the committer signs itself.
//
// Both goroutines park on channels when they have nothing to do: an append
// wakes the signer, and the committer when the append makes the batch due
// or starts its clock (the committer then sleeps on a timer). They belong to
// the batcher: close stops them and waits for them.
type batcher struct {
	l       *Ledger
	maxSize int
	maxAge  time.Duration // negative: cut as soon as the committer is free

	// slots holds one token per append queued or being committed; full, it
	// makes add wait.
	slots chan struct{}

	mu sync.Mutex // guards the fields below and every queued Pending's batch fields
	// open is the open batch, in order; open[:claimed] are signed or
	// being signed by the signer.
	open    []*Pending
	claimed int
	waited  int       // appends in open someone waits for
	clock   time.Time // when the oldest append in open that starts the clock joined it; zero if none
	closing bool      // add fails; the committer cuts what is left and stops
	abandon bool      // close's context ended: the committer stops after its commit in flight
	// onQueued and onSigned are test hooks (see export_test.go): the size
	// of the open batch after an add, and the number of appends the signer
	// has just signed.
	onQueued func(open int)
	onSigned func(n int)

	cut       chan struct{} // capacity 1: wakes the committer
	sign      chan struct{} // capacity 1: wakes the signer
	stop      chan struct{} // closed by close once the committer has stopped
	stopOnce  sync.Once
	committed chan struct{} // closed when the committer stops
	wg        sync.WaitGroup

	// The committer's scratch.
	batch  []*Pending
	events []*Event
}

// maxSignBatch bounds how many queued appends the signer signs at once, so
// that a batch cut meanwhile waits for at most that many signatures.
const maxSignBatch = 64

func newBatcher(l *Ledger, maxSize, queueSize int, maxAge time.Duration) *batcher {
	b := &batcher{
		l: l, maxSize: min(maxSize, queueSize), maxAge: maxAge,
		slots:     make(chan struct{}, queueSize),
		cut:       make(chan struct{}, 1),
		sign:      make(chan struct{}, 1),
		stop:      make(chan struct{}),
		committed: make(chan struct{}),
	}
	b.wg.Add(2)
	go b.signLoop()
	go b.commitLoop()
	return b
}

// wake leaves a token on c, which has capacity 1, without blocking.
func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// add queues p in the open batch, waiting for room within ctx. A held
// append does not start the batch's clock.
func (b *batcher) add(ctx context.Context, p *Pending) error {
	const op = "ledger.append"
	select {
	case b.slots <- struct{}{}:
	case <-ctx.Done():
		return sanad.Wrap(ctx.Err(), sanad.CodeTimeout, op, "append queue full until the deadline")
	}
	b.mu.Lock()
	if b.closing {
		b.mu.Unlock()
		<-b.slots
		return sanad.Errorf(sanad.CodeUnavailable, op, "ledger is closed")
	}
	b.open = append(b.open, p)
	due := len(b.open) >= b.maxSize
	if !p.held {
		p.queuedAt = time.Now()
		if b.clock.IsZero() {
			b.clock = p.queuedAt
			due = true // the committer arms its timer, or cuts at once
		}
	}
	if b.onQueued != nil {
		b.onQueued(len(b.open))
	}
	b.mu.Unlock()
	wake(b.sign)
	if due {
		wake(b.cut)
	}
	return nil
}

// want makes the batch holding p due, if p is still in the open batch:
// someone waits for it.
func (b *batcher) want(p *Pending) {
	b.mu.Lock()
	if p.cut || p.waited {
		b.mu.Unlock()
		return
	}
	p.waited = true
	b.waited++
	first := b.waited == 1
	b.mu.Unlock()
	if first {
		wake(b.cut)
	}
}

// due reports whether the open batch must be cut now. The caller holds mu.
func (b *batcher) due() bool {
	switch {
	case len(b.open) == 0:
		return false
	case len(b.open) >= b.maxSize || b.waited > 0 || b.closing:
		return true
	case b.clock.IsZero():
		return false
	}
	return b.maxAge <= 0 || !time.Now().Before(b.clock.Add(b.maxAge))
}

// signLoop signs the open batch's appends ahead of its cut, until the
// batcher stops.
func (b *batcher) signLoop() {
	defer b.wg.Done()
	var claim []*Pending
	for {
		select {
		case <-b.sign:
		case <-b.stop:
			return
		}
		for {
			b.mu.Lock()
			n := min(len(b.open)-b.claimed, maxSignBatch)
			if n <= 0 {
				b.mu.Unlock()
				break
			}
			claim = append(claim[:0], b.open[b.claimed:b.claimed+n]...)
			b.claimed += n
			signed := make(chan struct{})
			for _, p := range claim {
				p.signing = signed
			}
			hook := b.onSigned
			b.mu.Unlock()
			signAll(claim)
			close(signed)
			if hook != nil {
				hook(n)
			}
		}
		clear(claim)
	}
}

// commitLoop cuts batches as they fall due and commits them, until the
// batcher closes and nothing is left.
func (b *batcher) commitLoop() {
	defer b.wg.Done()
	defer close(b.committed)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		batch, own, ok := b.next(timer)
		if !ok {
			return
		}
		b.commit(batch, own)
	}
}

// next waits until the open batch is due and cuts it: it returns the batch
// and the part of it the caller must sign, which it has claimed. It
// returns false once the batcher is closing and nothing is left.
func (b *batcher) next(timer *time.Timer) (batch, own []*Pending, ok bool) {
	b.mu.Lock()
	for {
		if b.abandon || b.closing && len(b.open) == 0 {
			b.mu.Unlock()
			return nil, nil, false
		}
		if b.due() {
			break
		}
		var expired <-chan time.Time
		if !b.clock.IsZero() {
			timer.Reset(time.Until(b.clock.Add(b.maxAge)))
			expired = timer.C
		}
		b.mu.Unlock()
		select {
		case <-b.cut:
		case <-expired:
		}
		timer.Stop()
		b.mu.Lock()
	}
	n := min(len(b.open), b.maxSize)
	batch = append(b.batch[:0], b.open[:n]...)
	for _, p := range batch {
		p.cut = true
		if p.waited {
			b.waited--
		}
	}
	own = batch[min(b.claimed, n):]
	b.claimed = max(b.claimed-n, 0)
	rest := copy(b.open, b.open[n:])
	clear(b.open[rest:])
	b.open = b.open[:rest]
	b.clock = time.Time{}
	for _, p := range b.open {
		if !p.held {
			b.clock = p.queuedAt
			break
		}
	}
	b.mu.Unlock()
	return batch, own, true
}

// failOpen fails every append of the open batch, unwritten: the ledger was
// closed before they could commit. It returns how many it failed. The
// caller holds mu.
func (b *batcher) failOpen() int {
	failed := len(b.open)
	for _, p := range b.open {
		if p.signing != nil {
			<-p.signing // the signer is writing into its events
		}
		b.l.settle(p, sanad.Errorf(sanad.CodeUnavailable, "ledger.append", "the ledger was closed before this append was committed"))
	}
	clear(b.open)
	b.open, b.claimed, b.waited, b.clock = b.open[:0], 0, 0, time.Time{}
	return failed
}

// close stops taking appends, commits what is queued and stops both
// goroutines. If ctx ends first, the appends not yet cut fail at once, the
// commit in flight finishes, and close returns ctx's error if it failed any.
func (b *batcher) close(ctx context.Context) error {
	b.mu.Lock()
	b.closing = true
	b.mu.Unlock()
	wake(b.cut)
	var err error
	select {
	case <-b.committed:
	case <-ctx.Done():
		b.mu.Lock()
		b.abandon = true
		failed := b.failOpen()
		b.mu.Unlock()
		wake(b.cut)
		<-b.committed
		if failed > 0 {
			code := sanad.CodeCancelled
			if ctx.Err() == context.DeadlineExceeded {
				code = sanad.CodeTimeout
			}
			err = sanad.Wrap(ctx.Err(), code, "ledger.close", fmt.Sprintf("the ledger closed before %d queued appends were committed", failed))
		}
	}
	b.stopOnce.Do(func() { close(b.stop) })
	b.wg.Wait()
	return err
}

// commit signs the part of batch the caller claimed (own, its tail), waits
// for the signer to finish the rest, and commits the batch; appends chained
// on one that failed are failed, unwritten.
func (b *batcher) commit(batch, own []*Pending) {
	l := b.l
	if len(own) > 0 {
		signAll(own)
	}
	live, events := batch[:0], b.events[:0]
	for _, p := range batch[:len(batch)-len(own)] {
		<-p.signing
	}
	for _, p := range batch {
		if l.settleIfStale(p) {
			continue
		}
		live = append(live, p)
		events = append(events, p.evs...)
	}
	defer func() {
		clear(batch)
		clear(events)
		b.batch, b.events = batch[:0], events[:0]
	}()
	if len(live) == 0 {
		return
	}
	l.crash(PointBeforeCommit)
	_, err := l.cfg.Store.AppendEvents(context.Background(), events)
	if err == nil {
		l.crash(PointAfterCommit)
		for _, p := range live {
			l.settle(p, nil)
		}
		return
	}
	if len(live) > 1 && sanad.ErrorCode(err) == sanad.CodeConflict {
		// One conflicting append must not fail the others: commit them
		// one by one, in order.
		for _, p := range live {
			if l.settleIfStale(p) {
				continue
			}
			_, e := l.cfg.Store.AppendEvents(context.Background(), p.evs)
			l.settle(p, e)
		}
		return
	}
	for _, p := range live {
		l.settle(p, err)
	}
}

// signAll signs and encodes the events of ps in one keyring.SignAll batch.
func signAll(ps []*Pending) {
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
	close(p.done)
	<-l.batcher.slots
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

func (l *Ledger) crash(point string) {
	if l.cfg.Crash != nil {
		l.cfg.Crash(point)
	}
}
