package explain

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"kidx/segment"
)

// BenchmarkExplainCleanedSegment times explain on a cleaner's output: a segment of 256-byte
// one-record batches whose offsets skip one in two (compaction's gaps), appended in chunks of
// 256 KiB as the cleaner's read buffer appends them (cleanInto: log.cleaner.io.buffer.size
// 512 KiB / 2), then rolled, under the per-append rule (3.7-4.0.0) and the per-batch rule
// (4.1+). With the partition's cleaner-offset-checkpoint past the segment explain tries the
// cleaned history and answers with it; without it (gaps alone) it tries it too and keeps the
// appends answer. It reports the time of each (cleaned-ms, gaps-only-ms) and of the same
// segment with consecutive offsets (no cleaner evidence: the appends history alone, as
// before issue 25: plain-ms), and their ratio. KIDX_BENCH_CLEANED_MIB sizes the segment
// (default 64).
func BenchmarkExplainCleanedSegment(b *testing.B) {
	mib := 64
	if v, err := strconv.Atoi(os.Getenv("KIDX_BENCH_CLEANED_MIB")); err == nil && v > 0 {
		mib = v
	}
	for _, rule := range []segment.Rule{segment.PerAppend, segment.PerBatch} {
		b.Run(map[segment.Rule]string{segment.PerAppend: "per-append", segment.PerBatch: "per-batch"}[rule], func(b *testing.B) {
			root := b.TempDir()
			cleaned := writeChunkedSegment(b, filepath.Join(root, "cleaned"), rule, mib, 2, 1<<40)
			gaps := writeChunkedSegment(b, filepath.Join(root, "gaps"), rule, mib, 2, -1)
			plain := writeChunkedSegment(b, filepath.Join(root, "plain"), rule, mib, 1, -1)
			var dc, dg, dp time.Duration
			for b.Loop() {
				dc += timeExplain(b, cleaned, HistoryCleaned)
				dg += timeExplain(b, gaps, HistoryAppends)
				dp += timeExplain(b, plain, HistoryAppends)
			}
			n := float64(b.N)
			b.ReportMetric(dc.Seconds()/n*1e3, "cleaned-ms")
			b.ReportMetric(dg.Seconds()/n*1e3, "gaps-only-ms")
			b.ReportMetric(dp.Seconds()/n*1e3, "plain-ms")
			b.ReportMetric(dc.Seconds()/dp.Seconds(), "x-plain")
		})
	}
}

// writeChunkedSegment writes DIR/topic-0: mib MiB of 256-byte one-record batches with
// offsets stride apart, appended 1024 at a time (256 KiB), then one more append that rolls
// segment 0; a cleaner-offset-checkpoint naming topic-0 at cleanerAt when >= 0.
func writeChunkedSegment(b *testing.B, root string, rule segment.Rule, mib int, stride int64, cleanerAt int64) string {
	b.Helper()
	dir := filepath.Join(root, "topic-0")
	const batchBytes, chunk = 256, 1024
	chunks := mib * 4
	cfg := segment.DefaultConfig()
	cfg.SegmentBytes = int64(chunks * chunk * batchBytes)
	l, err := segment.CreateLog(dir, cfg, rule, 0)
	if err != nil {
		b.Fatal(err)
	}
	off := int64(0)
	for c := 0; c <= chunks; c++ {
		var bs [][]byte
		for range chunk {
			raw, err := segment.BuildSizedBatch(off, 1, batchBytes, 1_700_000_000_000+off)
			if err != nil {
				b.Fatal(err)
			}
			bs = append(bs, raw)
			off += stride
		}
		if _, err := l.Append(bs...); err != nil {
			b.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	if cleanerAt >= 0 {
		if err := os.WriteFile(filepath.Join(root, "cleaner-offset-checkpoint"), []byte(fmt.Sprintf("0\n1\ntopic 0 %d\n", cleanerAt)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func timeExplain(b *testing.B, dir string, want History) time.Duration {
	t0 := time.Now()
	parts, err := Dirs([]string{dir}, Options{Interval: -1})
	d := time.Since(t0)
	if err != nil || len(parts) != 1 || !parts[0].Reproduced() || parts[0].Segments[0].History != want {
		b.Fatalf("%s: %v %+v", dir, err, parts)
	}
	return d
}
