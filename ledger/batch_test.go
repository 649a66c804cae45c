package ledger_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
)

// gatedStore is the real store that reports the size of every commit on
// commits and, while hold is not nil, makes the first commit wait for hold
// to close, after closing entered. If fail is set, that first commit then
// fails instead of reaching the store.
type gatedStore struct {
	ledger.Store
	commits chan int
	hold    chan struct{}
	entered chan struct{}
	fail    bool

	mu    sync.Mutex // guards first
	first bool
}

func newGatedStore(s ledger.Store, hold bool) *gatedStore {
	g := &gatedStore{Store: s, commits: make(chan int, 1024), entered: make(chan struct{})}
	if hold {
		g.hold = make(chan struct{})
	}
	return g
}

func (g *gatedStore) AppendEvents(ctx context.Context, evs []*ledger.Event) (uint64, error) {
	g.mu.Lock()
	first := !g.first
	g.first = true
	g.mu.Unlock()
	if first && g.hold != nil {
		close(g.entered)
		<-g.hold
		if g.fail {
			g.commits <- len(evs)
			return 0, sanad.Errorf(sanad.CodeDependencyDown, "test.append", "the disk went away")
		}
	}
	first64, err := g.Store.AppendEvents(ctx, evs)
	g.commits <- len(evs)
	return first64, err
}

// nextCommit returns the size of the store's next commit.
func (g *gatedStore) nextCommit(tb testing.TB) int {
	tb.Helper()
	select {
	case n := <-g.commits:
		return n
	case <-time.After(30 * time.Second):
		tb.Fatal("no commit within 30s")
		return 0
	}
}

// openGated opens a ledger over a gated store in a fresh home; the ledger is
// closed at cleanup.
func openGated(tb testing.TB, hold bool, cfg ledger.Config) (*ledger.Ledger, *gatedStore, *home.Home) {
	tb.Helper()
	h := ledgertest.Home(tb)
	store := newGatedStore(h.DB, hold)
	cfg.Store, cfg.Keys, cfg.Types = store, h.Keys, h.Types
	if cfg.Origin == "" {
		cfg.Origin = "sanad.log/batch-test"
	}
	l, err := ledger.Open(cfg)
	if err != nil {
		tb.Fatalf("ledger.Open: %v", err)
	}
	tb.Cleanup(func() {
		if store.hold != nil {
			select {
			case <-store.hold:
			default:
				close(store.hold)
			}
		}
		l.Close(context.Background())
	})
	return l, store, h
}

func exportDraft(trace string) ledger.Draft {
	return ledger.Draft{Trace: trace, Type: bundle.TypeExportAuthorized, Scope: ledgertest.Scope, Body: map[string]any{"trace": trace}}
}

// TestBatchCutAtMaxSize: a batch that holds MaxBatch appends commits
// without anyone waiting and long before its age; what is left commits at
// Close.
func TestBatchCutAtMaxSize(t *testing.T) {
	ctx := context.Background()
	l, store, h := openGated(t, false, ledger.Config{MaxBatch: 4, MaxAge: time.Hour})
	var ps []*ledger.Pending
	for i := range 10 {
		p, err := l.Enqueue(ctx, exportDraft(fmt.Sprintf("size-%d", i)))
		if err != nil {
			t.Fatalf("Enqueue: got error %v, want nil", err)
		}
		ps = append(ps, p)
	}
	got := []int{store.nextCommit(t), store.nextCommit(t)}
	if err := l.Close(ctx); err != nil {
		t.Fatalf("Close: got error %v, want nil", err)
	}
	got = append(got, store.nextCommit(t))
	if want := []int{4, 4, 2}; !slices.Equal(got, want) {
		t.Fatalf("commits: got %v, want %v", got, want)
	}
	for i, p := range ps {
		if err := p.Wait(ctx); err != nil {
			t.Fatalf("append %d: got error %v, want nil", i, err)
		}
	}
	if size := workSize(t, h); size != 10 {
		t.Fatalf("tree size: got %d, want 10", size)
	}
}

// TestBatchCommitsByAgeOrWait: a lone append nobody waits for commits once
// it is MaxAge old; one someone waits for commits at once, however long
// MaxAge is.
func TestBatchCommitsByAgeOrWait(t *testing.T) {
	for _, tc := range []struct {
		name   string
		maxAge time.Duration
		hold   bool // Hold, not Enqueue
		wait   bool
	}{
		{"lone append, short age", time.Millisecond, false, false},
		{"lone append, commit when free", -1, false, false},
		{"waited, long age", time.Hour, false, true},
		{"held and waited, long age", time.Hour, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			l, store, h := openGated(t, false, ledger.Config{MaxAge: tc.maxAge})
			add := l.Enqueue
			if tc.hold {
				add = l.Hold
			}
			p, err := add(ctx, exportDraft("lone"))
			if err != nil {
				t.Fatalf("Enqueue: got error %v, want nil", err)
			}
			if tc.wait {
				if err := p.Wait(ctx); err != nil {
					t.Fatalf("Wait: got error %v, want nil", err)
				}
			}
			if n := store.nextCommit(t); n != 1 {
				t.Fatalf("commit: got %d events, want 1", n)
			}
			if size := workSize(t, h); size != 1 {
				t.Fatalf("tree size: got %d, want 1", size)
			}
			if err := p.Wait(ctx); err != nil {
				t.Fatalf("Wait after the commit: got error %v, want nil", err)
			}
		})
	}
}

// TestWaitContextEnds: Wait returns its context's error when the context
// ends before the commit, and the append goes on: it commits, or fails
// cleanly, and a later Wait says which.
func TestWaitContextEnds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fail     bool
		deadline bool
		want     sanad.Code // of Wait after the ended context
		wantTree uint64
	}{
		{"cancelled, then committed", false, false, sanad.CodeCancelled, 1},
		{"deadline, then committed", false, true, sanad.CodeTimeout, 1},
		{"cancelled, then failed", true, false, sanad.CodeCancelled, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			l, store, h := openGated(t, true, ledger.Config{MaxAge: -1})
			store.fail = tc.fail
			p, err := l.Enqueue(ctx, exportDraft("ctx-ends"))
			if err != nil {
				t.Fatalf("Enqueue: got error %v, want nil", err)
			}
			<-store.entered // its commit is in flight, and held
			var wctx context.Context
			var cancel context.CancelFunc
			if tc.deadline {
				wctx, cancel = context.WithDeadline(ctx, time.Unix(0, 0))
			} else {
				wctx, cancel = context.WithCancel(ctx)
				cancel()
			}
			defer cancel()
			if err := p.Wait(wctx); sanad.ErrorCode(err) != tc.want {
				t.Fatalf("Wait(ended context): got %v, want code %s", err, tc.want)
			}
			close(store.hold)
			err = p.Wait(ctx)
			switch {
			case tc.fail && sanad.ErrorCode(err) != sanad.CodeDependencyDown:
				t.Fatalf("Wait: got %v, want DEPENDENCY_DOWN", err)
			case !tc.fail && err != nil:
				t.Fatalf("Wait: got error %v, want nil", err)
			}
			if size := workSize(t, h); size != tc.wantTree {
				t.Fatalf("tree size: got %d, want %d", size, tc.wantTree)
			}
		})
	}
}

// TestCloseFlushes: Close commits every queued append, held or not, waited
// for or not, and appends after it fail with UNAVAILABLE.
func TestCloseFlushes(t *testing.T) {
	ctx := context.Background()
	l, _, h := openGated(t, false, ledger.Config{MaxAge: time.Hour})
	var ps []*ledger.Pending
	for i := range 20 {
		add := l.Enqueue
		if i%2 == 1 {
			add = l.Hold
		}
		p, err := add(ctx, exportDraft(fmt.Sprintf("flush-%d", i%3)))
		if err != nil {
			t.Fatalf("Enqueue: got error %v, want nil", err)
		}
		ps = append(ps, p)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatalf("Close: got error %v, want nil", err)
	}
	// Wait with an ended context reports the outcome of a settled append,
	// and CANCELLED for one still pending.
	ended, cancel := context.WithCancel(ctx)
	cancel()
	for i, p := range ps {
		if err := p.Wait(ended); err != nil {
			t.Fatalf("append %d after Close: got error %v, want nil", i, err)
		}
	}
	if size := workSize(t, h); size != 20 {
		t.Fatalf("tree size after Close: got %d, want 20", size)
	}
	if _, err := l.Enqueue(ctx, exportDraft("late")); sanad.ErrorCode(err) != sanad.CodeUnavailable {
		t.Fatalf("Enqueue after Close: got %v, want UNAVAILABLE", err)
	}
	if _, err := l.Append(ctx, exportDraft("late")); sanad.ErrorCode(err) != sanad.CodeUnavailable {
		t.Fatalf("Append after Close: got %v, want UNAVAILABLE", err)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatalf("second Close: got error %v, want nil", err)
	}
	// Nothing is left to fail, so an ended context is no error either.
	if err := l.Close(ended); err != nil {
		t.Fatalf("Close with an ended context after everything committed: got error %v, want nil", err)
	}
}

// TestCloseContextEnds: when Close's context ends before the queue is
// committed, what is still queued fails at once with UNAVAILABLE,
// unwritten, the commit in flight finishes, and Close reports the
// context's error.
func TestCloseContextEnds(t *testing.T) {
	ctx := context.Background()
	l, store, h := openGated(t, true, ledger.Config{MaxAge: -1})
	first, err := l.Enqueue(ctx, exportDraft("in-flight"))
	if err != nil {
		t.Fatalf("Enqueue: got error %v, want nil", err)
	}
	<-store.entered
	queued, err := l.Enqueue(ctx, exportDraft("queued"))
	if err != nil {
		t.Fatalf("Enqueue: got error %v, want nil", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	closed := make(chan error, 1)
	go func() { closed <- l.Close(cctx) }()
	// The queued append fails while the commit in flight is still held,
	// and Close cannot return before that commit is done.
	if err := queued.Wait(ctx); sanad.ErrorCode(err) != sanad.CodeUnavailable {
		t.Fatalf("queued append: got %v, want UNAVAILABLE", err)
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned %v with a commit in flight", err)
	default:
	}
	close(store.hold)
	if err := <-closed; sanad.ErrorCode(err) != sanad.CodeCancelled {
		t.Fatalf("Close: got %v, want CANCELLED", err)
	}
	if err := first.Wait(ctx); err != nil {
		t.Fatalf("append in flight: got error %v, want nil", err)
	}
	if size := workSize(t, h); size != 1 {
		t.Fatalf("tree size: got %d, want 1", size)
	}
}

// batcherGoroutines returns the stacks of the goroutines running a
// ledger's batcher, and how many there are. (The store runs goroutines of
// its own, which come and go.)
func batcherGoroutines() (int, string) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count, stacks := 0, ""
	for _, g := range strings.Split(string(buf), "\n\n") {
		// Every one was created by newBatcher; one that has not run yet
		// shows nothing else.
		if strings.Contains(g, "created by github.com/sanadhq/sanad/ledger.newBatcher") {
			count++
			stacks += g + "\n\n"
		}
	}
	return count, stacks
}

// TestCloseLeavesNoGoroutine: after Close, no goroutine the ledger started
// is left.
func TestCloseLeavesNoGoroutine(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t) // its own ledger runs a batcher too
	before, _ := batcherGoroutines()
	l, err := ledger.Open(ledger.Config{Store: h.DB, Keys: h.Keys, Types: h.Types, Origin: "sanad.log/goroutines", MaxAge: time.Millisecond})
	if err != nil {
		t.Fatalf("ledger.Open: %v", err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				trace := fmt.Sprintf("g-%d", i)
				if j%2 == 0 {
					l.Enqueue(ctx, exportDraft(trace))
				} else if _, err := l.Append(ctx, exportDraft(trace)); err != nil {
					t.Errorf("Append: got error %v, want nil", err)
				}
			}
		}()
	}
	wg.Wait()
	if err := l.Close(ctx); err != nil {
		t.Fatalf("Close: got error %v, want nil", err)
	}
	// Close waits for the goroutines to return; one that has returned
	// may still be on its way out of the scheduler's books.
	got, stacks := batcherGoroutines()
	for i := 0; i < 1000 && got > before; i++ {
		runtime.Gosched()
		got, stacks = batcherGoroutines()
	}
	if got != before {
		t.Fatalf("batcher goroutines: got %d after Close, want %d, as before Open\n%s", got, before, stacks)
	}
	if n, err := ledger.WorkTraces(ctx, h.DB); err != nil || len(n) != 8 {
		t.Fatalf("traces: got %d (error %v), want 8", len(n), err)
	}
}

// TestBatchSignsAhead: the batcher signs appends while their batch is
// open, before anyone waits for them.
func TestBatchSignsAhead(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	l, err := ledger.Open(ledger.Config{Store: h.DB, Keys: h.Keys, Types: h.Types, Origin: "sanad.log/sign-ahead", MaxAge: time.Hour})
	if err != nil {
		t.Fatalf("ledger.Open: %v", err)
	}
	defer l.Close(ctx)
	signed := make(chan int, 64)
	ledger.OnSigned(l, func(n int) { signed <- n })
	var ps []*ledger.Pending
	for i := range 5 {
		// Held, with an hour's age: only the signer can sign it before
		// the Wait below.
		p, err := l.Hold(ctx, exportDraft(fmt.Sprintf("ahead-%d", i)))
		if err != nil {
			t.Fatalf("Hold: got error %v, want nil", err)
		}
		ps = append(ps, p)
	}
	for n := 0; n < len(ps); {
		select {
		case k := <-signed:
			n += k
		case <-time.After(30 * time.Second):
			t.Fatalf("%d of %d appends signed ahead of their commit within 30s", n, len(ps))
		}
	}
	for _, p := range ps {
		if ev := p.Events()[0]; len(ev.Sig) == 0 {
			t.Fatalf("%s: no signature before its commit", ev.Trace)
		}
	}
	for _, p := range ps {
		if err := p.Wait(ctx); err != nil {
			t.Fatalf("Wait: got error %v, want nil", err)
		}
	}
	if size := workSize(t, h); size != uint64(len(ps)) {
		t.Fatalf("tree size: got %d, want %d", size, len(ps))
	}
}
