package segmenttest

import (
	"path/filepath"
	"testing"

	"kidx/internal/testfiles"
	"kidx/segment"
)

func SeedWorkload(batches int) *segment.Workload {
	w := &segment.Workload{Config: segment.Config{IndexIntervalBytes: 4096, SegmentBytes: 65536, SegmentIndexBytes: 10485760}, Rule: segment.PerBatch}
	for i := range batches {
		w.Steps = append(w.Steps, segment.Step{Append: []segment.BatchSpec{{Records: 79, Bytes: 16350, MaxTimestamp: 1700000000000 + 79*int64(i)}}})
	}
	return w
}

func IndexPairs(t *testing.T, path string, base int64) [][2]int64 {
	t.Helper()
	var out [][2]int64
	for _, e := range segment.ParseOffsetIndex(testfiles.MustRead(t, path), base) {
		out = append(out, [2]int64{e.Offset, e.Position})
	}
	return out
}

// WriteRestartedSegment writes 20 one-record batches of 100 bytes under the per-batch rule
// with index.interval.bytes=100 and a clean restart before batch 10. By the rule (docs/kafka.md
// §2.2: entry iff the batch starts more than 100 bytes after the last entry or the counter's
// start): entries at batches 2, 4, 6, 8 (positions 200..800); the restart resets the counter
// at 1000, so batch 10 gets none and the next entries are at 12, 14, ... (1200, 1400, ...).
func WriteRestartedSegment(t *testing.T) string { return WriteWithRestart(t, 100, 20, 100, 10) }

// WriteWithRestart writes n one-record batches of size bytes under the per-batch rule with
// index.interval.bytes=interval, with a clean restart (Log.Restart: close, reopen) before
// batch restartAt, and returns the partition directory.
func WriteWithRestart(t *testing.T, interval int64, n, size int, restartAt int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "topic-0")
	cfg := segment.DefaultConfig()
	cfg.IndexIntervalBytes = interval
	l, err := segment.CreateLog(dir, cfg, segment.PerBatch, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < int64(n); i++ {
		if i == restartAt {
			if err := l.Restart(); err != nil {
				t.Fatal(err)
			}
		}
		AppendSized(t, l, i, 1, size, 1700000000000+i)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// AppendSized appends one batch of segment.BuildSizedBatch(base, records, size, maxTimestamp)
// to l, as one append; a failure fails t.
func AppendSized(t testing.TB, l *segment.Log, base int64, records, size int, maxTimestamp int64) {
	t.Helper()
	b, err := segment.BuildSizedBatch(base, records, size, maxTimestamp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(b); err != nil {
		t.Fatal(err)
	}
}
