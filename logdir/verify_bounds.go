package logdir

import (
	"encoding/binary"
	"fmt"
	"os"
	"syscall"

	"kidx/segment"
)

// What Kafka can hold bounds what verify reads (docs/findings.md, "Bounded findings"): a .log
// past what an int32 position reaches is refused before it is walked, and an offset index (or
// time index, verify_time_bounds.go) with more entries than its .log has room for batches is
// judged in one pass over bounded chunks, never loaded.

// minBatchBytes is the smallest batch a .log can hold: a magic-0 message with no key and an
// empty value, LegacyRecord.RECORD_OVERHEAD_V0 (14) after Records.LOG_OVERHEAD (12). A v2
// batch takes at least 61 (DefaultRecordBatch.RECORD_BATCH_OVERHEAD).
const minBatchBytes = 26

// maxEntriesFor is the most entries an offset index of a .log of logSize bytes can hold:
// Kafka writes at most one per batch (LogSegment.append), each at the batch's start, at
// strictly increasing positions inside the .log.
func maxEntriesFor(logSize int64) int64 { return logSize/minBatchBytes + 1 }

// streamChunk is what one read of a streamed index fetches.
const streamChunk = 1 << 20

// oversizeLog is the finding for a .log past segment.MaxSegmentBytes, in FileRecords' words
// (segment.OversizeLogError): Kafka cannot open it (LogSegment.open, FileRecords.open), so
// nothing in it is walked.
func oversizeLog(path string, size int64) Finding {
	kafka := &segment.OversizeLogError{Path: segment.KafkaPath(path), Size: size}
	return Finding{File: path, Pos: segment.MaxSegmentBytes, Severity: SeverityError, Check: CheckLogCorrupt,
		Message:  kafka.Error() + " (FileRecords: positions are int32, and Kafka refuses to open the segment, so the log directory does not load); kidx does not walk it",
		Expected: fmt.Sprintf("at most %d bytes (segment.bytes is at most Integer.MAX_VALUE)", segment.MaxSegmentBytes)}
}

// indexCapacity is what a streamed count of an offset or time index found.
type indexCapacity struct {
	valid int64 // entries before the zero tail (segment's validSlots rule)
	limit int64 // maxEntriesFor the .log
}

// An indexLayout is where an index kind keeps its relative offset: the offset index's entry
// is (relative offset, position), 8 bytes; the time index's (timestamp, relative offset), 12.
type indexLayout struct {
	entrySize, relOffsetAt int
}

var (
	offsetIndexLayout = indexLayout{segment.OffsetIndexEntrySize, 0}
	timeIndexLayout   = indexLayout{segment.TimeIndexEntrySize, 8}
)

// overCapacity counts the valid entries of the .index at path, in chunks, when the file has
// more slots than the .log of logSize bytes has room for entries; ok is true when the valid
// entries are more than that too. Any failure leaves the index to the ordinary open, which
// reports it.
func overCapacity(path string, logSize int64) (indexCapacity, bool) {
	return overCapacityOf(path, logSize, offsetIndexLayout)
}

// overCapacityOf is overCapacity for either index kind. The valid entries are those
// segment.OffsetIndex.ValidLen and TimeIndex.ValidLen count: a slot after slot 0 whose
// relative offset is 0 ends them, and an all-zero slot 0 followed by one is no entry.
func overCapacityOf(path string, logSize int64, l indexLayout) (indexCapacity, bool) {
	limit := maxEntriesFor(logSize)
	st, err := os.Stat(path)
	es := int64(l.entrySize)
	if err != nil || !st.Mode().IsRegular() || st.Size()/es <= limit {
		return indexCapacity{}, false
	}
	valid := int64(-1)
	slot0Zero := false
	slots := st.Size() / es
	err = eachChunk(path, slots, l.entrySize, func(first int64, chunk []byte) bool {
		for j := 0; j < len(chunk); j += l.entrySize {
			switch i := first + int64(j/l.entrySize); {
			case i == 0:
				slot0Zero = allZero(chunk[:l.entrySize])
			case binary.BigEndian.Uint32(chunk[j+l.relOffsetAt:]) == 0:
				valid = i // a relative offset of 0 after slot 0 ends the entries (validSlots)
				return false
			}
		}
		return true
	})
	if err != nil {
		return indexCapacity{}, false
	}
	if valid < 0 {
		valid = slots
	}
	if valid == 1 && slots > 1 && slot0Zero {
		valid = 0
	}
	return indexCapacity{valid: valid, limit: limit}, valid > limit
}

// IndexCapacity is what a count of one index of a segment found against its .log: the index's
// valid entries (before the zero tail) and the most a .log of LogSize bytes has room for.
type IndexCapacity struct {
	Path                  string
	Valid, Limit, LogSize int64
}

// IndexOverCapacity reports whether sf's .index (or, time set, its .timeindex) holds more
// valid entries than its .log has room for (Kafka writes at most one of each per batch:
// LogSegment.append, TimeIndex.maybeAppend; docs/findings.md, "Bounded findings"), counting
// them in bounded reads. explain and the replay refuse such a file before loading it.
func IndexOverCapacity(sf segment.SegmentFiles, time bool) (IndexCapacity, bool) {
	path, layout := sf.Index, offsetIndexLayout
	if time {
		path, layout = sf.TimeIndex, timeIndexLayout
	}
	if path == "" || sf.Log == "" {
		return IndexCapacity{}, false
	}
	st, err := os.Stat(sf.Log)
	if err != nil {
		return IndexCapacity{}, false // the open of the .log reports it
	}
	c, over := overCapacityOf(path, st.Size(), layout)
	return IndexCapacity{Path: path, Valid: c.valid, Limit: c.limit, LogSize: st.Size()}, over
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// capacityOf is overCapacity of a segment's .index, each file counted once per partition.
func (ctx *partitionCtx) capacityOf(sf segment.SegmentFiles) (indexCapacity, bool) {
	if sf.Index == "" || sf.Log == "" {
		return indexCapacity{}, false
	}
	if c, ok := ctx.capacity[sf.Index]; ok {
		return c, c.valid > c.limit
	}
	st, err := os.Stat(sf.Log)
	if err != nil {
		return indexCapacity{}, false
	}
	c, over := overCapacity(sf.Index, st.Size())
	if ctx.capacity == nil {
		ctx.capacity = map[string]indexCapacity{}
	}
	ctx.capacity[sf.Index] = c
	return c, over
}

// eachChunk calls fn with the slots [0, n) of entrySize bytes of the file at path, read in
// pieces of at most streamChunk bytes (first is the first slot's number), until fn returns
// false.
func eachChunk(path string, n int64, entrySize int, fn func(first int64, slots []byte) bool) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	es := int64(entrySize)
	buf := make([]byte, streamChunk/es*es)
	for i := int64(0); i < n; {
		k := min(n-i, streamChunk/es)
		got, err := f.ReadAt(buf[:k*es], i*es)
		k = min(k, int64(got)/es)
		if k > 0 && !fn(i, buf[:k*es]) {
			return nil
		}
		if err != nil {
			return nil // the file shrank meanwhile: what was read is judged
		}
		i += k
	}
	return nil
}

// kindCount is the cap's count of one kind of finding in a loop over millions of entries: once
// the kind is full, the rest are counted here, with no lookup, and added at the end.
type kindCount struct {
	r     *VerifyReport
	k     findingKind
	full  bool
	extra int
}

func (c *kindCount) room() bool {
	if c.full {
		c.extra++
		return false
	}
	if c.r.room(c.k.file, c.k.check, c.k.severity) {
		return true
	}
	c.full = true // room counted this one
	return false
}

func (c *kindCount) done() {
	if c.extra > 0 {
		c.r.omit(c.k, c.extra)
	}
}

// capacityFinding is the index-capacity error of either index: why Kafka writes no more
// entries than batches, which index, and what the streamed pass judges instead.
func capacityFinding(path string, c indexCapacity, logSize int64, why, what, judged string) Finding {
	return Finding{File: path, Pos: -1, Severity: SeverityError, Check: CheckIndexCapacity,
		Message: fmt.Sprintf("%d entries before the zero tail, more than the %d a .log of %d bytes has room for (%s, and a batch takes at least %d bytes): no Kafka release wrote this %s; its entries are judged in one pass (%s), not matched with the batches",
			c.valid, c.limit, logSize, why, minBatchBytes, what, judged),
		Expected: fmt.Sprintf("at most %d entries", c.limit)}
}

// streamIndex judges an offset index over capacity in one pass over bounded chunks: the
// finding that says so, the order of its entries, their positions against the .log, and
// Kafka's sanityCheck. Its entries are not matched with batches: there are more than the
// .log has batches, so no Kafka release wrote it, and matching them would cost memory in
// proportion to the file.
func (w *segmentWalk) streamIndex(path string, c indexCapacity, logSize int64) {
	r := w.r
	r.add(capacityFinding(path, c, logSize, "Kafka writes at most one entry per batch, at its start",
		"index", "order, positions inside the .log, Kafka's sanityCheck"))
	base := w.base
	var prev segment.IndexEntry
	var last []byte
	slots := int64(0)
	if st, err := os.Stat(path); err == nil {
		slots = st.Size() / segment.OffsetIndexEntrySize
	}
	inLog := int64(0)
	order := kindCount{r: r, k: findingKind{path, CheckIndexOrder, SeverityError}}
	outside := kindCount{r: r, k: findingKind{path, CheckIndexPastLog, SeverityError}}
	_ = eachChunk(path, slots, segment.OffsetIndexEntrySize, func(first int64, chunk []byte) bool {
		if end := first + int64(len(chunk)/segment.OffsetIndexEntrySize); end == slots {
			last = append(last[:0], chunk[len(chunk)-segment.OffsetIndexEntrySize:]...)
		}
		for j := 0; j < len(chunk); j += segment.OffsetIndexEntrySize {
			i := first + int64(j/segment.OffsetIndexEntrySize)
			if i >= c.valid {
				break // only the last slot still matters (sanityCheck)
			}
			s := chunk[j : j+segment.OffsetIndexEntrySize]
			e := segment.IndexEntry{Offset: base + int64(int32(binary.BigEndian.Uint32(s))), Position: int64(int32(binary.BigEndian.Uint32(s[4:])))}
			at := i * segment.OffsetIndexEntrySize
			if i > 0 && (e.Offset <= prev.Offset || e.Position <= prev.Position) && order.room() {
				r.Findings = append(r.Findings, Finding{File: path, Pos: at, Severity: SeverityError, Check: CheckIndexOrder,
					Message:  fmt.Sprintf("entry %d (offset %d, position %d) does not follow (offset %d, position %d)", i, e.Offset, e.Position, prev.Offset, prev.Position),
					Expected: "offsets and positions strictly increasing"})
			}
			if e.Position < 0 || e.Position >= logSize {
				if outside.room() {
					r.Findings = append(r.Findings, Finding{File: path, Pos: at + 4, Severity: SeverityError, Check: CheckIndexPastLog,
						Message: fmt.Sprintf("entry %d position %d is outside the log (%d bytes)", i, e.Position, logSize), Expected: fmt.Sprintf("position < %d", logSize)})
				}
			} else {
				inLog++
			}
			prev = e
		}
		return true
	})
	order.done()
	outside.done()
	if inLog > 0 {
		r.add(Finding{File: path, Pos: -1, Severity: SeverityInfo, Check: CheckIndexCapacity,
			Message: fmt.Sprintf("%d of its entries point inside the .log; they are not judged one by one against the batches", inLog)})
	}
	// OffsetIndex.sanityCheck on the file as it is, its first failure; an untrimmed file's
	// verdict is only what an unclean start would say (checkTail).
	size := int64(-1)
	if st, err := os.Stat(path); err == nil {
		size = st.Size()
	}
	untrimmed := size%segment.OffsetIndexEntrySize == 0 && slots > c.valid && last != nil && binary.BigEndian.Uint64(last) == 0
	if size < 0 || untrimmed || last == nil {
		return // the file changed under a running broker, or its tail is for checkTail
	}
	if off := base + int64(int32(binary.BigEndian.Uint32(last))); off < base {
		r.add(Finding{File: path, Pos: (slots - 1) * segment.OffsetIndexEntrySize, Severity: SeverityError, Check: CheckIndexSanity,
			Message: fmt.Sprintf("Corrupt index found, index file (%s) has non-zero size but the last offset is %d which is less than the base offset %d", segment.KafkaPath(path), off, base)})
	} else if size%segment.OffsetIndexEntrySize != 0 {
		r.add(Finding{File: path, Pos: slots * segment.OffsetIndexEntrySize, Severity: SeverityError, Check: CheckIndexSanity,
			Message: fmt.Sprintf("Index file %s is corrupt, found %d bytes which is neither positive nor a multiple of %d", segment.KafkaPath(path), size, segment.OffsetIndexEntrySize)})
	}
}
