package model

import "sort"

// LookupResult is one offset lookup, phase 1 and phase 2 (docs/contract.md §5).
type LookupResult struct {
	Target      int64
	SegmentBase int64
	// Phase 1: the largest offset-index entry <= Target, or (SegmentBase, 0) when none
	// (IndexSlot -1), and what Kafka's warm-section search read to find it.
	IndexSlot int
	Index     OffsetPosition
	Phase1    SearchCost
	// Phase 2: the first batch at or after Index.Position whose last offset >= Target.
	Hit       BatchInfo
	ScanBytes int64 // Hit.Position - Index.Position
	Hops      int64 // batch headers read, the hit included
	// HeaderReads are the headers the era's own phase-2 loop reads (docs/contract.md §5): the hops up to
	// 4.0; from 4.1 (searchForOffsetFromPosition) the walk stops at a batch whose base offset
	// is the target, and otherwise goes on to the first batch whose base offset is past it: one
	// more for an offset that is not its batch's base, unless the batch is the segment's last.
	HeaderReads int64
}

// batchAt returns the ordinal of the batch starting at position pos, or of the first batch
// after it.
func (s *Segment) batchAt(pos int64) int {
	return sort.Search(len(s.batches), func(i int) bool { return s.batches[i].Position >= pos })
}

// Lookup is LogSegment.translateOffset: phase 1 on the offset index, then a walk over batch
// headers from the start position (FileRecords.searchForOffsetWithSize: the first batch
// whose last offset >= target). ok is false when no batch at or after the start holds an
// offset >= target (the offset lies beyond this segment).
func (s *Segment) Lookup(target int64) (r LookupResult, ok bool) {
	if s.forget {
		panic("model: Segment.Lookup of a log with ForgetBatches")
	}
	r.Target, r.SegmentBase = target, s.baseOffset
	r.Index, r.IndexSlot, r.Phase1 = s.offsetIndex.LookupSlot(target)
	start := s.batchAt(r.Index.Position)
	for j := start; j < len(s.batches); j++ {
		r.Hops++
		if s.batches[j].LastOffset >= target {
			r.Hit = s.batches[j]
			r.ScanBytes = r.Hit.Position - r.Index.Position
			r.HeaderReads = r.Hops
			if s.era.HeaderReadsPastHit {
				r.HeaderReads = searchFromPositionReads(s.batches, start, target)
			}
			return r, true
		}
	}
	return r, false
}

// searchFromPositionReads counts the headers FileRecords.searchForOffsetFromPosition (4.1+,
// KAFKA-18989, docs/kafka.md §7.1) reads from batch start for target: it returns at once at a
// batch whose base offset is the target, and otherwise reads on to the first batch whose base
// offset is past it (or the end of the file) and returns the batch before.
func searchFromPositionReads(batches []BatchInfo, start int, target int64) int64 {
	var reads int64
	for j := start; j < len(batches); j++ {
		reads++
		if batches[j].BaseOffset >= target {
			break
		}
	}
	return reads
}

// TimeLookupResult is one timestamp lookup (LogSegment.findOffsetByTimestamp).
type TimeLookupResult struct {
	Target      int64
	SegmentBase int64
	// The time-index entry found, (-1, SegmentBase) when none (TimeSlot -1).
	TimeSlot  int
	TimeEntry TimestampOffset
	TimeCost  SearchCost
	// The offset-index lookup of the time entry's offset: where phase 2 starts.
	Index     OffsetPosition
	IndexCost SearchCost
	// The first batch from Index.Position whose max timestamp >= Target. The record Kafka
	// returns is the first one in it with timestamp >= Target (records are not modelled).
	Hit       BatchInfo
	ScanBytes int64
	Hops      int64
}

// LookupTimestamp is LogSegment.findOffsetByTimestamp with startingOffset = the segment's
// base offset: time index, then offset index, then FileRecords.searchForTimestamp's walk to
// the first batch with maxTimestamp >= target that holds a record. ok is false when no such
// batch follows.
func (s *Segment) LookupTimestamp(target int64) (r TimeLookupResult, ok bool) {
	if s.forget {
		panic("model: Segment.LookupTimestamp of a log with ForgetBatches")
	}
	r.Target, r.SegmentBase = target, s.baseOffset
	r.TimeEntry, r.TimeSlot, r.TimeCost = s.timeIndex.LookupSlot(target)
	r.Index, _, r.IndexCost = s.offsetIndex.LookupSlot(max(r.TimeEntry.Offset, s.baseOffset))
	for j := s.batchAt(r.Index.Position); j < len(s.batches); j++ {
		r.Hops++
		// FileRecords.searchForTimestamp looks for a record of the batch at or past the target:
		// a v2 batch of 61 bytes holds none (the empty batch the cleaner keeps for a producer's
		// state, MemoryRecords.filterTo's RETAIN_EMPTY), so the walk goes on past it whatever
		// its header's max timestamp.
		if s.batches[j].MaxTimestamp >= target && !s.batches[j].Empty() {
			r.Hit = s.batches[j]
			r.ScanBytes = r.Hit.Position - r.Index.Position
			return r, true
		}
	}
	return r, false
}

// Lookup finds target in the log as LocalLog.read does: the segment with the greatest base
// offset <= target, then the following segments while the offset is not found. It needs
// KeepSegments for offsets outside the active segment.
func (l *Log) Lookup(target int64) (LookupResult, bool) {
	segs := l.Segments()
	i := sort.Search(len(segs), func(i int) bool { return segs[i].baseOffset > target }) - 1
	for i = max(i, 0); i < len(segs); i++ {
		if r, ok := segs[i].Lookup(target); ok {
			return r, true
		}
	}
	return LookupResult{}, false
}

// LookupTimestamp finds the first offset with a timestamp >= target as
// UnifiedLog.searchOffsetInLocalLog does: the first segment whose largest timestamp is >=
// target (a segment with no timestamps, whose largest timestamp Kafka takes from the file's
// mtime, is skipped: the model has no clock), then that segment's lookup.
func (l *Log) LookupTimestamp(target int64) (TimeLookupResult, bool) {
	for _, s := range l.Segments() {
		if s.maxTimestampSoFar >= 0 && s.maxTimestampSoFar >= target {
			return s.LookupTimestamp(target)
		}
	}
	return TimeLookupResult{}, false
}
