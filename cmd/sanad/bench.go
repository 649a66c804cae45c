package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad/internal/bench"
)

func (a *app) benchCommand() *cobra.Command {
	return group("bench", "Measure sanad against limits measured in the same run",
		a.benchLedgerCommand(), a.benchGatewayCommand(), a.benchWorkflowCommand(), a.benchCrashCommand(), a.crashChildCommand(), a.benchSearchCommand(), a.benchIngestCommand(),
		a.benchAskCommand(), a.benchGuardCommand(), a.benchDiligenceCommand())
}

func (a *app) benchLedgerCommand() *cobra.Command {
	var cfg bench.LedgerConfig
	c := a.jsonFlag(&cobra.Command{
		Use:   "ledger",
		Short: "Durable signed appends and verification against raw ed25519 rates",
		Long: `Appends signed, durable events (run lifecycle events, one trace per run) from parallel
writers for a fixed time in a temporary home, verifies the whole log, and measures raw
ed25519 sign and verify rates on all cores in the same run. ratio = appends_per_s /
raw_signs_per_s; verify_ratio = verifies_per_s / raw_verifies_per_s.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBench(a, func(dir string) (bench.LedgerResult, error) {
				cfg.Dir = dir
				return bench.Ledger(cmd.Context(), cfg)
			}, func(res bench.LedgerResult) {
				fmt.Fprintf(a.stdout, "appends:  %.0f/s durable, signed (%d events, %d writers, synchronous=%s)\n", res.AppendsPerS, res.Events, res.Writers, res.Synchronous)
				fmt.Fprintf(a.stdout, "raw sign: %.0f/s on %d cores   ratio %.2f\n", res.RawSignsPerS, res.GOMAXPROCS, res.Ratio)
				fmt.Fprintf(a.stdout, "verify:   %.0f/s full ledger verification\n", res.VerifiesPerS)
				fmt.Fprintf(a.stdout, "raw verify: %.0f/s   verify_ratio %.2f\n", res.RawVerifiesPerS, res.VerifyRatio)
			})
		},
	})
	c.Flags().DurationVar(&cfg.Duration, "duration", 3*time.Second, "how long each phase runs")
	c.Flags().IntVar(&cfg.Writers, "writers", 1024, "concurrent appenders (each appends to its own traces)")
	c.Flags().StringVar(&cfg.Sync, "synchronous", "NORMAL", "SQLite synchronous setting: NORMAL or FULL")
	return c
}

func (a *app) benchGatewayCommand() *cobra.Command {
	var cfg bench.GatewayConfig
	c := a.jsonFlag(&cobra.Command{
		Use:   "gateway",
		Short: "Tool gateway call, policy decision and schema validation times, in one run",
		Long: `Times sequential tool gateway calls of a no-op tool over a durable ledger in a temporary
home (each call: resolve, validate, authorize, abuse limits, a tool_gateway child run,
input and output artifacts, signed events) with the tool declared as reading only, then
with it declared as having external side effects (its start is durable before it runs),
then a policy decision alone and an input schema validation alone (the gateway's check, and
the general JSON Schema validator's for comparison), and prints their
medians in microseconds.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBench(a, func(dir string) (bench.GatewayResult, error) {
				cfg.Dir = dir
				return bench.Gateway(cmd.Context(), cfg)
			}, func(res bench.GatewayResult) {
				fmt.Fprintf(a.stdout, "call p50 %.0f µs (p99 %.0f µs, %.1f events per call)\ncall with write-ahead p50 %.0f µs\ndecision p50 %.2f µs\nschema validation p50 %.2f µs (general validator %.2f µs)\n",
					res.CallP50us, res.CallP99us, res.EventsPerCall, res.WriteAheadP50us, res.DecisionP50us, res.SchemaValidateP50us, res.SchemaGeneralP50us)
			})
		},
	})
	c.Flags().IntVar(&cfg.Calls, "calls", 300, "gateway calls to time")
	return c
}

// runBench runs a benchmark in a temporary home, removed after it, and
// prints its result: as JSON with --json, else with text.
func runBench[R any](a *app, run func(dir string) (R, error), text func(R)) error {
	dir, cleanup, err := benchDir()
	if err != nil {
		return err
	}
	defer cleanup()
	res, err := run(dir)
	if err != nil {
		return err
	}
	return a.report(res, func() { text(res) })
}

// benchDir makes a temporary home for a benchmark and returns a function
// that removes it.
func benchDir() (string, func(), error) {
	dir, err := os.MkdirTemp("", "sanad-bench-")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
