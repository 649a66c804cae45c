// Package bench measures sanad against limits taken on the same machine in
// the same run: ledger appends against raw ed25519 signing, ledger
// verification against raw ed25519 verification. Figures are ratios, so they
// say how much the ledger costs beyond the cryptography it cannot avoid.
package bench

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/runs"
)

// LedgerConfig configures [Ledger].
type LedgerConfig struct {
	Dir      string        // an empty folder for the benchmark's home
	Duration time.Duration // how long each phase runs (default 3s)
	Writers  int           // concurrent appenders, each on its own traces (default 1024)
	Sync     string        // SQLite synchronous setting (default NORMAL)
}

// LedgerResult is what `sanad bench ledger` prints.
type LedgerResult struct {
	AppendsPerS      float64 `json:"appends_per_s"`
	RawSignsPerS     float64 `json:"raw_signs_per_s"`
	Ratio            float64 `json:"ratio"`
	VerifiesPerS     float64 `json:"verifies_per_s"`
	RawVerifiesPerS  float64 `json:"raw_verifies_per_s"`
	VerifyRatio      float64 `json:"verify_ratio"`
	Events           int     `json:"events"`
	Writers          int     `json:"writers"`
	GOMAXPROCS       int     `json:"gomaxprocs"`
	Synchronous      string  `json:"synchronous"`
	DurationSeconds  float64 `json:"duration_s"`
	MeanBatchAppends float64 `json:"-"`
}

// Ledger runs the ledger benchmark: durable, signed appends of run lifecycle
// events (run.started, authz.decision, run.completed per run, each run its own
// trace) from parallel writers; a full verification of the resulting log;
// and raw ed25519 sign and verify rates on all cores.
func Ledger(ctx context.Context, cfg LedgerConfig) (LedgerResult, error) {
	if cfg.Duration <= 0 {
		cfg.Duration = 3 * time.Second
	}
	if cfg.Writers <= 0 {
		cfg.Writers = 1024
	}
	if cfg.Sync == "" {
		cfg.Sync = "NORMAL"
	}
	res := LedgerResult{Writers: cfg.Writers, GOMAXPROCS: runtime.GOMAXPROCS(0), Synchronous: cfg.Sync, DurationSeconds: cfg.Duration.Seconds()}
	h, err := home.Open(ctx, home.Config{Dir: cfg.Dir, Synchronous: cfg.Sync})
	if err != nil {
		return res, err
	}
	defer h.Close()

	events, elapsed, err := appendPhase(ctx, h, cfg)
	if err != nil {
		return res, err
	}
	res.Events = events
	res.AppendsPerS = float64(events) / elapsed.Seconds()

	start := time.Now()
	rep, err := h.Ledger.Verify(ctx, "")
	if err != nil {
		return res, err
	}
	res.VerifiesPerS = float64(rep.Events) / time.Since(start).Seconds()

	res.RawSignsPerS, res.RawVerifiesPerS = rawEd25519(cfg.Duration)
	res.Ratio = res.AppendsPerS / res.RawSignsPerS
	res.VerifyRatio = res.VerifiesPerS / res.RawVerifiesPerS
	return res, nil
}

// appendPhase appends from cfg.Writers goroutines until cfg.Duration has
// passed and returns how many events were appended and in what time.
func appendPhase(ctx context.Context, h *home.Home, cfg LedgerConfig) (int, time.Duration, error) {
	var appended atomic.Int64
	var firstErr error
	var errOnce sync.Once
	deadline := time.Now().Add(cfg.Duration)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range cfg.Writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scope := sanad.Scope{Tenant: "bench", Case: fmt.Sprintf("case-%d", w)}
			agent := fmt.Sprintf("bench-agent-%d", w%8)
			for time.Now().Before(deadline) {
				run, err := h.Runs.Start(ctx, runs.Spec{
					Kind: sanad.KindAgent, Scope: scope, Agent: agent, Role: "analyst",
					Request:  map[string]any{"writer": w},
					Decision: runs.Decision{Allow: true, Reason: "benchmark"},
				})
				if err == nil {
					err = run.Complete(ctx, nil, map[string]any{"ok": true})
				}
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				appended.Add(3)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return 0, 0, firstErr
	}
	return int(appended.Load()), elapsed, nil
}

// rawEd25519 measures ed25519 signatures and verifications per second over
// messages the size of a signing message, on GOMAXPROCS goroutines.
func rawEd25519(d time.Duration) (signs, verifies float64) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	pub := priv.Public().(ed25519.PublicKey)
	msg := make([]byte, 47)
	sig := ed25519.Sign(priv, msg)
	rate := func(op func()) float64 {
		var n atomic.Int64
		var wg sync.WaitGroup
		deadline := time.Now().Add(d)
		start := time.Now()
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := int64(0)
				for time.Now().Before(deadline) {
					for range 64 {
						op()
					}
					c += 64
				}
				n.Add(c)
			}()
		}
		wg.Wait()
		return float64(n.Load()) / time.Since(start).Seconds()
	}
	signs = rate(func() { ed25519.Sign(priv, msg) })
	verifies = rate(func() { ed25519.Verify(pub, msg, sig) })
	return signs, verifies
}
