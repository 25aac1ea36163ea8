package logdir

import (
	"os"
	"testing"
	"time"

	"kidx/internal/segmenttest"
)

// benchVerify times Verify on the 268 MB segment against a plain sequential read of the same
// file (1 MiB buffers, what cat does), and reports the ratio of the times: the targets
// are at most 0.5 for headers only and 1.5 for --deep (docs/logdirs.md).
func benchVerify(b *testing.B, deep bool) {
	path := segmenttest.BenchSegment(b)
	var vDur, pDur time.Duration
	var size int64
	buf := make([]byte, 1<<20)
	for b.Loop() {
		t0 := time.Now()
		f, _ := os.Open(path)
		size = 0
		for {
			k, err := f.Read(buf)
			size += int64(k)
			if err != nil {
				break
			}
		}
		f.Close()
		pDur += time.Since(t0)
		t0 = time.Now()
		r, err := Verify([]string{path}, VerifyOptions{Deep: deep})
		if err != nil || r.Problems() != 0 {
			b.Fatal(err, r.Findings)
		}
		vDur += time.Since(t0)
	}
	n := float64(b.N)
	b.ReportMetric(float64(size)*n/1e6/vDur.Seconds(), "verify-MB/s")
	b.ReportMetric(float64(size)*n/1e6/pDur.Seconds(), "plain-read-MB/s")
	b.ReportMetric(vDur.Seconds()/pDur.Seconds(), "x-plain-read-time")
}

// BenchmarkVerifyHeaders: plain verify reads batch headers and the indexes only.
func BenchmarkVerifyHeaders(b *testing.B) { benchVerify(b, false) }

// BenchmarkVerifyDeep: every byte, every CRC.
func BenchmarkVerifyDeep(b *testing.B) { benchVerify(b, true) }

// TestMain removes the benchmark segment after a -bench run.
func TestMain(m *testing.M) {
	code := m.Run()
	segmenttest.RemoveBenchSegment()
	os.Exit(code)
}

// benchBogus verifies issue 27's hostile partitions: a 1 GiB .index or .timeindex of random
// bytes beside a 20,000-byte .log; the targets are at most 10 s and 500 MB each, findings
// capped.
func benchBogus(b *testing.B, part string, deep bool) {
	var problems int
	for b.Loop() {
		r, err := Verify([]string{part}, VerifyOptions{Deep: deep, MaxFindings: 20})
		if err != nil {
			b.Fatal(err)
		}
		problems = r.Problems()
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/verify")
	b.ReportMetric(segmenttest.PeakRSSMB(), "peak-RSS-MB")
	b.ReportMetric(float64(problems), "problems")
}

// bogusTimeIndexBytes is 1 GiB rounded down to whole 12-byte entries.
const bogusTimeIndexBytes = 1 << 30 / 12 * 12

// BenchmarkVerifyBogusIndex1GiB: plain verify of the partition with the bogus .index.
func BenchmarkVerifyBogusIndex1GiB(b *testing.B) {
	benchBogus(b, segmenttest.BogusIndexPartition(b, b.TempDir(), 1<<30), false)
}

// BenchmarkVerifyBogusIndex1GiBDeep: verify --deep of it.
func BenchmarkVerifyBogusIndex1GiBDeep(b *testing.B) {
	benchBogus(b, segmenttest.BogusIndexPartition(b, b.TempDir(), 1<<30), true)
}

// BenchmarkVerifyBogusTimeIndex1GiB: plain verify of the partition with the bogus .timeindex.
func BenchmarkVerifyBogusTimeIndex1GiB(b *testing.B) {
	benchBogus(b, segmenttest.BogusTimeIndexPartition(b, b.TempDir(), bogusTimeIndexBytes), false)
}

// BenchmarkVerifyBogusTimeIndex1GiBDeep: verify --deep of it.
func BenchmarkVerifyBogusTimeIndex1GiBDeep(b *testing.B) {
	benchBogus(b, segmenttest.BogusTimeIndexPartition(b, b.TempDir(), bogusTimeIndexBytes), true)
}
