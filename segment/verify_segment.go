package segment

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
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
	seg    *Segment
	sf     SegmentFiles
	groups []*obsGroup // observations by kind, in the order kinds first appeared
	byKind map[obsKey]*obsGroup
	base   int64

	entries  []IndexEntry // valid offset-index entries, in file order
	byPos    []int        // their slots, by position
	ep       int          // next in byPos
	times    []TimeIndexEntry
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
	visitor      SegmentVisitor
	verdict      *SegmentVerdict
	nextBase     int64 // the next segment's base offset (-1: this is the newest)
	nextLog      string
	overlapSeen  bool // the first batch past nextBase was reported
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
	if len(g.first) < obsKeep {
		g.first = append(g.first, o)
	}
}

// appendEntry is an offset-index entry whose offset lies past the batch at its position:
// under Kafka 2.0 to 3.9.0/4.0.0 it names the last offset of a multi-batch append that starts
// there (KAFKA-6530), which is true when a batch ending at exactly that offset follows before
// the next entry's position.
type appendEntry struct {
	obs     observation // observed once decided
	e       IndexEntry
	nextPos int64 // the next entry's position (or the end of the log)
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
func verifySegment(r *VerifyReport, ctx *partitionCtx, sf SegmentFiles, newest bool, next SegmentFiles) SegmentVerdict {
	nextBase := next.BaseOffset
	v := SegmentVerdict{BaseOffset: sf.BaseOffset, Log: sf.Log, Restarts: []Restart{}, EraIDs: []string{}}
	// Headers only: a read per header, on two cores (WalkSplit); a mapping would cost as much
	// in faults, and as much again to tear down. Every byte (--deep): a mapping, mapped ahead
	// on the other cores, its CRCs computed on every core with no copy (docs/logdirs.md,
	// "Reading only what is needed").
	access := AccessPread
	if ctx.opts.Deep {
		access = AccessMmap
	}
	// Only the files the scan kept are opened: one it set aside has its finding already, and
	// a failure here names the file that failed (issue 11, defect 4).
	seg, err := OpenSegmentFiles(sf, access)
	var oe *OpenError
	if err != nil && access == AccessMmap && errors.As(err, &oe) && oe.Path == sf.Log {
		// Some filesystems cannot map (FUSE, some network mounts): read instead.
		seg, err = OpenSegmentFiles(sf, AccessPread)
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
		lastTimeTs: NoTimestamp, maxTsSoFar: NoTimestamp, unpairedTime: -1}
	firstFinding := len(r.Findings)
	w.checkIndexFiles(newest)
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
	w.judge()
	w.staleTail(firstFinding)
	w.uncleanStart()
	if len(w.life.restarts) > 0 {
		v.Restarts = w.life.restarts
		if !w.lifetimesInferable() || !ctx.intervalKnown {
			v.Restarts = snapshotRestarts(w.life.restarts)
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
	return v
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

// snapshotRestarts keeps the restarts a producer snapshot placed.
func snapshotRestarts(rs []Restart) []Restart {
	var out []Restart
	for _, r := range rs {
		if r.Snapshot != "" {
			out = append(out, r)
		}
	}
	return out
}

// checkIndexFiles looks at the index files before the walk: order of the valid entries,
// Kafka's sanity check, the zero tail, what a live segment is.
func (w *segmentWalk) checkIndexFiles(newest bool) {
	seg, r := w.seg, w.r
	if seg.Index == nil && w.sf.Index == "" && w.ctx.pd.SetAside[w.sf.Stem()+IndexSuffix] == 0 {
		sev, msg := SeverityWarning, "no .index for this segment: Kafka rebuilds it at the next start (LogLoader: \"Could not find offset index file corresponding to log file …, recovering segment and rebuilding index files...\")"
		if newest {
			sev, msg = SeverityInfo, "no .index yet: Kafka (2.3+) creates an active segment's index on first use (LazyIndex), and shutdown writes it (KAFKA-13603, 3.2)"
		}
		r.add(Finding{File: w.sf.Log, Pos: -1, Severity: sev, Check: CheckMissingIndex, Message: msg, Expected: FilenamePrefixFromOffset(w.base) + IndexSuffix})
	}
	if x := seg.Index; x != nil {
		w.entries = x.Entries(x.ValidLen())
		for i := 1; i < len(w.entries); i++ {
			e, p := w.entries[i], w.entries[i-1]
			if e.Offset <= p.Offset || e.Position <= p.Position {
				r.add(Finding{File: x.Path, Pos: int64(i) * OffsetIndexEntrySize, Severity: SeverityError, Check: CheckIndexOrder,
					Message:  fmt.Sprintf("entry %d (offset %d, position %d) does not follow (offset %d, position %d)", i, e.Offset, e.Position, p.Offset, p.Position),
					Expected: "offsets and positions strictly increasing"})
			}
		}
		w.byPos = identity(len(w.entries))
		if !sort.SliceIsSorted(w.byPos, func(a, b int) bool { return w.entries[a].Position < w.entries[b].Position }) {
			sort.SliceStable(w.byPos, func(a, b int) bool { return w.entries[w.byPos[a]].Position < w.entries[w.byPos[b]].Position })
		}
		w.checkTail(x.Path, x.Untrimmed(), x.TailGarbage(), x.ValidLen(), OffsetIndexEntrySize, x.SanityCheck())
	}
	if x := seg.TimeIndex; x != nil {
		w.times = x.Entries(x.ValidLen())
		prevTs, prevOff := NoTimestamp, int64(-1)
		ap := KafkaPath(x.Path)
		for i, e := range w.times {
			at := int64(i) * TimeIndexEntrySize
			if e.Offset < prevOff {
				r.add(Finding{File: x.Path, Pos: at + 8, Severity: SeverityError, Check: CheckIndexOrder,
					Message: fmt.Sprintf("entry %d offset %d is below the previous entry's %d", i, e.Offset, prevOff), Expected: "offsets never decrease"})
			}
			// DumpLogSegments: out of order when the previous timestamp is >= this one
			// (TimeIndex.maybeAppend appends only a strictly larger timestamp).
			if prevTs >= e.Timestamp {
				r.TimeOutOfOrder[ap] = append(r.TimeOutOfOrder[ap], [2]int64{e.Timestamp, prevTs})
				r.add(Finding{File: x.Path, Pos: at, Severity: SeverityError, Check: CheckTimeIndexOutOfOrder,
					Message: fmt.Sprintf("Index timestamp: %d, Previously indexed timestamp: %d", e.Timestamp, prevTs), Expected: "timestamps strictly increasing"})
			}
			prevTs, prevOff = e.Timestamp, max(prevOff, e.Offset)
		}
		w.byOffset = identity(len(w.times))
		if !sort.SliceIsSorted(w.byOffset, func(a, b int) bool { return w.times[a].Offset < w.times[b].Offset }) {
			sort.SliceStable(w.byOffset, func(a, b int) bool { return w.times[w.byOffset[a]].Offset < w.times[w.byOffset[b]].Offset })
		}
		w.checkTail(x.Path, x.Untrimmed(), x.TailGarbage(), x.ValidLen(), TimeIndexEntrySize, x.SanityCheck())
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
			slot := int(f.Pos / OffsetIndexEntrySize)
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

// findingFromErr turns an error into a finding, at the error's byte when it is a FormatError.
func findingFromErr(path string, sev Severity, check string, err error) Finding {
	f := Finding{File: path, Pos: -1, Severity: sev, Check: check, Message: err.Error()}
	var fe *FormatError
	if errors.As(err, &fe) {
		f.Pos, f.Message = fe.Pos, fe.Msg
	}
	return f
}

// walk is the single pass over the batches.
func (w *segmentWalk) walk() {
	lf := w.seg.Log
	lf.SetReadAhead(HeaderWindow) // one page per read while batches are small
	if w.ctx.opts.Deep {
		lf.SetPrefetch(true)
		w.crc = &crcQueue{lf: lf, report: func(b BatchInfo, err error) {
			f := findingFromErr(w.sf.Log, SeverityError, CheckCRC, err)
			f.Expected = "stored CRC == computed CRC"
			w.r.add(f)
		}}
	}
	prevLast := w.base - 1
	res := lf.WalkSplit(0, 0, SplitHint(w.entries, w.byPos, lf.Size()), func(b BatchInfo) bool {
		w.r.Batches++
		w.verdict.Batches++
		first, last := w.batchOffsets(lf, b)
		if w.visitor != nil {
			w.visitor.Batch(b, first, last)
		}
		w.checkBatch(b, first, prevLast)
		w.checkNextBase(b, first, last)
		prevLast = max(prevLast, last)
		w.resolvePending(b, last)
		slot := w.entriesAt(b, first, last)
		indexed := slot >= 0
		marks := shutdownMarks{timeEntry: w.unpairedTime, wouldMark: w.seg.TimeIndex != nil && w.maxTsSoFar > w.lastTimeTs}
		if d := w.life.batch(b.Position, first, indexed, marks); d >= 0 {
			w.r.add(Finding{File: w.seg.Index.Path, Pos: int64(slot) * OffsetIndexEntrySize, Severity: SeverityError, Check: CheckIntervalRule,
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
	w.r.LogBytes += res.ValidBytes
	if w.visitor != nil {
		w.visitor.End(w.seg, res)
	}
	w.endOfLog(res)
}

// HeaderWindow is what one read fetches when only headers are wanted: a page, so that small
// batches share reads and a large batch costs one page (docs/segment.md, "Reading only what
// is needed").
const HeaderWindow = 4096

// batchOffsets is the range of offsets a batch holds: the v2 header's, a legacy message's own
// offset, and for a legacy compressed wrapper (whose offset field is its last inner offset)
// the first inner offset.
func (w *segmentWalk) batchOffsets(lf *LogFile, b BatchInfo) (int64, int64) {
	if !b.IsLegacy() {
		return b.BaseOffset(), b.LastOffset()
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

func (w *segmentWalk) checkBatch(b BatchInfo, first, prevLast int64) {
	r, path := w.r, w.sf.Log
	if !b.IsLegacy() {
		if b.Magic > 2 {
			r.add(Finding{File: path, Pos: b.Position + MagicOffset, Severity: SeverityError, Check: CheckMagic, Message: fmt.Sprintf("unknown magic %d", b.Magic), Expected: "magic 0, 1 or 2"})
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
func (w *segmentWalk) checkNextBase(b BatchInfo, first, last int64) {
	if w.nextBase < 0 || last < w.nextBase || w.overlapSeen {
		return
	}
	w.overlapSeen = true
	next := FilenamePrefixFromOffset(w.nextBase) + LogSuffix
	if w.nextLog != "" {
		next = filepath.Base(w.nextLog)
	}
	w.r.add(Finding{File: w.sf.Log, Pos: b.Position, Severity: SeverityError, Check: CheckSegmentOverlap,
		Message: fmt.Sprintf("the batch at byte %d holds offsets %d to %d, and the next segment %s starts at offset %d: the two segments overlap (Kafka finds an offset in the segment with the greatest base offset not above it, LogSegments.floorSegment, so %s shadows these offsets; a broker rolls only above every offset it holds, so these are files of two logs mixed)",
			b.Position, first, last, next, w.nextBase, next),
		Expected: fmt.Sprintf("every offset below %d, the base offset of %s", w.nextBase, next)})
}

// entriesAt consumes the entries up to batch b: entries before it point inside the previous
// batch, entries at its start are judged against it. It returns the slot of b's entry, -1 when
// b is not indexed.
func (w *segmentWalk) entriesAt(b BatchInfo, first, last int64) int {
	indexed := -1
	for w.ep < len(w.byPos) {
		slot := w.byPos[w.ep]
		e := w.entries[slot]
		if e.Position > b.Position {
			break
		}
		w.ep++
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
func (w *segmentWalk) entryAt(slot int, e IndexEntry, b BatchInfo, first, last int64) {
	x := w.seg.Index
	at := int64(slot) * OffsetIndexEntrySize
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
func (w *segmentWalk) resolvePending(b BatchInfo, last int64) {
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

// offBoundary judges an entry that points inside a batch, reading there as DumpLogSegments
// does (the first batch of slice(position, maxMessageSize)).
func (w *segmentWalk) offBoundary(slot int, e IndexEntry) {
	x, lf := w.seg.Index, w.seg.Log
	at := int64(slot) * OffsetIndexEntrySize
	w.r.add(Finding{File: x.Path, Pos: at + 4, Severity: SeverityError, Check: CheckIndexBoundary,
		Message: fmt.Sprintf("entry %d position %d is not the start of a batch in the walk from 0", slot, e.Position), Expected: "a batch boundary"})
	w.dlsRead(slot, e, at, lf)
}

// dlsRead is DumpLogSegments' read of the batch at an entry's position, for entries the
// walk did not meet at a boundary.
func (w *segmentWalk) dlsRead(slot int, e IndexEntry, at int64, lf *LogFile) {
	x := w.seg.Index
	old := lf.ReadAhead()
	lf.SetReadAhead(RecordBatchOverhead)
	defer lf.SetReadAhead(old)
	b, err := lf.NextBatch(e.Position, min(lf.Size(), e.Position+w.ctx.opts.MaxMessageSize))
	if err != nil {
		msg := "no batch readable at this position (DumpLogSegments would throw NoSuchElementException)"
		if err != ErrNoBatch {
			msg = err.Error()
		}
		w.r.add(Finding{File: x.Path, Pos: at + 4, Severity: SeverityError, Check: CheckIndexMismatch, Message: msg, Expected: fmt.Sprintf("a batch ending at offset %d at position %d", e.Offset, e.Position)})
		return
	}
	if b.LastOffset() != e.Offset {
		w.observe(observation{f: Finding{File: x.Path, Pos: at, Check: CheckIndexMismatch,
			Message:  fmt.Sprintf("Index offset: %d, log offset: %d", e.Offset, b.LastOffset()),
			Expected: fmt.Sprintf("the batch at position %d to end at offset %d", e.Position, e.Offset)}, kind: "index", pair: [2]int64{e.Offset, b.LastOffset()}})
	}
}

// timesIn judges the time-index entries that fall in batch b (and those that fall in the
// offset gap before it). DumpLogSegments.dumpTimeIndex finds the first batch whose last
// offset is >= the entry's, then wants that last offset to be the entry's and the batch's
// max record timestamp to be the entry's.
func (w *segmentWalk) timesIn(b BatchInfo, first, last int64, indexed bool) {
	x := w.seg.TimeIndex
	var recs *recordScan
	for w.tp < len(w.byOffset) {
		slot := w.byOffset[w.tp]
		e := w.times[slot]
		if e.Offset > last {
			return
		}
		w.tp++
		w.lastTimeTs = max(w.lastTimeTs, e.Timestamp)
		if !indexed && e.Offset >= first {
			w.unpairedTime = e.Offset
		}
		at := int64(slot) * TimeIndexEntrySize
		if e.Offset == last {
			// The batch header's max timestamp: Kafka's LogValidator writes it from the
			// records (and the CRC, which --deep checks, covers both). DumpLogSegments takes
			// the max over the records themselves: kidx dump does.
			maxTs := b.MaxTimestamp()
			if maxTs != e.Timestamp {
				w.observe(observation{f: Finding{File: x.Path, Pos: at, Check: CheckTimeIndexMismatch,
					Message:  fmt.Sprintf("Index timestamp: %d, log timestamp: %d", e.Timestamp, maxTs),
					Expected: "the max record timestamp of the batch ending at the indexed offset"}, kind: "time-mismatch", pair: [2]int64{e.Timestamp, maxTs}})
			}
			continue
		}
		o := observation{f: Finding{File: x.Path, Pos: at + 8, Check: CheckTimeIndexNotFound,
			Message:  fmt.Sprintf("Indexed offset: %d, found log offset: %d", e.Offset, last),
			Expected: "a batch ending at the indexed offset"}, kind: "time-not-found", pair: [2]int64{e.Offset, last}}
		// Kafka 0.11 to 3.6 name, for a leader's uncompressed CreateTime v2 batch, the first
		// record holding the batch's max timestamp (LogValidator).
		if e.Offset >= first && !b.IsLegacy() && b.Header.Compression() == 0 && b.Header.TimestampType() == "CreateTime" && e.Timestamp == b.MaxTimestamp() {
			exact := true
			if w.ctx.opts.Deep {
				if recs == nil {
					recs = scanRecords(w.seg.Log, b)
				}
				exact = recs.ok && recs.firstMax == e.Offset && recs.maxTs == e.Timestamp
			}
			if exact {
				o.allowed = erasExactTime
				o.why = "from 0.11 to 3.6 a leader's uncompressed CreateTime batch is time-indexed at the record holding its max timestamp (LogValidator; at the batch's last offset since 3.7, #14697)"
			}
		}
		w.observe(o)
	}
}

// recordScan is what one batch's records say about timestamps.
type recordScan struct {
	ok       bool
	maxTs    int64
	firstMax int64 // offset of the first record with maxTs
}

func scanRecords(lf *LogFile, b BatchInfo) *recordScan {
	s := &recordScan{maxTs: NoTimestamp, firstMax: -1}
	err := lf.RecordTimestamps(b, func(off, ts int64) bool {
		if ts > s.maxTs {
			s.maxTs, s.firstMax = ts, off
		}
		return true
	})
	s.ok = err == nil
	return s
}

// endOfLog reports how the walk ended and the entries left past the last batch.
func (w *segmentWalk) endOfLog(res WalkResult) {
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
		at := int64(slot) * OffsetIndexEntrySize
		if e.Position < 0 || e.Position >= lf.Size() {
			r.add(Finding{File: w.seg.Index.Path, Pos: at + 4, Severity: SeverityError, Check: CheckIndexPastLog,
				Message: fmt.Sprintf("entry %d position %d is outside the log (%d bytes)", slot, e.Position, lf.Size()), Expected: fmt.Sprintf("position < %d", lf.Size())})
			continue
		}
		r.add(Finding{File: w.seg.Index.Path, Pos: at + 4, Severity: SeverityError, Check: CheckIndexPastLog,
			Message: fmt.Sprintf("entry %d position %d is past the last whole batch (which ends at byte %d)", slot, e.Position, res.ValidBytes), Expected: fmt.Sprintf("position < %d", res.ValidBytes)})
	}
	for ; w.tp < len(w.byOffset); w.tp++ {
		slot := w.byOffset[w.tp]
		e := w.times[slot]
		w.observe(observation{f: Finding{File: w.seg.TimeIndex.Path, Pos: int64(slot)*TimeIndexEntrySize + 8, Check: CheckTimeIndexNotFound,
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
			if given != nil && !explained.Empty() {
				f.Explanation = fmt.Sprintf("not what %s writes (%s would: %s)", given, explained, g.key.why)
			}
			ap := KafkaPath(f.File)
			switch o.kind {
			case "index":
				w.r.IndexMismatches[ap] = append(w.r.IndexMismatches[ap], o.pair)
			case "time-not-found":
				w.r.TimeNotFound[ap] = append(w.r.TimeNotFound[ap], o.pair)
			case "time-mismatch":
				w.r.TimeMismatches[ap] = append(w.r.TimeMismatches[ap], o.pair)
			}
			w.r.add(f)
		}
		if more := g.count - len(g.first); more > 0 {
			last := g.first[len(g.first)-1].f
			w.r.add(Finding{File: last.File, Pos: -1, Severity: SeverityError, Check: last.Check, Count: more,
				Message: fmt.Sprintf("%s more like the last (kidx lists the first %d of a kind)", plural(more, "finding"), obsKeep)})
		}
	}
	if mixed && given == nil {
		w.r.add(Finding{File: w.sf.Log, Pos: -1, Severity: SeverityInfo, Check: CheckEras,
			Message: "each index entry is one a Kafka release writes, but no single release writes them all: the segment was written across a broker upgrade (or its index was damaged)"})
	}
}
