package segment_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kidx/segment"
)

// BenchmarkClean: one clean step over four rolled 64 MiB segments of 16 KiB batches (256 MiB,
// 16,384 batches) on real files, keeping every batch (the copy path: chunk reads, one append per
// chunk, the swap) or dropping every other one. Reported: MB/s of source read, and the time
// against a plain copy of the same .log files with an fsync each (copy-ratio). docs/segment.md.
func BenchmarkClean(b *testing.B) {
	for _, mode := range []string{"keep-all", "drop-half"} {
		b.Run(mode, func(b *testing.B) {
			const segBytes, batch, perSeg, rolled = 64 << 20, 16384, 4096, 4
			cfg := segment.DefaultConfig()
			cfg.SegmentBytes = segBytes
			var total time.Duration
			var copyTotal time.Duration
			var read int64
			for range b.N {
				b.StopTimer()
				dir := filepath.Join(b.TempDir(), "bench-0")
				l, err := segment.CreateLog(dir, cfg, segment.PerBatch, 0)
				if err != nil {
					b.Fatal(err)
				}
				var drop []int64
				for i := range rolled*perSeg + 1 {
					if _, err := l.AppendSpecs([]segment.BatchSpec{{Records: 79, Bytes: batch, MaxTimestamp: int64(i)}}); err != nil {
						b.Fatal(err)
					}
					if mode == "drop-half" && i%2 == 1 && i < rolled*perSeg {
						drop = append(drop, int64(i)*79)
					}
				}
				start := time.Now()
				if err := copyLogs(dir, l.SegmentBaseOffsets()[:rolled]); err != nil {
					b.Fatal(err)
				}
				copyTotal += time.Since(start)
				b.StartTimer()
				start = time.Now()
				if ev, err := l.Clean(segment.CleanSpec{Drop: drop}); ev != nil || err != nil {
					b.Fatal(ev, err)
				}
				total += time.Since(start)
				b.StopTimer()
				read += rolled * perSeg * batch
				if err := l.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(read)/total.Seconds()/1e6, "MB/s")
			b.ReportMetric(total.Seconds()/copyTotal.Seconds(), "copy-ratio")
		})
	}
}

// copyLogs copies the segments' .log files to new files and syncs each: the floor a clean that
// keeps everything cannot beat.
func copyLogs(dir string, bases []int64) error {
	for _, base := range bases {
		src, err := os.Open(filepath.Join(dir, segment.FilenamePrefixFromOffset(base)+segment.LogSuffix))
		if err != nil {
			return err
		}
		dst, err := os.Create(src.Name() + ".copy")
		if err != nil {
			src.Close()
			return err
		}
		_, err = io.Copy(dst, src)
		if err == nil {
			err = dst.Sync()
		}
		src.Close()
		dst.Close()
		os.Remove(dst.Name())
		if err != nil {
			return err
		}
	}
	return nil
}
