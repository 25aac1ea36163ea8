package model

import (
	"math"
	"reflect"
	"testing"
)

// Release lines of Cleaner.groupSegmentsBySize (docs/kafka.md §14.1), read in Kafka's
// LogCleaner.scala at the Apache tags and Cleaner.java at trunk d79bd502ec.
func TestGroupingRuleFor(t *testing.T) {
	for _, c := range []struct {
		version string
		want    GroupingRule
	}{
		{"0.8.2.2", GroupingRule{Strict: true, Range: RangeNone, IntSums: true}},
		{"0.9.0.1", GroupingRule{Range: RangeIndexLastOffset, IntSums: true}},                   // KAFKA-2024
		{"0.10.1.1", GroupingRule{Range: RangeIndexLastOffset, TimeIndex: true, IntSums: true}}, // KAFKA-3163
		{"0.10.2.1", GroupingRule{Range: RangeIndexLastOffset, TimeIndex: true, IntSums: true}},
		// 0.10.2.2 carries KAFKA-5413, but KafkaVersion keeps three numbers (0.10.2): taken as
		// the branch's earlier releases.
		{"0.10.2.2", GroupingRule{Range: RangeIndexLastOffset, TimeIndex: true, IntSums: true}},
		{"0.11.0.0", GroupingRule{Range: RangeNextBase, TimeIndex: true, IntSums: true}},
		{"1.1.0", GroupingRule{Range: RangeNextBase, TimeIndex: true}}, // sums as longs
		{"2.8.2", GroupingRule{Range: RangeNextBase, TimeIndex: true}},
		{"3.0.0", GroupingRule{Range: RangeNextBase, TimeIndex: true, EmptyExempt: true}}, // KAFKA-12889
		{"4.1.0", GroupingRule{Range: RangeNextBase, TimeIndex: true, EmptyExempt: true}},
	} {
		v, err := ParseKafkaVersion(c.version)
		if err != nil {
			t.Fatal(err)
		}
		if got := GroupingRuleFor(v); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.version, got, c.want)
		}
	}
}

var trunkGrouping = GroupingRule{Range: RangeNextBase, TimeIndex: true, EmptyExempt: true}

// LogCleanerTest.testSegmentGrouping: very large limits give one group of every segment, a
// limit of 1 (log bytes or index bytes) gives singletons, and a limit of three segments' bytes
// plus 1 gives groups of three but the last. Ten segments of 280 bytes and 4 offset-index
// entries each (index.interval.bytes=1), offsets 4 per segment; no time-index entry (the test's
// records carry no timestamp, -1, and TimeIndex.maybeAppend needs a larger one).
func TestGroupingAsKafkasTestSegmentGrouping(t *testing.T) {
	var segs []CleanerSegment
	for i := range 10 {
		segs = append(segs, CleanerSegment{BaseOffset: int64(4 * i), LogBytes: 280, IndexEntries: 4, IndexLastOffset: int64(4*i + 3)})
	}
	leo := int64(40)
	all := [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}
	singles := [][]int{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}}
	threes := [][]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9}}
	for _, c := range []struct {
		name            string
		maxSize, maxIdx int32
		want            [][]int
	}{
		{"very large limits", math.MaxInt32, math.MaxInt32, all},
		{"segment.bytes 1", 1, math.MaxInt32, singles},
		{"segment.index.bytes 1", math.MaxInt32, 1, singles},
		{"three segments' log bytes + 1", 3*280 + 1, math.MaxInt32, threes},   // 840 fits, 1,120 does not
		{"three segments' index bytes + 1", math.MaxInt32, 3*4*8 + 1, threes}, // 96 bytes fit 97, 128 do not
	} {
		if got := GroupSegmentsBySize(segs, c.maxSize, c.maxIdx, leo, trunkGrouping); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// By hand: the time index is bounded by segment.index.bytes too (from 0.10.1). With 4 time
	// entries a segment, two segments' 96 bytes fit 97 and three's 144 do not: groups of two.
	for i := range segs {
		segs[i].TimeIndexEntries = 4
	}
	if got := GroupSegmentsBySize(segs, math.MaxInt32, 3*4*8+1, leo, trunkGrouping); !reflect.DeepEqual(got, [][]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}}) {
		t.Errorf("time index bounded: %v, want groups of two", got)
	}
	if got := GroupSegmentsBySize(segs, math.MaxInt32, 3*4*8+1, leo, GroupingRuleFor(KafkaVersion{0, 10, 0})); !reflect.DeepEqual(got, threes) {
		t.Errorf("0.10.0, no time index: %v, want %v", got, threes)
	}
}

// LogCleanerTest.testSegmentGroupingWithSparseOffsets: segment 0 holds offsets 0..5, segment 1
// (base 6) offsets Int.MaxValue-1 and Int.MaxValue: one group (Int.MaxValue - 0 fits a relative
// offset); one more offset (Int.MaxValue+1) splits them. The bound is the log end offset - 1
// for the last segment (lastOffsetForFirstSegment) from 0.10.2.2, the index's last offset
// before: both say the same here (every batch indexed, index.interval.bytes=1).
func TestGroupingAsKafkasTestSegmentGroupingWithSparseOffsets(t *testing.T) {
	seg0 := CleanerSegment{BaseOffset: 0, LogBytes: 400, IndexEntries: 6, TimeIndexEntries: 6, IndexLastOffset: 5}
	for _, rule := range []GroupingRule{trunkGrouping, GroupingRuleFor(KafkaVersion{0, 10, 1})} {
		seg1 := CleanerSegment{BaseOffset: 6, LogBytes: 140, IndexEntries: 2, TimeIndexEntries: 2, IndexLastOffset: math.MaxInt32}
		if got := GroupSegmentsBySize([]CleanerSegment{seg0, seg1}, math.MaxInt32, math.MaxInt32, math.MaxInt32+1, rule); !reflect.DeepEqual(got, [][]int{{0, 1}}) {
			t.Errorf("%+v: %v, want one group", rule, got)
		}
		seg1.LogBytes, seg1.IndexEntries, seg1.TimeIndexEntries, seg1.IndexLastOffset = 210, 3, 3, math.MaxInt32+1
		if got := GroupSegmentsBySize([]CleanerSegment{seg0, seg1}, math.MaxInt32, math.MaxInt32, math.MaxInt32+2, rule); !reflect.DeepEqual(got, [][]int{{0}, {1}}) {
			t.Errorf("%+v: %v, want two groups", rule, got)
		}
	}
}

// LogCleanerTest.testSegmentGroupingFollowingLoadOfZeroIndex: segment 0 (offsets 0, 1) and
// segment 1 (base Int.MaxValue/2, offsets Int.MaxValue/2 and Int.MaxValue+1), no index entry
// (index.interval.bytes=400), log end offset Int.MaxValue+2. From 0.10.2.2 (KAFKA-5413) the bound
// is the log end offset - 1, past Int.MaxValue: two groups. Before, the index's last offset (its
// base, the index being empty) let them merge: one group whose offsets do not fit relative
// offsets, the bug the test pins.
func TestGroupingAsKafkasTestSegmentGroupingFollowingLoadOfZeroIndex(t *testing.T) {
	segs := []CleanerSegment{
		{BaseOffset: 0, LogBytes: 140, IndexLastOffset: 0},
		{BaseOffset: math.MaxInt32 / 2, LogBytes: 140, IndexLastOffset: math.MaxInt32 / 2},
	}
	leo := int64(math.MaxInt32) + 2
	if got := GroupSegmentsBySize(segs, math.MaxInt32, math.MaxInt32, leo, trunkGrouping); !reflect.DeepEqual(got, [][]int{{0}, {1}}) {
		t.Errorf("trunk: %v, want two groups", got)
	}
	old := GroupingRuleFor(KafkaVersion{0, 10, 2})
	if got := GroupSegmentsBySize(segs, math.MaxInt32, math.MaxInt32, leo, old); !reflect.DeepEqual(got, [][]int{{0, 1}}) {
		t.Errorf("0.10.2.1: %v, want one group (KAFKA-5413)", got)
	}
}

// LogCleanerTest.testSegmentGroupingWithSparseOffsetsAndEmptySegments: segments based at
// k·(Int.MaxValue+1) for k = 0..3, the first three each holding its base and its last offset,
// the fourth (active) one offset; first uncleanable offset = its base. Every segment but the
// last two stands alone (its next segment's base - 1 is past Int.MaxValue from it); the third
// takes the fourth (log end offset - 2 is exactly Int.MaxValue from it): 3 groups. After a clean
// empties the first two segments, 3.0.0 on (KAFKA-12889) merges the two empty ones (2 groups);
// before, their offset range kept them apart (3 groups).
func TestGroupingAsKafkasTestSegmentGroupingWithSparseOffsetsAndEmptySegments(t *testing.T) {
	span := int64(math.MaxInt32) + 1
	segs := make([]CleanerSegment, 4)
	for k := range segs {
		segs[k] = CleanerSegment{BaseOffset: int64(k) * span, LogBytes: 150, IndexEntries: 1, TimeIndexEntries: 1, IndexLastOffset: int64(k) * span}
	}
	segs[3].LogBytes = 75
	firstUncleanable := 3 * span
	if got := GroupSegmentsBySize(segs, math.MaxInt32, math.MaxInt32, firstUncleanable, trunkGrouping); !reflect.DeepEqual(got, [][]int{{0}, {1}, {2, 3}}) {
		t.Errorf("before the clean: %v, want [[0] [1] [2 3]]", got)
	}
	segs[0] = CleanerSegment{BaseOffset: 0, IndexLastOffset: 0}
	segs[1] = CleanerSegment{BaseOffset: span, IndexLastOffset: span}
	if got := GroupSegmentsBySize(segs, math.MaxInt32, math.MaxInt32, firstUncleanable, trunkGrouping); !reflect.DeepEqual(got, [][]int{{0, 1}, {2, 3}}) {
		t.Errorf("after the clean, 3.0.0 on: %v, want [[0 1] [2 3]]", got)
	}
	if got := GroupSegmentsBySize(segs, math.MaxInt32, math.MaxInt32, firstUncleanable, GroupingRuleFor(KafkaVersion{2, 8, 2})); !reflect.DeepEqual(got, [][]int{{0}, {1}, {2, 3}}) {
		t.Errorf("after the clean, 2.8.2: %v, want [[0] [1] [2 3]]", got)
	}
}

// The older lines' own limits, worked by hand: 0.8 keeps sums strictly below the limits, and
// before 1.1.0 the sums are Java ints, so two segments of 1.5 GiB wrap below any limit
// (KAFKA-6030 made them longs).
func TestGroupingStrictAndIntSums(t *testing.T) {
	segs := []CleanerSegment{{BaseOffset: 0, LogBytes: 100, IndexLastOffset: 0}, {BaseOffset: 10, LogBytes: 100, IndexLastOffset: 10}}
	if got := GroupSegmentsBySize(segs, 200, math.MaxInt32, 20, GroupingRuleFor(KafkaVersion{0, 8, 2})); !reflect.DeepEqual(got, [][]int{{0}, {1}}) {
		t.Errorf("0.8.2: 200 bytes under a limit of 200: %v, want apart (<)", got)
	}
	if got := GroupSegmentsBySize(segs, 200, math.MaxInt32, 20, GroupingRuleFor(KafkaVersion{0, 9, 0})); !reflect.DeepEqual(got, [][]int{{0, 1}}) {
		t.Errorf("0.9.0: 200 bytes under a limit of 200: %v, want together (<=)", got)
	}
	big := []CleanerSegment{{BaseOffset: 0, LogBytes: 3 << 29, IndexLastOffset: 0}, {BaseOffset: 10, LogBytes: 3 << 29, IndexLastOffset: 10}}
	if got := GroupSegmentsBySize(big, 1<<30, math.MaxInt32, 20, GroupingRuleFor(KafkaVersion{1, 0, 2})); !reflect.DeepEqual(got, [][]int{{0, 1}}) {
		t.Errorf("1.0.2: 3 GiB wraps to -1 GiB, under 1 GiB: %v, want together", got)
	}
	if got := GroupSegmentsBySize(big, 1<<30, math.MaxInt32, 20, GroupingRuleFor(KafkaVersion{1, 1, 0})); !reflect.DeepEqual(got, [][]int{{0}, {1}}) {
		t.Errorf("1.1.0: 3 GiB over 1 GiB: %v, want apart", got)
	}
}
