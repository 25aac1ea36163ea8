package props

import (
	"slices"

	"kidx/model"
)

// abstractState is the canonical abstract state of a log in the prover's space
// (docs/proofs.md, "The abstract state"): the part of the model's state that decides every
// future step and every proved property's verdict on it. Everything is relative to the
// active segment, so two logs whose active segments were written by different histories (a
// first segment, a segment after a roll, different batches adding up to the same bytes) are
// one state when they agree here. It is a comparable struct and the visited set is keyed by
// it: no hashing, so no two distinct states can be confused.
//
// Exactness is not argued here but tested (fixpoint_exact_test.go): logs that map to the
// same state, extended by the same steps, give the same verdicts and the same states.
type abstractState struct {
	// stopped: Kafka threw (an index overflow), the log takes no more steps. Every stopped
	// log is the one terminal state.
	stopped bool
	// size of the active segment (.log bytes): decides shouldRoll's size check (size >
	// segment.bytes - append size) and bounds the lookups' scans.
	size int64
	// counter is LogSegment.bytesSinceLastIndexEntry: decides the next index checks.
	counter int64
	// sinceEntry is size minus the last offset-index entry's position (-1 without an entry):
	// where a lookup of a new offset starts its scan.
	sinceEntry int64
	// freeSlots and freeTimeSlots are the offset and time index's free slots before isFull
	// holds when the index has at most slotCap slots (segment.bytes / the smallest batch
	// + 2), and slotCap when it has more: a segment cannot take more entries than it has
	// batches, so such an index never fills (freeSlotsOf). They decide shouldRoll's isFull
	// checks and a mid-append overflow.
	// The entry count itself is left out: only the index search depends on it, and that
	// search is WarmSearchAgrees' business (docs/proofs.md, "Assumptions").
	freeSlots, freeTimeSlots int64
	// lastUnit is the size of the active segment's last batch (per-batch) or last append
	// (per-append), 0 when it is empty: ScanBound's bound for the next unit adds it.
	lastUnit int64
	// units in the active segment, capped at 2: batches under per-batch, appends under
	// per-append (the unit an index check sees). The first unit is never indexed, and an
	// empty index over two or more units is the cliff.
	batches uint8
	// timePending: the max timestamp so far is above the time index's last entry, so the
	// segment's close (a roll, or the end of the workload) adds a final time-index entry.
	timePending bool
	// midReset: a restart reset the counter after the segment's first batch, so ScanBound's
	// premise (one process lifetime) no longer holds for the segment.
	midReset bool
	// The rebuild: what LogSegment.recover would rebuild from the active segment's batches
	// now (docs/kafka.md §3: per batch, its own counter from byte 0), kept only when the space
	// has recover steps (all zero otherwise). rCounter is validBytes - lastIndexEntry, the
	// rebuild's next check; rHasEntry, whether it has an entry; rFreeSlots and
	// rFreeTimeSlots, its free slots (as freeSlots, before its closing time entry);
	// rLastIndexed, whether the last batch got an entry (then the closing time entry adds
	// nothing); sameIndex, whether the live offset index equals the rebuilt one; rOverflow,
	// whether the rebuild throws (an index fills: recover would stop the log), after which
	// the other fields are zero.
	rCounter                   int64
	rFreeSlots, rFreeTimeSlots int64
	rHasEntry, rLastIndexed    bool
	sameIndex, rOverflow       bool
}

// abstractOfWith maps a log (a workload prefix's partial run) to its abstract state, with
// the rebuild's fields when recovers is set: read off the model's own recover, run on a copy
// of the log.
func abstractOfWith(p *partialRun, rule model.AppendRule, slotCap int64, recovers bool) abstractState {
	if p.done() {
		return abstractState{stopped: true}
	}
	a := liveAbstract(p, rule, slotCap)
	if recovers {
		rebuildOf(p, &a, slotCap)
	}
	return a
}

// rebuildOf fills the rebuild's fields of a from a recover step run on a copy of p.
func rebuildOf(p *partialRun, a *abstractState, slotCap int64) {
	q := p.extend(model.Step{Recover: true})
	if q.done() {
		a.rOverflow = true
		return
	}
	s := q.log.Active()
	oi := s.OffsetIndex()
	live := p.log.Active().OffsetIndex().All()
	rebuilt := oi.All()
	a.sameIndex = slices.Equal(live, rebuilt)
	n := int64(len(rebuilt))
	a.rCounter = s.Size()
	if n > 0 {
		last := rebuilt[n-1]
		a.rHasEntry = true
		a.rCounter = s.Size() - last.Position
		bs := s.Batches()
		a.rLastIndexed = bs[len(bs)-1].Position == last.Position
	}
	// Before its closing entry the rebuilt time index has one entry per rebuilt offset
	// entry (every batch's timestamp is new).
	a.rFreeSlots = freeSlotsOf(int64(oi.MaxEntries()), n, slotCap)
	a.rFreeTimeSlots = freeSlotsOf(int64(s.TimeIndex().MaxEntries())-1, n, slotCap)
}

// liveAbstract is the abstract state of p's live segment (p not done).
func liveAbstract(p *partialRun, rule model.AppendRule, slotCap int64) abstractState {
	s := p.log.Active()
	oi, ti := s.OffsetIndex(), s.TimeIndex()
	// OffsetIndex.isFull: entries >= maxEntries; TimeIndex.isFull: entries >= maxEntries - 1.
	a := abstractState{size: s.Size(), counter: s.BytesSinceLastIndexEntry(), sinceEntry: -1,
		freeSlots:     freeSlotsOf(int64(oi.MaxEntries()), int64(oi.Entries()), slotCap),
		freeTimeSlots: freeSlotsOf(int64(ti.MaxEntries())-1, int64(ti.Entries()), slotCap)}
	if n := oi.Entries(); n > 0 {
		e, _ := oi.Entry(n - 1)
		a.sinceEntry = a.size - e.Position
	}
	bs := s.Batches()
	a.batches = uint8(min(segmentUnits(p.traces[len(p.traces)-1], len(bs), rule), 2))
	if len(bs) > 0 {
		a.lastUnit = bs[len(bs)-1].Size
		if rule == model.PerAppend {
			apps := p.traces[len(p.traces)-1].Appends
			last := apps[len(apps)-1]
			a.lastUnit = last[1] - last[0]
		}
	}
	a.timePending = s.MaxTimestamp() > ti.LastEntry().Timestamp
	a.midReset = p.traces[len(p.traces)-1].MidReset
	return a
}

// segmentUnits is how many units (batches per-batch, appends per-append) a segment holds.
func segmentUnits(t SegmentTrace, batches int, rule model.AppendRule) int {
	if rule == model.PerAppend {
		return len(t.Appends)
	}
	return batches
}

// slotCapFor is abstractState's cap on free index slots for a config: more than the entries a
// segment of segment.bytes can take (one per batch at most, per-batch or per-append).
func slotCapFor(cfg model.Config, alphabet []int64) int64 {
	return cfg.SegmentBytes/slices.Min(alphabet) + 2
}

// freeSlotsOf is abstractState's free slots of an index with slots usable slots and
// entries entries: counted when the index can fill within a segment (slots at most the
// cap), the cap itself otherwise. The choice depends on segment.index.bytes alone, so
// two logs of one config never disagree on it, and the count steps by one per entry
// (abstractStepper counts the same way).
func freeSlotsOf(slots, entries, slotCap int64) int64 {
	if slots <= slotCap {
		return slots - entries
	}
	return slotCap
}
