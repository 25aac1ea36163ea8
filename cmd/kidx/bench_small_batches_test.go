package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"kidx/internal/segmenttest"
)

// Issue 27's memory figures: explain and whatif --from-logdir of one segment of 68-byte
// one-record batches (the smallest v2 batch, so the most batches a segment can hold), run as
// whole processes so that the figure is the peak RSS an operator sees. The segment is 256 MiB
// (3.9 M batches) by default; KIDX_BENCH_SMALL_BATCH_MIB=2048 gives the 2 GiB segment
// (31.6 M batches; target: at most 1 GB RSS for both).

// smallBatchSegmentMiB is the segment's size in MiB (KIDX_BENCH_SMALL_BATCH_MIB, default 256).
func smallBatchSegmentMiB(b *testing.B) int {
	b.Helper()
	s := os.Getenv("KIDX_BENCH_SMALL_BATCH_MIB")
	if s == "" {
		return 256
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 2047 {
		b.Fatalf("KIDX_BENCH_SMALL_BATCH_MIB=%q: want MiB from 1 to 2047 (a segment is at most 2^31-1 bytes)", s)
	}
	return n
}

var smallBatchDirs = map[int]string{}

// smallBatchPartition is a partition directory holding one segment of mib MiB of 68-byte
// batches, written once per test process (removed by TestMain).
func smallBatchPartition(b *testing.B, mib int) (dir string, batches int) {
	b.Helper()
	batches = mib << 20 / segmenttest.SmallestBatchBytes
	uniformMu.Lock()
	defer uniformMu.Unlock()
	if d, ok := smallBatchDirs[mib]; ok {
		return d, batches
	}
	root, err := os.MkdirTemp("", "kidx-bench-small-")
	if err != nil {
		b.Fatal(err)
	}
	benchCleanups = append(benchCleanups, func() { os.RemoveAll(root) })
	dir = filepath.Join(root, "small-0")
	if _, err := segmenttest.WriteSmallBatchSegment(dir, batches); err != nil {
		b.Fatal(err)
	}
	smallBatchDirs[mib] = dir
	return dir, batches
}

// benchSmallBatches runs kidx args... DIR once per iteration and reports the peak RSS (MB,
// and bytes per batch) and the seconds of the slowest run.
func benchSmallBatches(b *testing.B, args ...string) {
	if testing.Short() {
		b.Skip("SKIPPED under -short: writes a 256 MiB segment (KIDX_BENCH_SMALL_BATCH_MIB)")
	}
	bin := builtKidx(b)
	dir, batches := smallBatchPartition(b, smallBatchSegmentMiB(b))
	var peak int64
	var slowest float64
	for b.Loop() {
		r := runProcess(b, bin, append(args, dir)...)
		if r.exit != 0 {
			b.Fatalf("kidx %v: exit %d", args, r.exit)
		}
		peak = max(peak, r.maxRSS)
		slowest = max(slowest, r.wall.Seconds())
	}
	b.ReportMetric(float64(peak)/1e6, "peak-RSS-MB")
	b.ReportMetric(float64(peak)/float64(batches), "RSS-B/batch")
	b.ReportMetric(slowest, "s")
	b.ReportMetric(float64(batches), "batches")
}

// BenchmarkExplainSmallBatches: kidx explain of the segment (docs/explain.md, "Bounds: huge
// and hostile segments").
func BenchmarkExplainSmallBatches(b *testing.B) { benchSmallBatches(b, "explain") }

// BenchmarkWhatIfFromLogDirSmallBatches: kidx whatif --from-logdir of the segment (the
// replay's check and the what-if runs keep one append's batches: model.LogOptions.ForgetBatches).
func BenchmarkWhatIfFromLogDirSmallBatches(b *testing.B) {
	benchSmallBatches(b, "whatif", "--from-logdir")
}
