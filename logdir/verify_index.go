package logdir

import (
	"fmt"
	"sort"
	"strings"

	"kidx/segment"
)

// appendEntry is an offset-index entry whose offset lies past the batch at its position:
// under Kafka 2.0 to 3.9.0/4.0.0 it names the last offset of a multi-batch append that starts
// there (KAFKA-6530), which is true when a batch ending at exactly that offset follows before
// the next entry's position.
type appendEntry struct {
	obs     observation // observed once decided
	e       segment.IndexEntry
	nextPos int64 // the next entry's position (or the end of the log)
}

// checkIndexFiles looks at the index files before the walk: order of the valid entries,
// Kafka's sanity check, the zero tail, what a live segment is.
func (w *segmentWalk) checkIndexFiles(newest bool) {
	seg, r := w.seg, w.r
	if seg.Index == nil && w.sf.Index == "" && w.ctx.pd.SetAside[w.sf.Stem()+segment.IndexSuffix] == 0 {
		r.add(w.missingIndex(newest))
	}
	if x := seg.Index; x != nil {
		w.entries = x.Entries(x.ValidLen())
		for i := 1; i < len(w.entries); i++ {
			e, p := w.entries[i], w.entries[i-1]
			if (e.Offset <= p.Offset || e.Position <= p.Position) && r.room(x.Path, CheckIndexOrder, SeverityError) {
				r.Findings = append(r.Findings, Finding{File: x.Path, Pos: int64(i) * segment.OffsetIndexEntrySize, Severity: SeverityError, Check: CheckIndexOrder,
					Message:  fmt.Sprintf("entry %d (offset %d, position %d) does not follow (offset %d, position %d)", i, e.Offset, e.Position, p.Offset, p.Position),
					Expected: "offsets and positions strictly increasing"})
			}
		}
		w.byPos = identity(len(w.entries))
		if !sort.SliceIsSorted(w.byPos, func(a, b int) bool { return w.entries[a].Position < w.entries[b].Position }) {
			sort.SliceStable(w.byPos, func(a, b int) bool { return w.entries[w.byPos[a]].Position < w.entries[w.byPos[b]].Position })
		}
		w.checkTail(x.Path, x.Untrimmed(), x.TailGarbage(), x.ValidLen(), segment.OffsetIndexEntrySize, x.SanityCheck())
	}
	if x := seg.TimeIndex; x != nil {
		w.times = x.Entries(x.ValidLen())
		prevTs, prevOff := segment.NoTimestamp, int64(-1)
		ap := segment.KafkaPath(x.Path)
		for i, e := range w.times {
			at := int64(i) * segment.TimeIndexEntrySize
			if e.Offset < prevOff && r.room(x.Path, CheckIndexOrder, SeverityError) {
				r.Findings = append(r.Findings, Finding{File: x.Path, Pos: at + 8, Severity: SeverityError, Check: CheckIndexOrder,
					Message: fmt.Sprintf("entry %d offset %d is below the previous entry's %d", i, e.Offset, prevOff), Expected: "offsets never decrease"})
			}
			// DumpLogSegments: out of order when the previous timestamp is >= this one
			// (TimeIndex.maybeAppend appends only a strictly larger timestamp).
			if prevTs >= e.Timestamp && r.room(x.Path, CheckTimeIndexOutOfOrder, SeverityError) {
				// DumpLogSegments' summary lists the pairs of the listed findings.
				r.TimeOutOfOrder[ap] = append(r.TimeOutOfOrder[ap], [2]int64{e.Timestamp, prevTs})
				r.Findings = append(r.Findings, Finding{File: x.Path, Pos: at, Severity: SeverityError, Check: CheckTimeIndexOutOfOrder,
					Message: fmt.Sprintf("Index timestamp: %d, Previously indexed timestamp: %d", e.Timestamp, prevTs), Expected: "timestamps strictly increasing"})
			}
			prevTs, prevOff = e.Timestamp, max(prevOff, e.Offset)
		}
		w.byOffset = identity(len(w.times))
		if !sort.SliceIsSorted(w.byOffset, func(a, b int) bool { return w.times[a].Offset < w.times[b].Offset }) {
			sort.SliceStable(w.byOffset, func(a, b int) bool { return w.times[w.byOffset[a]].Offset < w.times[w.byOffset[b]].Offset })
		}
		w.checkTail(x.Path, x.Untrimmed(), x.TailGarbage(), x.ValidLen(), segment.TimeIndexEntrySize, x.SanityCheck())
	}
	w.describeLive(newest)
}

// checkTail reports what lies after an index's valid entries. A trimmed file has nothing
// there, and Kafka's sanityCheck on it is a real verdict. An untrimmed one is live (the
// caller says so): its tail must be zeros, and its sanityCheck verdict is only what Kafka
// would say at an unclean start (describeLive).
func (w *segmentWalk) checkTail(path string, untrimmed bool, garbage, valid, entrySize int, sanity error) {
	if !untrimmed {
		// A trimmed file, or one whose length is no multiple of the entry size (corrupt).
		if sanity != nil {
			w.r.add(findingFromErr(path, SeverityError, CheckIndexSanity, sanity))
		}
		if garbage >= 0 && garbage*entrySize < int(w.fileSize(path)) && int(w.fileSize(path))%entrySize == 0 {
			w.r.add(Finding{File: path, Pos: int64(valid) * int64(entrySize), Severity: SeverityError, Check: CheckZeroedEntry,
				Message:  fmt.Sprintf("slot %d is a zero entry (or names the base offset) but the entries go on after it, to the end of this trimmed file: an entry was zeroed; the %s from there are not judged", valid, plural(int(w.fileSize(path))/entrySize-valid, "slot")),
				Expected: "entries with increasing offsets to the end of the file"})
		}
		return
	}
	if garbage >= 0 {
		w.r.add(Finding{File: path, Pos: int64(garbage) * int64(entrySize), Severity: SeverityWarning, Check: CheckZeroTailGarbage,
			Message:  fmt.Sprintf("slot %d holds non-zero bytes after the %s: no append writes there (a running broker reads only its entry count; AbstractIndex.truncateTo leaves old entries behind, which a recovery discards)", garbage, plural(valid, "valid entry")),
			Expected: "zeros after the valid entries"})
	}
}

// checkGiven reports what in the segment the given release cannot have written, beyond the
// mismatches judge lists: the message formats, a time index, entries that passed
// DumpLogSegments' check but name what the release's rule does not.
func (w *segmentWalk) checkGiven(given Era) {
	var why []string
	if w.magics[2] > 0 && !erasMagic2.Has(given) {
		why = append(why, "its v2 record batches (magic 2 came with 0.11, KIP-98)")
	}
	if w.magics[1] > 0 && !erasMagic1.Has(given) {
		why = append(why, "its magic-1 messages (0.10.0)")
	}
	if len(w.times) > 0 && !erasTimeIndex.Has(given) {
		why = append(why, "its time-index entries (the time index came with 0.10.1, KAFKA-3163)")
	}
	if !w.passed.Has(given) {
		why = append(why, "its offset-index entries naming the last offset of a batch of several offsets (releases up to 1.1 name the append's first offset; KAFKA-6530)")
	}
	if len(why) > 0 {
		w.r.add(Finding{File: w.sf.Log, Pos: -1, Severity: SeverityError, Check: CheckEras,
			Message:  fmt.Sprintf("%s cannot have written this segment: %s", given, strings.Join(why, "; ")),
			Expected: "files " + given.String() + " writes (--kafka-version names the release that wrote them)"})
	}
}

// staleTail softens the errors on the last entries of the newest segment's live index when
// every one of them has one: AbstractIndex.truncateTo (a follower's truncation) moves the
// entry count back and zeroes nothing, so entries of the truncated data stay in the file
// until new ones overwrite them. A running broker never searches them. They cannot be told
// from damage, so they stay problems, as warnings that say so.
func (w *segmentWalk) staleTail(firstFinding int) {
	x := w.seg.Index
	if x == nil || w.nextBase >= 0 || !x.Untrimmed() {
		return
	}
	bad := map[int][]int{} // slot -> its error findings
	for i := firstFinding; i < len(w.r.Findings); i++ {
		if f := w.r.Findings[i]; f.File == x.Path && f.Severity == SeverityError && f.Pos >= 0 {
			slot := int(f.Pos / segment.OffsetIndexEntrySize)
			bad[slot] = append(bad[slot], i)
		}
	}
	n := x.ValidLen()
	from := n
	for from > 0 && len(bad[from-1]) > 0 {
		from--
	}
	for slot := from; slot < n; slot++ {
		for _, i := range bad[slot] {
			f := &w.r.Findings[i]
			f.Severity = SeverityWarning
			f.Explanation = fmt.Sprintf("the last %s of the newest segment's live index: possibly stale entries a follower's truncation left (AbstractIndex.truncateTo moves the entry count and zeroes nothing; a running broker does not search them), or damage", plural(n-from, "entry"))
		}
	}
}

// fileSize is the size of one of the segment's index files.
func (w *segmentWalk) fileSize(path string) int64 {
	if x := w.seg.Index; x != nil && x.Path == path {
		return x.FileSize
	}
	if x := w.seg.TimeIndex; x != nil && x.Path == path {
		return x.FileSize
	}
	return 0
}

// identity is the slots 0..n-1 in order.
func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// entriesAt consumes the entries up to batch b: entries before it point inside the previous
// batch, entries at its start are judged against it. It returns the slot of b's entry, -1 when
// b is not indexed.
func (w *segmentWalk) entriesAt(b segment.BatchInfo, first, last int64) int {
	indexed := -1
	for w.ep < len(w.byPos) {
		slot := w.byPos[w.ep]
		e := w.entries[slot]
		if e.Position > b.Position {
			break
		}
		w.ep++
		if e.Position < 0 {
			w.outsideLog(slot, e) // a negative position precedes every batch, in no batch
			continue
		}
		if e.Position < b.Position {
			w.offBoundary(slot, e)
			continue
		}
		if indexed < 0 {
			indexed = slot
		}
		w.entryAt(slot, e, b, first, last)
	}
	return indexed
}

func (w *segmentWalk) nextEntryPos() int64 {
	if w.ep < len(w.byPos) {
		return w.entries[w.byPos[w.ep]].Position
	}
	return w.seg.Log.Size()
}

// entryAt judges an entry at the start of batch b (DumpLogSegments.dumpIndex compares the
// entry's offset with the last offset of the first batch at its position).
func (w *segmentWalk) entryAt(slot int, e segment.IndexEntry, b segment.BatchInfo, first, last int64) {
	x := w.seg.Index
	at := int64(slot) * segment.OffsetIndexEntrySize
	if e.Position == 0 {
		w.r.add(Finding{File: x.Path, Pos: at, Severity: SeverityWarning, Check: CheckFirstBatchIndexed,
			Message:  fmt.Sprintf("entry %d (offset %d) indexes the segment's first batch (position 0); LogSegment.append never does (the counter starts at 0, the check is a strict >)", slot, e.Offset),
			Expected: "no entry at position 0"})
	}
	if e.Offset == last {
		// The batch's own last offset: every era since 2.0, and the older ones when the entry
		// is also the append's first offset or a follower's wrapper offset.
		allowed := erasAppendLast | erasBatchLast
		if first == last {
			allowed |= erasAppendFirst
		} else if b.IsLegacy() {
			allowed |= erasWrapperOffset
		}
		w.passed &= allowed
		return
	}
	mismatch := Finding{File: x.Path, Pos: at, Check: CheckIndexMismatch,
		Message:  fmt.Sprintf("Index offset: %d, log offset: %d", e.Offset, last),
		Expected: fmt.Sprintf("the batch at position %d to end at offset %d", e.Position, e.Offset)}
	obs := observation{f: mismatch, kind: "index", pair: [2]int64{e.Offset, last}}
	switch {
	case e.Offset == first:
		obs.allowed, obs.why = erasAppendFirst, "up to 1.1 an entry names the append's first offset, the log end offset before it (KAFKA-6530 changed it in 2.0)"
		w.observe(obs)
	case e.Offset > last:
		w.settlePending() // the previous one's append ended without its offset
		w.pending = &appendEntry{obs: obs, e: e, nextPos: w.nextEntryPos()}
	default:
		w.observe(obs) // explained by no era
	}
}

// settlePending observes a pending entry as it stands (explained by no era unless
// resolvePending found its append's end).
func (w *segmentWalk) settlePending() {
	if w.pending != nil {
		w.observe(w.pending.obs)
		w.pending = nil
	}
}

// resolvePending decides a pending multi-batch-append entry with the next batch: its append
// ends at the first batch whose last offset is the entry's, before the next entry's position.
func (w *segmentWalk) resolvePending(b segment.BatchInfo, last int64) {
	p := w.pending
	if p == nil {
		return
	}
	switch {
	case b.Position >= p.nextPos || last > p.e.Offset:
		w.settlePending() // no batch ends at the entry's offset within its append: unexplained
	case last == p.e.Offset:
		p.obs.allowed = erasAppendLast
		p.obs.why = "from 2.0 to 3.9.0/4.0.0 an entry names the last offset of its append, here several batches (KAFKA-6530; one check per batch since KAFKA-806)"
		w.settlePending()
	}
}

// outsideLog reports an entry whose position lies outside the .log (negative, or at or past
// its end).
func (w *segmentWalk) outsideLog(slot int, e segment.IndexEntry) {
	x, size := w.seg.Index, w.seg.Log.Size()
	if !w.r.room(x.Path, CheckIndexPastLog, SeverityError) {
		return // counted, not built
	}
	w.r.Findings = append(w.r.Findings, Finding{File: x.Path, Pos: int64(slot)*segment.OffsetIndexEntrySize + 4, Severity: SeverityError, Check: CheckIndexPastLog,
		Message: fmt.Sprintf("entry %d position %d is outside the log (%d bytes)", slot, e.Position, size), Expected: fmt.Sprintf("position < %d", size)})
}

// offBoundary judges an entry that points inside a batch, reading there as DumpLogSegments
// does (the first batch of slice(position, maxMessageSize)).
func (w *segmentWalk) offBoundary(slot int, e segment.IndexEntry) {
	x, lf := w.seg.Index, w.seg.Log
	at := int64(slot) * segment.OffsetIndexEntrySize
	if w.r.room(x.Path, CheckIndexBoundary, SeverityError) {
		w.r.Findings = append(w.r.Findings, Finding{File: x.Path, Pos: at + 4, Severity: SeverityError, Check: CheckIndexBoundary,
			Message: fmt.Sprintf("entry %d position %d is not the start of a batch in the walk from 0", slot, e.Position), Expected: "a batch boundary"})
	}
	// Read even past the cap: what it finds is counted. Such entries lie inside the .log, so
	// there are at most as many as the .log has room for batches (guardIndex).
	w.dlsRead(slot, e, at, lf)
}

// dlsRead is DumpLogSegments' read of the batch at an entry's position, for entries the
// walk did not meet at a boundary.
func (w *segmentWalk) dlsRead(slot int, e segment.IndexEntry, at int64, lf *segment.LogFile) {
	x := w.seg.Index
	old := lf.ReadAhead()
	lf.SetReadAhead(segment.RecordBatchOverhead)
	defer lf.SetReadAhead(old)
	b, err := lf.NextBatch(e.Position, min(lf.Size(), e.Position+w.ctx.opts.MaxMessageSize))
	if err != nil {
		if !w.r.room(x.Path, CheckIndexMismatch, SeverityError) {
			return
		}
		msg := "no batch readable at this position (DumpLogSegments would throw NoSuchElementException)"
		if err != segment.ErrNoBatch {
			msg = err.Error()
		}
		w.r.Findings = append(w.r.Findings, Finding{File: x.Path, Pos: at + 4, Severity: SeverityError, Check: CheckIndexMismatch, Message: msg, Expected: fmt.Sprintf("a batch ending at offset %d at position %d", e.Offset, e.Position)})
		return
	}
	if b.LastOffset() != e.Offset {
		w.observe(observation{f: Finding{File: x.Path, Pos: at, Check: CheckIndexMismatch,
			Message:  fmt.Sprintf("Index offset: %d, log offset: %d", e.Offset, b.LastOffset()),
			Expected: fmt.Sprintf("the batch at position %d to end at offset %d", e.Position, e.Offset)}, kind: "index", pair: [2]int64{e.Offset, b.LastOffset()}})
	}
}

// missingIndex is the finding for a segment without its .index, in Kafka's words: at its next
// start Kafka recovers the segment and rebuilds its indexes from the .log (LogSegment.sanityCheck
// throws NoSuchFileException, LogLoader.loadSegmentFiles calls recoverSegment), and logs it
// (1.1-3.1 at every start; from 3.2, KAFKA-13603, only for a segment below the recovery point
// or after a clean shutdown). The newest segment is healthy without one (info): from 2.3 a
// broker creates an active segment's index on first use (LazyIndex), and until 3.2 a shutdown
// did not write an empty one. An older segment had one, trimmed when it rolled: it was lost
// (a warning; the rebuild repairs it).
func (w *segmentWalk) missingIndex(newest bool) Finding {
	repair := fmt.Sprintf("at its next start Kafka recovers the segment and rebuilds its indexes from the .log (LogSegment.sanityCheck throws NoSuchFileException, then LogLoader recovers the segment), logging \"Could not find offset index file corresponding to log file %s, recovering segment and rebuilding index files...\" (Kafka 1.1 to 3.1 at every start; from 3.2, KAFKA-13603, when the segment lies below the recovery point or the log shut down cleanly)",
		segment.KafkaPath(w.sf.Log))
	f := Finding{File: w.sf.Log, Pos: -1, Severity: SeverityInfo, Check: CheckMissingIndex, Expected: segment.FilenamePrefixFromOffset(w.base) + segment.IndexSuffix,
		Message: "no .index: " + repair + "; a running broker of 2.3 or later creates an active segment's index on first use (LazyIndex), so a new active segment may have none yet"}
	if !newest {
		f.Severity = SeverityWarning
		f.Message = "no .index for this segment, which had one (a broker trims a segment's index when it rolls, LogSegment.onBecomeInactiveSegment): the file was lost; " + repair
	}
	return f
}
