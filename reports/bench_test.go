package reports

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"kidx/explain"
	"kidx/internal/realdata"
	"kidx/internal/segmenttest"
	"kidx/logdir"
	"kidx/segment"

	"kidx/model"
	"kidx/sim"
)

// randomSource is a replayable single-batch workload of n batches with sizes uniform in
// [lo, hi) from a xorshift generator (cheap, so the benchmark measures the sweep).
type randomSource struct {
	n      int64
	lo, hi int32
	seed   uint64
}

func (r *randomSource) Describe() string {
	return fmt.Sprintf("uniform %d..%d bytes, %d batches, seed %d", r.lo, r.hi, r.n, r.seed)
}

func (r *randomSource) Open() (sim.Stream, error) { return &randomStream{src: r, x: r.seed | 1}, nil }

type randomStream struct {
	src  *randomSource
	done int64
	x    uint64
}

func (s *randomStream) Next(dst []model.Step) (int, error) {
	b := make([]int32, len(dst))
	rc := make([]int32, len(dst))
	n, err := s.NextBatches(b, rc, nil)
	for i := range n {
		dst[i] = model.AppendStep(model.Batch{Records: int64(rc[i]), Bytes: int64(b[i]), MaxTimestamp: -1})
	}
	return n, err
}

func (s *randomStream) NextBatches(bytes, records []int32, ts []int64) (int, error) {
	n := 0
	span := uint64(s.src.hi - s.src.lo)
	for ; n < len(bytes) && s.done < s.src.n; n++ {
		s.x ^= s.x << 13
		s.x ^= s.x >> 7
		s.x ^= s.x << 17
		bytes[n] = s.src.lo + int32(s.x%span)
		records[n] = 79
		if ts != nil {
			ts[n] = -1
		}
		s.done++
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// benchBatches is 64 M batches of 16 KiB: 1 TiB of log.
var benchBatches int64 = 64 << 20

func geometric32() []int64 {
	var v []int64
	for i := range 32 {
		v = append(v, int64(64)<<(i/2)+int64(i%2)*(int64(64)<<(i/2))/2)
	}
	return v
}

func benchSweep(b *testing.B, src sim.Source) {
	cfg := model.DefaultConfig()
	opts := WhatIfOptions{Source: src, Base: cfg, Sweeps: []Sweep{{Key: "index.interval.bytes", Values: geometric32()}}}
	var passes int
	for range b.N {
		rep, err := RunWhatIf(opts)
		if err != nil {
			b.Fatal(err)
		}
		passes = rep.Passes
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(perOp, "s/sweep")
	b.ReportMetric(float64(benchBatches)/perOp/1e6, "Mbatches/s")
	b.ReportMetric(float64(passes), "passes")
	b.ReportMetric(float64(ru.Maxrss)/1024, "maxRSS-MB")
}

// BenchmarkSweep32Fixed: 32 intervals over 64 M fixed 16 KiB batches (1 TiB): one pass.
func BenchmarkSweep32Fixed(b *testing.B) {
	benchSweep(b, &sim.FixedSource{Count: benchBatches, Bytes: 16384, Records: 79, TimestampBase: -1})
}

// BenchmarkSweep32Random: the same with sizes uniform in 8..24 KiB (mean 16 KiB): many
// distinct scan values, so exact quantiles take refinement passes.
func BenchmarkSweep32Random(b *testing.B) {
	benchSweep(b, &randomSource{n: benchBatches, lo: 8192, hi: 24576, seed: 7})
}

func init() {
	if v := os.Getenv("KIDX_BENCH_BATCHES"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			benchBatches = n
		}
	}
}

// BenchmarkAnalyze1GiB analyzes one partition holding a 1 GiB segment of 16 KiB batches
// (page cache warm after writing it): the statistics come from batch headers only.
func BenchmarkAnalyze1GiB(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "big-0")
	cfg := segment.DefaultConfig()
	cfg.SegmentBytes = 1<<31 - 1
	l, err := segment.CreateLog(dir, cfg, segment.PerBatch, 0)
	if err != nil {
		b.Fatal(err)
	}
	batch, err := segment.BuildSizedBatch(0, 79, 16384, 1_700_000_000_000)
	if err != nil {
		b.Fatal(err)
	}
	const batches = 1 << 16 // 1 GiB
	for range batches {
		if _, err := l.Append(batch); err != nil {
			b.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	logPath := filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.LogSuffix)
	b.ResetTimer()
	var a *Analysis
	var aDur, pDur time.Duration
	buf := make([]byte, 1<<20)
	for range b.N {
		t0 := time.Now()
		f, _ := os.Open(logPath)
		for {
			if _, err := f.Read(buf); err != nil {
				break
			}
		}
		f.Close()
		pDur += time.Since(t0)
		t0 = time.Now()
		if a, err = AnalyzeDir(dir, AnalyzeOptions{}); err != nil {
			b.Fatal(err)
		}
		aDur += time.Since(t0)
	}
	if a.Partitions[0].Batches != batches {
		b.Fatalf("%d batches", a.Partitions[0].Batches)
	}
	b.SetBytes(a.LogBytes)
	// The target: at most half the time of a plain read (cat) of the segment.
	b.ReportMetric(aDur.Seconds()/pDur.Seconds(), "x-plain-read-time")
}

// BenchmarkRealData: verify --deep and analyze over every real log directory of
// ../shared/realdata (restored into a temporary directory), as the CLI runs them: one
// VerifyOptions{Deep} pass and one AnalyzeDirs over all origins. Target: under 2 s.
func BenchmarkRealData(b *testing.B) {
	root := realdata.Restore(b)
	dirs := realdata.PartitionDirs(root)
	origins := realdata.Origins(root)
	for b.Loop() {
		if _, err := logdir.Verify(dirs, logdir.VerifyOptions{Deep: true}); err != nil {
			b.Fatal(err)
		}
		if _, err := AnalyzeDirs(origins, AnalyzeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/verify+analyze")
}

// benchAnalyzeBogus analyzes issue 27's hostile partitions (a 1 GiB .index or .timeindex of
// random bytes beside a 20,000-byte .log); the targets are at most 10 s and 500 MB.
func benchAnalyzeBogus(b *testing.B, part string) {
	var problems int
	for b.Loop() {
		a, err := AnalyzeDir(part, AnalyzeOptions{Judge: logdir.VerifyOptions{MaxFindings: 20}})
		if err != nil {
			b.Fatal(err)
		}
		problems = a.Problems
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/analyze")
	b.ReportMetric(segmenttest.PeakRSSMB(), "peak-RSS-MB")
	b.ReportMetric(float64(problems), "problems")
}

// benchExplainBogus explains them: explain refuses the index after counting its entries in
// bounded reads; the targets are at most 10 s and 500 MB.
func benchExplainBogus(b *testing.B, part string) {
	for b.Loop() {
		parts, err := explain.Dirs([]string{part}, explain.Options{Interval: -1})
		if err != nil {
			b.Fatal(err)
		}
		if s := parts[0].Segments[0]; s.Reproduced || s.FirstDisagreement == nil {
			b.Fatalf("reproduced %v, disagreement %v", s.Reproduced, s.FirstDisagreement)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/explain")
	b.ReportMetric(segmenttest.PeakRSSMB(), "peak-RSS-MB")
}

// bogusTimeIndexBytes is 1 GiB rounded down to whole 12-byte entries.
const bogusTimeIndexBytes = 1 << 30 / 12 * 12

func BenchmarkAnalyzeBogusIndex1GiB(b *testing.B) {
	benchAnalyzeBogus(b, segmenttest.BogusIndexPartition(b, b.TempDir(), 1<<30))
}

func BenchmarkAnalyzeBogusTimeIndex1GiB(b *testing.B) {
	benchAnalyzeBogus(b, segmenttest.BogusTimeIndexPartition(b, b.TempDir(), bogusTimeIndexBytes))
}

func BenchmarkExplainBogusIndex1GiB(b *testing.B) {
	benchExplainBogus(b, segmenttest.BogusIndexPartition(b, b.TempDir(), 1<<30))
}

func BenchmarkExplainBogusTimeIndex1GiB(b *testing.B) {
	benchExplainBogus(b, segmenttest.BogusTimeIndexPartition(b, b.TempDir(), bogusTimeIndexBytes))
}
