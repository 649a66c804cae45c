package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad/internal/bench"
	"github.com/sanadhq/sanad/internal/chaos"
)

func (a *app) benchWorkflowCommand() *cobra.Command {
	var cfg bench.WorkflowConfig
	var steps []int
	c := a.jsonFlag(&cobra.Command{
		Use:   "workflow",
		Short: "Cost of a checkpointed workflow step",
		Long: `Runs workflows of trivial steps in a temporary home, one after another by default. Every
step ends with a signed step.completed event holding its change to the checkpoint and
the checkpoint's hash, and a run returns only once all its events are durable.
step_us_p50 is the median over runs of a run's wall time divided by its steps.

With several lengths (--steps 10,1000,10000) each is timed in its own home, by default
over about 2,000 steps (200 runs of 10, 2 of 1,000, 1 of 10,000), and the ratio of the
longest workflow's step_us_p50 to the shortest's says whether a step's cost grows with
the workflow.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(steps) == 1 {
				cfg.Steps = steps[0]
				return runBench(a, func(dir string) (bench.WorkflowResult, error) {
					cfg.Dir = dir
					return bench.Workflow(cmd.Context(), cfg)
				}, func(res bench.WorkflowResult) { a.printWorkflowResult(res) })
			}
			for _, n := range steps {
				if n <= 0 {
					return usagef("--steps takes positive numbers of steps, got %d", n)
				}
			}
			progress := func(res bench.WorkflowResult) {
				if !a.jsonOut {
					a.printWorkflowResult(res)
				}
			}
			return runBench(a, func(dir string) (bench.WorkflowScaling, error) {
				cfg.Dir = dir
				return bench.WorkflowSizes(cmd.Context(), cfg, steps, progress)
			}, func(res bench.WorkflowScaling) {
				first, last := res.Sizes[0], res.Sizes[len(res.Sizes)-1]
				for _, r := range res.Sizes {
					if r.StepsPerRun < first.StepsPerRun {
						first = r
					}
					if r.StepsPerRun > last.StepsPerRun {
						last = r
					}
				}
				fmt.Fprintf(a.stdout, "a step of a %d-step workflow costs %.2f times one of a %d-step workflow (p50 %.1f / %.1f µs; CPU %.2f times)\n",
					last.StepsPerRun, res.Ratio, first.StepsPerRun, last.StepP50us, first.StepP50us, res.CPURatio)
			})
		},
	})
	c.Flags().IntVar(&cfg.Runs, "runs", 0, "workflow runs to time at each length (default: 2,000 steps' worth, at least 1)")
	c.Flags().IntSliceVar(&steps, "steps", []int{10}, "steps per run; several, comma-separated, to compare lengths")
	c.Flags().IntVar(&cfg.Concurrency, "concurrency", 1, "runs at once")
	c.Flags().StringVar(&cfg.Sync, "synchronous", "NORMAL", "SQLite synchronous setting: NORMAL or FULL")
	return c
}

func (a *app) printWorkflowResult(res bench.WorkflowResult) {
	fmt.Fprintf(a.stdout, "step p50 %.1f µs (p99 %.1f µs), %d steps in %d runs of %d, %d at once, %.2f events per step\n",
		res.StepP50us, res.StepP99us, res.Steps, res.Runs, res.StepsPerRun, res.Concurrency, res.EventsPerStep)
	fmt.Fprintf(a.stdout, "throughput %.1f µs per step (synchronous=%s); CPU %.1f µs per step; one raw ed25519 signature %.1f µs\n",
		res.StepThroughputUS, res.Synchronous, res.CPUPerStepUS, res.RawSignUS)
}

// crashChildCommand is the child process of `bench crash`; it is not meant
// to be run by hand.
func (a *app) crashChildCommand() *cobra.Command {
	return &cobra.Command{
		Use:                "crash-child",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return chaos.Child(cmd.Context(), args, a.stdout)
		},
	}
}

func (a *app) benchCrashCommand() *cobra.Command {
	cfg := chaos.Config{Seed: uint64(time.Now().UnixNano())}
	c := a.jsonFlag(&cobra.Command{
		Use:   "crash",
		Short: "Kill a long workflow with SIGKILL again and again; prove nothing is lost or repeated",
		Long: `Runs a long workflow (an idempotent tool, a non-idempotent one, and a variant that rolls
back) in a child process and kills it with SIGKILL, at random moments and at named crash
points, resuming it after each kill and settling the gates it opens as an operator would.
Then compares the result with a run that never crashed. Exits 1 if any acknowledged event
was lost, a chain broke, an effect happened twice, a completed step ran again, or a run
ended differently.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			dir, cleanup, err := benchDir()
			if err != nil {
				return err
			}
			defer cleanup()
			cfg.Dir = dir
			cfg.Command = func(args []string) *exec.Cmd {
				return exec.Command(self, append([]string{"bench", "crash-child"}, args...)...)
			}
			rep, err := chaos.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			if a.jsonOut {
				if err := a.printJSON(rep); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(a.stdout, "kills %d (%d at %d named points, %d at random moments), %d runs, %d resumes, %d gates opened\n",
					rep.Kills, rep.Kills-rep.RandomKills, len(rep.PointsHit), rep.RandomKills, rep.Runs, rep.Resumes, rep.GatesOpened)
				fmt.Fprintf(a.stdout, "lost events %d, chain breaks %d, duplicate effects %d, re-executed steps %d, state mismatches %d\n",
					rep.LostEvents, rep.ChainBreaks, rep.DuplicateEffects, rep.ReexecutedSteps, rep.StateMismatches)
			}
			if !rep.OK() {
				return errors.New("a crash lost or repeated something: see the counts above")
			}
			return nil
		},
	})
	c.Flags().IntVar(&cfg.Kills, "kills", 50, "how many times to kill the workflow")
	c.Flags().IntVar(&cfg.Steps, "steps", chaos.DefaultSteps, "steps of the workflow")
	c.Flags().Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the kill schedule")
	return c
}
