package model

// Index exposure (issue 23, docs/kafka-hazards.md): can a segment's index fill before the
// segment reaches segment.bytes? A leader appends one batch per append and checks before each
// (LogSegment.shouldRoll: offsetIndex().isFull() || timeIndex().isFull()), so it rolls exactly
// when an index is full and never overflows. A follower appends a fetched chunk of many batches
// with one check before it, and from KAFKA-806 (3.9.1+, 4.0.1+, 4.1+) indexes each batch of the
// chunk: once its segments are out of line with the leader's (a restart of either replica, a
// replica whose log starts inside a leader segment), an index that fills mid-chunk throws
// ("Attempt to append to a full time index"). LogSegment.recover indexes per batch in every
// release, so it can overflow on a follower segment written one entry per append. Neither can
// happen where no index fills before segment.bytes: that is what these functions decide.

// SmallestV2BatchBytes is the smallest record batch Kafka writes from 0.11 on: the 61-byte v2
// header (DefaultRecordBatch.RECORD_BATCH_OVERHEAD) and one record with no key, an empty value
// and no headers (7 bytes: length, attributes, timestamp delta, offset delta, key length -1,
// value length 0, header count, one byte each as varints).
const SmallestV2BatchBytes = 68

// OffsetIndexCapacity is how many entries an offset index of segment.index.bytes holds before
// AbstractIndex.isFull (entries >= maxEntries, maxEntries = maxIndexSize / 8).
func OffsetIndexCapacity(segmentIndexBytes int64) int64 {
	return segmentIndexBytes / OffsetIndexEntrySize
}

// TimeIndexCapacity is how many entries a time index of segment.index.bytes holds before
// TimeIndex.isFull (entries >= maxEntries - 1: the last slot is kept for the entry a roll or a
// close appends, maxEntries = maxIndexSize / 12).
func TimeIndexCapacity(segmentIndexBytes int64) int64 {
	return max(segmentIndexBytes/TimeIndexEntrySize-1, 0)
}

// IndexFill is where a segment's indexes fill under one batch per append of one size.
type IndexFill struct {
	// Spacing is the bytes from one entry to the next: a batch gets an entry when more than
	// index.interval.bytes lie between its start and the previous entry's (the check comes
	// before the batch is counted), so every k-th batch does, k = floor(I/b)+1.
	Spacing int64
	// OffsetFullBytes and TimeFullBytes are the segment's size when the offset or time index
	// became full: the end of the batch carrying its last entry (entry n starts at n*Spacing).
	// The time index fills first when every indexed batch brings a newer max timestamp (a live
	// producer's CreateTime); where timestamps do not grow it gets no entries past the first
	// and only the offset index can fill.
	OffsetFullBytes, TimeFullBytes int64
	// OffsetFills and TimeFills: that size is within segment.bytes (the batch carrying the
	// last entry is appended, not rolled away: Kafka rolls when size > segment.bytes - batch).
	OffsetFills, TimeFills bool
}

// Exposed says an index fills before segment.bytes (the time index with growing timestamps,
// else the offset index), so that the leader rolls because an index is full and a follower or
// a recovery can overflow it.
func (f IndexFill) Exposed(timestampsGrow bool) bool {
	if timestampsGrow {
		return f.TimeFills || f.OffsetFills
	}
	return f.OffsetFills
}

// UniformIndexFill is where the indexes of a segment of batchBytes-byte batches, one per
// append, fill under cfg (index.interval.bytes, segment.bytes, segment.index.bytes). A batch
// has at least one byte: a smaller batchBytes is taken as 1.
func UniformIndexFill(cfg Config, batchBytes int64) IndexFill {
	batchBytes = max(batchBytes, 1)
	spacing := batchBytes * (max(cfg.IndexIntervalBytes, 0)/batchBytes + 1)
	return fillAt(cfg, spacing, batchBytes)
}

// WorstCaseIndexFill is the earliest the indexes can fill under cfg whatever the batches (v2
// batches of at least SmallestV2BatchBytes): entries no closer than max(I+1, the smallest
// batch) apart (batches of exactly I+1 bytes get there), and the last entry's batch the
// smallest. Where it does not fill, no producer and no follower can make it.
func WorstCaseIndexFill(cfg Config) IndexFill {
	return fillAt(cfg, closestEntries(cfg), SmallestV2BatchBytes)
}

// closestEntries is the least distance between two entries any batches give: more than I
// bytes, and at least a batch.
func closestEntries(cfg Config) int64 {
	return max(max(cfg.IndexIntervalBytes, 0)+1, SmallestV2BatchBytes)
}

func fillAt(cfg Config, spacing, lastBatch int64) IndexFill {
	f := IndexFill{Spacing: spacing}
	f.OffsetFullBytes = OffsetIndexCapacity(cfg.SegmentIndexBytes)*spacing + lastBatch
	f.TimeFullBytes = TimeIndexCapacity(cfg.SegmentIndexBytes)*spacing + lastBatch
	f.OffsetFills = f.OffsetFullBytes <= cfg.SegmentBytes
	f.TimeFills = f.TimeFullBytes <= cfg.SegmentBytes
	return f
}

// SegmentIndexBytesNeverFull is the smallest segment.index.bytes (a multiple of 12, and of 8,
// as Kafka rounds it down to whole entries) under which no index can fill before
// segment.bytes whatever the batches (WorstCaseIndexFill not exposed), with cfg's
// index.interval.bytes and segment.bytes.
func SegmentIndexBytesNeverFull(cfg Config) int64 {
	spacing := closestEntries(cfg)
	// The time index (the smaller) must hold fewer entries than fit: n*spacing + batch >
	// segment.bytes for n = capacity, i.e. capacity >= the entries that fit, plus one.
	fit := (cfg.SegmentBytes - SmallestV2BatchBytes) / spacing // entries whose batch fits
	entries := fit + 1                                         // capacity that cannot be reached
	b := (entries + 1) * TimeIndexEntrySize                    // TimeIndexCapacity = b/12 - 1
	return (b + 23) / 24 * 24
}
