package explain

import (
	"fmt"
	"path/filepath"

	"kidx/logdir"
)

// cleanedCandidates are the cleaned history's candidates, one per era and append shape: the
// segment written by Cleaner.cleanSegments in one pass, no restart inside it, closed by
// onBecomeInactiveSegment. Under the per-batch rule (3.9.1+, 4.0.1+, 4.1+) every batch is
// checked whatever the grouping, so the cleaner's read-buffer chunks change no entry. Under a
// per-append rule each chunk of the read buffer (cleanInto: the whole batches that fit in
// log.cleaner.io.buffer.size / log.cleaner.threads / 2, from the source segment) is one
// LogSegment.append, and the chunks are not in the cleaned file: Decision: the chunkings are
// searched as explain searches a follower's appends (several batches per append, the appends that carry entries pinned by
// the index, what lies between them free), and one batch per append is tried too (a chunk of
// one batch: batches near the buffer's size). The source segments' boundaries (each
// cleanInto starts a chunk) are unknown too and need nothing more: they only cut chunks.
func (s *exSegment) cleanedCandidates(eras logdir.EraSet, want int64) []candidate {
	var out []candidate
	memo := map[behaviour]candidate{} // eras that behave alike are evaluated once
	for _, era := range eras.Eras() {
		for _, shape := range []AppendShape{SeveralBatchesPerAppend, OneBatchPerAppend} {
			if era.PerBatch() && shape == OneBatchPerAppend {
				continue // the grouping changes nothing under the per-batch rule
			}
			key := behaviourOf(era, shape, false)
			c, seen := memo[key]
			if !seen {
				c = s.evaluateGiven(era, shape, want, HistoryCleaned, -1)
				memo[key] = c
			}
			c.era, c.shape, c.rank = era, shape, 0
			// The cleaner writes chunks of several batches: that shape first, but for a
			// segment of one batch, which no append of several wrote.
			if (shape == OneBatchPerAppend) != (s.batches.len() == 1) {
				c.rank = 1
			}
			out = append(out, c)
		}
	}
	return out
}

// cleanedNotes say why the producer snapshots inside a cleaned segment's offsets are no
// restart of it: the cleaner copies batches of older segments, whose lifetimes the snapshots
// mark (ProducerStateManager.takeSnapshot at a shutdown or a roll of the segment being
// written then); a cleaned segment is written in one pass and closed.
func (s *exSegment) cleanedNotes() []string {
	var out []string
	for _, sn := range s.snaps {
		j := s.batchFrom(sn.offset)
		if j <= 0 || j >= s.batches.len() {
			continue
		}
		out = append(out, fmt.Sprintf("the producer snapshot %s lies inside the cleaned segment's offsets: it marks a restart of the segment the cleaner read (another segment's lifetime), not of this one, written in one pass", filepath.Base(sn.path)))
	}
	return out
}

// preferCleaned decides whether the cleaned history is tried before the appends one when both
// meet their constraints. Decision: first when the files say only the cleaner writes this
// segment (a delete horizon, or the cleaner checkpoint past it), when the appends history
// does not meet them, or when it needs restarts nothing in the files marks (a cleaned segment
// needs none); with offset gaps alone (which a follower's copy of cleaned data has too) the
// appends answer stays first, as before issue 25, and the cleaned history is the answer only
// where that answer's replay disagrees (a restart's close() entry the files do not hold).
func (s *exSegment) preferCleaned(appendsBest *candidate) bool {
	return s.cleaner.Strong() || appendsBest == nil || appendsBest.unmarked > 0
}
