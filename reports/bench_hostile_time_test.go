package reports

import (
	"testing"

	"kidx/explain"
	"kidx/internal/segmenttest"
	"kidx/logdir"
)

// bogusTimeIndexBytes is 1 GiB rounded down to whole 12-byte entries.
const bogusTimeIndexBytes = 1 << 30 / 12 * 12

// BenchmarkAnalyzeBogusTimeIndex1GiB: analyze of a partition whose .timeindex is 1 GiB of
// random bytes beside a 20,000-byte .log; the targets are at most 10 s and 500 MB.
func BenchmarkAnalyzeBogusTimeIndex1GiB(b *testing.B) {
	part := segmenttest.BogusTimeIndexPartition(b, b.TempDir(), bogusTimeIndexBytes)
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

// BenchmarkExplainBogusTimeIndex1GiB: explain of the same partition, which refuses the time
// index after counting its entries in bounded reads; the targets are at most 10 s and 500 MB.
func BenchmarkExplainBogusTimeIndex1GiB(b *testing.B) {
	part := segmenttest.BogusTimeIndexPartition(b, b.TempDir(), bogusTimeIndexBytes)
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
