package logdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/segment"
	"kidx/segment/vfs"
)

// followerFiles writes, with the single-log file writer, what a follower is left with after
// issue 23's overflow, scaled down: index.interval.bytes 4096, segment.index.bytes 120 (the
// offset index holds 120/8 = 15 entries; the time index has 120/12 = 10 slots and is full at
// 9, TimeIndex.isFull), one-record batches of 5070 bytes with growing timestamps. Chunk 1:
// batches 0-5 (entries at 1-5: every batch but the first, 5070 > 4096); a clean restart (the
// counter starts at 0); chunk 2: batches 6-9 (6 gets none, 7-9 do: 8 entries); chunk 3:
// batches 10-15 in one append: shouldRoll sees 8 time entries (not full), batch 10 takes the
// 9th (full), batch 11's offset entry is appended (the 10th) and its time entry throws
// "Attempt to append to a full time index (size = 9)". Batches 12-15 are in the .log,
// unindexed. closed: the broker then shut down cleanly (LogSegment.close fills the kept time
// slot and trims both indexes); else the files are as the running (or crashed) broker left
// them, the indexes preallocated.
func followerFiles(t *testing.T, rule segment.Rule, closed bool) (dir string, failed bool) {
	t.Helper()
	mem := vfs.NewMemFS()
	cfg := segment.Config{IndexIntervalBytes: 4096, SegmentBytes: 1 << 30, SegmentIndexBytes: 120}
	l, err := segment.CreateLogFS(mem, "/p/t-0", cfg, rule, 0)
	if err != nil {
		t.Fatal(err)
	}
	ts := int64(1_700_000_000_000)
	chunk := func(n int) {
		var specs []segment.BatchSpec
		for range n {
			ts++
			specs = append(specs, segment.BatchSpec{Records: 1, Bytes: 5070, MaxTimestamp: ts})
		}
		if _, err := l.AppendSpecs(specs); err != nil {
			t.Fatal(err)
		}
	}
	chunk(6)
	if err := l.Restart(); err != nil {
		t.Fatal(err)
	}
	chunk(4)
	chunk(6)
	failed = l.Failed()
	if closed {
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	dir = filepath.Join(t.TempDir(), "t-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyInto(t, mem, "/p/t-0", dir)
	return dir, failed
}

// copyInto copies a MemFS directory's files into dir.
func copyInto(t *testing.T, mem *vfs.MemFS, from, dir string) {
	t.Helper()
	names, err := mem.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := vfs.ReadFile(mem, from+"/"+n.Name())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// overflowFindings verifies dir and returns its follower-index-overflow findings and the
// report's overlap findings.
func overflowFindings(t *testing.T, dir string, opts VerifyOptions) (overflow, overlaps []Finding) {
	t.Helper()
	r, err := Verify([]string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		switch f.Check {
		case CheckFollowerIndexOverflow:
			overflow = append(overflow, f)
		case CheckSegmentOverlap:
			overlaps = append(overlaps, f)
		}
	}
	return overflow, overlaps
}

func mustSay(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

// Issue 23, verify recognizes the aftermath: the follower's files as the running (or crashed)
// broker left them after the throw, by hand (followerFiles): offset entries at batches 1-5 and
// 7-11 (10 of 15 slots, the last, slot 9, naming offset 11 at byte 11 × 5070 = 55770), time
// entries at 1-5 and 7-10 (9 of 10 slots: full); the .log goes on for batches 12-15, 15 × 5070
// - 55770 = 20280 bytes, more than the largest interval the entries allow (their closest gap
// is 5070: 5069). The finding is on the .timeindex at the slot the throw wanted, 9 × 12 =
// 108. The remedy, index.interval.bytes taken as 4096 (the default, below 5069) and
// segment.bytes as 1 GiB: 3144984 (docs/kafka-hazards.md §4). Kafka 4.0.0's rule on the same
// appends makes one entry per append: no full index, no finding.
func TestVerifyFollowerOverflowLive(t *testing.T) {
	dir, failed := followerFiles(t, segment.PerBatch, false)
	if !failed {
		t.Fatal("the writer did not throw: the fixture is not the follower's")
	}
	got, _ := overflowFindings(t, dir, VerifyOptions{})
	if len(got) != 1 {
		t.Fatalf("%d follower-index-overflow findings, want 1: %v", len(got), got)
	}
	f := got[0]
	if f.Severity != SeverityError || filepath.Base(f.File) != "00000000000000000000.timeindex" || f.Pos != 108 {
		t.Errorf("finding %v: want an error at 00000000000000000000.timeindex:108", f)
	}
	mustSay(t, "the finding", f.Message,
		"the time index is full: 9 entries, as many as its preallocated size allows (10 slots",
		"the offset index's last entry (slot 9, offset 11 at byte 55770 of 00000000000000000000.log) has no time entry",
		"goes on for 4 batches (20280 bytes) past the last entry's batch at byte 55770, more than any index.interval.bytes the entries allow (at most 5069)",
		`threw "Attempt to append to a full time index (size = 9)."`,
		"the replica fetcher marked the partition failed",
		"raise segment.index.bytes to at least 3144984 (for index.interval.bytes=4096 and segment.bytes=1073741824")

	dir, failed = followerFiles(t, segment.PerAppend, false)
	if failed {
		t.Fatal("Kafka 4.0.0's rule threw")
	}
	if got, _ := overflowFindings(t, dir, VerifyOptions{}); len(got) != 0 {
		t.Errorf("the per-append (4.0.0) equivalent has follower-index-overflow findings: %v", got)
	}
}

// After a clean shutdown LogSegment.close fills the time index's kept slot (its 10th entry,
// with skipFullCheck) and trims both indexes, so the files no longer show their capacity nor
// the unpaired offset entry: only segment.index.bytes (--config) tells the time index is
// full, and the tail past the last entry remains. Per-append releases write that for a
// follower's last multi-batch append without a throw, so with the eras the files allow the
// finding is info; judged as a per-batch release (--kafka-version 4.1.0) it is the error.
func TestVerifyFollowerOverflowClosed(t *testing.T) {
	dir, _ := followerFiles(t, segment.PerBatch, true)
	if got, _ := overflowFindings(t, dir, VerifyOptions{}); len(got) != 0 {
		t.Errorf("trimmed indexes with no segment.index.bytes given: %v", got)
	}
	got, _ := overflowFindings(t, dir, VerifyOptions{SegmentIndexBytes: 120})
	if len(got) != 1 || got[0].Severity != SeverityInfo || !strings.Contains(got[0].Explanation, "per-append release") {
		t.Fatalf("with segment.index.bytes=120: %v, want one info finding", got)
	}
	mustSay(t, "the finding", got[0].Message, "the time index is full: 10 entries, as many as segment.index.bytes=120 (--config) allows (10 slots")
	perBatch := EraForRule(segment.PerBatch)
	got, _ = overflowFindings(t, dir, VerifyOptions{SegmentIndexBytes: 120, SegmentBytes: 1 << 30, Era: &perBatch, IndexIntervalBytes: 4096, HaveInterval: true})
	if len(got) != 1 || got[0].Severity != SeverityError {
		t.Fatalf("judged as per-batch: %v, want one error", got)
	}
	mustSay(t, "the finding", got[0].Message, "more than index.interval.bytes=4096 leaves unindexed",
		"raise segment.index.bytes to at least 3144984 (for index.interval.bytes=4096 and segment.bytes=1073741824)")
}

// If fetching resumed without a restart, the next append rolled at the old log end offset,
// the failed chunk's first offset (10), inside the failed segment's offsets 0-15. By hand:
// the failed segment rolled (trimmed, its time index's kept slot filled: 10 entries), the new
// segment 10 is live with segment.index.bytes 120, which gives the older one its capacity.
// The overlap's finding names the cause.
func TestVerifyFollowerOverflowOverlap(t *testing.T) {
	dir, _ := followerFiles(t, segment.PerBatch, true)
	mem := vfs.NewMemFS()
	l, err := segment.CreateLogFS(mem, "/p/t-0", segment.Config{IndexIntervalBytes: 4096, SegmentBytes: 1 << 30, SegmentIndexBytes: 120}, segment.PerBatch, 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.AppendSpecs([]segment.BatchSpec{{Records: 1, Bytes: 5070, MaxTimestamp: 1_700_000_000_011}, {Records: 1, Bytes: 5070, MaxTimestamp: 1_700_000_000_012}}); err != nil {
		t.Fatal(err)
	}
	copyInto(t, mem, "/p/t-0", dir)
	got, overlaps := overflowFindings(t, dir, VerifyOptions{})
	if len(overlaps) != 1 {
		t.Fatalf("%d overlap findings, want 1", len(overlaps))
	}
	mustSay(t, "the overlap", overlaps[0].Message, "the batch at byte 50700 holds offsets 10 to 10",
		"likely cause: the follower index overflow", "rolled a new segment at that old log end offset")
	if len(got) != 1 || got[0].Severity != SeverityInfo || filepath.Base(got[0].File) != "00000000000000000000.timeindex" {
		t.Errorf("the failed segment's finding: %v", got)
	}
}

// A leader's segments fill their indexes and roll (one batch per append, shouldRoll before
// each): full indexes with nothing after their last entry are healthy, live or trimmed.
func TestVerifyFollowerOverflowNotOnLeaderRolls(t *testing.T) {
	mem := vfs.NewMemFS()
	l, err := segment.CreateLogFS(mem, "/p/t-0", segment.Config{IndexIntervalBytes: 4096, SegmentBytes: 1 << 30, SegmentIndexBytes: 120}, segment.PerBatch, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 25 { // 10 batches a segment (9 time entries, full): segments 0, 10, and 20 (live, 5 batches)
		if _, err := l.AppendSpecs([]segment.BatchSpec{{Records: 1, Bytes: 5070, MaxTimestamp: 1_700_000_000_000 + int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if got := l.SegmentBaseOffsets(); len(got) != 3 || got[1] != 10 || got[2] != 20 {
		t.Fatalf("segments %v, want 0, 10, 20", got)
	}
	dir := t.TempDir()
	copyInto(t, mem, "/p/t-0", dir)
	if got, _ := overflowFindings(t, dir, VerifyOptions{}); len(got) != 0 {
		t.Errorf("a leader's index-full rolls: %v", got)
	}
	if got, _ := overflowFindings(t, dir, VerifyOptions{SegmentIndexBytes: 120}); len(got) != 0 {
		t.Errorf("a leader's index-full rolls, segment.index.bytes given: %v", got)
	}
}
