package logdir

import (
	"fmt"
	"path/filepath"
	"strings"

	"kidx/model"
	"kidx/segment"
)

// The aftermath of the follower index overflow (issue 23, docs/kafka-hazards.md). From
// KAFKA-806 (3.9.1, 4.0.1, 4.1+) LogSegment.append indexes each batch of an append, while
// UnifiedLog.maybeRoll asks LogSegment.shouldRoll (offsetIndex().isFull() ||
// timeIndex().isFull()) once, before it. A follower appends a fetched chunk of many batches;
// once its segments are out of line with the leader's, an index fills mid-chunk and the next
// entry throws: OffsetIndex.append ("Attempt to append to a full index") or, as the time index
// has fewer slots, TimeIndex.maybeAppend ("Attempt to append to a full time index") right
// after the offset entry of the same batch was appended. The batches are already in the .log
// (FileRecords.append comes before the loop), the log end offset is not advanced, the replica
// fetcher marks the partition failed. The files keep three signs:
//
//   - a full index (the offset index at its slots, segment.index.bytes/8; the time index at its
//     slots - 1, TimeIndex.isFull, or at every slot once LogSegment.close appended its last
//     entry with skipFullCheck) while the .log goes on past its last entry for more than
//     index.interval.bytes: under the per-batch rule a batch starting more than the interval
//     after the last entry gets one, and a full index makes the next append roll, so only the
//     append that threw leaves such a tail;
//   - an offset-index entry past a live, full time index: the offset entry appended, then the
//     time entry threw (no release appends an offset entry onto a full time index otherwise);
//   - if fetching resumed without a restart, a next segment rolled at the old log end offset,
//     inside this segment's offsets (the overlap's finding names the cause).

// followerOverflow is what one segment's files show of the throw.
type followerOverflow struct {
	index    string // the full index: "time" or "offset"
	entries  int    // its valid entries
	capacity int    // what makes it full: offset slots, or time slots - 1
	slots    int    // its slots (segment.index.bytes / entry size)
	from     string // where the slots come from
	// last is the last offset-index entry; tailBytes the .log from its batch's start to the
	// last batch's start, tailBatches the batches after it.
	last        segment.IndexEntry
	lastSlot    int
	tailBytes   int64
	tailBatches int
	interval    int64
	// unpaired: the last offset-index entry lies past the batch of the live time index's last
	// entry, the time index full (the time entry threw).
	unpaired bool
	// proven: the files cannot come from any release without the throw (unpaired, or the
	// segment's eras are per-batch only); else a per-append release (before 3.9.1, 4.0.0)
	// writes a follower's last multi-batch append this way, and the finding is info.
	proven bool
}

// indexSlots is what a segment's indexes hold when full, and where that comes from: the
// files' own preallocated sizes when the segment is live (its active segment, or an unclean
// shutdown's), else segment.index.bytes from --config, else the partition's newest segment's
// live indexes. ok false when none tells.
func (w *segmentWalk) indexSlots() (offset, time int, from string, ok bool) {
	live := w.seg.Index.Untrimmed() || w.seg.TimeIndex != nil && w.seg.TimeIndex.Untrimmed()
	switch {
	case live:
		offset = int(w.fileSize(w.seg.Index.Path) / segment.OffsetIndexEntrySize)
		if w.seg.TimeIndex != nil {
			time = int(w.fileSize(w.seg.TimeIndex.Path) / segment.TimeIndexEntrySize)
		}
		return offset, time, "its preallocated size", true
	case w.ctx.opts.SegmentIndexBytes > 0:
		b := w.ctx.opts.SegmentIndexBytes
		return int(b / segment.OffsetIndexEntrySize), int(b / segment.TimeIndexEntrySize), fmt.Sprintf("segment.index.bytes=%d (--config)", b), true
	case w.ctx.liveSlots[0] > 0 || w.ctx.liveSlots[1] > 0:
		return w.ctx.liveSlots[0], w.ctx.liveSlots[1], "the newest segment's preallocated indexes (segment.index.bytes)", true
	}
	return 0, 0, "", false
}

// liveSlots is the slots of the newest segment's indexes when they are live (preallocated to
// segment.index.bytes): the offset index's and the time index's, 0 where it is not live.
func liveSlots(pd *PartitionDir) [2]int {
	var out [2]int
	segs := pd.LogSegments()
	if len(segs) < 2 {
		return out // a single segment reads its own sizes
	}
	s := segs[len(segs)-1]
	if s.Index != "" {
		if x, err := segment.OpenOffsetIndex(s.Index, s.BaseOffset); err == nil {
			if x.Untrimmed() {
				out[0] = int(x.FileSize / segment.OffsetIndexEntrySize)
			}
			x.Close()
		}
	}
	if s.TimeIndex != "" {
		if x, err := segment.OpenTimeIndex(s.TimeIndex, s.BaseOffset); err == nil {
			if x.Untrimmed() {
				out[1] = int(x.FileSize / segment.TimeIndexEntrySize)
			}
			x.Close()
		}
	}
	return out
}

// detectFollowerOverflow looks for the first two signs once the walk is done (lastBatchPos:
// the last whole batch's position).
func (w *segmentWalk) detectFollowerOverflow(lastBatchPos int64) *followerOverflow {
	if w.seg.Index == nil || len(w.entries) == 0 || !w.ctx.intervalKnown || w.verdict.Batches == 0 {
		return nil
	}
	offSlots, timeSlots, from, ok := w.indexSlots()
	if !ok {
		return nil
	}
	o := &followerOverflow{from: from, interval: w.ctx.interval, lastSlot: len(w.entries) - 1}
	o.last = w.entries[o.lastSlot]
	switch {
	case timeSlots > 1 && len(w.times) >= timeSlots-1:
		o.index, o.entries, o.capacity, o.slots = "time", len(w.times), timeSlots-1, timeSlots
	case offSlots > 0 && len(w.entries) >= offSlots:
		o.index, o.entries, o.capacity, o.slots = "offset", len(w.entries), offSlots, offSlots
	default:
		return nil
	}
	o.tailBytes = lastBatchPos - o.last.Position
	o.tailBatches = w.batchesAfterLastEntry
	// The last time entry's batch lies before the last offset entry's: with a live time index
	// full (not the close's extra entry), that offset entry's time entry threw.
	o.unpaired = o.index == "time" && len(w.times) == timeSlots-1 && w.lastTimeBatchPos >= 0 && o.last.Position > w.lastTimeBatchPos
	if !o.unpaired && o.tailBytes <= o.interval {
		return nil
	}
	return o
}

// reportFollowerOverflow writes the finding once the segment's eras are known.
func (w *segmentWalk) reportFollowerOverflow() {
	o := w.overflow
	if o == nil {
		return
	}
	perBatchOnly := !w.verdict.eras.Empty() && w.verdict.eras&^erasBatchLast == 0
	if given := w.ctx.opts.Era; given != nil {
		perBatchOnly = given.OffsetEntry == EntryBatchLast
	}
	o.proven = o.unpaired || perBatchOnly && o.tailBytes > o.interval
	if !o.proven && w.ctx.opts.Era != nil {
		return // the given per-append release writes these files without a throw
	}
	path := w.seg.Index.Path
	if o.index == "time" {
		path = w.seg.TimeIndex.Path
	}
	f := Finding{File: path, Pos: int64(o.entries) * entrySizeOf(o.index), Severity: SeverityError, Check: CheckFollowerIndexOverflow,
		// Findings render as "message: explanation": no full stop before the colon.
		Message: strings.TrimSuffix(o.message(w), "."), Expected: fmt.Sprintf("a roll before the %s index filled, as a leader's one-batch appends do", o.index)}
	if !o.proven {
		f.Severity, f.Expected = SeverityInfo, ""
		f.Explanation = "a per-append release (up to 3.9.0, 4.0.0) writes this for a follower's last append of several batches (one entry per append) without any throw; " +
			"only the per-batch rule (3.9.1, 4.0.1, 4.1+) needs the throw: --kafka-version tells which"
	}
	w.r.add(f)
}

func entrySizeOf(index string) int64 {
	if index == "time" {
		return segment.TimeIndexEntrySize
	}
	return segment.OffsetIndexEntrySize
}

// kafkaMessage is the exception Kafka threw for a full index of that kind.
func (o *followerOverflow) kafkaMessage() string {
	if o.index == "time" {
		return fmt.Sprintf("Attempt to append to a full time index (size = %d).", o.capacity)
	}
	return fmt.Sprintf("Attempt to append to a full index (size = %d).", o.capacity)
}

func (o *followerOverflow) message(w *segmentWalk) string {
	full := fmt.Sprintf("the %s index is full: %s, as many as %s allows (%d slots", o.index, plural(o.entries, "entry"), o.from, o.slots)
	if o.index == "time" {
		full += "; TimeIndex.isFull keeps the last one for LogSegment.close"
	}
	full += ")"
	var signs string
	if o.unpaired {
		signs = fmt.Sprintf("; the offset index's last entry (slot %d, offset %d at byte %d of %s) has no time entry: LogSegment.append appended the offset entry, "+
			"then TimeIndex.maybeAppend threw", o.lastSlot, o.last.Offset, o.last.Position, filepath.Base(w.sf.Log))
	}
	if o.tailBytes > o.interval {
		interval := fmt.Sprintf("index.interval.bytes=%d", o.interval)
		if !w.ctx.opts.HaveInterval {
			interval = fmt.Sprintf("any index.interval.bytes the entries allow (at most %d)", o.interval)
		}
		signs += fmt.Sprintf("; %s goes on for %s (%d bytes) past the last entry's batch at byte %d, more than %s leaves unindexed under the per-batch rule",
			filepath.Base(w.sf.Log), plural(o.tailBatches, "batch"), o.tailBytes, o.last.Position, interval)
	}
	what := fmt.Sprintf(". This is Kafka's follower index overflow (3.9.1, 4.0.1, 4.1+; docs/kafka-hazards.md), not damage: a follower appended a fetched chunk of many batches "+
		"after a single roll check (LogSegment.shouldRoll), the index filled mid-chunk and UnifiedLog.appendAsFollower threw \"%s\" after the batches were written; "+
		"the log end offset was not advanced and the replica fetcher marked the partition failed (the follower left the ISR). "+
		"A clean restart of this broker reloads the segment and the next append rolls; a recovery of it after an unclean shutdown throws the same exception "+
		"(LogSegment.recover indexes every batch) and the log does not load. ", o.kafkaMessage())
	return full + signs + what + w.remedyWords()
}

// remedyWords is the setting that keeps every index from filling before segment.bytes
// whatever the batches (model.SegmentIndexBytesNeverFull), with index.interval.bytes and
// segment.bytes from --config, else Kafka's defaults (the interval no larger than the entries
// allow: a smaller interval needs a larger index).
func (w *segmentWalk) remedyWords() string {
	cfg := model.DefaultConfig()
	var said []string
	if w.ctx.opts.HaveInterval {
		cfg.IndexIntervalBytes = w.ctx.interval
	} else {
		cfg.IndexIntervalBytes = min(cfg.IndexIntervalBytes, w.ctx.interval)
		said = append(said, "index.interval.bytes")
	}
	if w.ctx.opts.SegmentBytes > 0 {
		cfg.SegmentBytes = w.ctx.opts.SegmentBytes
	} else {
		said = append(said, "segment.bytes")
	}
	assumed := ""
	if len(said) > 0 {
		assumed = fmt.Sprintf("; %s assumed: --config gives yours", strings.Join(said, " and "))
	}
	return fmt.Sprintf("Lower the risk: raise segment.index.bytes to at least %d (for index.interval.bytes=%d and segment.bytes=%d%s), so that no index fills before its segment does.",
		model.SegmentIndexBytesNeverFull(cfg), cfg.IndexIntervalBytes, cfg.SegmentBytes, assumed)
}

// overflowCause is the overlap's likely cause when this segment shows the throw: the next
// segment rolled at the old log end offset ("" when it does not).
func (w *segmentWalk) overflowCause() string {
	o := w.overflow
	if o == nil {
		return ""
	}
	return fmt.Sprintf("likely cause: the follower index overflow (docs/kafka-hazards.md): this segment's %s index is full and its .log goes on past the last entry, "+
		"so a follower's append threw \"%s\" after writing its batches, the log end offset stayed at the chunk's first offset, and when fetching resumed "+
		"the next append rolled a new segment at that old log end offset, inside this segment's offsets", o.index, o.kafkaMessage())
}
