package model

import (
	"math"
	"slices"
	"testing"
)

// Scenarios of Kafka's LogSegmentTest and UnifiedLogTest (docs/kafka.md §11), the worked example
// of docs/kafka.md §2.3, and the roll rules of docs/kafka.md §8. Kafka's LogSegmentTest builds v1
// messages of 39 bytes; the model is of v2 batches (61 bytes at least), so those tests run
// with 78-byte batches and the interval scaled the same way (2*size-1), which keeps every
// comparison the Kafka test makes.

func newLog(t *testing.T, cfg Config, rule AppendRule, start int64) *Log {
	t.Helper()
	l, err := NewLog(cfg, rule, LogOptions{StartOffset: start, KeepSegments: true})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func appendOK(t *testing.T, l *Log, batches ...Batch) {
	t.Helper()
	if err := l.Append(batches...); err != nil {
		t.Fatal(err)
	}
}

func ones(n int, size int64, ts func(i int) int64) []Batch {
	out := make([]Batch, n)
	for i := range out {
		out[i] = Batch{Records: 1, Bytes: size, MaxTimestamp: ts(i)}
	}
	return out
}

func offsets(entries []OffsetPosition) []int64 {
	var out []int64
	for _, e := range entries {
		out = append(out, e.Offset)
	}
	return out
}

// LogSegmentTest.testReloadLargestTimestampAndNextOffsetAfterTruncation: interval 2*size-1,
// 30 single-message appends at offsets 40..69 with timestamp 10*offset give 14 time-index
// entries (appends #3, 5, ..., 29); truncateTo(41) then leaves none.
func TestLogSegmentReloadLargestTimestamp14Entries(t *testing.T) {
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes = 2*78 - 1
	l := newLog(t, cfg, PerBatch, 40)
	for _, b := range ones(30, 78, func(i int) int64 { return int64(40+i) * 10 }) {
		appendOK(t, l, b)
	}
	ti := l.Active().TimeIndex()
	if ti.Entries() != 14 {
		t.Fatalf("time index entries %d, want 14", ti.Entries())
	}
	if first, _ := ti.Entry(0); first != (TimestampOffset{420, 42}) {
		t.Errorf("first entry %v: append #3 (offset 42) is the first indexed", first)
	}
	ti.TruncateTo(41)
	if ti.Entries() != 0 {
		t.Fatalf("after truncateTo(41): %d entries", ti.Entries())
	}
}

// LogSegmentTest.testFindOffsetByTimestamp: offsets 40..49, timestamp 10*offset.
func TestLogSegmentFindOffsetByTimestamp(t *testing.T) {
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes = 2*78 - 1
	l := newLog(t, cfg, PerBatch, 40)
	for _, b := range ones(10, 78, func(i int) int64 { return int64(40+i) * 10 }) {
		appendOK(t, l, b)
	}
	if l.Active().MaxTimestamp() != 490 {
		t.Fatalf("largest timestamp %d, want 490", l.Active().MaxTimestamp())
	}
	for _, c := range []struct{ ts, want int64 }{{420, 42}, {421, 43}, {430, 43}, {431, 44}, {491, -1}, {401, 41}, {399, 40}} {
		r, ok := l.Active().LookupTimestamp(c.ts)
		got := int64(-1)
		if ok {
			got = r.Hit.BaseOffset // one record per batch: the batch is the record
		}
		if got != c.want {
			t.Errorf("find(%d) = %d, want %d", c.ts, got, c.want)
		}
	}
}

// LogSegmentTest.testIndexForMultipleBatchesInMemoryRecords (KAFKA-806): interval 1,
// append [b0 ts0, b1 ts1] then [b2 ts2] → offset entries for 1 and 2; time entries (1,1),
// (2,2).
func TestLogSegmentIndexForMultipleBatchesInMemoryRecords(t *testing.T) {
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes = 1
	l := newLog(t, cfg, PerBatch, 0)
	appendOK(t, l, Batch{Records: 1, Bytes: 78, MaxTimestamp: 0}, Batch{Records: 1, Bytes: 78, MaxTimestamp: 1})
	appendOK(t, l, Batch{Records: 1, Bytes: 78, MaxTimestamp: 2})
	s := l.Active()
	if got := s.OffsetIndex().All(); !slices.Equal(got, []OffsetPosition{{1, 78}, {2, 156}}) {
		t.Errorf("offset index %v", got)
	}
	if got := s.TimeIndex().All(); !slices.Equal(got, []TimestampOffset{{1, 1}, {2, 2}}) {
		t.Errorf("time index %v", got)
	}
}

// LogSegmentTest.testNonMonotonicTimestampForMultipleBatchesInMemoryRecords: one append of
// batches with timestamps 1, 0, 2 → offset entries 1, 2; time entries (1,0), (2,2): the
// max-timestamp update comes before the index check.
func TestLogSegmentNonMonotonicTimestampForMultipleBatches(t *testing.T) {
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes = 1
	l := newLog(t, cfg, PerBatch, 0)
	appendOK(t, l, Batch{Records: 1, Bytes: 78, MaxTimestamp: 1}, Batch{Records: 1, Bytes: 78, MaxTimestamp: 0}, Batch{Records: 1, Bytes: 78, MaxTimestamp: 2})
	s := l.Active()
	if got := offsets(s.OffsetIndex().All()); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("offset entries %v", got)
	}
	if got := s.TimeIndex().All(); !slices.Equal(got, []TimestampOffset{{1, 0}, {2, 2}}) {
		t.Errorf("time index %v", got)
	}
}

// UnifiedLogTest.testIndexResizingAtTruncation (first half): segment = 10 × setSize,
// interval = setSize-1 → the rolled first segment's indexes are trimmed to 9 entries.
func TestUnifiedLogIndexTrimmedAtRoll(t *testing.T) {
	const setSize = 78
	cfg := DefaultConfig()
	cfg.SegmentBytes = 10 * setSize
	cfg.IndexIntervalBytes = setSize - 1
	l := newLog(t, cfg, PerBatch, 0)
	for _, b := range ones(11, setSize, func(i int) int64 { return int64(i + 1) }) {
		appendOK(t, l, b)
	}
	segs := l.Segments()
	if len(segs) != 2 {
		t.Fatalf("%d segments, want 2", len(segs))
	}
	first := segs[0]
	if first.OffsetIndex().MaxEntries() != 9 || first.TimeIndex().MaxEntries() != 9 {
		t.Fatalf("rolled segment maxEntries offset %d time %d, want 9 and 9",
			first.OffsetIndex().MaxEntries(), first.TimeIndex().MaxEntries())
	}
	// The active segment keeps its preallocated size.
	if segs[1].OffsetIndex().SizeInBytes() != DefaultSegmentIndexBytes {
		t.Errorf("active offset index %d bytes", segs[1].OffsetIndex().SizeInBytes())
	}
}

// UnifiedLogTest.testBuildTimeIndexWhenNotAssigningOffsets: 100 single-batch appends,
// interval 1 → 99 time-index entries, the last at start+99.
func TestUnifiedLogBuildTimeIndex99Entries(t *testing.T) {
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes = 1
	l := newLog(t, cfg, PerBatch, 0)
	const start = 1_700_000_000_000
	for _, b := range ones(100, 78, func(i int) int64 { return start + int64(i) }) {
		appendOK(t, l, b)
	}
	ti := l.Active().TimeIndex()
	last := ti.LastEntry()
	if ti.Entries() != 99 || last.Timestamp != start+99 {
		t.Fatalf("%d entries, last %v", ti.Entries(), last)
	}
}

// UnifiedLogTest.testSizeBasedLogRoll: segment = 10 × (setSize-1), 11 appends → 2 segments.
func TestUnifiedLogSizeBasedRoll(t *testing.T) {
	const setSize = 78
	cfg := DefaultConfig()
	cfg.SegmentBytes = 10 * (setSize - 1)
	l := newLog(t, cfg, PerBatch, 0)
	for _, b := range ones(11, setSize, func(int) int64 { return NoTimestamp }) {
		appendOK(t, l, b)
	}
	if n := len(l.Segments()); n != 2 {
		t.Fatalf("%d segments, want 2", n)
	}
}

// docs/kafka.md §2.3, the worked example: 78-byte one-record batches, interval 100, appends A1 =
// batches 0-4, A2 = 5-9, A3 = 10.
func workedExample(t *testing.T, rule AppendRule) *Log {
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes = 100
	l := newLog(t, cfg, rule, 0)
	noTs := func(int) int64 { return NoTimestamp }
	appendOK(t, l, ones(5, 78, noTs)...)
	appendOK(t, l, ones(5, 78, noTs)...)
	appendOK(t, l, ones(1, 78, noTs)...)
	return l
}

func TestWorkedExampleSection2_3(t *testing.T) {
	old := workedExample(t, PerAppend)
	if got := old.Active().OffsetIndex().All(); !slices.Equal(got, []OffsetPosition{{9, 390}, {10, 780}}) {
		t.Errorf("OLD rule: %v, want (9,390), (10,780)", got)
	}
	newRule := []OffsetPosition{{2, 156}, {4, 312}, {6, 468}, {8, 624}, {10, 780}}
	nw := workedExample(t, PerBatch)
	if got := nw.Active().OffsetIndex().All(); !slices.Equal(got, newRule) {
		t.Errorf("NEW rule: %v, want %v", got, newRule)
	}
	// recover() on the OLD file rebuilds the NEW index.
	if err := old.Recover(); err != nil {
		t.Fatal(err)
	}
	if got := old.Active().OffsetIndex().All(); !slices.Equal(got, newRule) {
		t.Errorf("recover of the OLD file: %v, want %v", got, newRule)
	}
	// Lookup of offset 7: OLD → start at byte 0, 8 hops; NEW → (6,468), 2 hops.
	if r, _ := workedExample(t, PerAppend).Lookup(7); r.Index.Position != 0 || r.Hops != 8 {
		t.Errorf("OLD lookup(7): %+v", r)
	}
	if r, _ := nw.Lookup(7); r.Index != (OffsetPosition{6, 468}) || r.Hops != 2 {
		t.Errorf("NEW lookup(7): %+v", r)
	}
	// Clean restart, then batches 11, 12, 13 at 858, 936, 1014: the counter restarts at 0,
	// so the next entry is (13, 1014); recover() of the same file gives (12, 936) instead.
	if err := nw.Restart(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		appendOK(t, nw, Batch{Records: 1, Bytes: 78, MaxTimestamp: NoTimestamp})
	}
	if got := nw.Active().OffsetIndex().All(); !slices.Equal(got, append(append([]OffsetPosition{}, newRule...), OffsetPosition{13, 1014})) {
		t.Errorf("after restart: %v", got)
	}
	if err := nw.Recover(); err != nil {
		t.Fatal(err)
	}
	if got := nw.Active().OffsetIndex().All(); !slices.Equal(got, append(append([]OffsetPosition{}, newRule...), OffsetPosition{12, 936})) {
		t.Errorf("after recover: %v", got)
	}
}

// docs/kafka.md §8, UnifiedLog.append: an append larger than segment.bytes is rejected before
// anything is written, even into an empty segment; exactly segment.bytes is accepted
// without a roll.
func TestOversizeAppendRejected(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SegmentBytes = 1000
	l := newLog(t, cfg, PerBatch, 0)
	appendOK(t, l, Batch{Records: 1, Bytes: 1001, MaxTimestamp: NoTimestamp})
	if ev := l.Events(); len(ev) != 1 || ev[0].Kind != EventRejected || ev[0].Step != 0 {
		t.Fatalf("events %+v", ev)
	}
	if l.NextOffset() != 0 || l.Active().Size() != 0 {
		t.Fatal("a rejected append must not assign offsets or write bytes")
	}
	appendOK(t, l, Batch{Records: 3, Bytes: 1000, MaxTimestamp: NoTimestamp})
	if len(l.Segments()) != 1 || l.Active().Size() != 1000 || l.NextOffset() != 3 {
		t.Fatalf("exactly segment.bytes: %d segments, size %d", len(l.Segments()), l.Active().Size())
	}
	// The size condition counts the whole append: 600 + 2×300 > 1000 rolls before writing.
	appendOK(t, l, Batch{Records: 1, Bytes: 61, MaxTimestamp: NoTimestamp})
	l2 := newLog(t, cfg, PerBatch, 0)
	appendOK(t, l2, Batch{Records: 1, Bytes: 600, MaxTimestamp: NoTimestamp})
	appendOK(t, l2, Batch{Records: 1, Bytes: 300, MaxTimestamp: NoTimestamp}, Batch{Records: 1, Bytes: 300, MaxTimestamp: NoTimestamp})
	if segs := l2.Segments(); len(segs) != 2 || segs[0].Size() != 600 || segs[0].RollReason() != RollSize {
		t.Fatalf("whole-append size roll: %d segments", len(segs))
	}
}

// docs/kafka.md §8 and §6: the time index is full one slot early (isFull = entries >=
// maxEntries-1), so with segment.index.bytes=24 (3 offset slots, 2 time slots) one entry
// fills the time index and the next append rolls.
func TestTimeIndexFullRollsOneSlotEarly(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SegmentIndexBytes = 24
	cfg.IndexIntervalBytes = 0
	l := newLog(t, cfg, PerBatch, 0)
	for _, b := range ones(3, 78, func(i int) int64 { return int64(i + 1) }) {
		appendOK(t, l, b)
	}
	segs := l.Segments()
	if len(segs) != 2 || segs[0].RollReason() != RollTimeIndexFull || segs[0].OffsetIndex().Entries() != 1 {
		t.Fatalf("%d segments, first rolled for %q with %d entries", len(segs), segs[0].RollReason(), segs[0].OffsetIndex().Entries())
	}
	// With timestamps absent the time index never fills and the offset index rolls at 3.
	l = newLog(t, cfg, PerBatch, 0)
	for _, b := range ones(5, 78, func(int) int64 { return NoTimestamp }) {
		appendOK(t, l, b)
	}
	if segs := l.Segments(); len(segs) != 2 || segs[0].RollReason() != RollOffsetIndexFull || segs[0].OffsetIndex().Entries() != 3 {
		t.Fatalf("offset-index-full roll: %+v", l.Summaries())
	}
}

// docs/kafka.md §8.4 and LogSegmentTest.testAppendForLogSegmentOffsetOverflowException: a
// segment rolls when the append's last offset would not fit a relative int32 offset.
func TestRelativeOffsetOverflowRolls(t *testing.T) {
	l := newLog(t, DefaultConfig(), PerBatch, 0)
	appendOK(t, l, Batch{Records: math.MaxInt32, Bytes: 100, MaxTimestamp: NoTimestamp}) // offsets 0 .. 2^31-2
	appendOK(t, l, Batch{Records: 1, Bytes: 100, MaxTimestamp: NoTimestamp})             // offset 2^31-1: relative 2^31-1 fits
	appendOK(t, l, Batch{Records: 1, Bytes: 100, MaxTimestamp: NoTimestamp})             // offset 2^31: does not
	segs := l.Segments()
	if len(segs) != 2 || segs[0].RollReason() != RollOffsetOutOfRange || segs[1].BaseOffset() != math.MaxInt32+1 {
		t.Fatalf("%+v", l.Summaries())
	}
}

// docs/kafka.md §2.4 and the golden case smallindex-per-batch: under the per-batch rule an
// append with several entries can overflow an index after shouldRoll's single check. The
// model records Kafka's exception at that step and stops, leaving the state before it.
func TestPerBatchMidAppendOverflow(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SegmentIndexBytes = 24 // 3 offset slots, 2 time slots (1 usable before the roll)
	cfg.IndexIntervalBytes = 0
	for _, rule := range []AppendRule{PerBatch, PerAppend} {
		l := newLog(t, cfg, rule, 0)
		noTs := func(int) int64 { return NoTimestamp }
		appendOK(t, l, ones(1, 78, noTs)...)
		appendOK(t, l, ones(4, 78, noTs)...) // per-batch: 4 entries into 3 slots
		ev := l.Events()
		if rule == PerAppend {
			if len(ev) != 0 || l.Active().OffsetIndex().Entries() != 1 {
				t.Fatalf("per-append: events %+v", ev)
			}
			continue
		}
		if len(ev) != 1 || ev[0].Kind != EventOffsetIndexFull || ev[0].Step != 1 ||
			ev[0].Message != "Attempt to append to a full index (size = 3)." {
			t.Fatalf("per-batch: events %+v", ev)
		}
		if !l.Stopped() || l.NextOffset() != 1 || l.Active().Size() != 78 || l.Active().OffsetIndex().Entries() != 0 {
			t.Fatalf("state after the overflow must be the state before the append")
		}
		if err := l.Append(ones(1, 78, noTs)...); err != ErrStopped {
			t.Fatalf("append after the overflow: %v", err)
		}
	}
}

// docs/kafka.md §8.2, LogSegment.shouldRoll / timeWaitedForRoll (UnifiedLogTest
// testTimeBasedLogRollDuringAppend): with record timestamps, a segment rolls when the
// append's max timestamp is more than segment.ms past the first batch's (strict >).
func TestTimeBasedRoll(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SegmentMs = 150
	for _, rule := range []AppendRule{PerBatch, PerAppend} {
		l := newLog(t, cfg, rule, 0)
		for _, ts := range []int64{1000, 1100, 1150, 1151, 1200} {
			appendOK(t, l, Batch{Records: 1, Bytes: 100, MaxTimestamp: ts})
		}
		segs := l.Segments()
		// 1150 - 1000 = 150 is not > 150; 1151 rolls; the new segment's first batch is 1151.
		if len(segs) != 2 || segs[0].RollReason() != RollTime || segs[1].BaseOffset() != 3 || len(segs[1].Batches()) != 2 {
			t.Fatalf("%s: %+v", rule, l.Summaries())
		}
	}
	// Without timestamps the rolling timestamp is unknown: Kafka would use the wall clock,
	// the model never rolls on time.
	l := newLog(t, cfg, PerBatch, 0)
	for range 5 {
		appendOK(t, l, Batch{Records: 1, Bytes: 100, MaxTimestamp: NoTimestamp})
	}
	if len(l.Segments()) != 1 {
		t.Fatalf("no timestamps: %d segments", len(l.Segments()))
	}
}

// FileRecords.searchForTimestamp returns the first record at or past the target of the first
// batch whose max timestamp reaches it; a 61-byte v2 batch (the empty batch the cleaner keeps,
// MemoryRecords.filterTo's RETAIN_EMPTY) holds no record, so the walk goes on to the next batch
// even when the empty batch's header names a max timestamp past the target.
func TestTimestampWalkPassesAnEmptyBatch(t *testing.T) {
	l := newLog(t, DefaultConfig(), PerBatch, 0)
	appendOK(t, l, Batch{Records: 1, Bytes: 78, MaxTimestamp: 10})
	appendOK(t, l, Batch{Records: 2, Bytes: RecordBatchOverhead, MaxTimestamp: 50})
	appendOK(t, l, Batch{Records: 1, Bytes: 78, MaxTimestamp: 40})
	for _, c := range []struct{ ts, want int64 }{{5, 0}, {11, 3}, {40, 3}, {41, -1}} {
		r, ok := l.Active().LookupTimestamp(c.ts)
		got := int64(-1)
		if ok {
			got = r.Hit.BaseOffset
		}
		if got != c.want {
			t.Errorf("find(%d) = %d, want %d (offsets 1-2 are the empty batch)", c.ts, got, c.want)
		}
	}
}
