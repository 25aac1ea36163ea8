package model

import (
	"testing"
)

// BenchmarkClean cleans 1 GiB of 1 KiB single-record batches (1048576 batches in four 256 MiB
// segments cut by rolls, one group under segment.bytes 1 GiB) into one cleaned segment,
// dropping every other batch, under the per-batch and the per-append rule. Each iteration
// cleans a Clone of the same log (a clean does not change the source segments).
func BenchmarkClean(b *testing.B) {
	const batches, perSegment = 1 << 20, 1 << 18
	for _, eraID := range []string{"4.1-4.4", "3.7-4.0.0"} {
		b.Run(eraID, func(b *testing.B) {
			l, err := NewLog(DefaultConfig(), PerBatch, LogOptions{KeepSegments: true, Era: mustEra(eraID)})
			if err != nil {
				b.Fatal(err)
			}
			var drop []int64
			for i := int64(0); i < batches; i++ {
				if i > 0 && i%perSegment == 0 {
					if err := l.Roll(0); err != nil {
						b.Fatal(err)
					}
				}
				if err := l.Append(Batch{Records: 1, Bytes: 1024, MaxTimestamp: i}); err != nil {
					b.Fatal(err)
				}
				if i%2 == 1 {
					drop = append(drop, i)
				}
			}
			if err := l.Roll(0); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				c := l.Clone()
				if err := c.Clean(Clean{Drop: drop}); err != nil {
					b.Fatal(err)
				}
				if c.Stopped() || len(c.kept) != 1 || c.kept[0].BatchCount() != batches/2 {
					b.Fatalf("stopped %v, %d segments", c.Stopped(), len(c.kept))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/batches, "ns/source-batch")
			b.ReportMetric(float64(b.N)*float64(batches)*1024/(1<<20)/b.Elapsed().Seconds(), "source-MiB/s")
		})
	}
}
