package model

// Clone returns an independent copy of the log: appending to, restarting or recovering
// either one leaves the other unchanged. Rolled segments never change again, so the copy
// shares them; the active segment is copied. Exhaustive checkers use it to extend a
// workload prefix without replaying it.
func (l *Log) Clone() *Log {
	c := *l
	c.kept = append([]*Segment(nil), l.kept...)
	c.summaries = append([]SegmentSummary(nil), l.summaries...)
	c.events = append([]Event(nil), l.events...)
	c.active = l.active.clone()
	// The interval range narrows with every index check: each copy narrows its own (shared,
	// appending to one copy changed the other's IntervalRange, and copies extended on two
	// goroutines raced).
	d := *l.decisions
	c.decisions = &d
	c.active.decisions = c.decisions
	return &c
}

// clone copies a segment with its own batches and indexes.
func (s *Segment) clone() *Segment {
	c := *s
	c.batches = append([]BatchInfo(nil), s.batches...)
	c.entryBatch = append([]int(nil), s.entryBatch...)
	c.offsetIndex = s.offsetIndex.clone()
	c.timeIndex = s.timeIndex.clone()
	return &c
}
