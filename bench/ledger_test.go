package bench

import (
	"context"
	"testing"
	"time"
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

func BenchmarkWorkflowStep(b *testing.B) {
	for range b.N {
		res, err := Workflow(b.Context(), WorkflowConfig{Dir: b.TempDir(), Runs: 100})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(res.StepP50us, "step_us_p50")
		b.ReportMetric(res.EventsPerStep, "events/step")
	}
}
