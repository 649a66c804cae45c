package bench

import (
	"context"
	"testing"
	"time"

	"github.com/sanadhq/sanad/home"
)

// BenchmarkLedgerPhase runs the ledger benchmark's phases for profiling:
// go test ./bench -run XXX -bench LedgerPhase -benchtime 1x -cpuprofile cpu.out
func BenchmarkLedgerPhase(b *testing.B) {
	for b.Loop() {
		res, err := Ledger(context.Background(), LedgerConfig{Dir: b.TempDir(), Duration: 2 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(res.Ratio, "ratio")
		b.ReportMetric(res.VerifyRatio, "verify_ratio")
		b.ReportMetric(res.AppendsPerS, "appends/s")
	}
}

// BenchmarkLedgerAppend runs only the append phase, for profiling it alone,
// and reports the CPU it used per event.
func BenchmarkLedgerAppend(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		h, err := home.Open(ctx, home.Config{Dir: b.TempDir(), Synchronous: "NORMAL"})
		if err != nil {
			b.Fatal(err)
		}
		cpu0 := cpuTime()
		events, elapsed, err := appendPhase(ctx, h, LedgerConfig{Duration: 2 * time.Second, Writers: 1024})
		cpu := cpuTime() - cpu0
		h.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(events)/elapsed.Seconds(), "appends/s")
		b.ReportMetric(float64(cpu.Microseconds())/float64(events), "cpu_us/event")
		b.ReportMetric(cpu.Seconds()/elapsed.Seconds(), "cores")
	}
}

// BenchmarkWorkflowStep runs the workflow benchmark with more runs, for
// profiling.
func BenchmarkWorkflowStep(b *testing.B) {
	for range b.N {
		res, err := Workflow(b.Context(), WorkflowConfig{Dir: b.TempDir(), Runs: 1000})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(res.CPUPerStepUS, "cpu_us/step")
		b.ReportMetric(res.StepP50us, "step_us_p50")
		b.ReportMetric(res.EventsPerStep, "events/step")
	}
}

// BenchmarkGatewayCall runs the gateway benchmark with more calls, for
// profiling.
func BenchmarkGatewayCall(b *testing.B) {
	for b.Loop() {
		res, err := Gateway(b.Context(), GatewayConfig{Dir: b.TempDir(), Calls: 3000})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(res.CallP50us, "call_us_p50")
		b.ReportMetric(res.WriteAheadP50us, "write_ahead_us_p50")
	}
}
