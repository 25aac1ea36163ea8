package model

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// mixedSizes pre-generates n batch sizes of a mixed workload: mostly 16 KiB batches (full
// producer batches), a band of small ones (linger-bound) and a few large ones (up to 1 MiB).
func mixedSizes(n int, seed uint64) []int32 {
	r := rand.New(rand.NewPCG(seed, 0))
	out := make([]int32, n)
	for i := range out {
		switch k := r.IntN(10); {
		case k < 6:
			out[i] = 16384 - int32(r.IntN(512))
		case k < 9:
			out[i] = 61 + int32(r.IntN(4000))
		default:
			out[i] = 16384 + int32(r.IntN(1<<20-16384))
		}
	}
	return out
}

// recordsFor gives a batch of size bytes a plausible record count (about 200 bytes a record).
func recordsFor(size int32) int64 { return int64(size)/200 + 1 }

func sumSizes(sizes []int32) int64 {
	var s int64
	for _, v := range sizes {
		s += int64(v)
	}
	return s
}

var sink int64

// BenchmarkExactStats measures the exact lookup-cost statistics (every offset of every
// segment) over pre-generated batch sizes, interval 4096, 1 GiB segments, single-batch
// appends: through StatStream (the fast path) and through the reference Log. It reports
// batches/s and the ratio to a bare loop that only sums the same sizes (x-floor).
func BenchmarkExactStats(b *testing.B) {
	for _, n := range []int{1 << 20, 16 << 20, 64 << 20} {
		b.Run(fmt.Sprintf("stream/batches=%dM", n>>20), func(b *testing.B) {
			if testing.Short() && n > 1<<20 {
				b.Skip("large input")
			}
			sizes := mixedSizes(n, 1)
			records := make([]int32, n)
			for i, s := range sizes {
				records[i] = int32(recordsFor(s))
			}
			cfg := DefaultConfig()
			var floor time.Duration
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				start := time.Now()
				sink += sumSizes(sizes)
				floor += time.Since(start)
				b.StartTimer()
				st, err := NewStatStream(cfg, 0, false, nil)
				if err != nil {
					b.Fatal(err)
				}
				st.AddBatches(sizes, records, nil)
				sink += st.Close().TotalScanBytes
			}
			elapsed := b.Elapsed().Seconds()
			total := float64(n) * float64(b.N)
			b.ReportMetric(total/elapsed, "batches/s")
			b.ReportMetric(elapsed/floor.Seconds(), "x-floor")
			b.ReportMetric(total/floor.Seconds(), "floor-batches/s")
		})
	}
	for _, n := range []int{1 << 20} {
		b.Run(fmt.Sprintf("log/batches=%dM", n>>20), func(b *testing.B) {
			if testing.Short() && n > 1<<20 {
				b.Skip("large input")
			}
			sizes := mixedSizes(n, 1)
			cfg := DefaultConfig()
			var floor time.Duration
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				start := time.Now()
				sink += sumSizes(sizes)
				floor += time.Since(start)
				b.StartTimer()
				l, err := NewLog(cfg, PerBatch, LogOptions{})
				if err != nil {
					b.Fatal(err)
				}
				for _, s := range sizes {
					if err := l.Append(Batch{Records: recordsFor(s), Bytes: int64(s), MaxTimestamp: NoTimestamp}); err != nil {
						b.Fatal(err)
					}
				}
				sink += l.Scan().TotalScanBytes
			}
			elapsed := b.Elapsed().Seconds()
			total := float64(n) * float64(b.N)
			b.ReportMetric(total/elapsed, "batches/s")
			b.ReportMetric(elapsed/floor.Seconds(), "x-floor")
			b.ReportMetric(total/floor.Seconds(), "floor-batches/s")
		})
	}
}

// BenchmarkStreamedStatsHeap streams 64 M batches through a log that keeps no segments and
// reports the peak live heap: the statistics need no per-offset or per-rolled-batch memory.
func BenchmarkStreamedStatsHeap(b *testing.B) {
	const n = 64 << 20
	if testing.Short() {
		b.Skip("large input")
	}
	for b.Loop() {
		runtime.GC()
		var ms runtime.MemStats
		var peak uint64
		r := rand.New(rand.NewPCG(3, 3))
		l, err := NewStatStream(DefaultConfig(), 0, true, nil)
		if err != nil {
			b.Fatal(err)
		}
		for i := range n {
			size := int64(61 + r.IntN(32768))
			l.Add(size, size/200+1, int64(i))
			if i%(1<<20) == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
		sink += l.Scan().Lookups
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(n), "batches")
	}
}

// BenchmarkPhase1Lookup measures Kafka's warm-section search on a full default-size offset
// index (1,310,720 entries) for random targets.
func BenchmarkPhase1Lookup(b *testing.B) {
	x, err := NewOffsetIndex(0, DefaultSegmentIndexBytes)
	if err != nil {
		b.Fatal(err)
	}
	for i := int64(0); i < int64(x.MaxEntries()); i++ {
		if err := x.Append(79*i+78, 16350*i); err != nil {
			b.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(5, 5))
	targets := make([]int64, 1<<16)
	for i := range targets {
		targets[i] = r.Int64N(79 * int64(x.MaxEntries()))
	}
	b.Run("random", func(b *testing.B) {
		i := 0
		for b.Loop() {
			sink += x.Lookup(targets[i&(len(targets)-1)]).Position
			i++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
	})
	b.Run("tail", func(b *testing.B) {
		i := 0
		last := x.LastOffset()
		for b.Loop() {
			sink += x.Lookup(last - int64(i&1023)*79).Position
			i++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
	})
}
