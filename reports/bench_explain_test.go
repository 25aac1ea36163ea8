package reports

import (
	"path/filepath"
	"testing"
	"time"

	"kidx/explain"
	"kidx/segment"
)

// BenchmarkExplain1GiB times explain.Dirs against AnalyzeDir on the same partition, a
// 1 GiB segment of 16 KiB batches under the per-batch rule (page cache warm after writing
// it), and reports the ratio of the times: the target is at most 2 (docs/explain.md).
// Each batch's records share its timestamp, as a busy producer's do within a millisecond:
// the header says the first record holds the max, and a 0.11-3.6 leader's naming is checked
// from the first record alone.
func BenchmarkExplain1GiB(b *testing.B) {
	benchExplain(b, func(i int) []byte {
		batch, err := segment.BuildSizedBatch(int64(i)*79, 79, 16384, 1_700_000_000_000+int64(i)*79)
		if err != nil {
			b.Fatal(err)
		}
		return batch
	})
}

// BenchmarkExplain1GiBTimestampsVary is the worst case: every record of a batch has its own
// timestamp, growing, so the max is held by the last record and checking a 0.11-3.6 leader's
// naming reads every time-indexed batch whole (about the whole .log).
func BenchmarkExplain1GiBTimestampsVary(b *testing.B) {
	val := make([]byte, 200)
	benchExplain(b, func(i int) []byte {
		recs := make([]segment.RecordSpec, 79)
		for r := range recs {
			recs[r] = segment.RecordSpec{Value: val, Timestamp: 1_700_000_000_000 + int64(i*79+r)}
		}
		return segment.AppendBatch(nil, int64(i)*79, recs, segment.BatchOptions{})
	})
}

func benchExplain(b *testing.B, batch func(i int) []byte) {
	dir := filepath.Join(b.TempDir(), "big-0")
	cfg := segment.DefaultConfig()
	cfg.SegmentBytes = 1<<31 - 1
	l, err := segment.CreateLog(dir, cfg, segment.PerBatch, 0)
	if err != nil {
		b.Fatal(err)
	}
	const batches = 1 << 16 // 1 GiB
	for i := range batches {
		if _, err := l.Append(batch(i)); err != nil {
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
		parts, err := explain.Dirs([]string{dir}, explain.Options{Interval: -1})
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
