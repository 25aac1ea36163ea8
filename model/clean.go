package model

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Cleaner defaults (docs/contract.md §3, the "clean" step).
const (
	// DefaultCleanerIOBufferSize is the size of each of a cleaner thread's read and write
	// buffers: log.cleaner.io.buffer.size (524288) / log.cleaner.threads (1) / 2, as
	// LogCleaner builds its Cleaner.
	DefaultCleanerIOBufferSize = 262144
	// MaxCleanerIOBufferSize is the largest ioBufferSize: log.cleaner.io.buffer.size is a Java
	// int, halved for the two buffers (LogCleaner's CleanerThread).
	MaxCleanerIOBufferSize = math.MaxInt32 / 2
)

// Event kinds of the clean step (docs/contract.md §4): exceptions Kafka's cleaner throws while
// it writes a cleaned segment. Index overflows and offset overflows reuse the append's kinds.
const (
	// EventCleanerBuffer: Cleaner.growBuffers cannot grow the I/O buffers (Java's
	// ByteBuffer.allocate of a doubled capacity past Integer.MAX_VALUE, or growBuffers'
	// "larger than maximum allowable size").
	EventCleanerBuffer = "cleaner-buffer-overflow"
	// EventSegmentSizeOverflow: FileRecords.append refuses records that would take the cleaned
	// .log past Integer.MAX_VALUE bytes (before trunk's KAFKA-20036 split), possible only when
	// rewritten batches are larger than their sources.
	EventSegmentSizeOverflow = "segment-size-overflow"
)

// CleanEras are the IDs of the eras whose cleaner the clean step models (docs/contract.md §3:
// the eras the file writer writes), oldest first. Their cleaners differ only in the append rule
// and trunk's split.
func CleanEras() []string { return []string{"3.7-4.0.0", "3.9.1-4.0.x", "4.1-4.4", "4.5-trunk"} }

// cleanerSplitsOverflow: the era's cleaner finishes a cleaned segment and starts another when
// the next chunk would overflow it (KAFKA-20036, trunk only: merged into 4.4 and reverted there
// before release).
func cleanerSplitsOverflow(e *Era) bool { return cleanEraID(e) == "4.5-trunk" }

// cleanEraID is the release era whose cleaner a log runs: a candidate era (an era spec) patches
// the append or roll rule of its base era and keeps that era's cleaner.
func cleanEraID(e *Era) string {
	if e.Candidate != "" {
		return e.Candidate
	}
	return e.ID
}

// Clean is one pass of Kafka's log cleaner over the partition (a "clean" step,
// docs/contract.md §3): the non-active segments below UncleanableOffset, grouped as
// Cleaner.groupSegmentsBySize groups them, each group rewritten into one cleaned segment.
// What survives is given per source batch, by base offset: Drop removes a batch, Rewrite
// rebuilds one with fewer records; every other batch is kept as it is.
type Clean struct {
	// UncleanableOffset is Kafka's firstUncleanableDirtyOffset when HasUncleanableOffset;
	// without it, the active segment's base offset.
	UncleanableOffset    int64
	HasUncleanableOffset bool
	Drop                 []int64
	Rewrite              []CleanRewrite
	// IOBufferSize sets the read-buffer chunks; 0 means DefaultCleanerIOBufferSize. The
	// buffers grow for one batch up to the config's max.message.bytes.
	IOBufferSize int64

	// testSplitLimits, when set, replaces maxCleanedSegmentSize and maxCleanedOffsetRange, the
	// limits of trunk's split (KAFKA-20036), both Integer.MAX_VALUE: Kafka's Cleaner takes
	// others only in its tests' constructor, and so does the model
	// (LogCleanerTest.testCleanedSegmentSizeOverflow).
	testSplitLimits *[2]int64
}

// CleanRewrite is a source batch the cleaner rebuilds with fewer records
// (MemoryRecords.buildRetainedRecordsInto): a v2 batch keeps its base and last offsets.
type CleanRewrite struct {
	BaseOffset int64
	Bytes      int64
	// MaxTimestamp is the rebuilt batch's, when HasMaxTimestamp; else the source batch's.
	MaxTimestamp    int64
	HasMaxTimestamp bool
	// DeleteHorizonMs is for the file writer only (the batch's delete-horizon bit and base
	// timestamp), when HasDeleteHorizon.
	DeleteHorizonMs  int64
	HasDeleteHorizon bool
}

// A CleanError names the invalid field of a clean step ("drop[1]", "rewrite[0].bytes").
type CleanError struct {
	Field string
	Err   error
}

func (e *CleanError) Error() string { return e.Field + ": " + e.Err.Error() }

func (e *CleanError) Unwrap() error { return e.Err }

func cleanErr(field string, format string, args ...any) error {
	return &CleanError{Field: field, Err: fmt.Errorf(format, args...)}
}

// Validate checks what a clean step must satisfy whatever the log: offsets and sizes that are
// not negative, a rewrite of at least a v2 batch header, an I/O buffer a cleaner can have, and
// no batch named twice (dropped twice, rewritten twice, or both dropped and rewritten).
func (c Clean) Validate() error {
	if c.HasUncleanableOffset && c.UncleanableOffset < 0 {
		return cleanErr("uncleanableOffset", "%d is negative", c.UncleanableOffset)
	}
	if c.IOBufferSize < 0 || c.IOBufferSize > MaxCleanerIOBufferSize {
		return cleanErr("ioBufferSize", "%d is not between 1 and %d (log.cleaner.io.buffer.size, a Java int, over the two buffers)", c.IOBufferSize, MaxCleanerIOBufferSize)
	}
	for i, d := range c.Drop {
		if d < 0 {
			return cleanErr(fmt.Sprintf("drop[%d]", i), "%d is negative", d)
		}
	}
	for i, r := range c.Rewrite {
		field := fmt.Sprintf("rewrite[%d]", i)
		switch {
		case r.BaseOffset < 0:
			return cleanErr(field+".baseOffset", "%d is negative", r.BaseOffset)
		case r.Bytes < RecordBatchOverhead:
			return cleanErr(field+".bytes", "%d is less than %d, the size of a v2 batch header (RECORD_BATCH_OVERHEAD)", r.Bytes, RecordBatchOverhead)
		case r.Bytes > math.MaxInt32:
			return cleanErr(field+".bytes", "%d does not fit the batch's int32 length", r.Bytes)
		case r.HasMaxTimestamp && r.MaxTimestamp < NoTimestamp:
			return cleanErr(field+".maxTimestamp", "%d is below -1 (NO_TIMESTAMP)", r.MaxTimestamp)
		}
	}
	_, err := c.named()
	return err
}

// namedBatch is a batch a clean step names: by drop[at], or by rewrite[-1-at] when at < 0.
type namedBatch struct {
	base int64
	at   int
}

func (n namedBatch) field() string {
	if n.at < 0 {
		return fmt.Sprintf("rewrite[%d].baseOffset", -1-n.at)
	}
	return fmt.Sprintf("drop[%d]", n.at)
}

// named lists the batches the step names in offset order, and refuses a batch named twice
// (the later naming is the error's field).
func (c Clean) named() ([]namedBatch, error) {
	all := make([]namedBatch, 0, len(c.Drop)+len(c.Rewrite))
	for i, d := range c.Drop {
		all = append(all, namedBatch{d, i})
	}
	for i, r := range c.Rewrite {
		all = append(all, namedBatch{r.BaseOffset, -1 - i})
	}
	// Stable: of two namings of one batch, the first listed (drops before rewrites) stays first.
	slices.SortStableFunc(all, func(a, b namedBatch) int { return cmp.Compare(a.base, b.base) })
	for i := 1; i < len(all); i++ {
		if prev, n := all[i-1], all[i]; prev.base == n.base {
			switch {
			case n.at >= 0:
				return nil, cleanErr(n.field(), "batch %d is already named by %s: name each batch once", n.base, prev.field())
			case prev.at >= 0:
				return nil, cleanErr(n.field(), "batch %d is already named by %s: a batch cannot be both dropped and rewritten", n.base, prev.field())
			}
			return nil, cleanErr(n.field(), "batch %d is already named by %s: a batch cannot be rewritten twice", n.base, prev.field())
		}
	}
	return all, nil
}

// cleanAction is what the cleaner does with one named source batch, in offset order: drop it
// (retained false) or write it rebuilt.
type cleanAction struct {
	base     int64
	retained bool
	batch    Batch
}

// Clean runs one pass of the log cleaner (docs/contract.md §3 "clean"; Cleaner.doClean and
// cleanSegments of the era): the non-active segments whose base offset is below the
// uncleanable offset are grouped (GroupSegmentsBySize), each group is cleaned into a new
// segment named after its first base offset, chunk by chunk of the cleaner's read buffer, each
// chunk's retained batches one LogSegment.append under the era's rule, the cleaned segment made
// inactive (final time-index entry, trimmed indexes), and the cleaned segments replace the
// group (UnifiedLog.replaceSegments). The active segment and the log end offset do not change.
//
// An invalid step (one that does not describe this log) is an error naming the field. An
// exception Kafka's cleaner throws (an index full, an offset or size overflow of the cleaned
// segment, a buffer it cannot grow) is an event that stops the log, unchanged.
func (l *Log) Clean(c Clean) error {
	step, err := l.startStep()
	if errors.Is(err, ErrStopped) {
		return fmt.Errorf("a clean step cannot follow the exception that stopped the log (Kafka threw there; the model does not guess what the broker did next): %w", ErrStopped)
	}
	if err != nil {
		return err
	}
	fail := func(err error) error { return fmt.Errorf("step %d: clean: %w", step, err) }
	if err := c.Validate(); err != nil {
		return fail(err)
	}
	if !slices.Contains(CleanEras(), cleanEraID(l.era)) {
		return fail(fmt.Errorf("the clean step models the log cleaner of the eras %s; era %s is not one of them", strings.Join(CleanEras(), ", "), l.era.ID))
	}
	if !l.opts.KeepSegments || l.opts.OnSegmentDone != nil {
		return fail(errors.New("the log cleaner rewrites rolled segments, which this run does not keep (a streamed run, such as kidx whatif's or kidx sim's text table, keeps only the active one; kidx sim --format json keeps every segment; model.LogOptions.KeepSegments without OnSegmentDone)"))
	}
	if l.opts.ForgetBatches {
		return fail(errForgotten("the log cleaner (Cleaner.cleanInto)"))
	}
	uncleanable := l.active.baseOffset
	if c.HasUncleanableOffset {
		if c.UncleanableOffset > uncleanable {
			return fail(cleanErr("uncleanableOffset", "%d is above %d, the active segment's base offset: Kafka's firstUncleanableDirtyOffset never reaches into the active segment", c.UncleanableOffset, uncleanable))
		}
		uncleanable = c.UncleanableOffset
	}
	n := 0 // l.kept[:n] are the segments cleaned
	for n < len(l.kept) && l.kept[n].baseOffset < uncleanable {
		n++
	}
	plan, err := l.cleanPlan(c, l.kept[:n])
	if err != nil {
		return fail(err)
	}
	if n == 0 {
		return nil
	}
	ioBuffer := c.IOBufferSize
	if ioBuffer == 0 {
		ioBuffer = DefaultCleanerIOBufferSize
	}
	srcs := make([]CleanerSegment, n)
	for i, s := range l.kept[:n] {
		srcs[i] = CleanerSegment{BaseOffset: s.baseOffset, LogBytes: s.size,
			IndexEntries: int64(s.offsetIndex.Entries()), TimeIndexEntries: int64(s.timeIndex.Entries()),
			IndexLastOffset: s.offsetIndex.LastOffset()}
	}
	// Cleaner.doClean: log.config.segmentSize and maxIndexSize (both Java ints).
	groups := GroupSegmentsBySize(srcs, int32(l.cfg.SegmentBytes), int32(l.cfg.SegmentIndexBytes), uncleanable, GroupingRuleFor(l.era.First))
	cleaned := make([]*Segment, 0, len(groups))
	next := 0 // plan[next] is the next named batch the cleaner meets
	for _, g := range groups {
		out, ev, err := l.cleanGroup(g, plan, &next, ioBuffer, c.splitLimits())
		if err != nil {
			if serr := l.stop(step, err); serr != nil {
				return serr
			}
			return nil
		}
		if ev != nil {
			ev.Step = step
			l.events = append(l.events, *ev)
			l.stopped = true
			return nil
		}
		cleaned = append(cleaned, out...)
	}
	// UnifiedLog.replaceSegments: the cleaned segments take the groups' place.
	l.kept = append(cleaned, l.kept[n:]...)
	l.total = ScanStats{}
	for _, s := range l.kept {
		l.total.Merge(s.Scan())
	}
	return nil
}

// splitLimits are maxCleanedSegmentSize and maxCleanedOffsetRange.
func (c Clean) splitLimits() [2]int64 {
	if c.testSplitLimits != nil {
		return *c.testSplitLimits
	}
	return [2]int64{math.MaxInt32, math.MaxInt32}
}

// cleanPlan checks that every drop and rewrite names a batch of a segment being cleaned, and
// that no rewrite names a legacy message (its base offset would move), and returns what the
// cleaner does with each named batch, in offset order (one walk over the batches).
func (l *Log) cleanPlan(c Clean, segs []*Segment) ([]cleanAction, error) {
	named, err := c.named()
	if err != nil {
		return nil, err
	}
	plan := make([]cleanAction, 0, len(named))
	k := 0
	for _, s := range segs {
		for _, b := range s.batches {
			for k < len(named) && named[k].base < b.BaseOffset {
				k++ // names no batch: reported below
			}
			if k == len(named) || named[k].base != b.BaseOffset {
				continue
			}
			n := named[k]
			if n.at >= 0 {
				plan = append(plan, cleanAction{base: n.base})
				continue
			}
			if b.legacy != NotLegacy {
				return nil, cleanErr(n.field(), "batch %d is a magic-%d message: its rebuilt wrapper would take its first retained record's offset (MemoryRecords.buildRetainedRecordsInto), which a rewrite does not give; drop it or keep it", n.base, int(b.legacy)-1)
			}
			r := c.Rewrite[-1-n.at]
			nb := sourceBatch(b)
			nb.Bytes = r.Bytes
			if r.HasMaxTimestamp {
				nb.MaxTimestamp = r.MaxTimestamp
			}
			plan = append(plan, cleanAction{base: n.base, retained: true, batch: nb})
		}
	}
	if len(plan) < len(named) {
		// Name the first batch, in the step's order, that the walk did not meet.
		found := make(map[int64]bool, len(plan))
		for _, a := range plan {
			found[a.base] = true
		}
		noBatch := "%d is the base offset of no batch of the segments cleaned (the non-active segments below the uncleanable offset)"
		for i, d := range c.Drop {
			if !found[d] {
				return nil, cleanErr(fmt.Sprintf("drop[%d]", i), noBatch, d)
			}
		}
		for i, r := range c.Rewrite {
			if !found[r.BaseOffset] {
				return nil, cleanErr(fmt.Sprintf("rewrite[%d].baseOffset", i), noBatch, r.BaseOffset)
			}
		}
	}
	return plan, nil
}

// sourceBatch is a placed batch as an append's input, at its own offsets.
func sourceBatch(b BatchInfo) Batch {
	return Batch{Records: b.Records(), Bytes: b.Size, MaxTimestamp: b.MaxTimestamp, Legacy: b.legacy, BaseOffset: b.BaseOffset}
}

// cleanGroup is Cleaner.cleanSegments for one group: it returns the cleaned segment(s) (several
// only when trunk splits on overflow), or the exception Kafka throws, as an index error or an
// event without its step.
func (l *Log) cleanGroup(group []int, plan []cleanAction, next *int, ioBuffer int64, limits [2]int64) ([]*Segment, *Event, error) {
	// UnifiedLog.createNewCleanedSegment: LogSegment.open with fresh indexes of
	// segment.index.bytes, a byte counter of 0 and no max timestamp yet.
	dest, err := l.newSegment(l.kept[group[0]].baseOffset, nil)
	if err != nil {
		return nil, nil, err
	}
	var out []*Segment
	for _, gi := range group {
		src := l.kept[gi]
		// cleanInto starts each source segment with the buffers restoreBuffers left (the
		// offset map's build restores them too); a split's return keeps them as they are.
		bufCap := ioBuffer
		chunk := make([]Batch, 0, 8)
		for k := 0; k < len(src.batches); {
			// sourceRecords.readInto: min(capacity, bytes left); MemoryRecords' batch iterator
			// stops at the first batch that does not fit whole.
			read := min(bufCap, src.size-src.batches[k].Position)
			chunk = chunk[:0]
			end, chunkBytes, retainedBytes := k, int64(0), int64(0)
			planAtChunk := *next
			for end < len(src.batches) && chunkBytes+src.batches[end].Size <= read {
				b := src.batches[end]
				chunkBytes += b.Size
				end++
				nb := sourceBatch(b) // writeOriginalBatch
				if *next < len(plan) && plan[*next].base == b.BaseOffset {
					a := plan[*next]
					*next++
					if !a.retained {
						continue // BatchRetention.DELETE
					}
					nb = a.batch
				}
				chunk = append(chunk, nb)
				retainedBytes += nb.Bytes
				if retainedBytes > bufCap {
					// MemoryRecords.filterTo: the write buffer (as large as the read buffer)
					// had to grow for this batch, so filterTo returns early (KAFKA-5316) and
					// bytesRead ends after it.
					break
				}
			}
			if chunkBytes == 0 {
				// The first batch is larger than the buffer: Cleaner.growBuffersOrFail.
				if ev := growCleanerBuffers(&bufCap, src.batches[k].Size, l.cfg.MaxMessageBytes); ev != nil {
					return nil, ev, nil
				}
				continue
			}
			if len(chunk) > 0 {
				largest := chunk[len(chunk)-1].BaseOffset + chunk[len(chunk)-1].Records - 1
				sizeOverflow := retainedBytes > math.MaxInt32-dest.size
				offsetOverflow := !dest.offsetIndex.CanAppendOffset(largest)
				split := retainedBytes > limits[0]-dest.size || largest-dest.baseOffset > limits[1]
				if cleanerSplitsOverflow(l.era) && dest.size > 0 && split {
					// KAFKA-20036 (Cleaner.cleanInto returns the chunk's position;
					// cleanSegments finishes dest and opens the next cleaned segment at the
					// base offset of the batch there). maxCleanedSegmentSize and
					// maxCleanedOffsetRange are Integer.MAX_VALUE outside Kafka's tests.
					if err := dest.onBecomeInactive(); err != nil {
						return nil, nil, err
					}
					dest.cleaned = true
					out = append(out, dest)
					if dest, err = l.newSegment(src.batches[k].BaseOffset, nil); err != nil {
						return nil, nil, err
					}
					*next = planAtChunk
					continue // the same chunk again, with the buffers as they are
				}
				if offsetOverflow {
					// LogSegment.append's ensureOffsetInRange: LogSegmentOffsetOverflowException
					// (3.7-4.4 catch it, split the source segment and abort the cleaning).
					return nil, &Event{Kind: EventOffsetOutOfRange,
						Message: fmt.Sprintf("Detected offset overflow at offset %d in segment %d", largest, dest.baseOffset)}, nil
				}
				if sizeOverflow {
					// FileRecords.append.
					return nil, &Event{Kind: EventSegmentSizeOverflow, Bytes: retainedBytes,
						Message: fmt.Sprintf("Append of size %d bytes is too large for segment with current file position at %d", retainedBytes, dest.size)}, nil
				}
				// dest.append(result.maxOffset, retained): one LogSegment.append, under the
				// era's rule (docs/kafka.md §14.2).
				if err := dest.appendBatches(chunk, chunk[0].BaseOffset, OriginLeader, l.cfg.IndexIntervalBytes); err != nil {
					return nil, nil, err
				}
			}
			k = end
		}
	}
	if err := dest.onBecomeInactive(); err != nil {
		return nil, nil, err
	}
	dest.cleaned = true
	return append(out, dest), nil, nil
}

// growCleanerBuffers is Cleaner.growBuffersOrFail then growBuffers for a first batch of
// batchSize bytes that did not fit the buffers of *bufCap bytes, with max.message.bytes
// standing for both the topic's maxMessageSize and the cleaner's maxIoBufferSize (the broker's
// message.max.bytes): it grows *bufCap, or returns the exception Kafka throws as an event.
func growCleanerBuffers(bufCap *int64, batchSize, maxMessageBytes int64) *Event {
	maxSize := maxMessageBytes
	if *bufCap >= maxMessageBytes {
		// The buffer already holds a message of the topic's maximum: grow to this batch.
		maxSize = batchSize
	}
	bound := max(maxSize, maxMessageBytes)
	if *bufCap >= bound {
		// Unreachable from growBuffersOrFail (maxSize is always above the capacity here), kept
		// as Kafka keeps it.
		return &Event{Kind: EventCleanerBuffer, Message: fmt.Sprintf("This log contains a message larger than maximum allowable size of %d.", bound)}
	}
	doubled := int64(int32(*bufCap * 2)) // a Java int: past 2^31-1 it wraps negative
	next := min(doubled, bound)
	if next < 0 {
		// ByteBuffer.allocate of a negative capacity.
		return &Event{Kind: EventCleanerBuffer, Message: fmt.Sprintf("capacity < 0: (%d < 0)", next)}
	}
	*bufCap = next
	return nil
}

// Cleaned reports whether the log cleaner wrote the segment (a clean step): it was written in
// one pass and closed, never rolled and never restarted.
func (s *Segment) Cleaned() bool { return s.cleaned }
