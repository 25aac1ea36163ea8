package model

// BytesSinceLastIndexEntry is LogSegment.bytesSinceLastIndexEntry: the byte counter the next
// index check compares with index.interval.bytes. props' fixpoint prover reads it as part of
// the segment's abstract state (docs/proofs.md); nothing else needs it.
func (s *Segment) BytesSinceLastIndexEntry() int64 { return s.bytesSinceLastIndexEntry }
