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
