package segmenttest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"kidx/segment"
)

// The lookup benchmark segment: 268 MB of 16 KiB batches, interval 4096,
// written by the writer once per process (guarded, so plain `go test`
// never builds it).
var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

const BenchBatch = 16384

func BenchSegment(b *testing.B) string {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "kidx-bench-")
		if benchErr != nil {
			return
		}
		l, err := segment.CreateLog(benchDir, segment.Config{IndexIntervalBytes: 4096, SegmentBytes: 1 << 30, SegmentIndexBytes: 10485760}, segment.PerBatch, 0)
		if err != nil {
			benchErr = err
			return
		}
		batch, _ := segment.BuildSizedBatch(0, 80, BenchBatch, 1700000000000)
		for i := 0; i < 268_000_000/BenchBatch; i++ {
			if _, err := l.Append(batch); err != nil {
				benchErr = err
				return
			}
		}
		benchErr = l.Close()
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return filepath.Join(benchDir, segment.FilenamePrefixFromOffset(0)+segment.LogSuffix)
}

// RemoveBenchSegment deletes the benchmark segment BenchSegment wrote (a TestMain's cleanup
// after a -bench run).
func RemoveBenchSegment() {
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
}
