package sim

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/segment"
)

// BenchmarkReplayCleanedBesideSource measures what issue 25 adds to a replay: a partition whose
// cleaned segment 0 sits beside its stale source (every other batch of the source kept, as a
// compaction that keeps half the keys), replayed (ReplayLogDir: explain, the stale-source check,
// the check pass) and checked (Check), then the cleaned segment's figures at three intervals
// (CleanedFigures), against the same replay and check of the source segment alone.
// KIDX_BENCH_CLEANED_MIB sets the source's size (default 64): 1 KiB one-record batches.
//
//	KIDX_BENCH_CLEANED_MIB=256 go test -run '^$' -bench ReplayCleanedBesideSource -benchtime 2x ./sim/
func BenchmarkReplayCleanedBesideSource(b *testing.B) {
	mib := 64
	if v, err := strconv.Atoi(os.Getenv("KIDX_BENCH_CLEANED_MIB")); err == nil && v > 0 {
		mib = v
	}
	n := int64(mib) << 10 // batches of 1 KiB
	root := b.TempDir()
	write := func(dir string, base int64, keep func(off int64) bool) {
		l, err := segment.CreateLog(dir, segment.DefaultConfig(), segment.PerBatch, base)
		if err != nil {
			b.Fatal(err)
		}
		for off := int64(1); off <= n; off++ {
			if keep(off) {
				segmenttest.AppendSized(b, l, off, 1, 1024, ts0+off)
			}
		}
		if err := l.Close(); err != nil {
			b.Fatal(err)
		}
	}
	alone := filepath.Join(root, "alone", "t-0")
	write(alone, 1, func(int64) bool { return true })
	both := filepath.Join(root, "both", "t-0")
	write(both, 1, func(int64) bool { return true })
	// The cleaner's output, written by the per-batch rule's appends (under that rule the
	// cleaner's chunking changes no entry), then set beside the source.
	cleaned := filepath.Join(root, "cleaned", "t-0")
	write(cleaned, 0, func(off int64) bool { return off%2 == 0 })
	for _, suffix := range []string{segment.LogSuffix, segment.IndexSuffix, segment.TimeIndexSuffix} {
		name := segment.FilenamePrefixFromOffset(0) + suffix
		if err := os.Rename(filepath.Join(cleaned, name), filepath.Join(both, name)); err != nil {
			b.Fatal(err)
		}
	}
	testfiles.MustWrite(b, filepath.Join(root, "both", segment.CleanerOffsetCheckpointName), []byte("0\n1\nt 0 "+strconv.FormatInt(n+1, 10)+"\n"))

	var dAlone, dBoth, dFigures time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		replayAndCheck(b, alone, false)
		t1 := time.Now()
		r := replayAndCheck(b, both, true)
		t2 := time.Now()
		if _, err := r.CleanedFigures([]int64{4096, 0, 65536}); err != nil {
			b.Fatal(err)
		}
		dAlone, dBoth, dFigures = dAlone+t1.Sub(t0), dBoth+t2.Sub(t1), dFigures+time.Since(t2)
	}
	per := float64(b.N)
	b.ReportMetric(dAlone.Seconds()/per*1e3, "source-alone-ms")
	b.ReportMetric(dBoth.Seconds()/per*1e3, "cleaned+source-ms")
	b.ReportMetric(dFigures.Seconds()/per*1e3, "figures-3-intervals-ms")
	b.ReportMetric(segmenttest.PeakRSSMB(), "peak-RSS-MB")
}

func replayAndCheck(b *testing.B, dir string, cleaned bool) *LogDirReplay {
	b.Helper()
	r, err := ReplayLogDir(dir, "", -1, ReplayOptions{Interval: -1})
	if err != nil {
		b.Fatal(err)
	}
	if ok, diff, err := r.Check(); err != nil || !ok {
		b.Fatalf("%s: %s %v", dir, diff, err)
	}
	if cleaned && (len(r.LeftOut) != 1 || len(r.Cleaned) != 1) {
		b.Fatalf("%s: left out %v, cleaned %v", dir, r.LeftOut, r.Cleaned)
	}
	return r
}
