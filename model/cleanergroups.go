package model

import "math"

// CleanerSegment is what the log cleaner's grouping reads of one segment
// (Cleaner.groupSegmentsBySize, docs/kafka.md §14.1).
type CleanerSegment struct {
	BaseOffset int64
	LogBytes   int64 // LogSegment.size
	// IndexEntries and TimeIndexEntries are the entries the indexes hold: sizeInBytes is
	// entries × 8 and entries × 12 (AbstractIndex.sizeInBytes), not the preallocated file.
	IndexEntries, TimeIndexEntries int64
	// IndexLastOffset is OffsetIndex.lastOffset: the last entry's offset, the base offset when
	// the index is empty (0.9.0-0.10.2.1 bound a group's offsets by it).
	IndexLastOffset int64
}

// GroupRange is how a release bounds a group's offsets to relative offsets an index can hold.
type GroupRange int

const (
	// RangeNone: 0.8.x checks no offset range.
	RangeNone GroupRange = iota
	// RangeIndexLastOffset: 0.9.0-0.10.2.1 (KAFKA-2024) take the candidate's
	// OffsetIndex.lastOffset, which may lie below offsets its .log holds (KAFKA-5413).
	RangeIndexLastOffset
	// RangeNextBase: 0.11.0 and later (and 0.10.2.2; KAFKA-5413) take the next segment's base
	// offset - 1, or the first uncleanable offset - 1 for the last candidate
	// (lastOffsetForFirstSegment).
	RangeNextBase
)

// GroupingRule is Cleaner.groupSegmentsBySize as one release writes it.
type GroupingRule struct {
	Strict    bool       // 0.8.x: sums must stay below the limits (<), later at or below them (<=)
	Range     GroupRange // the offset-range check
	TimeIndex bool       // 0.10.1 on: the time index's size is bounded too (KAFKA-3163)
	// IntSums: before 1.1.0 the running sums are Java ints and wrap (KAFKA-6030).
	IntSums bool
	// EmptyExempt: 3.0.0 on, an empty candidate skips the range check (KAFKA-12889), so
	// empty segments a clean left behind merge.
	EmptyExempt bool
}

// GroupingRuleFor is the grouping of Kafka release v.
func GroupingRuleFor(v KafkaVersion) GroupingRule {
	before := func(major, minor, patch int) bool { return v.less(KafkaVersion{major, minor, patch}) }
	var r GroupingRule
	switch {
	case before(0, 9, 0):
		r = GroupingRule{Strict: true, Range: RangeNone}
	case before(0, 10, 1):
		r = GroupingRule{Range: RangeIndexLastOffset}
	case before(0, 11, 0):
		// KAFKA-5413 reached the 0.10.2 branch in 0.10.2.2, a fourth version number
		// KafkaVersion does not keep: 0.10.2.x is taken as 0.10.2.0-0.10.2.1 (docs/kafka.md
		// §14.1); a caller that knows it has 0.10.2.2 sets Range to RangeNextBase.
		r = GroupingRule{Range: RangeIndexLastOffset, TimeIndex: true}
	default:
		r = GroupingRule{Range: RangeNextBase, TimeIndex: true}
	}
	r.IntSums = before(1, 1, 0)
	r.EmptyExempt = !before(3, 0, 0)
	return r
}

// GroupSegmentsBySize is Cleaner.groupSegmentsBySize(segments, maxSize, maxIndexSize,
// firstUncleanableOffset) under rule r: from the first segment, each group takes the
// following segments while the group's .log bytes, offset-index bytes and (from 0.10.1)
// time-index bytes stay within segment.bytes (maxSize) and segment.index.bytes (maxIndexSize),
// and its offsets stay within a relative offset an index holds (Int.MaxValue from the group's
// base offset). It returns each group as the indexes of its segments, in order.
func GroupSegmentsBySize(segs []CleanerSegment, maxSize, maxIndexSize int32, firstUncleanableOffset int64, r GroupingRule) [][]int {
	fits := func(sum, add int64, limit int32) bool {
		s := sum + add
		if r.IntSums {
			s = int64(int32(s)) // Scala Int arithmetic before KAFKA-6030
		}
		if r.Strict {
			return s < int64(limit)
		}
		return s <= int64(limit)
	}
	var groups [][]int
	for i := 0; i < len(segs); {
		first := segs[i]
		group := []int{i}
		logSize, indexSize, timeSize := first.LogBytes, first.IndexEntries*OffsetIndexEntrySize, first.TimeIndexEntries*TimeIndexEntrySize
		for i++; i < len(segs); i++ {
			c := segs[i]
			if !fits(logSize, c.LogBytes, maxSize) || !fits(indexSize, c.IndexEntries*OffsetIndexEntrySize, maxIndexSize) {
				break
			}
			if r.TimeIndex && !fits(timeSize, c.TimeIndexEntries*TimeIndexEntrySize, maxIndexSize) {
				break
			}
			if !(r.EmptyExempt && c.LogBytes == 0) && !r.withinRange(segs, i, first.BaseOffset, firstUncleanableOffset) {
				break
			}
			group = append(group, i)
			logSize += c.LogBytes
			indexSize += c.IndexEntries * OffsetIndexEntrySize
			timeSize += c.TimeIndexEntries * TimeIndexEntrySize
			if r.IntSums {
				logSize, indexSize, timeSize = int64(int32(logSize)), int64(int32(indexSize)), int64(int32(timeSize))
			}
		}
		groups = append(groups, group)
	}
	return groups
}

// withinRange is the offset-range check for candidate segs[i] joining a group based at base.
func (r GroupingRule) withinRange(segs []CleanerSegment, i int, base, firstUncleanableOffset int64) bool {
	switch r.Range {
	case RangeIndexLastOffset:
		return segs[i].IndexLastOffset-base <= math.MaxInt32
	case RangeNextBase:
		last := firstUncleanableOffset - 1 // lastOffsetForFirstSegment: the last candidate
		if i+1 < len(segs) {
			last = segs[i+1].BaseOffset - 1
		}
		return last-base <= math.MaxInt32
	}
	return true
}
