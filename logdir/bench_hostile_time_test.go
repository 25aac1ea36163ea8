package logdir

import (
	"testing"

	"kidx/internal/segmenttest"
)

// bogusTimeIndexBytes is 1 GiB rounded down to whole 12-byte entries.
const bogusTimeIndexBytes = 1 << 30 / 12 * 12

// benchBogusTimeIndex: the time index's hostile case, a 1 GiB .timeindex of random bytes
// beside a 20,000-byte .log; the targets are at most 10 s and 500 MB each, findings capped.
func benchBogusTimeIndex(b *testing.B, deep bool) {
	part := segmenttest.BogusTimeIndexPartition(b, b.TempDir(), bogusTimeIndexBytes)
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

// BenchmarkVerifyBogusTimeIndex1GiB: plain verify of the hostile partition.
func BenchmarkVerifyBogusTimeIndex1GiB(b *testing.B) { benchBogusTimeIndex(b, false) }

// BenchmarkVerifyBogusTimeIndex1GiBDeep: verify --deep of it.
func BenchmarkVerifyBogusTimeIndex1GiBDeep(b *testing.B) { benchBogusTimeIndex(b, true) }
