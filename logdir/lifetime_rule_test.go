package logdir

import (
	"path/filepath"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/segment"
)

// Issue 27 item 9: the check that places a restart nothing marks is pinned by a file worked by
// hand, not only by the real-data tests. Kafka checks before it counts (LogSegment.append:
// "if (bytesSinceLastIndexEntry > indexIntervalBytes)" then "bytesSinceLastIndexEntry +=
// sizeInBytes"; docs/kafka.md §2.2), so a batch exactly I bytes past the last entry gets no
// entry, and that proves nothing: only a batch MORE than I bytes past it without an entry
// proves the counter restarted.
//
// By hand, index.interval.bytes=200 under the per-batch rule, one batch per append, sizes 201,
// 201, 200, 100, 200 at positions 0, 201, 402, 602, 702:
//
//	batch 0 at 0:   counter 0,   not > 200: no entry; counter 201
//	batch 1 at 201: counter 201, > 200: entry (201); counter 0+201
//	batch 2 at 402: counter 201, > 200: entry (402); counter 0+200
//	batch 3 at 602: counter 200, not > 200: no entry; counter 300
//	batch 4 at 702: counter 300, > 200: entry (702)
//
// The entries are 201 apart at the closest, so the interval is known to be at most 200, and
// batch 3 sits exactly 200 past the entry at 402: no restart (a ">=" would place one there
// and call it a follower's truncation, exit 1, on a healthy file).
func TestUnmarkedRestartNeedsMoreThanTheInterval(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "topic-0")
	cfg := segment.DefaultConfig()
	cfg.IndexIntervalBytes = 200
	l, err := segment.CreateLog(dir, cfg, segment.PerBatch, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, size := range []int{201, 201, 200, 100, 200} {
		segmenttest.AppendSized(t, l, int64(i), 1, size, 1700000000000+int64(i))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got := segmenttest.IndexPairs(t, filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.IndexSuffix), 0)
	want := [][2]int64{{1, 201}, {2, 402}, {4, 702}}
	if len(got) != len(want) {
		t.Fatalf("the writer's entries %v, want %v (worked by hand above)", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("the writer's entries %v, want %v (worked by hand above)", got, want)
		}
	}
	// Restarts no shutdown marks are placed only under the per-batch rule (with several batches
	// per append an entry can be late without one), so the release is given: with the interval
	// (a misplaced restart is then a warning, exit 1) and without it (the entries bound it).
	perBatch, _ := EraByID("per-batch")
	for _, opts := range []VerifyOptions{{Era: &perBatch}, {Era: &perBatch, HaveInterval: true, IndexIntervalBytes: 200}} {
		rep, err := Verify([]string{dir}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if n := rep.Problems(); n != 0 {
			t.Errorf("interval given %v: %d problems on a healthy file: %v", opts.HaveInterval, n, rep.Findings)
		}
		for _, p := range rep.Partitions {
			for _, s := range p.Segments {
				if len(s.Restarts) != 0 {
					t.Errorf("interval given %v: restarts %v placed; batch 3 is exactly 200 bytes past the entry at 402, which Kafka's strict > does not index", opts.HaveInterval, s.Restarts)
				}
			}
		}
	}
}
