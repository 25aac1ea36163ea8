package logdir

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"kidx/internal/printsafe"
	"kidx/segment"
)

// observation is a check whose verdict depends on the release that wrote the file: it is
// explained when one of the eras in allowed (and in the segment's other constraints) writes
// files this way, and a problem otherwise.
type observation struct {
	f       Finding
	allowed EraSet
	why     string // the rule that explains it, for the explanation
	// DumpLogSegments' pair for its stderr summary: kind "index", "time-not-found",
	// "time-mismatch" (only reported there when nothing explains it).
	kind string
	pair [2]int64
}

// segmentWalk is the state of one segment's check: a single pass over the batch headers,
// merged with the offset index's entries (by position) and the time index's (by offset).
type segmentWalk struct {
	r      *VerifyReport
	ctx    *partitionCtx
	seg    *segment.Segment
	sf     segment.SegmentFiles
	groups []*obsGroup // observations by kind, in the order kinds first appeared
	byKind map[obsKey]*obsGroup
	base   int64

	entries  []segment.IndexEntry // valid offset-index entries, in file order
	byPos    []int                // their slots, by position
	ep       int                  // next in byPos
	times    []segment.TimeIndexEntry
	byOffset []int
	tp       int

	pending *appendEntry // an entry naming an offset past its batch: does its append end there?
	// passed is the set of eras every check that passed allows (checks that passed are not
	// kept one by one: a segment has an entry per few KiB of log).
	passed EraSet

	// Constraints on the eras from the data itself.
	magics    [3]int // batches per magic
	legacyZip int    // compressed legacy wrappers
	life      *lifetimeTracker
	crc       *crcQueue // --deep
	// What the time index says about the last batch walked, for restart placement.
	lastTimeTs   int64 // timestamp of the last time-index entry met so far
	maxTsSoFar   int64 // the largest batch max timestamp so far
	unpairedTime int64 // offset of a time-index entry in the last batch, which had no offset-index entry (-1: none)
	unpairedTs   int64 // its timestamp
	// lastEntryOffset is the largest offset an offset-index entry met so far names; namesFirst:
	// an entry named its batch's first offset though the batch holds several (Kafka up to 1.1,
	// where a time-index entry may lie past its append's entry without marking a shutdown).
	lastEntryOffset int64
	namesFirst      bool
	visitor         SegmentVisitor
	// The follower-overflow signs (verify_follower.go): the last batch's position, the
	// batches after the last offset-index entry, the position of the batch holding the last
	// time-index entry's offset (-1: none), and what they showed.
	lastBatchPos, lastTimeBatchPos int64
	batchesAfterLastEntry          int
	overflow                       *followerOverflow
	verdict                        *SegmentVerdict
	nextBase                       int64 // the next segment's base offset (-1: this is the newest)
	nextLog                        string
	overlap                        *overlap // the batches at or past nextBase, for the finding the walk's end writes
	compaction                     compactionMarks
	firstBatch                     [2]int64 // the first batch's first and last offsets (streamTimeIndex)
}

// An obsGroup gathers the observations of one kind (check, file, allowed eras, rule): a
// healthy segment of an older release has one explained mismatch per index entry, so only the
// first obsKeep of a kind are kept whole, the rest counted.
type obsGroup struct {
	key   obsKey
	first []observation
	count int
}

type obsKey struct {
	check, file, why string
	allowed          EraSet
}

// obsKeep is how many observations of one kind are kept whole (and listed when they are
// problems).
const obsKeep = 1000

func (w *segmentWalk) observe(o observation) {
	k := obsKey{o.f.Check, o.f.File, o.why, o.allowed}
	g := w.byKind[k]
	if g == nil {
		if w.byKind == nil {
			w.byKind = map[obsKey]*obsGroup{}
		}
		g = &obsGroup{key: k}
		w.byKind[k] = g
		w.groups = append(w.groups, g)
	}
	g.count++
	if keep := w.r.maxFindings; len(g.first) < obsKeep && (keep == 0 || len(g.first) < keep) {
		g.first = append(g.first, o)
	}
}

var (
	erasAppendFirst = ErasWhere(func(e Era) bool { return e.OffsetEntry == EntryAppendFirst })
	erasAppendLast  = ErasWhere(func(e Era) bool { return e.OffsetEntry == EntryAppendLast })
	erasBatchLast   = ErasWhere(func(e Era) bool { return e.OffsetEntry == EntryBatchLast })
	erasTimeIndex   = ErasWhere(func(e Era) bool { return e.TimeEntry != TimeNone })
	erasExactTime   = ErasWhere(func(e Era) bool { return e.TimeEntry == TimeExactRecord })
	// Legacy compressed wrappers appended by a follower are named by their own offset (their
	// last inner offset) from 0.10.0 (KAFKA-3047): the era "0.9.0-0.10.0" holds 0.10.0.
	erasWrapperOffset = ErasWhere(func(e Era) bool {
		return e.OffsetEntry != EntryAppendFirst || e.ID == "0.9.0-0.10.0" || e.ID == "0.10.1-0.10.2" || e.ID == "0.11-1.1"
	})
	erasMagic1 = ErasWhere(func(e Era) bool { return e.ID != "0.8.0" && e.ID != "0.8.1-0.8.2" })
	erasMagic2 = ErasWhere(func(e Era) bool { return e.TimeEntry == TimeExactRecord || e.TimeEntry == TimeBatchLast })
)

// next is the partition's next segment with a .log (BaseOffset -1: sf is the newest).
func verifySegment(r *VerifyReport, ctx *partitionCtx, sf segment.SegmentFiles, newest bool, next segment.SegmentFiles) SegmentVerdict {
	nextBase := next.BaseOffset
	v := SegmentVerdict{BaseOffset: sf.BaseOffset, Log: sf.Log, Restarts: []Restart{}, EraIDs: []string{}, NextOffset: sf.BaseOffset, NoIndex: sf.Index == ""}
	// Headers only: reads of the header pages, by concurrent chains from the index's entries
	// (WalkIndexed: two on a cached file, up to 32 on a cold one); a mapping would cost as
	// much in faults, and as much again to tear down. Every byte (--deep): a mapping, mapped ahead
	// on the other cores, its CRCs computed on every core with no copy (docs/logdirs.md,
	// "Reading only what is needed").
	access := segment.AccessPread
	if ctx.opts.Deep {
		access = segment.AccessMmap
	}
	// Only the files the scan kept are opened: one it set aside has its finding already, and
	// a failure here names the file that failed (issue 11, defect 4).
	// What Kafka cannot hold is found before the work it would make expensive: a .log past
	// an int32 position is not walked, an .index or .timeindex over its .log's capacity not
	// loaded (the time index is judged after the walk, which gives the offsets the .log holds).
	logSize := int64(-1)
	if st, err := os.Stat(sf.Log); err == nil {
		logSize = st.Size()
	}
	if logSize > segment.MaxSegmentBytes {
		r.add(oversizeLog(sf.Log, logSize))
		r.flushOmitted()
		return v
	}
	opened := sf
	capacity, streamed := ctx.capacityOf(sf)
	if streamed {
		opened.Index = ""
		v.IndexEntries = int(capacity.valid)
	}
	timeCapacity, timeStreamed := indexCapacity{}, false
	if logSize >= 0 {
		timeCapacity, timeStreamed = timeCapacityOf(sf, logSize)
	}
	if timeStreamed {
		opened.TimeIndex = ""
		v.TimeIndexEntries = int(timeCapacity.valid)
	}
	seg, err := segment.OpenSegmentFiles(opened, access)
	var oe *segment.OpenError
	if err != nil && access == segment.AccessMmap && errors.As(err, &oe) && oe.Path == sf.Log {
		// Some filesystems cannot map (FUSE, some network mounts): read instead.
		seg, err = segment.OpenSegmentFiles(opened, segment.AccessPread)
	}
	if err != nil {
		f := Finding{File: sf.Log, Pos: -1, Severity: SeverityError, Check: CheckUnreadable, Message: err.Error()}
		if errors.As(err, &oe) {
			f.File, f.Message = oe.Path, oe.Reason()+": the segment is not read"
		}
		r.add(f)
		return v
	}
	defer seg.Close()
	w := &segmentWalk{r: r, ctx: ctx, seg: seg, sf: sf, base: sf.BaseOffset, verdict: &v, nextBase: nextBase, nextLog: next.Log, passed: AllEras,
		lastTimeTs: segment.NoTimestamp, maxTsSoFar: segment.NoTimestamp, unpairedTime: -1, lastEntryOffset: -1, lastTimeBatchPos: -1}
	firstFinding := len(r.Findings)
	w.checkIndexFiles(newest)
	if streamed {
		w.streamIndex(sf.Index, capacity, seg.Log.Size())
	}
	// Producer snapshots strictly inside the segment mark clean shutdowns (a snapshot at the
	// base offset is the roll's).
	var marks []snapshotMark
	for _, m := range ctx.snapshots {
		if m.offset > sf.BaseOffset && (nextBase < 0 || m.offset < nextBase) {
			marks = append(marks, m)
		}
	}
	// With no interval known (no entry anywhere in the partition), only snapshots place restarts.
	interval := int64(math.MaxInt64)
	if ctx.intervalKnown {
		interval = ctx.interval
	}
	w.life = newLifetimeTracker(interval, ctx.opts.HaveInterval, marks)
	if ctx.opts.Visit != nil {
		w.visitor = ctx.opts.Visit(sf, seg)
	}
	w.walk()
	if timeStreamed {
		w.streamTimeIndex(sf.TimeIndex, timeCapacity, seg.Log.Size())
	}
	w.judge()
	w.reportFollowerOverflow()
	if w.overflow != nil {
		// The batches past the entry whose neighbour threw are the failed append's: no
		// restart explains their missing entries.
		kept := w.life.restarts[:0]
		for _, rs := range w.life.restarts {
			if rs.Position <= w.overflow.last.Position {
				kept = append(kept, rs)
			}
		}
		w.life.restarts = kept
	}
	w.staleTail(firstFinding)
	w.uncleanStart()
	if len(w.life.restarts) > 0 {
		v.Restarts = w.life.restarts
		if !w.lifetimesInferable() || !ctx.intervalKnown {
			v.Restarts = evidencedRestarts(w.life.restarts)
		}
		// A restart no shutdown marked is a follower's truncation, or the files are not what
		// the given release with the given interval writes: only both claims make it a
		// problem.
		claimed := ctx.opts.Era != nil && ctx.opts.HaveInterval
		for _, rs := range v.Restarts {
			f := Finding{File: sf.Log, Pos: rs.Position, Severity: SeverityInfo, Check: CheckRestart, Message: rs.String()}
			if rs.Unmarked && claimed {
				f.Severity = SeverityWarning
				f.Expected = fmt.Sprintf("an entry here under %s with index.interval.bytes=%d, unless a follower truncated the log here", ctx.opts.Era, ctx.interval)
			}
			r.add(f)
		}
	}
	if seg.Index != nil {
		v.IndexEntries = seg.Index.ValidLen()
	}
	if seg.TimeIndex != nil {
		v.TimeIndexEntries = seg.TimeIndex.ValidLen()
	}
	r.flushOmitted()
	return v
}

// shutdownMarks is what the time index says about the batch just walked: a time-index entry
// in it with no offset-index entry, naming an offset past every offset-index entry so far,
// which only LogSegment.close or recover append (the entry an append adds beside its
// offset-index entry names an offset no later than that entry's, from 2.0; before, an entry
// names its append's first offset, and with batches of several records a later time-index
// entry of the same append is no mark: namesFirst turns marks off); and whether a close there
// would have appended one (the max timestamp grew past the last time-index entry).
func (w *segmentWalk) shutdownMarks() shutdownMarks {
	m := shutdownMarks{timeEntry: -1, wouldMark: w.seg.TimeIndex != nil && w.maxTsSoFar > w.lastTimeTs}
	if w.unpairedTime >= 0 && w.unpairedTime > w.lastEntryOffset && !w.namesFirst {
		m.timeEntry, m.timestamp = w.unpairedTime, w.unpairedTs
	}
	return m
}

// lifetimesInferable: restarts are placed from the gaps between entries only under the
// per-batch rule (the given era, or the only one the files allow): under the per-append
// releases a long gap is just as well an append of several batches, which they check once
// (a follower's fetch, the cleaner). Producer snapshots place restarts in every era.
func (w *segmentWalk) lifetimesInferable() bool {
	if g := w.ctx.opts.Era; g != nil {
		return g.PerBatch()
	}
	return !w.verdict.eras.Empty() && w.verdict.eras&^erasBatchLast == 0
}

// evidencedRestarts keeps the restarts the files mark: a producer snapshot, or a shutdown's
// time-index entry (whatever the append rule, unlike a gap between entries).
func evidencedRestarts(rs []Restart) []Restart {
	out := []Restart{} // a list in verify's JSON even when none is evidenced (kidx.verify/1)
	for _, r := range rs {
		if r.Snapshot != "" || r.TimeIndexMark >= 0 {
			out = append(out, r)
		}
	}
	return out
}

// findingFromErr turns an error into a finding, at the error's byte when it is a FormatError.
func findingFromErr(path string, sev Severity, check string, err error) Finding {
	f := Finding{File: path, Pos: -1, Severity: sev, Check: check, Message: err.Error()}
	var fe *segment.FormatError
	if errors.As(err, &fe) {
		f.Pos, f.Message = fe.Pos, fe.Msg
	}
	// A parser's message may echo the file's content (a checkpoint's garbage line): bounded.
	f.Message = printsafe.Message(f.Message)
	return f
}

// walk is the single pass over the batches.
func (w *segmentWalk) walk() {
	lf := w.seg.Log
	lf.SetReadAhead(HeaderWindow) // one page per read while batches are small
	if w.ctx.opts.Deep {
		lf.SetPrefetch(true)
		w.crc = &crcQueue{lf: lf, report: func(b segment.BatchInfo, err error) {
			f := findingFromErr(w.sf.Log, SeverityError, CheckCRC, err)
			f.Expected = "stored CRC == computed CRC"
			w.r.add(f)
		}}
	}
	prevLast := w.base - 1
	lastTimeOffset := int64(-1)
	if len(w.times) > 0 {
		lastTimeOffset = w.times[len(w.times)-1].Offset
	}
	res := lf.WalkIndexed(0, 0, w.entries, w.byPos, func(b segment.BatchInfo) bool {
		w.r.Batches++
		w.verdict.Batches++
		first, last := w.batchOffsets(lf, b)
		if w.verdict.Batches == 1 {
			w.firstBatch = [2]int64{first, last}
		}
		if w.visitor != nil {
			w.visitor.Batch(b, first, last)
		}
		w.checkBatch(b, first, prevLast)
		w.checkNextBase(b, first, last)
		w.compaction.batch(b, first, prevLast)
		prevLast = max(prevLast, last)
		w.resolvePending(b, last)
		slot := w.entriesAt(b, first, last)
		indexed := slot >= 0
		w.lastBatchPos = b.Position
		if indexed {
			w.batchesAfterLastEntry = 0
		} else {
			w.batchesAfterLastEntry++
		}
		if first <= lastTimeOffset && lastTimeOffset <= last {
			w.lastTimeBatchPos = b.Position
		}
		if indexed {
			e := w.entries[slot]
			w.lastEntryOffset = max(w.lastEntryOffset, e.Offset)
			w.namesFirst = w.namesFirst || e.Offset == first && first < last
		}
		marks := w.shutdownMarks()
		if d := w.life.batch(b.Position, first, b.MaxTimestamp(), indexed, marks); d >= 0 && w.r.room(w.seg.Index.Path, CheckIntervalRule, SeverityError) {
			w.r.Findings = append(w.r.Findings, Finding{File: w.seg.Index.Path, Pos: int64(slot) * segment.OffsetIndexEntrySize, Severity: SeverityError, Check: CheckIntervalRule,
				Message:  fmt.Sprintf("the entry at position %d lies %d bytes after the previous entry (or the segment's start): index.interval.bytes=%d adds an entry only after more than %d bytes (LogSegment.append: bytesSinceLastIndexEntry > indexIntervalBytes)", b.Position, d, w.ctx.interval, w.ctx.interval),
				Expected: fmt.Sprintf("more than %d bytes between entries", w.ctx.interval)})
		}
		w.unpairedTime = -1
		w.timesIn(b, first, last, indexed)
		w.maxTsSoFar = max(w.maxTsSoFar, b.MaxTimestamp())
		return true
	})
	if w.crc != nil {
		w.crc.flush()
	}
	w.verdict.LogBytes = res.ValidBytes
	w.verdict.NextOffset = prevLast + 1
	var checkpoint int64
	if w.ctx.cleanerOffset != nil {
		checkpoint = *w.ctx.cleanerOffset
	}
	w.verdict.Cleaner = CleanerEvidence{Gaps: w.compaction.gaps, DeleteHorizons: w.compaction.deleteHorizons}.
		placed(w.verdict.Batches > 0, prevLast, checkpoint, w.ctx.cleanerOffset != nil)
	w.r.LogBytes += res.ValidBytes
	live := w.nextBase < 0 && w.seg.TimeIndex != nil && w.seg.TimeIndex.Untrimmed()
	w.life.end(res.ValidBytes, prevLast+1, w.shutdownMarks(), live)
	if w.visitor != nil {
		w.visitor.End(w.seg, res)
	}
	w.endOfLog(res)
	w.overflow = w.detectFollowerOverflow(w.lastBatchPos)
	w.reportOverlap()
}

// HeaderWindow is what one read fetches when only headers are wanted: a page, so that small
// batches share reads and a large batch costs one page (docs/segment.md, "Reading only what
// is needed").
const HeaderWindow = 4096

// batchOffsets is the range of offsets a batch holds: the v2 header's, a legacy message's own
// offset, and for a legacy compressed wrapper (whose offset field is its last inner offset)
// the first inner offset.
func (w *segmentWalk) batchOffsets(lf *segment.LogFile, b segment.BatchInfo) (int64, int64) {
	if !b.IsLegacy() {
		return b.BaseOffset(), b.LastOffset()
	}
	if b.Magic < 0 {
		// FileLogInputStream.nextBatch reads any magic below 2 as legacy; only 0 and 1 are.
		w.r.add(Finding{File: lf.Path, Pos: b.Position + segment.MagicOffset, Severity: SeverityError, Check: CheckMagic,
			Message: fmt.Sprintf("unknown magic %d", b.Magic), Expected: "magic 0, 1 or 2"})
		return b.Legacy.Offset, b.Legacy.Offset
	}
	w.magics[b.Magic]++
	if b.Legacy.Attributes&7 == 0 {
		return b.Legacy.Offset, b.Legacy.Offset
	}
	w.legacyZip++
	first, err := lf.FirstOffset(b)
	if err != nil {
		w.r.add(findingFromErr(lf.Path, SeverityError, CheckLogCorrupt, err))
		return b.Legacy.Offset, b.Legacy.Offset
	}
	return first, b.Legacy.Offset
}

func (w *segmentWalk) checkBatch(b segment.BatchInfo, first, prevLast int64) {
	r, path := w.r, w.sf.Log
	if !b.IsLegacy() {
		if b.Magic > 2 {
			r.add(Finding{File: path, Pos: b.Position + segment.MagicOffset, Severity: SeverityError, Check: CheckMagic, Message: fmt.Sprintf("unknown magic %d", b.Magic), Expected: "magic 0, 1 or 2"})
		} else {
			w.magics[2]++
		}
		if b.LastOffset() < b.BaseOffset() {
			r.add(Finding{File: path, Pos: b.Position + 23, Severity: SeverityError, Check: CheckOffsetOrder, Message: fmt.Sprintf("lastOffsetDelta %d is negative", b.Header.LastOffsetDelta), Expected: "lastOffsetDelta >= 0"})
		}
	}
	if first <= prevLast {
		r.add(Finding{File: path, Pos: b.Position, Severity: SeverityError, Check: CheckOffsetOrder,
			Message: fmt.Sprintf("batch first offset %d is not above the previous last offset %d", first, prevLast), Expected: fmt.Sprintf("first offset > %d", prevLast)})
	}
	if w.crc != nil {
		w.crc.add(b)
	}
}

// checkNextBase reports the first batch holding an offset at or past the next segment's base
// offset. Kafka keys a partition's segments by base offset (LogSegments, a map from base
// offset to segment) and finds offset X in the segment with the greatest base offset <= X
// (floorSegment); it rolls only to a base offset above every offset the log holds
// (LocalLog.roll at the log end offset), and the cleaner keeps a group's first base offset.
// So every offset of a segment lies below the next one's base, and a batch past it overlaps
// the next segment: those offsets are shadowed (reads of them go to the next segment), which
// is files of two logs mixed, not anything a broker writes. Gaps are fine: a next base
// offset above this segment's last offset + 1 (compaction, deletion, an empty segment) is
// not an overlap.
func (w *segmentWalk) checkNextBase(b segment.BatchInfo, first, last int64) {
	if w.nextBase < 0 || last < w.nextBase {
		return
	}
	if w.overlap == nil {
		w.overlap = &overlap{pos: b.Position, first: first, last: last}
	}
	w.overlap.add(b, first, last)
}

// endOfLog reports how the walk ended and the entries left past the last batch.
func (w *segmentWalk) endOfLog(res segment.WalkResult) {
	r, lf := w.r, w.seg.Log
	switch {
	case res.Err != nil:
		if zeros, ok := lf.ZerosFrom(res.ValidBytes); ok && zeros > 0 {
			f := Finding{File: lf.Path, Pos: res.ValidBytes, Severity: SeverityInfo, Check: CheckPreallocatedLog,
				Message: fmt.Sprintf("%d zero bytes after the last batch: a .log preallocated to segment.bytes (log.preallocate=true, FileRecords.open); Kafka trims it at roll and close, and a recovery stops at the zeros", zeros)}
			if w.nextBase >= 0 {
				// Kafka trims a segment's .log when it rolls: zeros in an older one are pages a
				// crash lost.
				f.Severity = SeverityWarning
				f.Message = fmt.Sprintf("%d zero bytes after the last batch of a segment that is not the newest: Kafka trims a .log when its segment rolls, so these are pages a crash lost (a recovery truncates them)", zeros)
			}
			r.add(f)
			break
		}
		r.add(findingFromErr(lf.Path, SeverityError, CheckLogCorrupt, res.Err))
	case res.TrailingBytes() > 0:
		f := Finding{File: lf.Path, Pos: res.ValidBytes, Severity: SeverityError, Check: CheckTrailingBytes,
			Message: fmt.Sprintf("Found %d invalid bytes at the end of %s", res.TrailingBytes(), filepath.Base(lf.Path)), Expected: fmt.Sprintf("a whole batch or end of file at byte %d", res.ValidBytes)}
		if w.nextBase < 0 {
			// The newest segment's last batch may be being written right now.
			f.Severity = SeverityWarning
			f.Explanation = "the newest segment: a batch being written now by a running broker, or cut by a crash (LogSegment.recover truncates it at the next start)"
		}
		r.add(f)
	}
	for ; w.ep < len(w.byPos); w.ep++ {
		slot := w.byPos[w.ep]
		e := w.entries[slot]
		at := int64(slot) * segment.OffsetIndexEntrySize
		if e.Position < 0 || e.Position >= lf.Size() {
			w.outsideLog(slot, e)
			continue
		}
		if !r.room(w.seg.Index.Path, CheckIndexPastLog, SeverityError) {
			continue // counted, not built
		}
		r.Findings = append(r.Findings, Finding{File: w.seg.Index.Path, Pos: at + 4, Severity: SeverityError, Check: CheckIndexPastLog,
			Message: fmt.Sprintf("entry %d position %d is past the last whole batch (which ends at byte %d)", slot, e.Position, res.ValidBytes), Expected: fmt.Sprintf("position < %d", res.ValidBytes)})
	}
	for ; w.tp < len(w.byOffset); w.tp++ {
		slot := w.byOffset[w.tp]
		e := w.times[slot]
		w.observe(observation{f: Finding{File: w.seg.TimeIndex.Path, Pos: int64(slot)*segment.TimeIndexEntrySize + 8, Check: CheckTimeIndexNotFound,
			Message:  fmt.Sprintf("Indexed offset: %d, found log offset: %d", e.Offset, -1),
			Expected: "a batch ending at the indexed offset"}, kind: "time-not-found", pair: [2]int64{e.Offset, -1}})
	}
	if n := w.magics[0] + w.magics[1]; n > 0 {
		msg := fmt.Sprintf("%s in the legacy formats (magic 0: %d, magic 1: %d)", plural(n, "message"), w.magics[0], w.magics[1])
		if w.legacyZip > 0 {
			msg += fmt.Sprintf(", %d of them compressed wrappers holding several messages each", w.legacyZip)
		}
		r.add(Finding{File: lf.Path, Pos: -1, Severity: SeverityInfo, Check: CheckLegacy, Message: msg})
	}
}

// judge decides the era-dependent observations once the whole segment was seen.
func (w *segmentWalk) judge() {
	constraints := AllEras
	if w.magics[2] > 0 {
		constraints &= erasMagic2
	}
	if w.magics[1] > 0 {
		constraints &= erasMagic1
	}
	if len(w.times) > 0 {
		constraints &= erasTimeIndex
	}
	w.settlePending()
	set := constraints & w.passed
	for _, g := range w.groups {
		set &= g.key.allowed
	}
	w.verdict.eras = set
	w.verdict.EraIDs = set.IDs()
	w.verdict.Eras = set.String()
	switch {
	case set.Empty():
		w.verdict.Eras = "no single Kafka release (the entries mix rules)"
	case w.verdict.Batches == 0:
		w.verdict.Eras = "" // nothing written: nothing to tell releases apart
	}
	given := w.ctx.opts.Era
	if given != nil && w.verdict.Batches > 0 {
		w.checkGiven(*given)
	}
	mixed := false
	for _, g := range w.groups {
		explained := g.key.allowed & constraints
		ok := !explained.Empty()
		if given != nil {
			ok = explained.Has(*given)
		}
		if ok {
			// One finding stands for the whole kind: the first, with the count.
			f := g.first[0].f
			f.Severity, f.Count = SeverityInfo, g.count
			f.Explanation = "explained: " + explained.String() + " (" + g.key.why + ")"
			if given != nil {
				f.Explanation = "explained: " + given.String() + " (" + g.key.why + ")"
			}
			if (g.key.allowed & set).Empty() {
				mixed = true
			}
			w.r.add(f)
			continue
		}
		for _, o := range g.first {
			f := o.f
			f.Severity = SeverityError
			if !w.r.room(f.File, f.Check, f.Severity) {
				continue // counted: DumpLogSegments' summary lists the listed ones only
			}
			if given != nil && !explained.Empty() {
				f.Explanation = fmt.Sprintf("not what %s writes (%s would: %s)", given, explained, g.key.why)
			}
			ap := segment.KafkaPath(f.File)
			switch o.kind {
			case "index":
				w.r.IndexMismatches[ap] = append(w.r.IndexMismatches[ap], o.pair)
			case "time-not-found":
				w.r.TimeNotFound[ap] = append(w.r.TimeNotFound[ap], o.pair)
			case "time-mismatch":
				w.r.TimeMismatches[ap] = append(w.r.TimeMismatches[ap], o.pair)
			}
			w.r.Findings = append(w.r.Findings, f)
		}
		if more := g.count - len(g.first); more > 0 {
			// Past obsKeep (or the cap) the observations were counted, not kept.
			w.r.omit(findingKind{g.key.file, g.key.check, SeverityError}, more)
		}
	}
	if mixed && given == nil {
		w.r.add(Finding{File: w.sf.Log, Pos: -1, Severity: SeverityInfo, Check: CheckEras,
			Message: "each index entry is one a Kafka release writes, but no single release writes them all: the segment was written across a broker upgrade (or its index was damaged)"})
	}
}
