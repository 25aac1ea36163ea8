package main

import (
	"io"
	"testing"
)

// BenchmarkWhatIfDefault is `kidx whatif` as a new user runs it first: the built-in workload,
// the exact interval sweep plus the seed's four values, in each format. Issue 11's target:
// under 1 s with HTML (charts included).
func BenchmarkWhatIfDefault(b *testing.B) {
	for _, format := range []string{"text", "html"} {
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				if code := run([]string{"whatif", "--format", format}, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/report")
		})
	}
}
