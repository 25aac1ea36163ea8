package logdir

import (
	"fmt"
	"strings"
)

// CleanerEvidence is what a segment's files say of the log cleaner having written it (issue
// 25): explain decides with it which histories to try, and analyze labels a segment with it.
// It lives here, beside verify's compaction marks, so that explain and reports share it.
//
//   - Gaps: offsets the segment skips (between its batches, or from its base offset to its
//     first batch). A leader assigns consecutive offsets; compaction keeps the last record of
//     each key and drops the rest (LogCleaner.cleanInto), so a gap is the cleaner's output or
//     a follower's copy of it.
//   - DeleteHorizons: v2 batches with attribute bit 6 set, the delete horizon the cleaner
//     writes on a batch holding tombstones the first time it cleans it (KIP-534, 3.0+,
//     MemoryRecords.filterTo). Only the cleaner sets it.
//   - BelowCheckpoint: the segment's last offset is below the partition's
//     cleaner-offset-checkpoint: the cleaner has cleaned every segment below that offset
//     (Cleaner.doClean cleans from the log start to the first uncleanable offset and
//     rewrites every segment of each group, Cleaner.cleanSegments), so the segment there is
//     its output, unless an older copy was left beside it (both are below the checkpoint then).
type CleanerEvidence struct {
	Gaps, DeleteHorizons int
	// Checkpoint is the partition's cleaner-offset-checkpoint entry, when it has one.
	Checkpoint      int64
	HasCheckpoint   bool
	BelowCheckpoint bool
}

// Any reports whether the files show anything of the cleaner.
func (c CleanerEvidence) Any() bool {
	return c.Gaps > 0 || c.DeleteHorizons > 0 || c.BelowCheckpoint
}

// Strong reports evidence only the cleaner leaves in this segment: a delete horizon, or the
// checkpoint past the segment (gaps alone may be a follower's copy of cleaned data).
func (c CleanerEvidence) Strong() bool { return c.DeleteHorizons > 0 || c.BelowCheckpoint }

// Facts are the evidence in words, one clause each.
func (c CleanerEvidence) Facts() []string {
	var out []string
	if c.Gaps == 1 {
		out = append(out, "it skips offsets once (compaction keeps the last record of each key)")
	} else if c.Gaps > 1 {
		out = append(out, fmt.Sprintf("it skips offsets %d times (compaction keeps the last record of each key)", c.Gaps))
	}
	if c.DeleteHorizons == 1 {
		out = append(out, "a batch carries the delete horizon the cleaner sets on tombstones (KIP-534)")
	} else if c.DeleteHorizons > 1 {
		out = append(out, fmt.Sprintf("%d batches carry the delete horizon the cleaner sets on tombstones (KIP-534)", c.DeleteHorizons))
	}
	if c.BelowCheckpoint {
		out = append(out, fmt.Sprintf("it ends below offset %d, where cleaner-offset-checkpoint says the cleaner has cleaned to", c.Checkpoint))
	}
	return out
}

// String is Facts joined.
func (c CleanerEvidence) String() string { return strings.Join(c.Facts(), "; ") }

// CleanerMarks counts, batch by batch in offset order, the gaps and delete horizons of a
// segment whose base offset is base.
type CleanerMarks struct {
	prevLast int64
	started  bool
	base     int64
	ev       CleanerEvidence
	last     int64
}

// NewCleanerMarks starts the count for a segment at base offset base.
func NewCleanerMarks(base int64) *CleanerMarks { return &CleanerMarks{base: base, prevLast: base - 1} }

// Batch counts one batch: its first and last offsets and whether it carries a delete horizon.
func (m *CleanerMarks) Batch(first, last int64, deleteHorizon bool) {
	if first > m.prevLast+1 {
		m.ev.Gaps++
	}
	if deleteHorizon {
		m.ev.DeleteHorizons++
	}
	m.prevLast, m.last, m.started = last, last, true
}

// Evidence is the count so far, with the cleaner checkpoint (ok false: the partition has
// none) placed against the segment's last offset.
func (m *CleanerMarks) Evidence(checkpoint int64, ok bool) CleanerEvidence {
	return m.ev.placed(m.started, m.last, checkpoint, ok)
}

// placed is c with the checkpoint (ok false: none) placed against a segment whose last
// offset is last (holds false: it holds no batch, and nothing is below anything).
func (c CleanerEvidence) placed(holds bool, last, checkpoint int64, ok bool) CleanerEvidence {
	if ok {
		c.Checkpoint, c.HasCheckpoint = checkpoint, true
		c.BelowCheckpoint = holds && last < checkpoint
	}
	return c
}

// CleanerOffset is the partition's cleaner-offset-checkpoint entry in its log directory's
// checkpoints (ok false: none, or d is nil).
func (d *DirCheckpoints) CleanerOffset(pd *PartitionDir) (int64, bool) {
	if d == nil {
		return 0, false
	}
	return lookup(d.CleanerOffsets, pd)
}
