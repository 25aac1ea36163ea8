package fuzz

import (
	"context"
	"runtime"
	"testing"
)

// BenchmarkDifferential100 measures whole differential cases per second: a 100-batch
// workload through the model and through real files (written, closed, reopened, every offset
// looked up), on runtime.NumCPU() workers, files under TempRoot() (tmpfs when /dev/shm exists).
func BenchmarkDifferential100(b *testing.B) {
	b.Logf("files under %s, %d workers", TempRoot(), runtime.NumCPU())
	b.ResetTimer()
	res, err := RunCampaign(context.Background(), CampaignOptions{Seed: 1, Cases: int64(b.N), Gen: GenOptions{Batches: 100}})
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Divergences) > 0 {
		b.Fatalf("divergence: %s", res.Divergences[0].What)
	}
	b.ReportMetric(float64(res.Cases)/b.Elapsed().Seconds(), "cases/s")
}
