package segment

import (
	"math/rand"
	"path/filepath"
	"testing"
	"time"

	"kidx/segment/vfs"
)

// The reader benchmarks' segment: 2,000 batches of 20 records and 1 KiB, each batch a
// millisecond after the last, index interval 4096 (an entry every 4 batches): about the
// differential harness's cases, scaled up so that a lookup is not dominated by opening.
const (
	readerBenchBatches = 2000
	readerBenchRecords = 20
	readerBenchTs0     = 1_700_000_000_000
)

// readerBenchSegment writes the segment with the writer into dir on fsys and returns its
// .log path.
func readerBenchSegment(b *testing.B, fsys vfs.FS, dir string) string {
	l, err := CreateLogFS(fsys, dir, Config{IndexIntervalBytes: 4096, SegmentBytes: 1 << 30, SegmentIndexBytes: 10485760}, PerBatch, 0)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < readerBenchBatches; i++ {
		batch, err := BuildSizedBatch(int64(i*readerBenchRecords), readerBenchRecords, 1024, readerBenchTs0+int64(i))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Append(batch); err != nil {
			b.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	return filepath.Join(dir, FilenamePrefixFromOffset(0)+LogSuffix)
}

// openReaderBench opens the segment in one of the reader modes: "memory" (OpenSegmentFS on a
// MemFS: the .log's bytes read in place), "mmap" and "pread" (OpenSegmentWith on real files).
func openReaderBench(b *testing.B, mode string) *Segment {
	var s *Segment
	var err error
	if mode == "memory" {
		m := vfs.NewMemFS()
		s, err = OpenSegmentFS(m, readerBenchSegment(b, m, "/p"))
	} else {
		access := AccessMmap
		if mode == "pread" {
			access = AccessPread
		}
		s, err = OpenSegmentWith(readerBenchSegment(b, vfs.OS, b.TempDir()), access)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

var readerBenchModes = []string{"memory", "mmap", "pread"}

// BenchmarkReaderLookup: Segment.Lookup of random offsets (index lookup, then a walk of batch
// headers: NextBatch per hop), in each access mode.
func BenchmarkReaderLookup(b *testing.B) {
	benchReaderLookups(b, func(s *Segment, rng *rand.Rand) (any, bool, error) {
		r, err := s.Lookup(rng.Int63n(readerBenchBatches * readerBenchRecords))
		return r, r.Found, err
	})
}

// BenchmarkReaderLookupTimestamp: Segment.LookupTimestamp of random batch timestamps (time
// index, offset index, header walk, then the hit batch's record timestamps: RecordTimestamps,
// in place for memory and mmap), in each access mode.
func BenchmarkReaderLookupTimestamp(b *testing.B) {
	benchReaderLookups(b, func(s *Segment, rng *rand.Rand) (any, bool, error) {
		r, err := s.LookupTimestamp(readerBenchTs0 + rng.Int63n(readerBenchBatches))
		return r, r.Found, err
	})
}

// benchReaderLookups runs lookup on the bench segment in each access mode, from one seed, and
// reports lookups per second; every lookup must find its batch.
func benchReaderLookups(b *testing.B, lookup func(*Segment, *rand.Rand) (any, bool, error)) {
	for _, mode := range readerBenchModes {
		b.Run(mode, func(b *testing.B) {
			s := openReaderBench(b, mode)
			rng := rand.New(rand.NewSource(1))
			n := 0
			start := time.Now()
			for b.Loop() {
				if r, found, err := lookup(s, rng); err != nil || !found {
					b.Fatal(r, err)
				}
				n++
			}
			b.ReportMetric(float64(n)/time.Since(start).Seconds(), "lookups/s")
		})
	}
}
