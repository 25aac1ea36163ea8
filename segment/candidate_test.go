package segment_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"testing"

	"kidx/segment"
	"kidx/segment/vfs"
)

// followerOverflowRun is issue 23's reproduction (docs/kafka-hazards.md) as the follower's
// appends reach the file-backed log: segment.index.bytes 4096 (offset index 512 slots, time
// index 341, full at 340), index.interval.bytes 4096, one-record batches of 5070 bytes with
// timestamps 1, 2, 3, ... (offset + 1); fetches of 206 batches, a clean restart, 135 batches
// (up to the leader's segment end at 341), 206 batches, then one more batch. The same sequence
// is testdata/scenarios/follower-overflow.txt on the model.
func followerOverflowRun(t *testing.T, c segment.Candidate) (*vfs.MemFS, *segment.Log, []*segment.Event) {
	t.Helper()
	fsys := vfs.NewMemFS()
	cfg := segment.Config{IndexIntervalBytes: 4096, SegmentBytes: 1 << 30, SegmentIndexBytes: 4096, Candidate: c}
	l, err := segment.CreateLogFS(fsys, "/p", cfg, segment.PerBatch, 0)
	if err != nil {
		t.Fatal(err)
	}
	fetch := func(n int) *segment.Event {
		specs := make([]segment.BatchSpec, n)
		for i := range specs {
			specs[i] = segment.BatchSpec{Records: 1, Bytes: 5070, MaxTimestamp: l.NextOffset() + int64(i) + 1}
		}
		ev, err := l.AppendSpecs(specs)
		if err != nil && !errors.Is(err, segment.ErrLogFailed) {
			t.Fatal(err)
		}
		return ev
	}
	var evs []*segment.Event
	evs = append(evs, fetch(206))
	if err := l.Restart(); err != nil {
		t.Fatal(err)
	}
	evs = append(evs, fetch(135), fetch(206), fetch(1))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return fsys, l, evs
}

// indexFile returns a closed segment's file's bytes.
func indexFile(t *testing.T, fsys *vfs.MemFS, base int64, suffix string) []byte {
	t.Helper()
	b, err := fsys.ReadFileShared(fmt.Sprintf("/p/%020d%s", base, suffix))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Without a candidate the third fetch throws from TimeIndex.maybeAppend with 340 time entries,
// as Kafka 4.1's UnifiedLog.appendAsFollower did (issue 23).
func TestFollowerOverflowAsReleased(t *testing.T) {
	_, l, evs := followerOverflowRun(t, segment.Candidate{})
	if evs[2] == nil || evs[2].Kind != segment.EventTimeIndexOverflow || evs[2].Step != 3 ||
		evs[2].Message != "Attempt to append to a full time index (size = 340)." {
		t.Fatalf("third fetch: event %+v, want the time-index overflow at step 3 with size = 340", evs[2])
	}
	if !l.Failed() || !slices.Equal(l.SegmentBaseOffsets(), []int64{0}) {
		t.Errorf("failed %v, segments %v; want a failed log of one segment", l.Failed(), l.SegmentBaseOffsets())
	}
}

// Candidate fix (a) (docs/kafka-hazards.md §6): the third fetch finds 1 free time slot for 206
// batches and rolls first, at 341; segment 0 keeps its 339 entries of each index (entries at
// 1-205 and 207-340; the roll adds no final time entry, batch 340's timestamp being the last
// entry's already), and nothing throws. Segment 341 indexes 342-547: 206 entries.
func TestFollowerOverflowFixA(t *testing.T) {
	fsys, l, evs := followerOverflowRun(t, segment.Candidate{RollWhenAppendLacksIndexRoom: true})
	for i, ev := range evs {
		if ev != nil {
			t.Fatalf("fetch %d: event %+v, want none", i, ev)
		}
	}
	if got := l.SegmentBaseOffsets(); !slices.Equal(got, []int64{0, 341}) {
		t.Fatalf("segments %v, want [0 341]", got)
	}
	for _, c := range []struct {
		base    int64
		suffix  string
		entries int
		size    int
	}{{0, segment.IndexSuffix, 339, 8}, {0, segment.TimeIndexSuffix, 339, 12}, {341, segment.IndexSuffix, 206, 8}, {341, segment.TimeIndexSuffix, 206, 12}} {
		if got := len(indexFile(t, fsys, c.base, c.suffix)); got != c.entries*c.size {
			t.Errorf("segment %d %s: %d bytes, want %d entries (%d bytes)", c.base, c.suffix, got, c.entries, c.entries*c.size)
		}
	}
}

// Candidate fix (b): the third fetch does not roll (339 time entries, not full); batch 341
// takes the 340th entry of each index, 342-546 get none (the time index is full), nothing
// throws, and the fourth fetch rolls (time index full) at 547. Segment 0's close adds the
// reserved time slot's entry (547, 546): 340 offset entries, the last (341, 341*5070 =
// 1,728,870), and 341 time entries.
func TestFollowerOverflowFixB(t *testing.T) {
	fsys, l, evs := followerOverflowRun(t, segment.Candidate{SkipEntryWhenIndexFull: true})
	for i, ev := range evs {
		if ev != nil {
			t.Fatalf("fetch %d: event %+v, want none", i, ev)
		}
	}
	if got := l.SegmentBaseOffsets(); !slices.Equal(got, []int64{0, 547}) {
		t.Fatalf("segments %v, want [0 547]", got)
	}
	idx := indexFile(t, fsys, 0, segment.IndexSuffix)
	tidx := indexFile(t, fsys, 0, segment.TimeIndexSuffix)
	if len(idx) != 340*8 || len(tidx) != 341*12 {
		t.Fatalf("segment 0: %d index bytes and %d time-index bytes, want 340*8 = 2720 and 341*12 = 4092", len(idx), len(tidx))
	}
	last := idx[len(idx)-8:]
	if off, pos := binary.BigEndian.Uint32(last), binary.BigEndian.Uint32(last[4:]); off != 341 || pos != 1728870 {
		t.Errorf("last offset entry (%d, %d), want (341, 1728870)", off, pos)
	}
	lastT := tidx[len(tidx)-12:]
	if ts, off := binary.BigEndian.Uint64(lastT), binary.BigEndian.Uint32(lastT[8:]); ts != 547 || off != 546 {
		t.Errorf("last time entry (%d, %d), want (547, 546)", ts, off)
	}
	// The 340th time entry is batch 341's: (342, 341).
	if e := tidx[339*12 : 340*12]; binary.BigEndian.Uint64(e) != 342 || binary.BigEndian.Uint32(e[8:]) != 341 {
		t.Errorf("time entry 340 (%d, %d), want (342, 341)", binary.BigEndian.Uint64(e), binary.BigEndian.Uint32(e[8:]))
	}
}

// A one-batch append under fix (a) rolls exactly when isFull does, so a leader is unchanged.
// segment.index.bytes 24: 3 offset slots, 2 time slots (full at 1 entry). Interval 0, batches
// of 100 bytes: batch 0 gets no entry, batch 1 takes the only usable time slot, and batch 2's
// append rolls (time index full) with and without (a); a 2-batch append after batch 0 rolls
// under (a) only.
func TestFixAOneBatchUnchanged(t *testing.T) {
	run := func(c segment.Candidate, appends ...int) []int64 {
		t.Helper()
		cfg := segment.Config{IndexIntervalBytes: 0, SegmentBytes: 1 << 20, SegmentIndexBytes: 24, Candidate: c}
		l, err := segment.CreateLogFS(vfs.NewMemFS(), "/p", cfg, segment.PerBatch, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range appends {
			specs := make([]segment.BatchSpec, n)
			for i := range specs {
				specs[i] = segment.BatchSpec{Records: 1, Bytes: 100, MaxTimestamp: l.NextOffset() + int64(i) + 1}
			}
			if ev, err := l.AppendSpecs(specs); ev != nil || err != nil {
				t.Fatalf("%+v: append of %d: %+v, %v", c, n, ev, err)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		return l.SegmentBaseOffsets()
	}
	a := segment.Candidate{RollWhenAppendLacksIndexRoom: true}
	for _, c := range []segment.Candidate{{}, a} {
		if got := run(c, 1, 1, 1); !slices.Equal(got, []int64{0, 2}) {
			t.Errorf("%+v, three single-batch appends: segments %v, want [0 2]", c, got)
		}
	}
	// Batch 0, then an append of 2: (a) sees 1 free time slot < 2 batches and rolls at 1.
	if got := run(a, 1, 2); !slices.Equal(got, []int64{0, 1}) {
		t.Errorf("(a), 1 then 2 batches: segments %v, want [0 1]", got)
	}
}
