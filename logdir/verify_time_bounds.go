package logdir

import (
	"encoding/binary"
	"fmt"
	"os"

	"kidx/segment"
)

// A time index over its .log's capacity is the offset index's case again (verify_bounds.go):
// each valid entry's timestamp is strictly above the one before it (TimeIndex.maybeAppend
// appends only a larger one, whether for an append's offset-index entry or, with
// skipFullCheck, at LogSegment.close, onBecomeInactiveSegment or recover), and each is the max
// timestamp of a batch of the segment, so a Kafka-written time index has at most one entry per
// batch, and a .log of L bytes at most floor(L/26) batches: maxEntriesFor's floor(L/26)+1
// bounds it with a slot to spare. Past it, the file is judged in one pass over bounded chunks,
// never loaded.

// timeCapacityOf is overCapacity of a segment's .timeindex, against its .log of logSize bytes.
func timeCapacityOf(sf segment.SegmentFiles, logSize int64) (indexCapacity, bool) {
	if sf.TimeIndex == "" {
		return indexCapacity{}, false
	}
	return overCapacityOf(sf.TimeIndex, logSize, timeIndexLayout)
}

// streamTimeIndex judges a time index over capacity, after the walk (which gave the offsets
// the .log holds), in one pass over bounded chunks: the finding that says so, the order of its
// timestamps and offsets (the checks checkIndexFiles makes of a loaded one, in the same
// words), the entries naming offsets the .log does not hold (DumpLogSegments' "Indexed offset:
// X, found log offset: Y", as timesIn and endOfLog report them), and Kafka's sanityCheck. The
// entries naming offsets the .log holds are counted, not matched with the batches: there are
// more entries than batches, so no Kafka release wrote the file.
func (w *segmentWalk) streamTimeIndex(path string, c indexCapacity, logSize int64) {
	r := w.r
	r.add(capacityFinding(path, c, logSize, "Kafka appends a time-index entry only for a timestamp above the last one, each the max timestamp of a batch, so at most one per batch",
		"time index", "order of timestamps and offsets, offsets the .log holds, Kafka's sanityCheck"))
	const es = segment.TimeIndexEntrySize
	base := w.base
	first, last := w.firstBatch[0], w.verdict.NextOffset-1 // the offsets the walked batches hold
	ap := segment.KafkaPath(path)
	prevTs, prevOff := segment.NoTimestamp, int64(-1)
	inLog := int64(0)
	order := kindCount{r: r, k: findingKind{path, CheckIndexOrder, SeverityError}}
	tsOrder := kindCount{r: r, k: findingKind{path, CheckTimeIndexOutOfOrder, SeverityError}}
	notFound := kindCount{r: r, k: findingKind{path, CheckTimeIndexNotFound, SeverityError}}
	var slot0 []byte
	_ = eachChunk(path, c.valid, es, func(firstSlot int64, chunk []byte) bool {
		if firstSlot == 0 {
			slot0 = append(slot0, chunk[:es]...)
		}
		for j := 0; j < len(chunk); j += es {
			i := firstSlot + int64(j/es)
			at := i * es
			e := segment.TimeIndexEntry{Timestamp: int64(binary.BigEndian.Uint64(chunk[j:])), Offset: base + int64(int32(binary.BigEndian.Uint32(chunk[j+8:])))}
			if e.Offset < prevOff && order.room() {
				r.Findings = append(r.Findings, Finding{File: path, Pos: at + 8, Severity: SeverityError, Check: CheckIndexOrder,
					Message: fmt.Sprintf("entry %d offset %d is below the previous entry's %d", i, e.Offset, prevOff), Expected: "offsets never decrease"})
			}
			// DumpLogSegments: out of order when the previous timestamp is >= this one.
			if prevTs >= e.Timestamp && tsOrder.room() {
				r.TimeOutOfOrder[ap] = append(r.TimeOutOfOrder[ap], [2]int64{e.Timestamp, prevTs})
				r.Findings = append(r.Findings, Finding{File: path, Pos: at, Severity: SeverityError, Check: CheckTimeIndexOutOfOrder,
					Message: fmt.Sprintf("Index timestamp: %d, Previously indexed timestamp: %d", e.Timestamp, prevTs), Expected: "timestamps strictly increasing"})
			}
			prevTs, prevOff = e.Timestamp, max(prevOff, e.Offset)
			// DumpLogSegments reads from the first batch whose last offset is >= the entry's:
			// none past the .log's last offset (-1), the first batch before its first offset.
			found := int64(-1)
			switch {
			case w.verdict.Batches > 0 && e.Offset >= first && e.Offset <= last:
				inLog++
				continue
			case w.verdict.Batches > 0 && e.Offset < first:
				found = w.firstBatch[1]
			}
			if notFound.room() {
				r.TimeNotFound[ap] = append(r.TimeNotFound[ap], [2]int64{e.Offset, found})
				r.Findings = append(r.Findings, Finding{File: path, Pos: at + 8, Severity: SeverityError, Check: CheckTimeIndexNotFound,
					Message:  fmt.Sprintf("Indexed offset: %d, found log offset: %d", e.Offset, found),
					Expected: "a batch ending at the indexed offset"})
			}
		}
		return true
	})
	order.done()
	tsOrder.done()
	notFound.done()
	if inLog > 0 {
		r.add(Finding{File: path, Pos: -1, Severity: SeverityInfo, Check: CheckIndexCapacity,
			Message: fmt.Sprintf("%d of its entries name offsets the .log holds (%d to %d); they are not judged one by one against the batches", inLog, first, last)})
	}
	w.streamTimeSanity(path, c, slot0)
}

// streamTimeSanity is TimeIndex.sanityCheck on the file as it is (a reopened index counts
// every slot an entry), its first failure, from slot 0 and the last slot: the last timestamp
// below the first, the last offset below the base offset, a length no multiple of 12. An
// untrimmed file's verdict is only what an unclean start would say, as for the offset index
// (checkTail), and is not given.
func (w *segmentWalk) streamTimeSanity(path string, c indexCapacity, slot0 []byte) {
	const es = segment.TimeIndexEntrySize
	st, err := os.Stat(path)
	if err != nil || len(slot0) != es {
		return // the file changed under a running broker
	}
	size := st.Size()
	slots := size / es
	f, err := os.Open(path)
	if err != nil {
		return
	}
	lastSlot := make([]byte, es)
	_, err = f.ReadAt(lastSlot, (slots-1)*es)
	f.Close()
	if err != nil {
		return // it shrank meanwhile
	}
	if size%es == 0 && slots > c.valid && allZero(lastSlot) {
		return // untrimmed
	}
	firstTs := int64(binary.BigEndian.Uint64(slot0))
	lastTs := int64(binary.BigEndian.Uint64(lastSlot))
	lastOff := w.base + int64(int32(binary.BigEndian.Uint32(lastSlot[8:])))
	kp := segment.KafkaPath(path)
	f0 := Finding{File: path, Severity: SeverityError, Check: CheckIndexSanity}
	switch {
	case lastTs < firstTs:
		f0.Pos = (slots - 1) * es
		f0.Message = fmt.Sprintf("Corrupt time index found, time index file (%s) has non-zero size but the last timestamp is %d which is less than the first timestamp %d", kp, lastTs, firstTs)
	case lastOff < w.base:
		f0.Pos = (slots-1)*es + 8
		f0.Message = fmt.Sprintf("Corrupt time index found, time index file (%s) has non-zero size but the last offset is %d which is less than the first offset %d", kp, lastOff, w.base)
	case size%es != 0:
		f0.Pos = size - size%es
		f0.Message = fmt.Sprintf("Time index file %s is corrupt, found %d bytes which is neither positive nor a multiple of %d", kp, size, es)
	default:
		return
	}
	w.r.add(f0)
}
