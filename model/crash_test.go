package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The crash step of docs/contract.md §3. Every expected value below is derived by hand from
// LogSegment.recover (docs/kafka.md §3: per batch, the max timestamp first, then the strict
// validBytes - lastIndexEntry > index.interval.bytes check before the batch is counted, the
// entry naming the batch's last offset at validBytes; the closing time-index entry with
// skipFullCheck, kept only when its timestamp is above the last entry's) and
// LogLoader.recoverLog (a segment whose recovery truncates bytes deletes every later one).
//
// The logs are built of one-record 78-byte batches with index.interval.bytes=100 (the worked
// example of docs/kafka.md §2.3): batch i holds offset i at position 78·i, with timestamp
// 1000+i.

func crashTs(i int) int64 { return 1000 + int64(i) }

// crashLog appends n single-batch appends (batch i at offset i) to a per-batch log.
func crashLog(t *testing.T, segmentBytes int64, n int) *Log {
	t.Helper()
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes = 100
	cfg.SegmentBytes = segmentBytes
	l := newLog(t, cfg, PerBatch, 0)
	for _, b := range ones(n, 78, crashTs) {
		appendOK(t, l, b)
	}
	return l
}

func crashOK(t *testing.T, l *Log, c Crash) {
	t.Helper()
	if err := l.Crash(c); err != nil {
		t.Fatal(err)
	}
	if l.Stopped() {
		t.Fatalf("the crash stopped the log: %+v", l.Events())
	}
}

type segmentWant struct {
	base, size, last int64
	index            []OffsetPosition
	time             []TimestampOffset
	// indexSlots, timeSlots: MaxEntries. The active segment's indexes are resized to
	// segment.index.bytes (10485760/8 = 1310720 and 10485760/12 = 873813 slots); a closed
	// segment's are trimmed to their entries.
	indexSlots, timeSlots int
	closed                bool
	rollReason            RollReason
}

func checkSegments(t *testing.T, l *Log, want []segmentWant) {
	t.Helper()
	segs := l.Segments()
	if len(segs) != len(want) {
		t.Fatalf("%d segments, want %d", len(segs), len(want))
	}
	for i, w := range want {
		s := segs[i]
		got := segmentWant{base: s.BaseOffset(), size: s.Size(), last: s.LastOffset(), index: s.OffsetIndex().All(),
			time: s.TimeIndex().All(), indexSlots: s.OffsetIndex().MaxEntries(), timeSlots: s.TimeIndex().MaxEntries(),
			closed: s.Closed(), rollReason: s.RollReason()}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("segment %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
	if active := segs[len(segs)-1]; l.Active() != active {
		t.Error("the last segment is not the active one")
	}
}

const (
	activeIndexSlots = 10485760 / OffsetIndexEntrySize
	activeTimeSlots  = 10485760 / TimeIndexEntrySize
)

// Issue 13: a cut inside the active segment's last batch. 11 batches (858 bytes); the crash
// keeps 800, which ends inside batch 10 (780-858): a torn tail. recover keeps batches 0-9 and
// rebuilds: b0 0 ≤ 100, b1 78, b2 156 > 100 → (2,156), b3 78, b4 156 → (4,312), b5 78,
// b6 → (6,468), b7 78, b8 → (8,624), b9 78 ≤ 100. Time entries at the same batches, then
// the closing (1009, 9). Offset 10 is lost; the log end is 10.
func TestCrashTornTailInActiveSegment(t *testing.T) {
	l := crashLog(t, 1<<20, 11)
	crashOK(t, l, Crash{RecoveryPoint: 0, Segments: []CrashSegment{{BaseOffset: 0, LogBytes: 800, IndexBytes: 40, TimeIndexBytes: 60}}})
	checkSegments(t, l, []segmentWant{{base: 0, size: 780, last: 9,
		index:      []OffsetPosition{{2, 156}, {4, 312}, {6, 468}, {8, 624}},
		time:       []TimestampOffset{{1002, 2}, {1004, 4}, {1006, 6}, {1008, 8}, {1009, 9}},
		indexSlots: activeIndexSlots, timeSlots: activeTimeSlots}})
	if l.NextOffset() != 10 {
		t.Errorf("log end %d, want 10", l.NextOffset())
	}
}

// Issue 13: a cut at a batch boundary that loses whole batches. 468 bytes = batches 0-5
// exactly: nothing torn (truncated 0 bytes). Rebuild: (2,156), (4,312); time (1002,2),
// (1004,4) and the closing (1005,5). Log end 6.
func TestCrashAtBoundaryLosesWholeBatches(t *testing.T) {
	l := crashLog(t, 1<<20, 11)
	crashOK(t, l, Crash{RecoveryPoint: 0, Segments: []CrashSegment{{BaseOffset: 0, LogBytes: 468}}})
	checkSegments(t, l, []segmentWant{{base: 0, size: 468, last: 5,
		index:      []OffsetPosition{{2, 156}, {4, 312}},
		time:       []TimestampOffset{{1002, 2}, {1004, 4}, {1005, 5}},
		indexSlots: activeIndexSlots, timeSlots: activeTimeSlots}})
	if l.NextOffset() != 6 {
		t.Errorf("log end %d, want 6", l.NextOffset())
	}
}

// rolledLog: segment.bytes=390 holds batches 0-4 (the 6th append sees 390 > 390 - 78 and
// rolls, docs/kafka.md §8), so segment 0 is 390 bytes and segment 5 holds batch 5 (78
// bytes). Segment 0 per-batch: (2,156), (4,312); time (1002,2), (1004,4); the closing
// entry (1004,4) at the roll adds nothing.
func rolledLog(t *testing.T) *Log { return crashLog(t, 390, 6) }

// Issue 13: a crash inside a roll, the recovery point still at the old segment's base (the
// flush that UnifiedLog.roll schedules had not run), both segments' files found. The old one
// torn at 350 (inside batch 4, 312-390): recover keeps batches 0-3 ((2,156); time (1002,2),
// closing (1003,3)) and truncates bytes, so segment 5 is deleted (LogLoader.recoverLog) and
// segment 0 is active again, with offsets 4 and 5 lost.
func TestCrashInsideRollTornOldSegmentDeletesNew(t *testing.T) {
	l := rolledLog(t)
	crashOK(t, l, Crash{RecoveryPoint: 0, Segments: []CrashSegment{{BaseOffset: 0, LogBytes: 350}, {BaseOffset: 5, LogBytes: 78}}})
	checkSegments(t, l, []segmentWant{{base: 0, size: 312, last: 3,
		index:      []OffsetPosition{{2, 156}},
		time:       []TimestampOffset{{1002, 2}, {1003, 3}},
		indexSlots: activeIndexSlots, timeSlots: activeTimeSlots}})
	if l.NextOffset() != 4 {
		t.Errorf("log end %d, want 4", l.NextOffset())
	}
}

// The same crash with the old segment intact (390 bytes): recover rebuilds (2,156), (4,312)
// and time (1002,2), (1004,4) (closing (1004,4) is not above the last), truncates nothing, and
// segment 0 stays closed and trimmed (2 and 2 slots, roll reason kept). Segment 5 is recovered
// too: batch 5 alone, 0 ≤ 100 so no offset entry, time only the closing (1005,5). Log end 6.
func TestCrashInsideRollIntactOldSegmentKeepsNew(t *testing.T) {
	l := rolledLog(t)
	crashOK(t, l, Crash{RecoveryPoint: 0, Segments: []CrashSegment{{BaseOffset: 0, LogBytes: 390}, {BaseOffset: 5, LogBytes: 78}}})
	checkSegments(t, l, []segmentWant{
		{base: 0, size: 390, last: 4, index: []OffsetPosition{{2, 156}, {4, 312}}, time: []TimestampOffset{{1002, 2}, {1004, 4}},
			indexSlots: 2, timeSlots: 2, closed: true, rollReason: RollSize},
		{base: 5, size: 78, last: 5, index: []OffsetPosition{}, time: []TimestampOffset{{1005, 5}},
			indexSlots: activeIndexSlots, timeSlots: activeTimeSlots},
	})
	if l.NextOffset() != 6 {
		t.Errorf("log end %d, want 6", l.NextOffset())
	}
}

// A segment between two listed ones lost its files (a filesystem may make a later segment's
// names durable before an earlier one's): eleven 78-byte batches in 390-byte segments (0, 5,
// 10), recovery point 0, segments 0 (intact) and 10 listed. Segment 0 is recovered as in the
// test above and closed; segment 5 is gone, so offsets 5-9 are a gap; segment 10 is recovered
// (batch 10 alone: no offset entry, the closing time entry (1010, 10)) and active; log end 11.
func TestCrashSegmentBetweenListedOnesLost(t *testing.T) {
	l := crashLog(t, 390, 11)
	crashOK(t, l, Crash{RecoveryPoint: 0, Segments: []CrashSegment{{BaseOffset: 0, LogBytes: 390}, {BaseOffset: 10, LogBytes: 78}}})
	checkSegments(t, l, []segmentWant{
		{base: 0, size: 390, last: 4, index: []OffsetPosition{{2, 156}, {4, 312}}, time: []TimestampOffset{{1002, 2}, {1004, 4}},
			indexSlots: 2, timeSlots: 2, closed: true, rollReason: RollSize},
		{base: 10, size: 78, last: 10, index: []OffsetPosition{}, time: []TimestampOffset{{1010, 10}},
			indexSlots: activeIndexSlots, timeSlots: activeTimeSlots},
	})
	if l.NextOffset() != 11 {
		t.Errorf("log end %d, want 11", l.NextOffset())
	}
}

// Issue 13: the new segment's files did not survive (one segment listed): segment 0, intact,
// is the active segment again, its indexes resized to segment.index.bytes, and the log end is
// 5. The next append finds 390 > 390 - 78 and rolls to a new segment at 5 again.
func TestCrashNewSegmentFilesLost(t *testing.T) {
	l := rolledLog(t)
	crashOK(t, l, Crash{RecoveryPoint: 0, Segments: []CrashSegment{{BaseOffset: 0, LogBytes: 390}}})
	checkSegments(t, l, []segmentWant{{base: 0, size: 390, last: 4,
		index: []OffsetPosition{{2, 156}, {4, 312}}, time: []TimestampOffset{{1002, 2}, {1004, 4}},
		indexSlots: activeIndexSlots, timeSlots: activeTimeSlots}})
	if l.NextOffset() != 5 {
		t.Errorf("log end %d, want 5", l.NextOffset())
	}
	appendOK(t, l, Batch{Records: 1, Bytes: 78, MaxTimestamp: 3000})
	segs := l.Segments()
	if len(segs) != 2 || segs[1].BaseOffset() != 5 || segs[1].LastOffset() != 5 || segs[0].RollReason() != RollSize {
		t.Fatalf("after the append: %d segments, last base %d last offset %d", len(segs), segs[len(segs)-1].BaseOffset(), segs[len(segs)-1].LastOffset())
	}
}

// The recovery point may name a segment whose files did not survive: a clean restart
// checkpoints the log end (5), the next append rolls to a new segment at 5, and the crash
// comes before that segment's names are durable. The broker's floor lookup of 5 among the
// surviving segments finds segment 0, which is recovered: the same state as above.
func TestCrashRecoveryPointAtLostSegment(t *testing.T) {
	l := rolledLog(t)
	crashOK(t, l, Crash{RecoveryPoint: 5, Segments: []CrashSegment{{BaseOffset: 0, LogBytes: 390}}})
	checkSegments(t, l, []segmentWant{{base: 0, size: 390, last: 4,
		index: []OffsetPosition{{2, 156}, {4, 312}}, time: []TimestampOffset{{1002, 2}, {1004, 4}},
		indexSlots: activeIndexSlots, timeSlots: activeTimeSlots}})
	if l.NextOffset() != 5 {
		t.Errorf("log end %d, want 5", l.NextOffset())
	}
}

// Kafka's rule, docs/contract.md §3: a segment cut exactly at a batch boundary truncates 0
// bytes, so the later segments stay although offsets now have a gap. Segment 0 keeps 312 bytes
// (batches 0-3: (2,156); time (1002,2), (1003,3)), closed and trimmed; offset 4 is gone;
// segment 5 stays, and is active: LocalLog.read of offset 4 then returns batch 5.
func TestCrashBoundaryCutKeepsLaterSegmentsWithGap(t *testing.T) {
	l := rolledLog(t)
	crashOK(t, l, Crash{RecoveryPoint: 0, Segments: []CrashSegment{{BaseOffset: 0, LogBytes: 312}, {BaseOffset: 5, LogBytes: 78}}})
	checkSegments(t, l, []segmentWant{
		{base: 0, size: 312, last: 3, index: []OffsetPosition{{2, 156}}, time: []TimestampOffset{{1002, 2}, {1003, 3}},
			indexSlots: 1, timeSlots: 2, closed: true, rollReason: RollSize},
		{base: 5, size: 78, last: 5, index: []OffsetPosition{}, time: []TimestampOffset{{1005, 5}},
			indexSlots: activeIndexSlots, timeSlots: activeTimeSlots},
	})
	// No batch holds offset 4 now: LocalLog.read goes on to the next segment, whose first
	// batch (offset 5) is the answer.
	if r, ok := l.Lookup(4); !ok || r.Hit.BaseOffset != 5 {
		t.Errorf("lookup of the lost offset 4: %+v, %v; want batch 5", r.Hit, ok)
	}
}

// The recovery point in the new segment: segment 0 was flushed and is not touched (its
// per-batch entries and trimmed indexes stay); only segment 5 is listed, cut to 0 bytes (not
// torn). The log end is 5.
func TestCrashFlushedSegmentsStay(t *testing.T) {
	l := rolledLog(t)
	crashOK(t, l, Crash{RecoveryPoint: 5, Segments: []CrashSegment{{BaseOffset: 5, LogBytes: 0}}})
	checkSegments(t, l, []segmentWant{
		{base: 0, size: 390, last: 4, index: []OffsetPosition{{2, 156}, {4, 312}}, time: []TimestampOffset{{1002, 2}, {1004, 4}},
			indexSlots: 2, timeSlots: 2, closed: true, rollReason: RollSize},
		{base: 5, size: 0, last: 4, index: []OffsetPosition{}, time: []TimestampOffset{},
			indexSlots: activeIndexSlots, timeSlots: activeTimeSlots},
	})
	if l.NextOffset() != 5 {
		t.Errorf("log end %d, want 5", l.NextOffset())
	}
}

// Issue 13: appends after the crash reuse the lost offsets. After the torn crash of
// TestCrashTornTailInActiveSegment (780 bytes, log end 10), three appends get offsets 10, 11,
// 12 at 780, 858, 936. The segment object is new, its counter 0: the first append is not
// indexed (0 ≤ 100), the second neither (78), the third is (156 > 100): (12, 936).
func TestCrashAppendsReuseLostOffsets(t *testing.T) {
	l := crashLog(t, 1<<20, 11)
	crashOK(t, l, Crash{RecoveryPoint: 0, Segments: []CrashSegment{{BaseOffset: 0, LogBytes: 800}}})
	for i := range 3 {
		appendOK(t, l, Batch{Records: 1, Bytes: 78, MaxTimestamp: 2000 + int64(i)})
	}
	bs := l.Active().Batches()
	if got := bs[len(bs)-3:]; got[0].BaseOffset != 10 || got[0].Position != 780 || got[2].BaseOffset != 12 || got[2].Position != 936 {
		t.Fatalf("batches after the crash: %+v", got)
	}
	want := []OffsetPosition{{2, 156}, {4, 312}, {6, 468}, {8, 624}, {12, 936}}
	if got := l.Active().OffsetIndex().All(); !slices.Equal(got, want) {
		t.Errorf("index %v, want %v", got, want)
	}
	if l.NextOffset() != 13 {
		t.Errorf("log end %d, want 13", l.NextOffset())
	}
}

// Issue 13 / docs/kafka.md §2.4: the per-batch rebuild of a segment written under the
// per-append rule overflows a small index. segment.index.bytes=24 gives 3 offset-index slots
// (and 2 time slots; no timestamps, so the time index stays empty). Three appends of ten
// 78-byte batches: per-append, one check per append: the first 0 ≤ 100, the second 780 → (19,
// 780), the third 780 → (29, 1560): 2 entries. The rebuild checks per batch: (2,156), (4,312),
// (6,468), then batch 8 finds the index full: OffsetIndex.append throws "Attempt to append to
// a full index (size = 3).". The crash is step 3; the log stops, as it was.
func TestCrashRebuildOverflowsSmallIndex(t *testing.T) {
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes = 100
	cfg.SegmentIndexBytes = 24
	l := newLog(t, cfg, PerAppend, 0)
	noTs := func(int) int64 { return NoTimestamp }
	for range 3 {
		appendOK(t, l, ones(10, 78, noTs)...)
	}
	if got := l.Active().OffsetIndex().All(); !slices.Equal(got, []OffsetPosition{{19, 780}, {29, 1560}}) {
		t.Fatalf("per-append index %v", got)
	}
	if err := l.Crash(Crash{RecoveryPoint: 0, Segments: []CrashSegment{{BaseOffset: 0, LogBytes: 2340, IndexBytes: 24, TimeIndexBytes: 24}}}); err != nil {
		t.Fatal(err)
	}
	want := []Event{{Kind: EventOffsetIndexFull, Step: 3, Message: "Attempt to append to a full index (size = 3)."}}
	if !l.Stopped() || !reflect.DeepEqual(l.Events(), want) {
		t.Fatalf("stopped %v, events %+v, want %+v", l.Stopped(), l.Events(), want)
	}
	if got := l.Active().OffsetIndex().All(); l.Active().Size() != 2340 || !slices.Equal(got, []OffsetPosition{{19, 780}, {29, 1560}}) {
		t.Errorf("the overflowing crash changed the log: size %d, index %v", l.Active().Size(), got)
	}
	// A later crash step is refused, naming the stop.
	err := l.Crash(Crash{RecoveryPoint: 0, Segments: []CrashSegment{{BaseOffset: 0, LogBytes: 0}}})
	if !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "a crash step cannot follow the index overflow") {
		t.Errorf("crash on a stopped log: %v", err)
	}
}

// The same hazard through the time index: segment.index.bytes=24 leaves the time index 2
// slots, full at 1 entry (TimeIndex.isFull: entries >= maxEntries - 1). Two per-append appends
// of ten 78-byte batches with timestamps 1000+i: the second gets (19, 780) and the time entry
// (1019, 19). The rebuild: batch 2 → (2,156) and time (1002,2); batch 4 → (4,312), then
// maybeAppend finds the time index full: "Attempt to append to a full time index (size = 1).".
func TestCrashRebuildOverflowsSmallTimeIndex(t *testing.T) {
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes = 100
	cfg.SegmentIndexBytes = 24
	l := newLog(t, cfg, PerAppend, 0)
	appendOK(t, l, ones(10, 78, crashTs)...)
	appendOK(t, l, ones(10, 78, func(i int) int64 { return crashTs(10 + i) })...)
	if got := l.Active().TimeIndex().All(); !slices.Equal(got, []TimestampOffset{{1019, 19}}) {
		t.Fatalf("per-append time index %v", got)
	}
	if err := l.Crash(Crash{RecoveryPoint: 0, Segments: []CrashSegment{{BaseOffset: 0, LogBytes: 1560}}}); err != nil {
		t.Fatal(err)
	}
	want := []Event{{Kind: EventTimeIndexFull, Step: 2, Message: "Attempt to append to a full time index (size = 1)."}}
	if !l.Stopped() || !reflect.DeepEqual(l.Events(), want) {
		t.Fatalf("stopped %v, events %+v, want %+v", l.Stopped(), l.Events(), want)
	}
}

// A Clone shares its rolled segments (clone.go): a crash on the copy must not change the
// original's.
func TestCrashLeavesCloneSourceAlone(t *testing.T) {
	l := rolledLog(t)
	c := l.Clone()
	crashOK(t, c, Crash{RecoveryPoint: 0, Segments: []CrashSegment{{BaseOffset: 0, LogBytes: 350}}})
	segs := l.Segments()
	if len(segs) != 2 || segs[0].Size() != 390 || !segs[0].Closed() || len(segs[0].OffsetIndex().All()) != 2 {
		t.Fatalf("the original changed: %d segments, first %d bytes", len(segs), segs[0].Size())
	}
}

// docs/contract.md §3, the crash step's validation: each a clear error, never a panic.
func TestCrashValidation(t *testing.T) {
	seg := func(base, log int64) CrashSegment { return CrashSegment{BaseOffset: base, LogBytes: log} }
	for _, tc := range []struct {
		name  string
		crash Crash
		want  string
	}{
		{"negative recovery point", Crash{RecoveryPoint: -1, Segments: []CrashSegment{seg(0, 0)}}, "step 6: crash: recoveryPoint: -1 is negative"},
		{"no segment", Crash{RecoveryPoint: 0}, "segments: a crash lists at least one segment"},
		{"bases not increasing", Crash{Segments: []CrashSegment{seg(0, 390), seg(0, 78)}}, "segments[1].baseOffset: 0 is not above 0"},
		{"negative base", Crash{Segments: []CrashSegment{seg(-5, 0)}}, "segments[0].baseOffset: -5 is negative"},
		{"negative log bytes", Crash{Segments: []CrashSegment{seg(0, -1)}}, "segments[0].logBytes: -1 is negative"},
		{"negative index bytes", Crash{Segments: []CrashSegment{{BaseOffset: 0, IndexBytes: -8}}}, "segments[0].indexBytes: -8 is negative"},
		{"negative time index bytes", Crash{Segments: []CrashSegment{{BaseOffset: 0, TimeIndexBytes: -12}}}, "segments[0].timeIndexBytes: -12 is negative"},
		{"first base not the unflushed segment", Crash{RecoveryPoint: 3, Segments: []CrashSegment{seg(5, 0)}},
			"segments[0].baseOffset: 5 is not 0, the base offset of the segment holding the recovery point 3"},
		// Segment 5 survived and holds the recovery point, so it is the first unflushed one.
		{"recovery point in segment 5, base 0 listed", Crash{RecoveryPoint: 7, Segments: []CrashSegment{seg(0, 390), seg(5, 78)}},
			"segments[0].baseOffset: 0 is not 5"},
		{"base of no segment", Crash{RecoveryPoint: 7, Segments: []CrashSegment{seg(3, 0)}}, "segments[0].baseOffset: 3 is the base offset of no segment"},
		{"second base wrong", Crash{Segments: []CrashSegment{seg(0, 390), seg(6, 0)}}, "segments[1].baseOffset: 6 is the base offset of no segment of the log"},
		{"more segments than the log has", Crash{RecoveryPoint: 5, Segments: []CrashSegment{seg(5, 78), seg(6, 0)}},
			"segments[1].baseOffset: 6 is the base offset of no segment of the log"},
		{"bytes never written", Crash{Segments: []CrashSegment{seg(0, 391)}}, "segments[0].logBytes: 391 is more than the 390 bytes segment 0 holds"},
		{"bytes never written, active", Crash{RecoveryPoint: 5, Segments: []CrashSegment{seg(5, 79)}}, "segments[0].logBytes: 79 is more than the 78 bytes segment 5 holds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := rolledLog(t)
			err := l.Crash(tc.crash)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			if segs := l.Segments(); len(segs) != 2 || segs[0].Size() != 390 || segs[1].Size() != 78 || l.NextOffset() != 6 {
				t.Error("an invalid crash changed the log")
			}
		})
	}
}

// The crash step models the load of 2.3+ (KAFKA-7283); eras that load otherwise refuse it.
// A log that does not keep its rolled segments cannot recover them. A closed log takes no step.
func TestCrashRefusals(t *testing.T) {
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes, cfg.SegmentBytes = 100, 390
	old, err := NewLog(cfg, PerBatch, LogOptions{Era: Eras[0]})
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Crash(Crash{Segments: []CrashSegment{{}}}); err == nil || !strings.Contains(err.Error(), "models the load of Kafka 2.3+") {
		t.Errorf("era %s: %v", Eras[0].ID, err)
	}
	for _, opts := range []LogOptions{{}, {ForgetRolled: true}, {KeepSegments: true, OnSegmentDone: func(*Segment) {}}} {
		l, err := NewLog(cfg, PerBatch, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range ones(6, 78, crashTs) {
			appendOK(t, l, b)
		}
		if err := l.Crash(Crash{Segments: []CrashSegment{{LogBytes: 390}}}); err == nil || !strings.Contains(err.Error(), "this run does not keep rolled segments") {
			t.Errorf("%+v: %v", opts, err)
		}
		// Within the active segment any log can crash: batch 5 torn at 40 bytes, log end 5.
		if err := l.Crash(Crash{RecoveryPoint: 5, Segments: []CrashSegment{{BaseOffset: 5, LogBytes: 40}}}); err != nil || l.NextOffset() != 5 || l.Active().Size() != 0 {
			t.Errorf("%+v: crash in the active segment: %v, log end %d", opts, err, l.NextOffset())
		}
	}
	l := rolledLog(t)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Crash(Crash{Segments: []CrashSegment{{LogBytes: 390}}}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("closed log: %v", err)
	}
}

const crashWorkloadJSON = `{"config": {"index.interval.bytes": 100, "segment.bytes": 390}, "rule": "per-batch", "startOffset": 0, "steps": [
 {"append": [{"records": 1, "bytes": 78, "maxTimestamp": 1000}, {"records": 1, "bytes": 78, "maxTimestamp": 1001},
             {"records": 1, "bytes": 78, "maxTimestamp": 1002}, {"records": 1, "bytes": 78, "maxTimestamp": 1003}]},
 {"append": [{"records": 1, "bytes": 78, "maxTimestamp": 1004}]},
 {"append": [{"records": 1, "bytes": 78, "maxTimestamp": 1005}]},
 {"crash": {"recoveryPoint": 0, "segments": [{"baseOffset": 0, "logBytes": 350, "indexBytes": 16, "timeIndexBytes": 24},
                                              {"baseOffset": 5, "logBytes": 78, "indexBytes": 0, "timeIndexBytes": 12}]}},
 {"append": [{"records": 1, "bytes": 78, "baseOffset": 4}]}
]}`

// docs/contract.md §3: the crash step parses to what it says, is written back the same, and
// Simulate runs it. A batch after the crash may name a lost offset (4: the torn segment 0
// kept offsets 0-3 only), although the workload gave offset 4 before.
func TestCrashWorkloadRoundTrip(t *testing.T) {
	w, err := ParseWorkload([]byte(crashWorkloadJSON))
	if err != nil {
		t.Fatal(err)
	}
	want := &Crash{RecoveryPoint: 0, Segments: []CrashSegment{
		{BaseOffset: 0, LogBytes: 350, IndexBytes: 16, TimeIndexBytes: 24},
		{BaseOffset: 5, LogBytes: 78, IndexBytes: 0, TimeIndexBytes: 12}}}
	if len(w.Steps) != 5 || !reflect.DeepEqual(w.Steps[3].Crash, want) || w.Steps[3].Kind() != "crash" {
		t.Fatalf("parsed %+v", w.Steps)
	}
	out, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `{"crash":{"recoveryPoint":0,"segments":[{"baseOffset":0,"logBytes":350,"indexBytes":16,"timeIndexBytes":24},{"baseOffset":5,"logBytes":78,"indexBytes":0,"timeIndexBytes":12}]}}`) {
		t.Errorf("written as %s", out)
	}
	w2, err := ParseWorkload(out)
	if err != nil {
		t.Fatalf("%s does not parse back: %v", out, err)
	}
	if !reflect.DeepEqual(w2.Steps, w.Steps) {
		t.Errorf("round trip: %+v, want %+v", w2.Steps, w.Steps)
	}
	cfg := DefaultConfig()
	if err := w.ApplyTo(&cfg); err != nil {
		t.Fatal(err)
	}
	// Without keep: Simulate keeps the segments a crash may reach. After the crash segment 0
	// holds batches 0-3 (312 bytes); the last append (offset 4 again) lands at 312, and the
	// counter of the recovered segment object is 0, so no entry: still (2,156).
	l, err := Simulate(cfg, PerBatch, 0, w.Steps, false)
	if err != nil {
		t.Fatal(err)
	}
	segs := l.Segments()
	if len(segs) != 1 || segs[0].Size() != 390 || l.NextOffset() != 5 || !slices.Equal(segs[0].OffsetIndex().All(), []OffsetPosition{{2, 156}}) {
		t.Fatalf("%d segments, size %d, log end %d, index %v", len(segs), segs[0].Size(), l.NextOffset(), segs[0].OffsetIndex().All())
	}
}

// docs/contract.md §3: a malformed crash step is an error naming its field path, never a panic.
func TestCrashWorkloadMalformed(t *testing.T) {
	const seg = `{"baseOffset": 0, "logBytes": 10, "indexBytes": 0, "timeIndexBytes": 0}`
	for _, tc := range []struct{ crash, want string }{
		{`true`, "steps[1].crash: expected an object"},
		{`{"recoveryPoint": "x", "segments": [` + seg + `]}`, "steps[1].crash.recoveryPoint"},
		{`{"recoveryPoint": 1.5, "segments": [` + seg + `]}`, "steps[1].crash.recoveryPoint: 1.5 is not an integer"},
		{`{"recoveryPoint": 0, "segments": {}}`, "steps[1].crash.segments: expected a list"},
		{`{"recoveryPoint": 0, "segments": [7]}`, "steps[1].crash.segments[0]: expected an object"},
		{`{"recoveryPoint": 0, "segments": [` + seg + `], "extra": 1}`, `steps[1].crash: unknown key "extra"`},
		{`{"recoveryPoint": 0, "segments": [{"baseOffset": 0, "logBytes": 10, "indexBytes": 0, "timeIndexBytes": 0, "txnIndexBytes": 0}]}`, `steps[1].crash.segments[0]: unknown key "txnIndexBytes"`},
		{`{"recoveryPoint": 0, "segments": [{"baseOffset": 0, "logBytes": "ten", "indexBytes": 0, "timeIndexBytes": 0}]}`, `steps[1].crash.segments[0].logBytes: expected a number, found the string "ten"`},
		{`{"recoveryPoint": 0, "segments": [{"baseOffset": 0, "logBytes": true, "indexBytes": 0, "timeIndexBytes": 0}]}`, "steps[1].crash.segments[0].logBytes"},
		{`{"segments": [` + seg + `]}`, "steps[1].crash.recoveryPoint: missing"},
		{`{"recoveryPoint": 0}`, "steps[1].crash.segments: missing"},
		{`{"recoveryPoint": 0, "segments": [{"baseOffset": 0, "indexBytes": 0, "timeIndexBytes": 0}]}`, "steps[1].crash.segments[0].logBytes: missing"},
		{`{"recoveryPoint": 0, "segments": [{"baseOffset": 0, "logBytes": 10, "indexBytes": 0}]}`, "steps[1].crash.segments[0].timeIndexBytes: missing"},
		{`{"recoveryPoint": 0, "segments": []}`, "steps[1].crash.segments: a crash lists at least one segment"},
		{`{"recoveryPoint": -2, "segments": [` + seg + `]}`, "steps[1].crash.recoveryPoint: -2 is negative"},
		{`{"recoveryPoint": 0, "segments": [{"baseOffset": 0, "logBytes": -1, "indexBytes": 0, "timeIndexBytes": 0}]}`, "steps[1].crash.segments[0].logBytes: -1 is negative"},
		{`{"recoveryPoint": 0, "segments": [` + seg + `, ` + seg + `]}`, "steps[1].crash.segments[1].baseOffset: 0 is not above 0"},
	} {
		data := `{"steps": [{"append": [{"records": 1, "bytes": 78}]}, {"crash": ` + tc.crash + `}]}`
		_, err := ParseWorkload([]byte(data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.crash, err, tc.want)
		}
	}
	both := `{"steps": [{"crash": {"recoveryPoint": 0, "segments": [` + seg + `]}, "restart": true}]}`
	if _, err := ParseWorkload([]byte(both)); err == nil || !strings.Contains(err.Error(), "steps[0]: a step is exactly one of") {
		t.Errorf("crash with restart: %v", err)
	}
	// The log-dependent checks come at Simulate: 10 bytes of a 78-byte segment are fine, 100 not.
	w, err := ParseWorkload([]byte(`{"steps": [{"append": [{"records": 1, "bytes": 78}]}, {"crash": {"recoveryPoint": 0, "segments": [{"baseOffset": 0, "logBytes": 100, "indexBytes": 0, "timeIndexBytes": 0}]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Simulate(DefaultConfig(), PerBatch, 0, w.Steps, true); err == nil || !strings.Contains(err.Error(), "step 1: crash: segments[0].logBytes: 100 is more than the 78 bytes") {
		t.Errorf("Simulate: %v", err)
	}
}

// A kill -9 before anything was flushed (recovery point 0): the .log kept 800 of its 858
// bytes, so batch 10 (780-858) is torn and dropped, and recover rebuilds the index per batch
// (TestCrashTornTailInActiveSegment derives the entries). Offset 10 is given again.
func ExampleLog_Crash() {
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes = 100
	l, err := NewLog(cfg, PerBatch, LogOptions{})
	if err != nil {
		panic(err)
	}
	for i := range 11 {
		if err := l.Append(Batch{Records: 1, Bytes: 78, MaxTimestamp: 1000 + int64(i)}); err != nil {
			panic(err)
		}
	}
	crash := Crash{RecoveryPoint: 0, Segments: []CrashSegment{{BaseOffset: 0, LogBytes: 800, IndexBytes: 10485760, TimeIndexBytes: 10485756}}}
	if err := l.Crash(crash); err != nil {
		panic(err)
	}
	fmt.Println(l.Active().Size(), l.NextOffset(), l.Active().OffsetIndex().All())
	// Output:
	// 780 10 [{2 156} {4 312} {6 468} {8 624}]
}
