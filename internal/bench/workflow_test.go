package bench

import "testing"

func BenchmarkWorkflowConc(b *testing.B) {
	for range b.N {
		res, err := Workflow(b.Context(), WorkflowConfig{Dir: b.TempDir(), Runs: 1000, Concurrency: 64})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(res.StepThroughputUS, "us/step")
	}
}
