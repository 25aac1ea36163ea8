package reports

import (
	"path/filepath"
	"testing"
	"time"

	"kidx/segment"
)

// BenchmarkExplain1GiB times segment.ExplainDir against AnalyzeDir on the same partition, a
// 1 GiB segment of 16 KiB batches under the per-batch rule (page cache warm after writing
// it), and reports the ratio of the times: the target is at most 2 (docs/explain.md).
// The batches' records carry increasing timestamps, so each batch's max timestamp is held by
// its last record and the 0.11-3.6 leader's naming matches too: every time-indexed batch's
// records are read once.
func BenchmarkExplain1GiB(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "big-0")
	cfg := segment.DefaultConfig()
	cfg.SegmentBytes = 1<<31 - 1
	l, err := segment.CreateLog(dir, cfg, segment.PerBatch, 0)
	if err != nil {
		b.Fatal(err)
	}
	const batches = 1 << 16 // 1 GiB
	for i := range batches {
		batch, err := segment.BuildSizedBatch(int64(i)*79, 79, 16384, 1_700_000_000_000+int64(i)*79)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Append(batch); err != nil {
			b.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var eDur, aDur time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := AnalyzeDir(dir, AnalyzeOptions{}); err != nil {
			b.Fatal(err)
		}
		aDur += time.Since(t0)
		t0 = time.Now()
		parts, err := segment.ExplainDir([]string{dir}, segment.ExplainOptions{Interval: -1})
		if err != nil || len(parts) != 1 || !parts[0].Reproduced() {
			b.Fatal(err, parts)
		}
		eDur += time.Since(t0)
	}
	n := float64(b.N)
	b.ReportMetric(eDur.Seconds()/n*1e3, "explain-ms")
	b.ReportMetric(aDur.Seconds()/n*1e3, "analyze-ms")
	b.ReportMetric(eDur.Seconds()/aDur.Seconds(), "x-analyze-time")
}
