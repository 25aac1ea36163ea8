package logdir

import (
	"fmt"
	"path/filepath"
	"strings"

	"kidx/segment"
)

// Two segments of one partition that hold the same offsets. A broker never writes that: it
// rolls only above every offset it holds (LocalLog.roll). The files show how it came about;
// the case met on real brokers is a log cleaner's output kept beside the segment it was cleaned
// from. The cleaner writes the retained batches of a group of segments into a new segment
// named after the group's first base offset (LogCleaner.cleanSegments: a .cleaned file, renamed
// .swap), then UnifiedLog.replaceSegments renames the .swap into place and deletes the old
// segments (.deleted): a copy of the directory taken in between, or an old segment restored,
// leaves both.

// overlapCap bounds the batches remembered past the next segment's base offset (a damaged
// offset in a huge segment must not grow memory without bound).
const overlapCap = 1 << 16

// overlap is what the walk saw of a segment at and past the next segment's base offset.
type overlap struct {
	pos, first, last int64 // the first such batch
	batches          []batchKey
	more             int // batches past overlapCap, not remembered
}

// batchKey identifies a batch across two files: its offsets and the CRC over its contents
// (v2: CRC-32C of bytes 21 to the end; legacy: the message CRC).
type batchKey struct {
	first, last int64
	crc         uint32
}

func keyOf(b segment.BatchInfo, first, last int64) batchKey {
	k := batchKey{first: first, last: last, crc: b.Header.CRC}
	if b.IsLegacy() {
		k.crc = b.Legacy.CRC
	}
	return k
}

func (o *overlap) add(b segment.BatchInfo, first, last int64) {
	if len(o.batches) == overlapCap {
		o.more++
		return
	}
	o.batches = append(o.batches, keyOf(b, first, last))
}

// compactionMarks is what a segment's batches say of the log cleaner: offsets it skips (a
// compacted segment keeps only the last record of each key) and v2 batches whose tombstones
// carry a delete horizon (the cleaner sets it, KIP-534, 3.0+).
type compactionMarks struct {
	gaps, deleteHorizons int
}

func (c *compactionMarks) batch(b segment.BatchInfo, first, prevLast int64) {
	if first > prevLast+1 {
		c.gaps++
	}
	if !b.IsLegacy() && b.Header.HasDeleteHorizon() {
		c.deleteHorizons++
	}
}

// reportOverlap writes the overlap's finding, saying what the files show.
func (w *segmentWalk) reportOverlap() {
	o := w.overlap
	if o == nil {
		return
	}
	next := segment.FilenamePrefixFromOffset(w.nextBase) + segment.LogSuffix
	if w.nextLog != "" {
		next = filepath.Base(w.nextLog)
	}
	msg := fmt.Sprintf("the batch at byte %d holds offsets %d to %d, and the next segment %s starts at offset %d: the two segments overlap (Kafka finds an offset in the segment with the greatest base offset not above it, LogSegments.floorSegment, so %s shadows these offsets)",
		o.pos, o.first, o.last, next, w.nextBase, next)
	if why := w.cleanedBesideSource(next); why != "" {
		msg += ". " + why
	} else if cause := w.overflowCause(); cause != "" {
		msg += "; " + cause
	} else {
		msg += "; a broker rolls only above every offset it holds, so these are files of two logs mixed"
	}
	w.r.add(Finding{File: w.sf.Log, Pos: o.pos, Severity: SeverityError, Check: CheckSegmentOverlap, Message: msg,
		Expected: fmt.Sprintf("every offset below %d, the base offset of %s", w.nextBase, next)})
}

// cleanedBesideSource is the diagnosis when the files show the log cleaner's output beside the
// segment it was cleaned from: every batch of this segment past the next one's base offset has
// the offsets of one of the next segment's batches (the cleaner keeps a batch's base and last
// offsets, LogCleaner.cleanInto; a batch it keeps whole is a byte-for-byte copy, one it
// filters has fewer records), and this segment shows compaction (skipped offsets, delete
// horizons) or the cleaner checkpoint lies past its copies. "" when they do not.
func (w *segmentWalk) cleanedBesideSource(next string) string {
	o := w.overlap
	if w.nextLog == "" || o.more > 0 || len(o.batches) == 0 {
		return ""
	}
	sameOffsets, sameBytes, srcLast, err := copiedFrom(w.nextLog, o.batches)
	inSource := 0 // the batches within the source's offsets
	for _, b := range o.batches {
		if b.last <= srcLast {
			inSource++
		}
	}
	if err != nil || inSource == 0 || sameOffsets < inSource {
		return ""
	}
	var evidence []string
	if c := w.compaction; c.gaps > 0 {
		evidence = append(evidence, fmt.Sprintf("this segment skips offsets %s (compaction keeps the last record of each key)", timesWord(c.gaps)))
	}
	if c := w.compaction; c.deleteHorizons == 1 {
		evidence = append(evidence, "a batch carries the delete horizon the cleaner sets on tombstones (KIP-534)")
	} else if c.deleteHorizons > 1 {
		evidence = append(evidence, fmt.Sprintf("%d batches carry the delete horizon the cleaner sets on tombstones (KIP-534)", c.deleteHorizons))
	}
	if co := w.ctx.cleanerOffset; co != nil && *co > o.batches[len(o.batches)-1].last {
		evidence = append(evidence, fmt.Sprintf("cleaner-offset-checkpoint says the cleaner has cleaned this partition below offset %d", *co))
	}
	if len(evidence) == 0 {
		return ""
	}
	copies := fmt.Sprintf("each of this segment's %s from offset %d up to %d (the last offset %s holds) has the offsets of a batch of %s", plural(inSource, "batch"), o.batches[0].first, srcLast, next, next)
	switch {
	case sameBytes == inSource:
		copies += " and its CRC: copies"
	case sameBytes > 0:
		copies += fmt.Sprintf(" (%d of them its CRC too: kept whole; the others with fewer records, as the cleaner rewrites a batch it filters)", sameBytes)
	default:
		copies += " (with fewer records, as the cleaner rewrites a batch it filters)"
	}
	if past := len(o.batches) - inSource; past > 0 {
		copies += fmt.Sprintf(", and its %s past offset %d came from a segment this directory no longer has", plural(past, "batch"), srcLast)
	}
	return fmt.Sprintf("The files show a log cleaner's output next to the segment it was cleaned from: %s; %s. "+
		"A broker swaps a cleaned segment in and deletes the segments it replaces (LogCleaner, UnifiedLog.replaceSegments: .cleaned, .swap, then .deleted), so these are files of two points in time (a copy taken during the swap, or an old segment put back). "+
		"Kafka would load both as they are (LogLoader does not check for overlaps): lookups of offsets %d to %d read %s, the uncleaned source, and only a fetch from below %d reads this segment's cleaned copies; the swap would have deleted %s",
		copies, strings.Join(evidence, "; "), w.nextBase, srcLast, next, w.nextBase, next)
}

// copiedFrom counts the batches of want (in offset order) that the .log at path holds with the
// same first and last offsets, and of those the ones with the same CRC; srcLast is the last
// offset the .log holds. Batch headers only are read.
func copiedFrom(path string, want []batchKey) (sameOffsets, sameBytes int, srcLast int64, err error) {
	lf, err := segment.OpenLog(path)
	if err != nil {
		return 0, 0, -1, err
	}
	defer lf.Close()
	i := 0
	srcLast = -1
	res := lf.Walk(0, 0, func(b segment.BatchInfo) bool {
		k := keyOf(b, b.BaseOffset(), b.LastOffset())
		srcLast = max(srcLast, k.last)
		for i < len(want) && want[i].last < k.first {
			i++ // a batch the source does not hold
		}
		if i < len(want) && want[i].first == k.first && want[i].last == k.last {
			sameOffsets++
			if want[i].crc == k.crc {
				sameBytes++
			}
			i++
		}
		return true
	})
	return sameOffsets, sameBytes, srcLast, res.Err
}

// timesWord is "once", "twice", "3 times".
func timesWord(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}
