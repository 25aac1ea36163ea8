package segmenttest

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"kidx/segment"
)

// BogusIndexPartition writes, under dir, partition t-0 of issue 27's hostile case: four
// 5000-byte batches (a 20,000-byte .log) beside an .index of indexBytes random bytes (seeded,
// so every run judges the same file), and returns the partition's path.
func BogusIndexPartition(tb testing.TB, dir string, indexBytes int64) string {
	tb.Helper()
	part := filepath.Join(dir, "t-0")
	w := &segment.Workload{Config: segment.Config{IndexIntervalBytes: 4096, SegmentBytes: 1 << 20, SegmentIndexBytes: 10 << 20}, Rule: segment.PerBatch}
	for range 4 {
		w.Steps = append(w.Steps, segment.Step{Append: []segment.BatchSpec{{Records: 1, Bytes: 5000, MaxTimestamp: 1700000000000}}})
	}
	if _, err := segment.WriteWorkload(part, w); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(filepath.Join(part, segment.FilenamePrefixFromOffset(0)+segment.IndexSuffix))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rng := rand.NewChaCha8([32]byte{27})
	buf := make([]byte, 1<<20)
	for left := indexBytes; left > 0; left -= int64(len(buf)) {
		_, _ = rng.Read(buf)
		if _, err := f.Write(buf[:min(left, int64(len(buf)))]); err != nil {
			tb.Fatal(err)
		}
	}
	return part
}

// PeakRSSMB is the process's peak resident set so far (getrusage's ru_maxrss), in MB.
func PeakRSSMB() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024
}
