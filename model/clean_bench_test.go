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

// BenchmarkCleanedIndexOverflowAtDefaults is docs/model.md's cleaner finding at Kafka's
// default segment.bytes (1 GiB) and segment.index.bytes (10 MiB: 1310720 offset slots), under
// 4.1-4.4 with index.interval.bytes 0: a segment of 1310721 100-byte batches of one timestamp
// fills its offset index (the next append rolls it, offset-index-full), a second segment holds
// one batch; the two group (125 MiB, 10 MiB + 0 of index, 12 + 12 bytes of time index), and the
// cleaned segment's 1310721st entry, for the second segment's batch, overflows. Too large for
// a test; it reports the overflow (1) and the time a clean of 1.3 M batches takes to reach it.
func BenchmarkCleanedIndexOverflowAtDefaults(b *testing.B) {
	const slots = 10 << 20 / OffsetIndexEntrySize
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes = 0
	l, err := NewLog(cfg, PerBatch, LogOptions{KeepSegments: true})
	if err != nil {
		b.Fatal(err)
	}
	for range slots + 2 {
		if err := l.Append(Batch{Records: 1, Bytes: 100, MaxTimestamp: 1000}); err != nil {
			b.Fatal(err)
		}
	}
	if err := l.Roll(0); err != nil {
		b.Fatal(err)
	}
	if segs := l.Segments(); len(segs) != 3 || segs[0].RollReason() != RollOffsetIndexFull || segs[0].OffsetIndex().Entries() != slots || segs[1].BatchCount() != 1 {
		b.Fatalf("the sources are not as described")
	}
	b.ResetTimer()
	overflows := 0
	for range b.N {
		c := l.Clone()
		if err := c.Clean(Clean{}); err != nil {
			b.Fatal(err)
		}
		want := Event{Kind: EventOffsetIndexFull, Step: c.Steps() - 1, Message: "Attempt to append to a full index (size = 1310720)."}
		if ev := c.Events(); len(ev) != 1 || ev[0] != want {
			b.Fatalf("events %+v, want %+v", ev, want)
		}
		overflows++
	}
	b.ReportMetric(float64(overflows)/float64(b.N), "overflows/clean")
}
