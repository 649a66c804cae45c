package pdf

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
)

// PoolConfig sets up a [Pool].
type PoolConfig struct {
	// Instances is the most pdfium instances that run at once, each on one
	// thread. Zero means runtime.GOMAXPROCS(0), at most [DefaultInstances].
	Instances int
	// MemoryLimit is the most memory one instance may use, in bytes; a
	// document needing more fails instead of growing the process. Zero means
	// [DefaultMemoryLimit].
	MemoryLimit int64
	// Interruptible compiles pdfium with checks that let a deadline stop a
	// call in the middle, so that even a pdfium bug that loops forever
	// ends. Without them a deadline takes effect between calls: Parse still
	// returns on time, but a call that never returns would keep its
	// instance (one of a few spares) and a processor busy. The checks make
	// pdfium about 3.4 times slower (measured on the test documents), so
	// they are off by default.
	Interruptible bool
	// CacheDir, when set, keeps the compiled WebAssembly module on disk, so
	// that a new process starts its first instance in well under a second
	// instead of compiling pdfium again (several seconds). The directory must
	// be private to this program.
	CacheDir string
}

// Pool defaults.
const (
	DefaultInstances   = 8
	DefaultMemoryLimit = 2 << 30
	// spareInstances is how many instances may still be finishing a call
	// of a job abandoned at its deadline while new work starts; the
	// instance is discarded when the call returns. With them all taken, new
	// work waits for an instance until its own deadline.
	spareInstances = 4
)

// Validate reports a configuration that cannot work.
func (c PoolConfig) Validate() error {
	if c.Instances < 0 {
		return errors.New("pdf: PoolConfig.Instances is negative")
	}
	if c.MemoryLimit < 0 {
		return errors.New("pdf: PoolConfig.MemoryLimit is negative")
	}
	return nil
}

// Pool runs pdfium (compiled to WebAssembly, run by wazero: no cgo)
// instances for [Parse]. Compiling pdfium takes seconds, so a Pool does it
// once, on first use, and keeps the compiled module; each document then gets
// fresh instances (a few milliseconds each), so that nothing one document does
// to an instance can affect the next. A Pool is safe for concurrent use.
type Pool struct {
	cfg PoolConfig
	// slots bounds the instances working at once.
	slots chan struct{}
	// wg counts goroutines still running a call on an instance, including
	// calls abandoned at a deadline; Close waits for them.
	wg sync.WaitGroup

	// mu guards the fields below.
	mu      sync.Mutex
	started bool
	ready   chan struct{} // closed when the start attempt is over
	wasm    pdfium.Pool
	err     error
	closed  bool
}

// NewPool returns a pool that starts pdfium when a document first needs it.
func NewPool(cfg PoolConfig) (*Pool, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Instances == 0 {
		cfg.Instances = min(runtime.GOMAXPROCS(0), DefaultInstances)
	}
	if cfg.MemoryLimit == 0 {
		cfg.MemoryLimit = DefaultMemoryLimit
	}
	return &Pool{cfg: cfg, slots: make(chan struct{}, cfg.Instances), ready: make(chan struct{})}, nil
}

var (
	defaultPoolOnce sync.Once
	defaultPool     *Pool
)

// DefaultPool is the pool [Parse] uses when Options.Pool is nil. It lives as
// long as the process.
func DefaultPool() *Pool {
	defaultPoolOnce.Do(func() {
		defaultPool, _ = NewPool(PoolConfig{})
	})
	return defaultPool
}

// Instances is how many instances the pool runs at once.
func (p *Pool) Instances() int { return p.cfg.Instances }

// Close stops the pool after the calls still running have returned. Parse
// fails on a closed pool.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	started := p.started
	p.mu.Unlock()
	p.wg.Wait()
	if !started {
		return nil
	}
	<-p.ready
	if p.wasm == nil {
		return nil
	}
	return p.wasm.Close()
}

// start compiles pdfium once; callers wait for it under their context.
func (p *Pool) start(ctx context.Context) (pdfium.Pool, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errPoolClosed
	}
	if !p.started {
		p.started = true
		go func() {
			w, err := p.compile()
			p.mu.Lock()
			p.wasm, p.err = w, err
			p.mu.Unlock()
			close(p.ready)
		}()
	}
	p.mu.Unlock()
	select {
	case <-p.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.wasm, p.err
}

var errPoolClosed = errors.New("pdf: pool is closed")

func (p *Pool) compile() (pdfium.Pool, error) {
	rc := wazero.NewRuntimeConfig().
		WithMemoryLimitPages(uint32(min(p.cfg.MemoryLimit>>16, 65536))).
		WithCloseOnContextDone(p.cfg.Interruptible)
	if p.cfg.CacheDir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(p.cfg.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("pdf: compilation cache: %w", err)
		}
		rc = rc.WithCompilationCache(cache)
	}
	w, err := webassembly.Init(webassembly.Config{
		MinIdle:       0,
		MaxIdle:       0,
		MaxTotal:      p.cfg.Instances + spareInstances,
		RuntimeConfig: rc,
		// No file system: pdfium reads the document from memory and needs
		// no system fonts (looking for them in every new instance is slow),
		// and a parser of untrusted files has no business with the disk.
		FSConfig: wazero.NewFSConfig(),
		// A fresh instance per job: nothing one document leaves behind in
		// pdfium's memory reaches the next.
		ReuseWorkers: false,
	})
	if err != nil {
		return nil, fmt.Errorf("pdf: starting pdfium: %w", err)
	}
	return w, nil
}

// run runs job on a fresh instance and returns its error. When ctx ends
// first, run returns ctx's error at once; the job stops at its next pdfium
// call (see native), and its instance is discarded when it does. A panic
// in job becomes an error.
func (p *Pool) run(ctx context.Context, job func(inst pdfium.Pdfium) error) error {
	w, err := p.start(ctx)
	if err != nil {
		return err
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { <-p.slots }) }
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		release()
		return errPoolClosed
	}
	p.wg.Add(1)
	p.mu.Unlock()

	done := make(chan error, 1)
	go func() {
		defer p.wg.Done()
		defer release()
		inst, err := w.GetInstanceWithContext(ctx)
		if err != nil {
			done <- err
			return
		}
		err = guard(func() error { return job(inst) })
		_ = guard(inst.Close)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		release()
		return ctx.Err()
	}
}

// guard runs f and turns a panic into an error.
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pdf: pdfium panicked: %v", r)
		}
	}()
	return f()
}
