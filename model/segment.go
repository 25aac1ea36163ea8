package model

// BatchInfo is a record batch placed in a segment.
type BatchInfo struct {
	Position     int64 `json:"position"`
	BaseOffset   int64 `json:"baseOffset"`
	LastOffset   int64 `json:"lastOffset"`
	Size         int64 `json:"sizeInBytes"`
	MaxTimestamp int64 `json:"maxTimestamp"`
}

// Records is the number of offsets the batch holds.
func (b BatchInfo) Records() int64 { return b.LastOffset - b.BaseOffset + 1 }

// Segment is the model of one LogSegment: its batches (the .log), its OffsetIndex and
// TimeIndex, and the in-memory state LogSegment keeps between appends.
type Segment struct {
	baseOffset int64
	size       int64
	batches    []BatchInfo

	offsetIndex *OffsetIndex
	timeIndex   *TimeIndex
	// entryBatch[i] is the ordinal of the batch that offset-index entry i points at; it
	// turns an entry's position into a hop count without a search.
	entryBatch []int

	// LogSegment.bytesSinceLastIndexEntry: 0 whenever a LogSegment object is constructed
	// (new segment, restart, recovery).
	bytesSinceLastIndexEntry int64
	// LogSegment.maxTimestampAndOffsetSoFar. Kafka loads it lazily from
	// timeIndex.lastEntry(), which is (-1, baseOffset) for an empty index; the model loads it
	// eagerly, which reads the same values.
	maxTimestampSoFar         int64
	offsetOfMaxTimestampSoFar int64
	// LogSegment.rollingBasedTimestamp, for time-based rolls.
	rollingBasedTimestamp    int64
	hasRollingBasedTimestamp bool

	scan   ScanStats
	walker scanWalker

	closed     bool
	rollReason RollReason
	mutant     Mutant
}

func newSegment(baseOffset int64, cfg Config, recycled []BatchInfo, mutant Mutant) (*Segment, error) {
	oi, err := NewOffsetIndex(baseOffset, cfg.SegmentIndexBytes)
	if err != nil {
		return nil, err
	}
	ti, err := NewTimeIndex(baseOffset, cfg.SegmentIndexBytes)
	if err != nil {
		return nil, err
	}
	ti.appendOnEqual = mutant == MutantTimeIndexOnEqual
	return &Segment{
		mutant:                    mutant,
		baseOffset:                baseOffset,
		batches:                   recycled[:0],
		offsetIndex:               oi,
		timeIndex:                 ti,
		maxTimestampSoFar:         NoTimestamp,
		offsetOfMaxTimestampSoFar: baseOffset,
	}, nil
}

// BaseOffset is the first offset the segment may hold (its file name).
func (s *Segment) BaseOffset() int64 { return s.baseOffset }

// Size is the .log file's size in bytes.
func (s *Segment) Size() int64 { return s.size }

// Batches are the segment's batches in file order. The slice must not be modified.
func (s *Segment) Batches() []BatchInfo { return s.batches }

// LastOffset is the last offset the segment holds, or BaseOffset-1 when it is empty.
func (s *Segment) LastOffset() int64 {
	if len(s.batches) == 0 {
		return s.baseOffset - 1
	}
	return s.batches[len(s.batches)-1].LastOffset
}

// OffsetIndex is the segment's offset index.
func (s *Segment) OffsetIndex() *OffsetIndex { return s.offsetIndex }

// TimeIndex is the segment's time index.
func (s *Segment) TimeIndex() *TimeIndex { return s.timeIndex }

// Scan is the exact phase-2 cost over every offset of the segment.
func (s *Segment) Scan() ScanStats { return s.scan }

// Closed reports whether the segment was rolled or closed (final time-index entry added,
// indexes trimmed).
func (s *Segment) Closed() bool { return s.closed }

// RollReason says why the log rolled away from this segment ("" while active or when the
// log was closed).
func (s *Segment) RollReason() RollReason { return s.rollReason }

// MaxTimestamp is LogSegment.maxTimestampSoFar (-1 when no batch had a timestamp).
func (s *Segment) MaxTimestamp() int64 { return s.maxTimestampSoFar }

// segmentMark is what an append changes, so that an append Kafka would abort with an
// exception can be taken back: every slice only grows during an append.
type segmentMark struct {
	size, counter, maxTs, maxTsOffset int64
	rollingTs                         int64
	hasRollingTs                      bool
	batches, entries, timeEntries     int
	scan                              ScanStats
	walker                            scanWalker
}

func (s *Segment) mark() segmentMark {
	return segmentMark{
		size: s.size, counter: s.bytesSinceLastIndexEntry,
		maxTs: s.maxTimestampSoFar, maxTsOffset: s.offsetOfMaxTimestampSoFar,
		rollingTs: s.rollingBasedTimestamp, hasRollingTs: s.hasRollingBasedTimestamp,
		batches: len(s.batches), entries: len(s.offsetIndex.entries), timeEntries: len(s.timeIndex.entries),
		scan: s.scan, walker: s.walker,
	}
}

func (s *Segment) rollback(m segmentMark) {
	s.size, s.bytesSinceLastIndexEntry = m.size, m.counter
	s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar = m.maxTs, m.maxTsOffset
	s.rollingBasedTimestamp, s.hasRollingBasedTimestamp = m.rollingTs, m.hasRollingTs
	s.batches = s.batches[:m.batches]
	s.offsetIndex.entries = s.offsetIndex.entries[:m.entries]
	s.entryBatch = s.entryBatch[:m.entries]
	s.timeIndex.entries = s.timeIndex.entries[:m.timeEntries]
	s.scan, s.walker = m.scan, m.walker
}

// addIndexEntry is the body of LogSegment.append's index check: offsetIndex.append, then
// timeIndex.maybeAppend with the max timestamp so far (which throws when the time index is
// full even if the timestamp would not be appended). It returns Kafka's exception.
func (s *Segment) addIndexEntry(offset, position int64, batch int) error {
	if err := s.offsetIndex.Append(offset, position); err != nil {
		return err
	}
	s.entryBatch = append(s.entryBatch, batch)
	return s.timeIndex.MaybeAppend(s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar, false)
}

// appendBatches is LogSegment.append for one append whose offsets start at firstOffset.
// The caller (Log) has done the roll check. On an exception from the indexes the segment is
// left exactly as before the call and the exception is returned.
func (s *Segment) appendBatches(batches []Batch, firstOffset int64, rule AppendRule, interval int64) error {
	// shouldRoll left at least one free slot in each index. Only an append that may add more
	// entries than there are free slots (a multi-batch append under the per-batch rule,
	// semantics §2.4) can make Kafka throw; only then is the state saved for a rollback.
	var m segmentMark
	mayThrow := s.offsetIndex.maxEntries-len(s.offsetIndex.entries) < len(batches) ||
		s.timeIndex.maxEntries-1-len(s.timeIndex.entries) < len(batches)
	if mayThrow {
		m = s.mark()
	}
	physicalPosition := s.size
	first := len(s.batches)
	offset := firstOffset
	var appendMaxTs int64 = NoTimestamp
	var appendMaxTsOffset int64 = -1
	for _, b := range batches {
		info := BatchInfo{Position: s.size, BaseOffset: offset, LastOffset: offset + b.Records - 1,
			Size: b.Bytes, MaxTimestamp: b.MaxTimestamp}
		// LogAppendInfo: the batch-level max timestamp and the last offset of the first batch
		// that reaches it (shallowOffsetOfMaxTimestamp, strict >).
		if b.MaxTimestamp > appendMaxTs {
			appendMaxTs, appendMaxTsOffset = b.MaxTimestamp, info.LastOffset
		}
		s.batches = append(s.batches, info)
		s.size += b.Bytes
		offset += b.Records
	}
	largestOffset := offset - 1

	switch rule {
	case PerBatch:
		// KAFKA-806 LogSegment.append: per batch, update the max timestamp first, then check
		// the counter (strict >, before the increment), then add the batch's size.
		for j := first; j < len(s.batches); j++ {
			b := &s.batches[j]
			if b.MaxTimestamp > s.maxTimestampSoFar {
				s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar = b.MaxTimestamp, b.LastOffset
			}
			if s.mutant == MutantIncrementBeforeCheck {
				s.bytesSinceLastIndexEntry += b.Size
			}
			entry := -1
			if s.mutant.indexDue(s.bytesSinceLastIndexEntry, interval) {
				off, pos := s.mutant.entry(b.BaseOffset, b.LastOffset, b.Position, b.Position+b.Size)
				if err := s.addIndexEntry(off, pos, j); err != nil {
					if mayThrow {
						s.rollback(m)
					}
					return err
				}
				s.bytesSinceLastIndexEntry = 0
				entry = j
			}
			if s.mutant != MutantIncrementBeforeCheck {
				s.bytesSinceLastIndexEntry += b.Size
			}
			s.walker.step(&s.scan, s.batches, j, entry)
		}
	case PerAppend:
		// Pre-KAFKA-806 LogSegment.append: the first append into an empty file sets
		// rollingBasedTimestamp to the append's max timestamp.
		if physicalPosition == 0 {
			s.rollingBasedTimestamp, s.hasRollingBasedTimestamp = appendMaxTs, true
		}
		if appendMaxTs > s.maxTimestampSoFar {
			s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar = appendMaxTs, appendMaxTsOffset
		}
		if s.mutant == MutantIncrementBeforeCheck {
			s.bytesSinceLastIndexEntry += s.size - physicalPosition
		}
		entry := -1
		if s.mutant.indexDue(s.bytesSinceLastIndexEntry, interval) {
			// One entry for the whole append: its last offset, at the append's start.
			off, pos := s.mutant.entry(firstOffset, largestOffset, physicalPosition, s.size)
			if err := s.addIndexEntry(off, pos, first); err != nil {
				if mayThrow {
					s.rollback(m)
				}
				return err
			}
			s.bytesSinceLastIndexEntry = 0
			entry = first
		}
		if s.mutant != MutantIncrementBeforeCheck {
			s.bytesSinceLastIndexEntry += s.size - physicalPosition
		}
		last := len(s.batches) - 1
		for j := first; j < last; j++ {
			s.walker.step(&s.scan, s.batches, j, -1)
		}
		s.walker.step(&s.scan, s.batches, last, entry)
	}
	return nil
}

// onBecomeInactive is LogSegment.onBecomeInactiveSegment (and the index part of close()):
// the time index gets the max timestamp so far with skipFullCheck, then both indexes are
// trimmed to their entries.
func (s *Segment) onBecomeInactive() error {
	if err := s.timeIndex.MaybeAppend(s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar, true); err != nil {
		return err
	}
	s.offsetIndex.TrimToValidSize()
	s.timeIndex.TrimToValidSize()
	s.closed = true
	return nil
}

// reopen models constructing a new LogSegment object on the same files after a restart:
// the byte counter starts at 0, the max timestamp is loaded from timeIndex.lastEntry(), the
// rolling timestamp is unknown again, and (LogLoader, for the active segment) the indexes are
// resized back to segment.index.bytes.
func (s *Segment) reopen(cfg Config) {
	s.bytesSinceLastIndexEntry = 0
	last := s.timeIndex.LastEntry()
	s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar = last.Timestamp, last.Offset
	s.hasRollingBasedTimestamp = false
	s.offsetIndex.Resize(cfg.SegmentIndexBytes)
	s.timeIndex.Resize(cfg.SegmentIndexBytes)
	s.closed = false
}

// recover is LogSegment.recover (semantics §3) for a segment whose batches are all valid:
// both indexes are reset, then rebuilt per batch with a local counter (validBytes -
// lastIndexEntry > interval, strict, checked before adding the batch), the time index gets
// its closing entry with skipFullCheck, and both are trimmed. LogLoader then resizes the
// active segment's indexes back to segment.index.bytes. recover never touches
// bytesSinceLastIndexEntry, so the recovered segment object starts with a counter of 0.
// The rebuild happens on copies: if an index overflows (possible when segment.index.bytes is
// small, §2.4) the segment is unchanged and Kafka's exception is returned.
func (s *Segment) recover(cfg Config) error {
	oi := s.offsetIndex.clone()
	ti := s.timeIndex.clone()
	oi.Reset(cfg.SegmentIndexBytes)
	ti.Reset(cfg.SegmentIndexBytes)
	entryBatch := make([]int, 0, len(s.entryBatch))
	maxTs, maxTsOffset := int64(NoTimestamp), s.baseOffset
	var validBytes, lastIndexEntry int64
	for j, b := range s.batches {
		if b.MaxTimestamp > maxTs {
			maxTs, maxTsOffset = b.MaxTimestamp, b.LastOffset
		}
		if validBytes-lastIndexEntry > cfg.IndexIntervalBytes {
			if err := oi.Append(b.LastOffset, validBytes); err != nil {
				return err
			}
			entryBatch = append(entryBatch, j)
			if err := ti.MaybeAppend(maxTs, maxTsOffset, false); err != nil {
				return err
			}
			lastIndexEntry = validBytes
		}
		validBytes += b.Size
	}
	oi.TrimToValidSize()
	if err := ti.MaybeAppend(maxTs, maxTsOffset, true); err != nil {
		return err
	}
	ti.TrimToValidSize()
	oi.Resize(cfg.SegmentIndexBytes)
	ti.Resize(cfg.SegmentIndexBytes)

	s.offsetIndex, s.timeIndex, s.entryBatch = oi, ti, entryBatch
	s.bytesSinceLastIndexEntry = 0
	s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar = maxTs, maxTsOffset
	s.hasRollingBasedTimestamp = false
	s.recomputeScan()
	return nil
}

// recomputeScan replays the scan walk over all batches with the current entries.
func (s *Segment) recomputeScan() {
	s.scan, s.walker = ScanStats{}, scanWalker{}
	s.replayScan(&s.scan, &s.walker)
}

// Runs calls fn for every run of the segment's offsets that share one lookup cost (count
// offsets of scanBytes and hops each), in offset order. The runs add up to Scan(); reports use
// them for exact quantiles.
func (s *Segment) Runs(fn func(count, scanBytes, hops int64)) {
	var w scanWalker
	s.replayScan(RunFunc(fn), &w)
}

func (s *Segment) replayScan(sink runSink, w *scanWalker) {
	e := 0
	for j := range s.batches {
		entry := -1
		if e < len(s.offsetIndex.entries) && s.offsetIndex.at(e).Offset == s.batches[j].LastOffset {
			entry = s.entryBatch[e]
			e++
		}
		w.step(sink, s.batches, j, entry)
	}
}

// timeWaitedForRoll is LogSegment.timeWaitedForRoll with the wall clock left out: the
// rolling timestamp is loaded lazily from the first batch in the file; when it is unknown
// (-1) Kafka falls back to now - created, which a model without a clock takes as 0.
func (s *Segment) timeWaitedForRoll(appendMaxTimestamp int64) int64 {
	if !s.hasRollingBasedTimestamp && len(s.batches) > 0 {
		s.rollingBasedTimestamp, s.hasRollingBasedTimestamp = s.batches[0].MaxTimestamp, true
	}
	if s.hasRollingBasedTimestamp && s.rollingBasedTimestamp >= 0 {
		return appendMaxTimestamp - s.rollingBasedTimestamp
	}
	return 0
}
