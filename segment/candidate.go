package segment

// Candidate switches the file-backed log to a proposed patch of Kafka's append and roll rules
// (docs/kafka-hazards.md §6, docs/segment.md "Candidate fixes"): the two fixes of the follower
// index overflow, each a knob of its own. The zero value is Kafka as released. It is the file
// side of a candidate era (model.Era's knobs of the same names, set by an era spec); package
// segment does not parse era specs: the caller (kidx write, kidx diff) passes the knobs on.
type Candidate struct {
	// RollWhenAppendLacksIndexRoom is fix (a): LogSegment.shouldRoll also rolls a non-empty
	// segment when the offset index has fewer free slots than the append has batches, or the
	// time index fewer beside the slot it reserves for onBecomeInactiveSegment. For a
	// one-batch append this is isFull again, so a leader rolls exactly as before.
	RollWhenAppendLacksIndexRoom bool
	// SkipEntryWhenIndexFull is fix (b): the per-batch loop of LogSegment.append adds no entry
	// while either index is full (the time index at maxEntries-1), and does not reset the byte
	// counter, so the append never throws and the next append's shouldRoll rolls. It changes
	// nothing under the per-append rule, whose one entry shouldRoll already made room for, nor
	// recover(), which Kafka keeps as it is.
	SkipEntryWhenIndexFull bool
}

// IsZero reports whether c is Kafka as released.
func (c Candidate) IsZero() bool { return c == Candidate{} }

// lacksIndexRoom reports whether either index has fewer than n free slots, the time index
// keeping its reserved slot (TimeIndex.isFull is entries >= maxEntries-1); n = 1 is isFull on
// either index.
func (s *writeSegment) lacksIndexRoom(n int) bool {
	return s.idxMax-s.idxEntries < n || s.tMax-1-s.tEntries < n
}
