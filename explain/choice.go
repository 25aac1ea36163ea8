package explain

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"kidx/logdir"
	"kidx/segment"
)

// explainSegment reads a segment and tries every candidate. A huge segment's table lowered
// the garbage collector's target while it was live (holdHugeTable): that is given back here,
// once nothing refers to the table, so that the collection it makes frees it.
func explainSegment(sf segment.SegmentFiles, snaps []snapshotFile, newest bool, opts Options) (SegmentExplanation, error) {
	var release func()
	se, err := explainSegmentFiles(sf, snaps, newest, opts, &release)
	if release != nil {
		release()
	}
	return se, err
}

// explainSegmentFiles is explainSegment's work; *release gets what a huge table took.
func explainSegmentFiles(sf segment.SegmentFiles, snaps []snapshotFile, newest bool, opts Options, release *func()) (SegmentExplanation, error) {
	se := SegmentExplanation{BaseOffset: sf.BaseOffset, Log: sf.Log}
	s, err := readExSegment(sf, snaps, newest, opts.cleanerOffset, opts.hasCleanerOffset)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist) {
			// The file was listed but is gone: a running broker's retention renamed it to
			// .deleted (UnifiedLog.deleteSegment) or a roll recreated an empty segment
			// (LocalLog.roll). That segment cannot be explained; the others still can, as
			// verify reads on past an unreadable segment (docs/logdirs.md, "Readers under a
			// live broker").
			se.Notes = append(se.Notes, fmt.Sprintf("%s: vanished between the directory listing and its open (a running broker deleted or renamed it): the segment is not explained", pe.Path))
			return se, nil
		}
		if errors.As(err, &pe) {
			return se, err
		}
		if oe := (*segment.OversizeLogError)(nil); errors.As(err, &oe) {
			se.FirstDisagreement = &Disagreement{File: sf.Log, Slot: -1, Found: err.Error(),
				Meaning: "Kafka refuses to open the segment (FileRecords: positions in a segment are int32), so no broker wrote or loads it: nothing is read"}
			return se, nil
		}
		se.FirstDisagreement = &Disagreement{File: sf.Log, Slot: -1, Found: err.Error(), Meaning: "the files cannot be read as Kafka's"}
		return se, nil
	}
	defer s.lf.Close()
	defer func() { *release = s.batches.release }()
	se.Batches = s.batches.len()
	se.Live = newest && (s.idxLive || s.timeLive)
	se.OffsetEntries, se.TimeEntries = len(s.entries), len(s.times)
	if s.logErr != nil {
		se.Notes = append(se.Notes, fmt.Sprintf("the .log is explained up to byte %d: %v", s.logEnd, s.logErr))
	}
	if s.idxOver != nil {
		se.OffsetEntries, se.FirstDisagreement = s.idxOverEntries, s.idxOver
		return se, nil
	}
	if s.timeOver != nil {
		se.TimeEntries, se.FirstDisagreement = s.timeOverEntries, s.timeOver
		return se, nil
	}
	if !s.hasIndex && !s.hasTime {
		// Nothing a broker wrote to explain: Kafka rebuilds a missing offset index at load
		// (LogSegment.recover), and a test harness writes none. The producer snapshots inside
		// the segment still show its restarts, as verify says (one history per partition).
		se.NoIndexes = true
		se.Notes = append(se.Notes, "no .index or .timeindex: nothing to reproduce (a broker rebuilds a missing index at load)")
		se.Restarts = s.snapshotRestarts()
		return se, nil
	}
	if !s.hasIndex && s.batches.len() > 0 {
		se.FirstDisagreement = &Disagreement{File: sf.Log, Slot: -1, Found: "no .index file beside a .timeindex",
			Meaning: "a broker writes both: the offset index was deleted (Kafka rebuilds it at load)"}
		return se, nil
	}
	if s.idxJunk >= 0 {
		se.Notes = append(se.Notes, fmt.Sprintf("%s: slot %d after the valid entries is not zero: explained up to the zero slot before it", sf.Index, s.idxJunk))
	}
	if s.timeJunk >= 0 {
		se.Notes = append(se.Notes, fmt.Sprintf("%s: slot %d after the valid entries is not zero: explained up to the zero slot before it", sf.TimeIndex, s.timeJunk))
	}
	var cands []candidate
	evidence := s.appendEvidence()
	memo := map[behaviour]candidate{}
	eras := opts.Eras & s.formatEras()
	if eras.Empty() {
		se.FirstDisagreement = &Disagreement{File: sf.Log, Slot: -1, Found: fmt.Sprintf("message format v%d", s.maxMagic()),
			Meaning: fmt.Sprintf("%s cannot write it (v1 came with 0.10.0, KIP-32; v2 with 0.11, KIP-98)", opts.Eras)}
		return se, nil
	}
	for _, era := range eras.Eras() {
		// Under the per-batch rule the grouping changes nothing in the index (every batch is
		// checked), so both shapes give the same fit; trying both lets the era compete under
		// the shape the data suggests.
		shapes := []AppendShape{OneBatchPerAppend, SeveralBatchesPerAppend}
		leaders := []bool{false}
		if era.TimeEntry == logdir.TimeExactRecord {
			leaders = []bool{true, false}
		}
		for _, shape := range shapes {
			for _, leader := range leaders {
				key := behaviourOf(era, shape, leader)
				c, seen := memo[key]
				if !seen {
					c = s.evaluate(era, shape, leader, opts.Interval)
					memo[key] = c
				}
				c.era, c.shape, c.leader = era, shape, leader
				if era.TimeEntry == logdir.TimeExactRecord && c.ok && c.origin == "" {
					c.origin = s.originOf(c.moments, leader)
				}
				c.rank = c.score(evidence)
				cands = append(cands, c)
				if c.ok {
					break // the leader's naming reproduces it: no need to try a follower's
				}
			}
		}
	}
	// The histories in the order they are tried (docs/explain.md, "Three histories"): the
	// first whose best candidate the replay reproduces is the answer.
	best := pickBest(cands)
	type trial struct {
		cands []candidate
		best  *candidate
	}
	appends := trial{cands, best}
	var before, after []trial
	if s.cleaner.Any() {
		cc := s.cleanedCandidates(eras, opts.Interval)
		if cb := pickBest(cc); cb != nil {
			if s.preferCleaned(best) {
				before = append(before, trial{cc, cb})
			} else {
				after = append(after, trial{cc, cb})
			}
		}
	}
	// Recovery at a restart is tried where the appends history fails or needs restarts that
	// nothing in the files marks, and is the answer where it needs fewer (Decision: a recovery
	// at a producer snapshot's restart assumes nothing; one after the last batch with no
	// snapshot there is one unmarked restart itself).
	var recovered [][]candidate
	recoveredDone := false
	if best == nil || best.unmarked > 0 {
		recovered, recoveredDone = s.recoveredCandidates(eras, opts.Interval), true
		for _, rc := range recovered {
			if rb := pickBest(rc); rb != nil && (best == nil || s.recoveryUnmarked(rb.recoverAt) < best.unmarked) {
				before = append(before, trial{rc, rb})
			}
		}
	}
	var appendsFail *Disagreement
	try := func(t trial) bool {
		out := se
		d := s.fill(&out, t.cands, t.best)
		if d == nil {
			se = out
			return true
		}
		if t.best.history == HistoryAppends {
			appendsFail = d
		}
		return false
	}
	for _, t := range append(append(before, appends), after...) {
		if t.best != nil && try(t) {
			return se, nil
		}
	}
	// The appends history met the constraints but its replay disagreed (a restart's close()
	// entry the files do not hold): recovery at any restart the files show, in order.
	if !recoveredDone {
		recovered = s.recoveredCandidates(eras, opts.Interval)
	}
	for _, rc := range recovered {
		if rb := pickBest(rc); rb != nil && best != nil && s.recoveryUnmarked(rb.recoverAt) >= best.unmarked && try(trial{rc, rb}) {
			return se, nil
		}
	}
	// Nothing reproduces the files: the appends history's disagreement is reported, as before
	// issue 25 (its replay's, or the one found deepest among its candidates); the other
	// histories are tried on evidence only.
	if appendsFail != nil {
		se.FirstDisagreement = appendsFail
	} else {
		se.FirstDisagreement = latestDisagreement(cands)
	}
	return se, nil
}

// fill writes the explanation of the chosen candidate best among cands into se, and replays
// it: the disagreement is the replay's (nil: reproduced byte for byte).
func (s *exSegment) fill(se *SegmentExplanation, cands []candidate, best *candidate) *Disagreement {
	se.Reproduced = true
	se.History = best.history
	se.Appends, se.Origin = best.shape, best.origin
	se.Interval, se.IntervalExact, se.IntervalPick = best.fit.intervals, best.fit.exact, best.fit.pick
	se.Notes = append(se.Notes, best.snapNotes...)
	// Every era that does as well (no more unmarked restarts) under the chosen shape is an
	// answer, the per-batch eras under either (their grouping changes nothing); the other
	// shape's answers are kept apart (OtherShape).
	var union, other []IntervalRange
	for _, c := range cands {
		if !c.ok || c.unmarked != best.unmarked {
			continue
		}
		se.EraIntervals = append(se.EraIntervals, EraInterval{Era: c.era, Appends: c.shape, Interval: c.fit.intervals})
		if c.shape == best.shape || (c.era.PerBatch() && !se.Eras.Has(c.era)) {
			se.Eras |= logdir.EraSetOf(c.era)
			union = append(union, c.fit.intervals...)
			continue
		}
		if !c.era.PerBatch() {
			se.OtherShapeEras |= logdir.EraSetOf(c.era)
			other = append(other, c.fit.intervals...)
		}
	}
	se.Interval = unionRanges(union)
	se.OtherShapeInterval = unionRanges(other)
	// Who appended, as the 0.11-3.6 members of the set tell (a leader names the record
	// holding the max timestamp there; a follower, the raft layer or recover() the batch's
	// last offset).
	for _, c := range cands {
		if c.ok && c.unmarked == best.unmarked && c.era.TimeEntry == logdir.TimeExactRecord && c.origin != "" {
			se.Origin = c.origin
		}
	}
	se.Restarts = s.restarts(best)
	switch best.history {
	case HistoryCleaned:
		se.HistoryEvidence = s.cleaner.Facts()
		se.Notes = append(se.Notes, s.cleanedNotes()...)
	case HistoryRecovered:
		se.Recovery = s.recoveryPoint(best.recoverAt)
		se.Restarts = append(s.recoveryRestarts(best.recoverAt), se.Restarts...)
		se.HistoryEvidence = s.recoveredEvidence(best.recoverAt)
	}
	for _, c := range cands {
		if c.ok && c.unmarked > best.unmarked && !se.Eras.Has(c.era) {
			se.Alternatives = append(se.Alternatives, fmt.Sprintf("%s with %s and %d unmarked restarts: index.interval.bytes %s", c.era, c.shape, c.unmarked, c.fit.intervals))
			break
		}
	}
	if err := s.regenerate(best, se.Live); err != nil {
		se.Reproduced = false
		return err
	}
	if !everyBatchChecked(best.era, best.shape) {
		for _, a := range best.appends {
			se.AppendStarts = append(se.AppendStarts, a[0])
		}
	}
	return nil
}

// evidence is what the segment's own data says of how its appends were grouped.
type appendEvidence int

func (s *exSegment) appendEvidence() appendEvidence {
	ev := evidenceNone
	for i := range s.batches.len() {
		b := s.batches.at(i)
		if i > 0 && b.base > s.batches.at(i-1).last+1 || (i == 0 && b.base > s.files.BaseOffset) {
			return evidenceGaps
		}
		if b.legacy() && !b.wrapper() {
			ev = evidenceMessageSets
		}
	}
	return ev
}

// score orders the candidates, lower first (docs/explain.md, "Choosing"): with offset gaps
// the cleaner's several-batch appends come first; otherwise the fewest restarts nothing in the
// files marks (a clean restart's close() leaves a time-index entry whenever the max timestamp
// grew, and a producer snapshot before 2.8), then one batch per append, as a leader writes.
func (c *candidate) score(ev appendEvidence) int {
	multi := 0
	if c.shape == SeveralBatchesPerAppend {
		multi = 1
	}
	if ev == evidenceGaps {
		return (1-multi)<<20 + c.unmarked
	}
	return c.unmarked*2 + multi
}

// pickBest is the reproducing candidate with the lowest score; among equals the newest era,
// the one a replay uses.
func pickBest(cands []candidate) *candidate {
	var best *candidate
	for i := range cands {
		c := &cands[i]
		if c.ok && (best == nil || c.rank <= best.rank) {
			best = c
		}
	}
	return best
}

// latestDisagreement is the disagreement found deepest into the files: the candidate that got
// furthest before failing says most about what went wrong. Offset-index disagreements rank by
// slot, .log ones by byte.
func latestDisagreement(cands []candidate) *Disagreement {
	var best *Disagreement
	bestRank := int64(-1)
	for _, c := range cands {
		if c.dis == nil {
			continue
		}
		rank := c.dis.Byte
		if c.dis.Slot >= 0 {
			rank = int64(c.dis.Slot)
		}
		if rank > bestRank {
			d := *c.dis
			d.Meaning = fmt.Sprintf("%s (tried as %s, %s)", d.Meaning, c.era, c.shape)
			best, bestRank = &d, rank
		}
	}
	return best
}

// restarts turns the fit's restarts and the marks into reported restarts.
func (s *exSegment) restarts(c *candidate) []Restart {
	at := func(j int) (int64, int64) {
		if j >= s.batches.len() {
			return s.logEnd, s.batches.at(s.batches.len()-1).last + 1
		}
		return s.batches.at(j).pos, s.batches.at(j).base
	}
	var out []Restart
	for _, j := range c.fixed {
		pos, off := at(j)
		r := Restart{Position: pos, Offset: off, EarliestPosition: pos, EarliestOffset: off, Evidence: "producer-snapshot"}
		for _, sn := range s.snaps {
			if s.batchFrom(sn.offset) == j {
				r.Snapshot = sn.path
			}
		}
		out = append(out, r)
	}
	for _, r := range c.fit.restarts {
		lp, lo := at(r.latest)
		ep, eo := at(r.earliest)
		ev := "required"
		if r.marked {
			ev = "time-index"
		}
		out = append(out, Restart{Position: lp, Offset: lo, EarliestPosition: ep, EarliestOffset: eo, Evidence: ev})
	}
	// Marks the offset index needs no restart for (after the last entry, or at the end).
	for _, mk := range c.marks {
		covered := false
		for _, r := range out {
			if j := s.batchAtPos(r.Position); (j >= mk.lo && j <= mk.hi) || (r.Position == s.logEnd && mk.hi >= s.batches.len()) {
				covered = true
			}
		}
		if !covered {
			lp, lo := at(mk.hi)
			ep, eo := at(mk.lo)
			out = append(out, Restart{Position: lp, Offset: lo, EarliestPosition: ep, EarliestOffset: eo, Evidence: "time-index"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Position < out[j].Position })
	return out
}

// snapshotRestarts are the restarts the producer snapshots inside the segment show: before
// the first batch at or past each snapshot's offset (a clean shutdown writes one at the log end
// offset, ProducerStateManager.takeSnapshot), as fixedRestarts places them.
func (s *exSegment) snapshotRestarts() []Restart {
	var out []Restart
	for _, sn := range s.snaps {
		j := s.batchFrom(sn.offset)
		if j <= 0 || j >= s.batches.len() {
			continue
		}
		b := s.batches.at(j)
		out = append(out, Restart{Position: b.pos, Offset: b.base, EarliestPosition: b.pos, EarliestOffset: b.base, Evidence: "producer-snapshot", Snapshot: sn.path})
	}
	return out
}
