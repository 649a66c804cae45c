package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	// Runs is how many workflow runs are timed, each of Steps trivial
	// steps (default 10): by default 2,000 steps' worth (200 runs of 10,
	// one of 10,000).
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
	if cfg.Steps <= 0 {
		cfg.Steps = 10
	}
	if cfg.Runs <= 0 {
		cfg.Runs = DefaultRuns(cfg.Steps)
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
	d, err := benchDefinition(cfg.Steps)
	if err != nil {
		return res, err
	}
	warm, err := benchDefinition(min(cfg.Steps, 10))
	if err != nil {
		return res, err
	}
	opts := workflow.Options{Scope: sanad.Scope{Tenant: "bench", Case: "workflow"}}
	// Warm up: keys, prepared statements, caches (with short runs, so that
	// a long workflow is not run more than the runs timed).
	for range 5 {
		if _, err := e.Start(ctx, warm, nil, opts); err != nil {
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

// DefaultRuns is how many runs of steps steps the workflow benchmark times
// when not told: 2,000 steps' worth, at least one run.
func DefaultRuns(steps int) int {
	return max(1, 2000/max(steps, 1))
}

func benchDefinition(steps int) (*workflow.Definition, error) {
	d := &workflow.Definition{Name: "bench", Agent: "bench-agent"}
	for i := range steps {
		d.Steps = append(d.Steps, workflow.Step{ID: fmt.Sprintf("n%d", i), Uses: "echo"})
	}
	return d, d.Validate()
}

// WorkflowScaling is what `sanad bench workflow` prints for several
// workflow lengths: the cost of a step at each, and how it changes.
type WorkflowScaling struct {
	Sizes []WorkflowResult `json:"sizes"`
	// Ratio is step_us_p50 at the longest workflow over step_us_p50 at the
	// shortest: 1 when a step costs the same whatever the workflow's
	// length.
	Ratio float64 `json:"ratio_longest_to_shortest"`
	// CPURatio is the same ratio of cpu_us_per_step.
	CPURatio float64 `json:"cpu_ratio_longest_to_shortest"`
}

// WorkflowSizes runs [Workflow] once for each workflow length in steps, in
// the order given, each in its own home: a folder of cfg.Dir. cfg.Runs,
// when zero, is [DefaultRuns] of each length, so that each length runs about
// as many steps. progress, when not nil, is called with each result.
func WorkflowSizes(ctx context.Context, cfg WorkflowConfig, steps []int, progress func(WorkflowResult)) (WorkflowScaling, error) {
	var out WorkflowScaling
	if len(steps) == 0 {
		steps = []int{10}
	}
	for i, n := range steps {
		c := cfg
		c.Steps = n
		c.Dir = filepath.Join(cfg.Dir, fmt.Sprintf("size-%d-%d", i, n))
		if err := os.MkdirAll(c.Dir, 0o700); err != nil {
			return out, err
		}
		res, err := Workflow(ctx, c)
		// A long run's home is large: it goes once measured.
		if rerr := os.RemoveAll(c.Dir); err == nil && rerr != nil {
			err = rerr
		}
		if err != nil {
			return out, fmt.Errorf("workflows of %d steps: %w", n, err)
		}
		out.Sizes = append(out.Sizes, res)
		if progress != nil {
			progress(res)
		}
	}
	shortest, longest := out.Sizes[0], out.Sizes[0]
	for _, r := range out.Sizes {
		if r.StepsPerRun < shortest.StepsPerRun {
			shortest = r
		}
		if r.StepsPerRun > longest.StepsPerRun {
			longest = r
		}
	}
	if shortest.StepP50us > 0 {
		out.Ratio = longest.StepP50us / shortest.StepP50us
	}
	if shortest.CPUPerStepUS > 0 {
		out.CPURatio = longest.CPUPerStepUS / shortest.CPUPerStepUS
	}
	return out, nil
}
