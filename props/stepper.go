package props

import "kidx/model"

// abstractStepper steps an abstractState directly, without a model log: the prover's fast
// path (docs/proofs.md, "The fast path"). It is a fourth writing of Kafka's append rule,
// after model, segment and the SMT encoding, for the two eras the prover explores (per-batch:
// 4.1-4.4, KAFKA-806; per-append: 3.7-4.0.0), in the space's workloads only (timestamps
// increase by batch, offsets far below 2^31, no time rolls). It is trusted because it is
// tested against the model: after every step of random workloads its state is abstractOfWith
// of the model's log, and its verdicts are the properties' own Checks on the concrete
// workload (stepper_test.go); and a proof made with it equals the one made with the model
// (same states, transitions and counterexamples). Mutants (model/mutant.go) are not
// written here: a proof under a mutant takes the model path.
type abstractStepper struct {
	rule     model.AppendRule
	interval int64 // index.interval.bytes
	segment  int64 // segment.bytes
	// fresh is a new segment's state: its free slots are those of segment.index.bytes.
	fresh abstractState
	// boundedSlots / boundedTimeSlots: the index can fill within one segment (its slots
	// are at most the cap), so its free slots are counted; otherwise they stay at the cap.
	boundedSlots, boundedTimeSlots bool
	// records per alphabet letter (exhaustiveBatch's convention).
	records []int64
	sizes   []int64
	// recovers: the space has recover steps, so the state carries the rebuild's fields.
	recovers bool
}

// newAbstractStepper reads the index capacities off a fresh model segment, so that the
// stepper and the model agree on segment.index.bytes' slots by construction.
func newAbstractStepper(cfg model.Config, rule model.AppendRule, alphabet []int64, slotCap int64, recovers bool) *abstractStepper {
	p := newPartialRun(0, cfg, rule, nil, model.Exact)
	s := p.log.Active()
	oi, ti := int64(s.OffsetIndex().MaxEntries()), int64(s.TimeIndex().MaxEntries())
	st := &abstractStepper{rule: rule, interval: cfg.IndexIntervalBytes, segment: cfg.SegmentBytes,
		boundedSlots: oi <= slotCap, boundedTimeSlots: ti-1 <= slotCap, sizes: alphabet, recovers: recovers}
	st.fresh = abstractState{sinceEntry: -1, freeSlots: freeSlotsOf(oi, 0, slotCap), freeTimeSlots: freeSlotsOf(ti-1, 0, slotCap)}
	if recovers {
		st.fresh.rFreeSlots, st.fresh.rFreeTimeSlots, st.fresh.sameIndex = st.fresh.freeSlots, st.fresh.freeTimeSlots, true
	}
	for k := range alphabet {
		st.records = append(st.records, exhaustiveBatch(alphabet, k, 0).Records)
	}
	return st
}

// stepOutcome is what one step did, as the properties see it: bit i of fails is set when
// the step violates or witnesses property i of provedProperties (the fail* constants).
type stepOutcome struct {
	next  abstractState
	fails uint32
}

// Bits of stepOutcome.fails, by property (ProvedProperties' order).
const (
	failFirstBatch = 1 << iota
	failScanBound
	failPlateau // never set here: Plateau takes the model path (a product of two runs)
	failEmptyAbove
	failEntriesAtBoundaries
	failStrictlyIncreasing
	failLookupHits
	failOverflowQuestion
	failIndexFullRoll
	failMidAppendOverflow
	failCliff
	failRecoverySame    // RecoveryRebuildsSameIndex, decided only with recover steps
	failRecoverOverflow // RecoverOverflow, idem
)

// restart is Log.Restart: the active segment becomes inactive (its closing time-index entry
// with skipFullCheck: TimeIndex.maybeAppend throws BufferOverflow past the last slot) and is
// reopened by a new LogSegment object, byte counter 0, max timestamp its last time entry's.
func (st *abstractStepper) restart(a abstractState) stepOutcome {
	if a.stopped {
		return stepOutcome{next: a}
	}
	if a.timePending {
		if st.boundedTimeSlots && a.freeTimeSlots < 0 {
			return stepOutcome{next: abstractState{stopped: true}}
		}
		if st.boundedTimeSlots {
			a.freeTimeSlots--
		}
		a.timePending = false
	}
	a.midReset = a.midReset || a.size > 0
	a.counter = 0
	return stepOutcome{next: a}
}

// recover is Log.Recover: LogSegment.recover rebuilds both indexes of the active segment
// (docs/kafka.md §3) and the segment object starts again with a counter of 0. The rebuild is
// the state's rebuild fields; if it throws (rOverflow), Kafka stops the log.
func (st *abstractStepper) recover(a abstractState) stepOutcome {
	if a.stopped {
		return stepOutcome{next: a}
	}
	if a.rOverflow {
		return stepOutcome{next: abstractState{stopped: true}, fails: failRecoverOverflow}
	}
	a.counter = 0
	a.sinceEntry = -1
	if a.rHasEntry {
		a.sinceEntry = a.rCounter
	}
	a.freeSlots, a.freeTimeSlots = a.rFreeSlots, a.rFreeTimeSlots
	if !a.rLastIndexed && a.size > 0 {
		// The closing time entry (skipFullCheck): the last batch's timestamp is new.
		if st.boundedTimeSlots {
			a.freeTimeSlots--
		}
	}
	a.timePending = false
	a.midReset = a.midReset || a.size > 0
	a.sameIndex = true
	return stepOutcome{next: a, fails: st.endFails(a)}
}

// rebuildBatch steps the rebuild's fields over one more batch of b bytes: recover's check
// (validBytes - lastIndexEntry > I, strict, before the batch), an entry naming the batch's
// last offset at its start, offsetIndex.append and timeIndex.maybeAppend throwing on a full
// index. It returns whether the rebuild indexes the batch.
func (st *abstractStepper) rebuildBatch(a *abstractState, b int64) bool {
	if !st.recovers || a.rOverflow {
		return false
	}
	due := a.rCounter > st.interval
	if due {
		if st.boundedSlots && a.rFreeSlots <= 0 || st.boundedTimeSlots && a.rFreeTimeSlots <= 0 {
			// The rebuild would throw whenever it runs now: its other fields no longer matter
			// and are zero, as abstractOfWith leaves them.
			a.rCounter, a.rFreeSlots, a.rFreeTimeSlots = 0, 0, 0
			a.rHasEntry, a.rLastIndexed, a.sameIndex, a.rOverflow = false, false, false, true
			return false
		}
		if st.boundedSlots {
			a.rFreeSlots--
		}
		if st.boundedTimeSlots {
			a.rFreeTimeSlots--
		}
		a.rCounter, a.rHasEntry = 0, true
	}
	a.rCounter += b
	a.rLastIndexed = due
	return due
}

// endFails are the verdicts of the state a step ends in that depend on the whole active
// segment: the cliff, and (with recover steps) a rebuild that differs from the live index.
func (st *abstractStepper) endFails(a abstractState) uint32 {
	var f uint32
	if a.batches >= 2 && a.sinceEntry < 0 {
		f |= failCliff
	}
	if st.recovers && !a.rOverflow && !a.sameIndex {
		f |= failRecoverySame
	}
	return f
}

// appendLetters is UnifiedLog.append of one append whose batches are the alphabet letters
// ks: the oversize rejection, shouldRoll, then LogSegment.append under the stepper's rule.
func (st *abstractStepper) appendLetters(a abstractState, ks []int) stepOutcome {
	if a.stopped {
		return stepOutcome{next: a}
	}
	var total int64
	for _, k := range ks {
		total += st.sizes[k]
	}
	// UnifiedLog.append: RecordBatchTooLargeException before maybeRoll; nothing written.
	if total > st.segment {
		return stepOutcome{next: a}
	}
	var out stepOutcome
	// overflow: Kafka threw on a full index (an append's entry, or a roll's closing entry):
	// the log stops.
	overflow := func() stepOutcome {
		return stepOutcome{next: abstractState{stopped: true}, fails: out.fails | failOverflowQuestion | failMidAppendOverflow}
	}
	// LogSegment.shouldRoll (docs/kafka.md §8), in Kafka's order: size > segment.bytes -
	// append, then offsetIndex.isFull (entries >= maxEntries), then timeIndex.isFull
	// (entries >= maxEntries - 1, its last slot reserved for the closing entry).
	offsetFull := st.boundedSlots && a.freeSlots <= 0
	timeFull := st.boundedTimeSlots && a.freeTimeSlots <= 0
	if roll := a.size > st.segment-total; roll || offsetFull || timeFull {
		if a.size > 0 && !roll {
			out.fails |= failIndexFullRoll
		}
		if a.size > 0 && a.timePending && st.boundedTimeSlots && a.freeTimeSlots < 0 {
			// LocalLog.roll: the closing maybeAppend (skipFullCheck) past the last slot throws.
			return overflow()
		}
		// The old segment's closing entry uses the reserved slot; it was checked when that
		// state was reached (a workload can end there), so only the fresh segment goes on.
		a = st.fresh
	}
	// prev is the unit before this one in the segment (ScanBound's bound adds it).
	prev := a.lastUnit
	entryAdded := false
	// indexCheck is LogSegment.append's index check, under either rule: due when the counter
	// is past the interval (strict >, before the increment); then Segment.addIndexEntry:
	// offsetIndex.append throws on a full index, then timeIndex.maybeAppend (not
	// skipFullCheck) throws on a full one even if it would not append; the timestamp is always
	// new here (timestamps increase by batch), so it appends. threw: Kafka threw, the log
	// stops (the segment rolled back). An entry resets the counter and the bytes since it.
	indexCheck := func() (due, threw bool) {
		if a.counter <= st.interval {
			return false, false
		}
		if st.boundedSlots && a.freeSlots <= 0 || st.boundedTimeSlots && a.freeTimeSlots <= 0 {
			return true, true
		}
		if st.boundedSlots {
			a.freeSlots--
		}
		if st.boundedTimeSlots {
			a.freeTimeSlots--
		}
		a.timePending = false
		entryAdded = true
		if a.counter == 0 {
			out.fails |= failFirstBatch // a first batch after a reset indexed
		}
		if a.sinceEntry == 0 {
			out.fails |= failStrictlyIncreasing // an entry at the previous one's position
		}
		a.counter, a.sinceEntry = 0, 0
		return true, false
	}
	if st.rule == model.PerBatch {
		// KAFKA-806: per batch, the max timestamp first, then the check (strict >, before the
		// increment), then the batch's size; the entry names the batch's last offset at its
		// start.
		for _, k := range ks {
			b := st.sizes[k]
			a.timePending = true
			pre := a
			due, threw := indexCheck()
			if threw {
				return overflow()
			}
			// ScanBound: the batch's offsets below an entry naming its last one start at the
			// previous entry (or byte 0); bound min(I + the batch before, S). An offset named
			// by the new entry starts at the batch itself.
			if (!due || st.records[k] > 1) && !a.midReset && since(pre) > min(st.interval+prev, st.segment) {
				out.fails |= failScanBound
			}
			if since(pre) < 0 {
				out.fails |= failLookupHits
			}
			// The rebuild indexes a batch exactly where the live rule does, or the indexes
			// part (the same entry: this batch's last offset at its start).
			if rebuilt := st.rebuildBatch(&a, b); st.recovers && !a.rOverflow && rebuilt != due {
				a.sameIndex = false
			}
			a.counter += b
			a.size += b
			if a.sinceEntry >= 0 {
				a.sinceEntry += b
			}
			prev = b
			a.lastUnit = b
		}
		a.batches = uint8(min(int(a.batches)+len(ks), 2))
	} else if threw := st.appendPerAppend(&a, ks, total, prev, &out, indexCheck); threw {
		return overflow()
	}
	if entryAdded && st.interval >= st.segment {
		out.fails |= failEmptyAbove
	}
	out.fails |= st.endFails(a)
	out.next = a
	return out
}

// since is where a lookup of an offset not named by a new entry starts: the last entry's
// position, or the segment's start (0) without one, as bytes before the end.
func since(a abstractState) int64 {
	if a.sinceEntry < 0 {
		return a.size
	}
	return a.sinceEntry
}

// appendPerAppend is appendLetters' LogSegment.append under 3.7-4.0.0: one check per append,
// the entry names the append's last offset at the append's start (before KAFKA-806). a is the
// state after shouldRoll, prev the unit before this append; threw: indexCheck threw.
func (st *abstractStepper) appendPerAppend(a *abstractState, ks []int, total, prev int64, out *stepOutcome, indexCheck func() (due, threw bool)) (threw bool) {
	a.timePending = true
	pre := *a
	due, threw := indexCheck()
	if threw {
		return true
	}
	if due && len(ks) > 1 {
		// The entry names the append's last offset at its first batch, which ends
		// earlier: DumpLogSegments' mismatch (a question under per-append).
		out.fails |= failEntriesAtBoundaries
	}
	// ScanBound, per append: an offset below the append's last one starts at the
	// previous entry; each batch's bound is min(I + the append before + bytes into this
	// one, S).
	if !a.midReset {
		var off int64
		for j, k := range ks {
			floored := !due || j < len(ks)-1 || st.records[k] > 1
			if floored && since(pre)+off > min(st.interval+prev+off, st.segment) {
				out.fails |= failScanBound
			}
			off += st.sizes[k]
		}
	}
	// The rebuild checks every batch; the live entry (the append's last offset at its
	// first batch) equals the rebuild's there only for a one-batch append.
	for j, k := range ks {
		rebuilt := st.rebuildBatch(a, st.sizes[k])
		live := due && j == 0
		if st.recovers && !a.rOverflow && (rebuilt != live || live && len(ks) > 1) {
			a.sameIndex = false
		}
	}
	a.counter += total
	a.size += total
	if a.sinceEntry >= 0 {
		a.sinceEntry += total
	}
	a.lastUnit = total
	a.batches = uint8(min(int(a.batches)+1, 2))
	return false
}

// packedState is a fast-path visited key: an abstractState but its size, in two words
// (the struct itself is 64 bytes, and hashing it was most of the search's time).
type packedState [2]uint64

// packer lays a config's states out in 128 bits: counter, sinceEntry + 1, lastUnit and
// rCounter are at most segment.bytes (< 2^31), the free slots are at most the cap, plus -1
// (the time index's closing entry uses its reserved slot) and only counted when the index
// can fill (freeSlotsOf), and the flags. ok is false when a config's widths do not fit; the fast
// path then uses the struct as its key.
type packer struct {
	wide         uint // bits of counter, sinceEntry + 1, lastUnit
	slots, times uint // bits of freeSlots + 1, freeTimeSlots + 1 (0: not counted)
	ok           bool
}

func bitsFor(v int64) uint {
	n := uint(0)
	for ; v > 0; v >>= 1 {
		n++
	}
	return n
}

func newPacker(st *abstractStepper, slotCap int64) packer {
	p := packer{wide: bitsFor(st.segment + 1)}
	if st.boundedSlots {
		p.slots = bitsFor(slotCap + 1)
	}
	if st.boundedTimeSlots {
		p.times = bitsFor(slotCap + 1)
	}
	p.ok = 4*p.wide+2*p.slots+2*p.times+9 <= 128
	return p
}

// pack writes a's fields but its size; unpack is not needed (the frontier keeps states).
func (p packer) pack(a abstractState) packedState {
	var out packedState
	at := uint(0)
	put := func(v uint64, w uint) {
		if w == 0 {
			return
		}
		i, off := at/64, at%64
		out[i] |= v << off
		if off+w > 64 {
			out[i+1] |= v >> (64 - off)
		}
		at += w
	}
	flag := func(b bool) uint64 {
		if b {
			return 1
		}
		return 0
	}
	put(uint64(a.counter), p.wide)
	put(uint64(a.sinceEntry+1), p.wide)
	put(uint64(a.lastUnit), p.wide)
	put(uint64(a.freeSlots+1), p.slots)
	put(uint64(a.freeTimeSlots+1), p.times)
	put(uint64(a.batches), 2)
	put(flag(a.timePending)|flag(a.midReset)<<1|flag(a.stopped)<<2, 3)
	put(uint64(a.rCounter), p.wide)
	put(uint64(a.rFreeSlots+1), p.slots)
	put(uint64(a.rFreeTimeSlots+1), p.times)
	put(flag(a.rHasEntry)|flag(a.rLastIndexed)<<1|flag(a.sameIndex)<<2|flag(a.rOverflow)<<3, 4)
	return out
}
