package explain

import (
	"fmt"
	"path/filepath"

	"kidx/internal/english"
	"kidx/logdir"
)

// recoveredCandidates are the recovered history's candidates: LogSegment.recover rebuilt the
// indexes at a restart, over the segment as it was then, and the later appends and close()
// followed. recover() resets both indexes and walks every batch from byte 0, appending an
// entry (the batch's last offset; the time index the max so far at the batch's last offset)
// whenever more than index.interval.bytes were read since the last, then appends the max
// timestamp once more with skipFullCheck as close() does; the segment reopened after it
// counts from 0 (a new LogSegment's bytesSinceLastIndexEntry). So the entries before the
// recovery are the per-batch rule's in one lifetime from byte 0, and what close() wrote at
// earlier restarts is gone.
//
// The restarts tried are those the files show, in offset order: each producer snapshot
// inside the segment, then the end of the segment (a restart after its last batch); the
// first one at which some era reproduces the files is the answer (the recovery that erased
// the least). Decision: eras whose appends after the recovery name another offset than
// recover() does before it are not tried: 0.8-1.1 (the append's first offset), and the
// 0.11-3.6 leader's exact record (the later appends are taken to name last offsets, as a
// follower's or a 3.7+ leader's do); the later appends are one batch each. A live segment is
// not tried at its end (recover() then close() trims the index).
func (s *exSegment) recoveredCandidates(eras logdir.EraSet, want int64) [][]candidate {
	n := s.batches.len()
	if n == 0 {
		return nil // nothing was appended, nothing to recover
	}
	var points []int
	for _, sn := range s.snaps {
		if j := s.batchFrom(sn.offset); j > 0 && j < n && (len(points) == 0 || points[len(points)-1] < j) {
			points = append(points, j)
		}
	}
	if !s.newest || !(s.timeLive || s.idxLive) {
		points = append(points, n)
	}
	var out [][]candidate
	for _, r := range points {
		var cands []candidate
		for _, era := range eras.Eras() {
			if !era.HasTimeIndex() || era.OffsetEntry == logdir.EntryAppendFirst {
				continue
			}
			cands = append(cands, s.evaluateGiven(era, OneBatchPerAppend, want, HistoryRecovered, r))
		}
		out = append(out, cands)
	}
	return out
}

// recoveryRestarts are the restarts before the recovery that the producer snapshots show:
// they happened (ProducerStateManager.takeSnapshot at each clean shutdown), but the entries
// close() wrote at them were rebuilt away.
func (s *exSegment) recoveryRestarts(at int) []Restart {
	var out []Restart
	for _, r := range s.snapshotRestarts() {
		if j := s.batchAtPos(r.Position); j >= 0 && j < at {
			out = append(out, r)
		}
	}
	return out
}

// recoveryPoint is where the recovery ran: before batch at, or after the last batch.
func (s *exSegment) recoveryPoint(at int) *Restart {
	r := &Restart{Evidence: "required"}
	if s.batches.len() == 0 {
		return r
	}
	if at >= s.batches.len() {
		last := s.batches.at(s.batches.len() - 1)
		r.Position, r.Offset = s.logEnd, last.last+1
	} else {
		b := s.batches.at(at)
		r.Position, r.Offset = b.pos, b.base
	}
	r.EarliestPosition, r.EarliestOffset = r.Position, r.Offset
	for _, sn := range s.snaps {
		if s.batchFrom(sn.offset) == at {
			r.Evidence, r.Snapshot = "producer-snapshot", sn.path
		}
	}
	return r
}

// recoveredEvidence says what in the files led to the recovered history.
func (s *exSegment) recoveredEvidence(at int) []string {
	var out []string
	if n := len(s.recoveryRestarts(at)); n > 0 {
		out = append(out, fmt.Sprintf("the producer snapshots show %s before the recovery, and the time index does not hold what close() appended there: recover() rebuilt it",
			english.Plural(int64(n), "restart")))
	}
	if r := s.recoveryPoint(at); r.Evidence == "producer-snapshot" {
		out = append(out, fmt.Sprintf("the recovery ran at the restart the producer snapshot %s shows", filepath.Base(r.Snapshot)))
	} else {
		out = append(out, "the recovery after the last batch is assumed (no producer snapshot at the log end offset shows that restart)")
	}
	return out
}

// recoveryUnmarked is how many restarts nothing in the files marks a recovery before batch
// at assumes: none at a producer snapshot's restart, one elsewhere (after the last batch with
// no snapshot at the log end offset).
func (s *exSegment) recoveryUnmarked(at int) int {
	if s.recoveryPoint(at).Evidence == "producer-snapshot" {
		return 0
	}
	return 1
}
