package model

import "math"

// BatchInfo is a record batch placed in a segment.
type BatchInfo struct {
	Position     int64 `json:"position"`
	BaseOffset   int64 `json:"baseOffset"`
	LastOffset   int64 `json:"lastOffset"`
	Size         int64 `json:"sizeInBytes"`
	MaxTimestamp int64 `json:"maxTimestamp"`
	// legacy is the batch's message format, which the log cleaner reads (a legacy message
	// cannot be rewritten in place, docs/contract.md §3 "clean").
	legacy LegacyMagic
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

	// forget keeps only the last append's batches (LogOptions.ForgetBatches, issue 27): the
	// append rule, the roll checks and the scan walk read no earlier batch, so a segment of
	// any length costs one append. dropped counts the batches let go before batches[0];
	// droppedLast, firstMaxTs and maxBatch are what the rules and the summary still read of
	// them; onRun gets each append's runs (appendRuns) once the append succeeded.
	forget      bool
	dropped     int
	droppedLast int64
	firstMaxTs  int64
	maxBatch    int64
	onRun       RunFunc
	appendRuns  appendRuns

	closed     bool
	rollReason RollReason
	// cleaned: the log cleaner wrote the segment (a clean step, Cleaned).
	cleaned bool
	mutant  Mutant
	era     *Era
	// decisions, shared with the Log, narrows to the interval values under which every index
	// check of the run decides as it did.
	decisions *decisionRange
}

// decisionRange is the closed range [lo, hi] of index.interval.bytes values under which every
// index check so far decides as it did (docs/model.md, "Exact interval breakpoints"): a check
// of counter c adds an entry exactly when the interval is below c (strict >). Everything else
// in a run (rolls on a full index, the time index) follows from those decisions, so the whole
// run is the same for every value in the range.
type decisionRange struct{ lo, hi int64 }

func newDecisionRange() *decisionRange { return &decisionRange{0, math.MaxInt32} }

// check records one decision: an entry at counter c (interval < c), or none (interval >= c).
// A mutant's predicate (>=) moves the edge by one.
func (d *decisionRange) check(m Mutant, counter int64, entry bool) {
	edge := counter
	if m == MutantGreaterOrEqual {
		edge = counter + 1 // entry iff interval <= counter
	}
	if entry {
		d.hi = min(d.hi, edge-1)
	} else {
		d.lo = max(d.lo, edge)
	}
}

func newSegment(baseOffset int64, cfg Config, recycled []BatchInfo, mutant Mutant, era *Era, decisions *decisionRange) (*Segment, error) {
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
		era:                       era,
		decisions:                 decisions,
		baseOffset:                baseOffset,
		batches:                   recycled[:0],
		offsetIndex:               oi,
		timeIndex:                 ti,
		maxTimestampSoFar:         NoTimestamp,
		offsetOfMaxTimestampSoFar: baseOffset,
	}, nil
}

// appendRuns adds an append's runs to the segment's ScanStats and holds them until the
// append succeeded: an append Kafka aborts is rolled back, its runs with it.
type appendRuns struct {
	scan *ScanStats
	runs []runCost
}

type runCost struct{ count, scanBytes, hops int64 }

func (a *appendRuns) Add(count, scanBytes, hops int64) {
	a.scan.Add(count, scanBytes, hops)
	if count > 0 {
		a.runs = append(a.runs, runCost{count, scanBytes, hops})
	}
}

// BaseOffset is the first offset the segment may hold (its file name).
func (s *Segment) BaseOffset() int64 { return s.baseOffset }

// Size is the .log file's size in bytes.
func (s *Segment) Size() int64 { return s.size }

// Batches are the segment's batches in file order. The slice must not be modified. With
// LogOptions.ForgetBatches it holds only the last append's batches.
func (s *Segment) Batches() []BatchInfo { return s.batches }

// BatchCount is the number of batches the segment holds (with LogOptions.ForgetBatches,
// those let go included).
func (s *Segment) BatchCount() int { return s.dropped + len(s.batches) }

// LastOffset is the last offset the segment holds, or BaseOffset-1 when it is empty.
func (s *Segment) LastOffset() int64 {
	switch {
	case len(s.batches) > 0:
		return s.batches[len(s.batches)-1].LastOffset
	case s.dropped > 0:
		return s.droppedLast
	}
	return s.baseOffset - 1
}

// forgetBatches lets go of the batches before the append about to start (ForgetBatches).
func (s *Segment) forgetBatches() {
	if !s.forget || len(s.batches) == 0 {
		return
	}
	if s.dropped == 0 {
		s.firstMaxTs = s.batches[0].MaxTimestamp
	}
	s.droppedLast = s.batches[len(s.batches)-1].LastOffset
	s.dropped += len(s.batches)
	s.batches = s.batches[:0]
}

// OffsetIndex is the segment's offset index.
func (s *Segment) OffsetIndex() *OffsetIndex { return s.offsetIndex }

// TimeIndex is the segment's time index.
func (s *Segment) TimeIndex() *TimeIndex { return s.timeIndex }

// Scan is the exact phase-2 cost over every offset of the segment, with Kafka's header
// reads for the segment's era (docs/contract.md §5).
func (s *Segment) Scan() ScanStats { return s.walker.withHeaderReads(s.scan, s.era.HeaderReadsPastHit) }

// Era is the Kafka era whose rules wrote the segment.
func (s *Segment) Era() Era { return *s.era }

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
	maxBatch                          int64
	scan                              ScanStats
	walker                            scanWalker
}

func (s *Segment) mark() segmentMark {
	return segmentMark{
		size: s.size, counter: s.bytesSinceLastIndexEntry,
		maxTs: s.maxTimestampSoFar, maxTsOffset: s.offsetOfMaxTimestampSoFar,
		rollingTs: s.rollingBasedTimestamp, hasRollingTs: s.hasRollingBasedTimestamp,
		batches: len(s.batches), entries: len(s.offsetIndex.entries), timeEntries: len(s.timeIndex.entries),
		maxBatch: s.maxBatch, scan: s.scan, walker: s.walker,
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
	s.scan, s.walker, s.maxBatch = m.scan, m.walker, m.maxBatch
}

// addIndexEntry is the body of LogSegment.append's index check: offsetIndex.append, then
// timeIndex.maybeAppend with the max timestamp so far (which throws when the time index is
// full even if the timestamp would not be appended). Before 0.10.1 there is no time index.
// It returns Kafka's exception.
func (s *Segment) addIndexEntry(offset, position int64, batch int) error {
	if err := s.offsetIndex.Append(offset, position); err != nil {
		return err
	}
	s.entryBatch = append(s.entryBatch, s.dropped+batch)
	if !s.era.HasTimeIndex() {
		return nil
	}
	return s.timeIndex.MaybeAppend(s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar, false)
}

// timeOffset is the offset a batch's max timestamp is time-indexed at (docs/kafka.md §13.2): on
// a leader's uncompressed v2 append, Kafka 0.11 to 3.6 name the first record holding the max
// (LogValidator.offsetOfMaxTimestamp); every other path and era names the batch's last
// offset (a legacy wrapper's own offset is its last inner offset).
func (s *Segment) timeOffset(b *BatchInfo, in *Batch, origin Origin) int64 {
	if s.era.Time == TimeExactRecord && origin == OriginLeader && in.Legacy == NotLegacy && !in.Compressed && in.HasMaxTimestampDelta {
		return b.BaseOffset + int64(in.MaxTimestampDelta)
	}
	return b.LastOffset
}

// placeBatches lays an append's batches out after the segment's last one, with the offsets
// the log gives them (each batch's explicit base offset, else right after the previous).
func placeBatches(batches []Batch, firstOffset int64, at int64, out []BatchInfo) []BatchInfo {
	offset := firstOffset
	for i := range batches {
		b := &batches[i]
		if b.BaseOffset > offset {
			offset = b.BaseOffset
		}
		out = append(out, BatchInfo{Position: at, BaseOffset: offset, LastOffset: offset + b.Records - 1,
			Size: b.Bytes, MaxTimestamp: b.MaxTimestamp, legacy: b.Legacy})
		at += b.Bytes
		offset += b.Records
	}
	return out
}

// appendBatches is LogSegment.append for one append whose offsets start at firstOffset.
// The caller (Log) has done the roll check. On an exception from the indexes the segment is
// left exactly as before the call and the exception is returned.
func (s *Segment) appendBatches(batches []Batch, firstOffset int64, origin Origin, interval int64) error {
	// shouldRoll left at least one free slot in each index. Only an append that may add more
	// entries than there are free slots (a multi-batch append under the per-batch rule,
	// docs/kafka.md §2.4) can make Kafka throw; only then is the state saved for a rollback.
	var m segmentMark
	mayThrow := s.lacksIndexRoom(len(batches))
	s.forgetBatches()
	if mayThrow {
		m = s.mark()
	}
	physicalPosition := s.size
	first := len(s.batches)
	s.batches = placeBatches(batches, firstOffset, s.size, s.batches)
	var appendMaxTs int64 = NoTimestamp
	var appendMaxTsOffset int64 = -1
	for j := first; j < len(s.batches); j++ {
		b := &s.batches[j]
		// LogAppendInfo: the max timestamp of the append and the offset of the first batch
		// (strict >) that reaches it, as timeOffset names it.
		if b.MaxTimestamp > appendMaxTs {
			appendMaxTs, appendMaxTsOffset = b.MaxTimestamp, s.timeOffset(b, &batches[j-first], origin)
		}
		s.size += b.Size
		s.maxBatch = max(s.maxBatch, b.Size)
	}
	largestOffset := s.batches[len(s.batches)-1].LastOffset

	if s.era.Entry == EntryBatchLast {
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
			entry, entryOffset := -1, int64(0)
			due := s.mutant.indexDue(s.bytesSinceLastIndexEntry, interval)
			s.decisions.check(s.mutant, s.bytesSinceLastIndexEntry, due)
			// Candidate fix (b): no entry into a full index; the counter is not reset, so
			// the entry stays due for the next segment's first batch after the roll.
			if due && s.era.SkipEntryWhenIndexFull && s.lacksIndexRoom(1) {
				due = false
			}
			if due {
				off, pos := s.mutant.entry(b.BaseOffset, b.LastOffset, b.Position, b.Position+b.Size)
				if err := s.addIndexEntry(off, pos, j); err != nil {
					if mayThrow {
						s.rollback(m)
					}
					s.appendRuns.runs = s.appendRuns.runs[:0]
					return err
				}
				s.bytesSinceLastIndexEntry = 0
				entry, entryOffset = j, off
			}
			if s.mutant != MutantIncrementBeforeCheck {
				s.bytesSinceLastIndexEntry += b.Size
			}
			s.walk(j, entry, entryOffset)
		}
		s.appendDone()
		return nil
	}

	// One check per LogSegment.append call (before KAFKA-806). The first append into an
	// empty file sets rollingBasedTimestamp to the append's max timestamp.
	if physicalPosition == 0 {
		s.rollingBasedTimestamp, s.hasRollingBasedTimestamp = appendMaxTs, true
	}
	if appendMaxTs > s.maxTimestampSoFar {
		s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar = appendMaxTs, appendMaxTsOffset
	}
	if s.mutant == MutantIncrementBeforeCheck {
		s.bytesSinceLastIndexEntry += s.size - physicalPosition
	}
	entry, entryOffset, entryAt := -1, int64(0), -1
	due := s.mutant.indexDue(s.bytesSinceLastIndexEntry, interval)
	s.decisions.check(s.mutant, s.bytesSinceLastIndexEntry, due)
	if due {
		b := &s.batches[first]
		var off, pos int64
		if s.era.Entry == EntryAppendFirst {
			// Up to 1.1 the entry names the log end offset before the append, its first offset,
			// at the append's start (0.8 to 0.10.0 check before the write, 0.10.1+ after it; the
			// entry is the same). A follower names its first batch's base offset, or from 0.10.0
			// a legacy compressed wrapper's own offset, its last inner one (KAFKA-3047).
			off, pos = b.BaseOffset, physicalPosition
			if origin == OriginReplication && s.era.FollowerWrapperOffset && batches[0].Legacy != NotLegacy {
				off = b.LastOffset
			}
			if s.mutant == MutantEntryPositionAfterBatch {
				pos = s.size
			}
		} else {
			// 2.0 to 4.0.0: one entry for the whole append, its last offset, at its start.
			off, pos = s.mutant.entry(b.BaseOffset, largestOffset, physicalPosition, s.size)
		}
		if err := s.addIndexEntry(off, pos, first); err != nil {
			if mayThrow {
				s.rollback(m)
			}
			s.appendRuns.runs = s.appendRuns.runs[:0]
			return err
		}
		s.bytesSinceLastIndexEntry = 0
		// The walk meets the entry at the batch holding the offset it names.
		entry, entryOffset, entryAt = first, off, first
		for entryAt < len(s.batches)-1 && s.batches[entryAt].LastOffset < off {
			entryAt++
		}
	}
	if s.mutant != MutantIncrementBeforeCheck {
		s.bytesSinceLastIndexEntry += s.size - physicalPosition
	}
	for j := first; j < len(s.batches); j++ {
		if j == entryAt {
			s.walk(j, entry, entryOffset)
		} else {
			s.walk(j, -1, 0)
		}
	}
	s.appendDone()
	return nil
}

// lacksIndexRoom reports whether either index has fewer than n free slots, the time index
// keeping the slot it reserves for onBecomeInactive (TimeIndex.isFull). n = 1 is
// isFull on either index.
func (s *Segment) lacksIndexRoom(n int) bool {
	if s.offsetIndex.maxEntries-len(s.offsetIndex.entries) < n {
		return true
	}
	return s.era.HasTimeIndex() && s.timeIndex.maxEntries-1-len(s.timeIndex.entries) < n
}

// walk is the scan walk's step for batch j of the window (entry: the batch the entry naming
// entryOffset points at, or -1), in the segment's ordinals.
func (s *Segment) walk(j, entry int, entryOffset int64) {
	var sink runSink = &s.scan
	if s.onRun != nil {
		s.appendRuns.scan = &s.scan
		sink = &s.appendRuns
	}
	entryPos := int64(0)
	if entry >= 0 {
		entryPos = s.batches[entry].Position
		entry += s.dropped
	}
	s.walker.step(sink, &s.batches[j], s.dropped+j, entry, entryPos, entryOffset)
}

// appendDone hands a successful append's runs to onRun.
func (s *Segment) appendDone() {
	for _, r := range s.appendRuns.runs {
		s.onRun(r.count, r.scanBytes, r.hops)
	}
	s.appendRuns.runs = s.appendRuns.runs[:0]
}

// onBecomeInactive is LogSegment.onBecomeInactiveSegment (and the index part of close()):
// the time index gets the max timestamp so far with skipFullCheck, then both indexes are
// trimmed to their entries.
func (s *Segment) onBecomeInactive() error {
	if s.era.HasTimeIndex() {
		if err := s.timeIndex.MaybeAppend(s.maxTimestampSoFar, s.offsetOfMaxTimestampSoFar, true); err != nil {
			return err
		}
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

// recover is LogSegment.recover (docs/kafka.md §3) for a segment whose batches are all valid:
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
		// recover() names the batch's last offset in the time index in every era (0.10.1+).
		if b.MaxTimestamp > maxTs {
			maxTs, maxTsOffset = b.MaxTimestamp, b.LastOffset
		}
		due := validBytes-lastIndexEntry > cfg.IndexIntervalBytes
		s.decisions.check(Exact, validBytes-lastIndexEntry, due)
		if due {
			// The entry names the batch's first offset up to 1.1 (the first inner offset of a
			// legacy wrapper, found by decompressing), its last offset from 2.0 (KAFKA-6264).
			off := b.LastOffset
			if s.era.RecoverNamesBase {
				off = b.BaseOffset
			}
			if err := oi.Append(off, validBytes); err != nil {
				return err
			}
			entryBatch = append(entryBatch, j)
			if s.era.HasTimeIndex() {
				if err := ti.MaybeAppend(maxTs, maxTsOffset, false); err != nil {
					return err
				}
			}
			lastIndexEntry = validBytes
		}
		validBytes += b.Size
	}
	oi.TrimToValidSize()
	if s.era.HasTimeIndex() {
		if err := ti.MaybeAppend(maxTs, maxTsOffset, true); err != nil {
			return err
		}
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
	if s.forget {
		panic("model: Segment.Runs of a log with ForgetBatches, whose runs went to LogOptions.OnRun")
	}
	var w scanWalker
	s.replayScan(RunFunc(fn), &w)
}

func (s *Segment) replayScan(sink runSink, w *scanWalker) {
	e := 0
	for j := range s.batches {
		entry, entryOffset := -1, int64(0)
		if e < len(s.offsetIndex.entries) {
			// An entry naming an offset in a gap before the batch acts on all of it.
			if off := s.offsetIndex.at(e).Offset; off <= s.batches[j].LastOffset {
				entry, entryOffset = s.entryBatch[e], max(off, s.batches[j].BaseOffset)
				e++
			}
		}
		entryPos := int64(0)
		if entry >= 0 {
			entryPos = s.batches[entry].Position
		}
		w.step(sink, &s.batches[j], j, entry, entryPos, entryOffset)
	}
}

// timeWaitedForRoll is LogSegment.timeWaitedForRoll with the wall clock left out: the
// rolling timestamp is loaded lazily from the first batch in the file; when it is unknown
// (-1) Kafka falls back to now - created, which a model without a clock takes as 0.
func (s *Segment) timeWaitedForRoll(appendMaxTimestamp int64) int64 {
	if !s.hasRollingBasedTimestamp && s.BatchCount() > 0 {
		first := s.firstMaxTs
		if s.dropped == 0 {
			first = s.batches[0].MaxTimestamp
		}
		s.rollingBasedTimestamp, s.hasRollingBasedTimestamp = first, true
	}
	if s.hasRollingBasedTimestamp && s.rollingBasedTimestamp >= 0 {
		return appendMaxTimestamp - s.rollingBasedTimestamp
	}
	return 0
}
