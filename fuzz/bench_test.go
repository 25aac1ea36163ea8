package fuzz

import (
	"context"
	"runtime"
	"testing"
)

// BenchmarkDifferential100 measures whole differential cases per second (issue 13, item 2:
// ">= 2,000 cases/s for 100-batch workloads" in memory): a 100-batch workload through the
// model and through the files (written, closed, read back, every offset looked up), on
// runtime.NumCPU() workers, in memory (vfs.MemFS, the default) and on real files under
// TempRoot() (tmpfs when /dev/shm exists).
func BenchmarkDifferential100(b *testing.B) {
	for _, mode := range []struct {
		name string
		real bool
	}{{"memory", false}, {"real-files", true}} {
		b.Run(mode.name, func(b *testing.B) {
			if mode.real {
				b.Logf("files under %s, %d workers", TempRoot(), runtime.NumCPU())
			}
			res, err := RunCampaign(context.Background(), CampaignOptions{Seed: 1, Cases: int64(b.N), Gen: GenOptions{Batches: 100},
				Check: Options{RealFiles: mode.real}})
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Divergences) > 0 {
				b.Fatalf("divergence: %s", res.Divergences[0].What)
			}
			b.ReportMetric(float64(res.Cases)/b.Elapsed().Seconds(), "cases/s")
		})
	}
}
