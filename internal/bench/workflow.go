package bench

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/workflow"
)

// WorkflowConfig configures [Workflow].
type WorkflowConfig struct {
	Dir string // an empty folder for the benchmark's home
	// Runs is how many workflow runs are timed (default 200), each of Steps
	// trivial steps (default 10).
	Runs  int
	Steps int
	// Concurrency is how many runs go on at once (default 1: one after
	// another, as LangGraph's benchmark invokes its graph).
	Concurrency int
	Sync        string // SQLite synchronous setting (default NORMAL)
}

// WorkflowResult is what `sanad bench workflow` prints.
type WorkflowResult struct {
	// StepP50us is the median over runs of a run's wall time divided by its
	// steps: the cost of one checkpointed step.
	StepP50us float64 `json:"step_us_p50"`
	StepP99us float64 `json:"step_us_p99"`
	// StepThroughputUS is the benchmark's wall time divided by all its
	// steps: with Concurrency above 1, the cost of a step when runs share
	// commits.
	StepThroughputUS float64 `json:"step_us_throughput"`
	Steps            int     `json:"steps"`
	Runs             int     `json:"runs"`
	StepsPerRun      int     `json:"steps_per_run"`
	Concurrency      int     `json:"concurrency"`
	EventsPerStep    float64 `json:"events_per_step"`
	// CPUPerStepUS is the process's CPU time over the timed runs divided by
	// their steps, on all cores: with StepThroughputUS it says whether steps
	// wait for cores or for each other.
	CPUPerStepUS float64 `json:"cpu_us_per_step"`
	// RawSignUS is one ed25519 signature on one core, measured in the same
	// run: each step costs EventsPerStep of them, a floor no engine work
	// changes.
	RawSignUS   float64 `json:"raw_sign_us"`
	Synchronous string  `json:"synchronous"`
	GOMAXPROCS  int     `json:"gomaxprocs"`
}

// Workflow times sequential workflows of trivial steps: every step ends
// with a signed step.completed event holding its checkpoint, queued for
// commit in order while the next step runs; a run returns only once all its
// events are durable.
func Workflow(ctx context.Context, cfg WorkflowConfig) (WorkflowResult, error) {
	if cfg.Runs <= 0 {
		cfg.Runs = 200
	}
	if cfg.Steps <= 0 {
		cfg.Steps = 10
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 1
	}
	if cfg.Sync == "" {
		cfg.Sync = "NORMAL"
	}
	res := WorkflowResult{Runs: cfg.Runs, StepsPerRun: cfg.Steps, Concurrency: cfg.Concurrency, Synchronous: cfg.Sync, GOMAXPROCS: runtime.GOMAXPROCS(0)}
	h, err := home.Open(ctx, home.Config{Dir: cfg.Dir, Synchronous: cfg.Sync})
	if err != nil {
		return res, err
	}
	defer h.Close()
	e, err := workflow.New(workflow.Config{Runs: h.Runs, Store: h.DB, Actions: workflow.NewActions()})
	if err != nil {
		return res, err
	}
	d := &workflow.Definition{Name: "bench", Agent: "bench-agent"}
	for i := range cfg.Steps {
		d.Steps = append(d.Steps, workflow.Step{ID: fmt.Sprintf("n%d", i), Uses: "echo"})
	}
	if err := d.Validate(); err != nil {
		return res, err
	}
	opts := workflow.Options{Scope: sanad.Scope{Tenant: "bench", Case: "workflow"}}
	// Warm up: keys, prepared statements, caches.
	for range 5 {
		if _, err := e.Start(ctx, d, nil, opts); err != nil {
			return res, err
		}
	}
	before, err := h.DB.TreeSize(ctx)
	if err != nil {
		return res, err
	}
	perStep := make([]float64, cfg.Runs)
	next := make(chan int, cfg.Runs)
	for i := range cfg.Runs {
		next <- i
	}
	close(next)
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	cpu0, start := cpuTime(), time.Now()
	for range cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				r, err := e.Start(ctx, d, nil, opts)
				if err == nil {
					err = r.Err()
				}
				if err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				perStep[i] = float64(time.Since(t0).Microseconds()) / float64(cfg.Steps)
			}
		}()
	}
	wg.Wait()
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	if firstErr != nil {
		return res, firstErr
	}
	after, err := h.DB.TreeSize(ctx)
	if err != nil {
		return res, err
	}
	res.Steps = cfg.Runs * cfg.Steps
	res.EventsPerStep = float64(after-before) / float64(res.Steps)
	res.StepThroughputUS = float64(elapsed.Microseconds()) / float64(res.Steps)
	res.CPUPerStepUS = float64(cpu.Microseconds()) / float64(res.Steps)
	slices.Sort(perStep)
	res.StepP50us = perStep[len(perStep)/2]
	res.StepP99us = perStep[min(len(perStep)-1, len(perStep)*99/100)]
	signs, _ := rawEd25519(time.Second)
	res.RawSignUS = float64(runtime.GOMAXPROCS(0)) / signs * 1e6
	return res, nil
}
