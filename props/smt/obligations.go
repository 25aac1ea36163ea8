package smt

import (
	"fmt"

	"kidx/model"
	"kidx/props"
)

// The assumptions every obligation shares, in words.
var (
	assumeSingleBatch = "every append is one batch (a leader's produce request, docs/kafka.md §2.2): per-batch and per-append give the same index"
	assumeNoRecover   = "no recovery step (recover() rebuilds the index from the segment's start, docs/kafka.md §3)"
	assumeAnyRoll     = "a roll may happen before any append for any reason besides size (index full, time, relative offset, an operator's roll): left free, so every such roll is covered"
	assumeRestarts    = "clean restarts at any point (the counter restarts at 0 mid-segment)"
	assumeOneLifetime = "one process lifetime: no restart inside the segment (the premise of docs/kafka.md §2.2's derivation; after a restart the scan can reach I + batch + I, docs/findings.md)"
	assumeFileBatches = "only batches a file can hold (model.Batch.Possible), so that a counterexample is a workload Kafka could write"
	assumeSizeRolls   = "rolls by size only (no index-full, time or forced roll: those depend on the interval through the entries, or come from outside the workload)"
)

var one = copyOf{}

// firstBatchLast is the last offset of the (first) batch appended at step i.
func firstBatchLast(c copyOf, i int, twoBatch bool) string {
	r := inName("r", i)
	if twoBatch {
		r = inName("r1", i)
	}
	return fmt.Sprintf("(+ %s %s %s -1)", c.v("next", i), inName("g", i), r)
}

func pre(c copyOf, f string, i int) string { return c.v("pre"+f, i) }

// obligations are the properties proved for a system with mutant m (model.Exact: Kafka):
// with single-batch appends (both rules), then under per-append with appends of one or two
// batches.
func obligations(m model.Mutant) []*obligation {
	return append(append(append(singleBatch(m), twoBatch(m)...), perBatch(m, true)...), followerOverflow(m))
}

// candidateObligations are the obligations under candidate fix (a) (System.RollOnIndexRoom):
// every other obligation holds as it is, because its free rolls (System.Rolls) cover the
// fix's extra roll; the follower overflow becomes an invariant within the fix's assumption.
func candidateObligations(m model.Mutant) []*obligation {
	out := obligations(m)
	for i, o := range out {
		if o.name == "NoIndexOverflowMidAppend" {
			out[i] = fixANeverOverflows(m)
		}
	}
	return out
}

var (
	assumeIndexBytes = "segment.index.bytes X in [12, 2^31-1]: the offset index has X div 8 slots, the time index X div 12 with one kept for the closing entry (TimeIndex.isFull); batches' timestamps rise (the time index takes an entry with every offset entry); shouldRoll rolls on a full index"
	assumeNoRestart  = "no restart (a restart's closing time entry would take a slot mid-segment)"
)

// followerOverflow is the question of docs/kafka-hazards.md: no append of the per-batch loop
// (a follower's fetched chunk) meets a full index. Expected false: LogSegment.shouldRoll
// checks isFull once per append, and an append of two batches can need two entries.
func followerOverflow(m model.Mutant) *obligation {
	return &obligation{
		name: "NoIndexOverflowMidAppend", kind: "question", rule: model.PerBatch, variant: "per-batch-two-batch",
		sys:    System{Mutant: m, Rolls: true, TwoBatchAppends: true, Rule: model.PerBatch, IndexBytes: true, FileBatches: true},
		copies: []copyOf{one}, maxK: 4, smallFirst: true,
		says:        "for every I, S, segment.index.bytes in Kafka's ranges and appends of one or two batches: no batch's entry meets a full offset or time index (Kafka would throw \"Attempt to append to a full index\")",
		assumptions: []string{assumePerBatchTwo, assumeNoRecover, assumeAnyRoll, assumeIndexBytes, assumeNoRestart, assumeFileBatches},
		prop:        func(i int) string { return fmt.Sprintf("(not %s)", one.v("ov", i)) },
		replay:      replayWith(props.NoIndexOverflowMidAppend),
	}
}

// FixAEra is candidate fix (a) as the replay runs it: Kafka 4.1-4.4 with
// Era.RollWhenAppendLacksIndexRoom (examples/eras/fix-a-roll-on-index-room.json).
func FixAEra() model.Era {
	e := model.EraForRule(model.PerBatch)
	e.Candidate, e.ID = e.ID, "fix-a-roll-on-index-room"
	e.Releases = "candidate fix-a-roll-on-index-room (on Kafka " + e.Releases + ")"
	e.RollWhenAppendLacksIndexRoom = true
	return e
}

// fixANeverOverflows is fix (a)'s claim, proved for every configuration: within its assumption
// (an append has at most segment.index.bytes/12 batches, props.RollOnRoomMaxBatches; here,
// appends of two batches need X >= 24), no entry meets a full index. Why: a non-empty segment
// rolls unless both indexes take one entry per batch; an empty one has a counter of 0, so its
// first batch is not indexed and the second finds a usable time slot.
func fixANeverOverflows(m model.Mutant) *obligation {
	era := FixAEra()
	o := followerOverflow(m)
	o.kind, o.smallFirst, o.maxK, o.era, o.variant = "invariant", false, 3, &era, "fix-a-per-batch-two-batch"
	o.sys.RollOnIndexRoom, o.sys.FileBatches = true, false
	o.says = "under candidate fix (a) (shouldRoll also rolls when an index lacks a slot per batch of the append), for every I, S, segment.index.bytes X in Kafka's ranges and appends of at most X/12 batches (one or two): no batch's entry meets a full offset or time index"
	o.assumptions = []string{assumePerBatchTwo, assumeNoRecover, assumeAnyRoll, assumeIndexBytes, assumeNoRestart,
		"fix (a)'s assumption: every append has at most segment.index.bytes/12 batches"}
	o.assume = func(i int) string {
		return fmt.Sprintf("(<= (ite (> %s 0) 2 1) (div X 12))", inName("d", i))
	}
	o.lemmas = []lemma{
		{"an empty segment has a counter of 0 and no entry", func(j int) string {
			return fmt.Sprintf("(=> (= %s 0) (and (= %s 0) (= %s 0)))", one.v("size", j), one.v("counter", j), one.v("entries", j))
		}},
		{"the counter and the entries are not negative", func(j int) string {
			return fmt.Sprintf("(and (<= 0 %s) (<= 0 %s) (<= 0 %s))", one.v("counter", j), one.v("entries", j), one.v("size", j))
		}},
		{"the entries fit both indexes", func(j int) string {
			return fmt.Sprintf("(and (<= %s %s) (<= %s %s))", one.v("entries", j), offsetSlots, one.v("entries", j), timeSlots)
		}},
	}
	return o
}

// singleBatch are the obligations with one batch per append, where the rules coincide.
func singleBatch(m model.Mutant) []*obligation { return perBatch(m, false) }

// secondAt is the second batch's start inside step i's append (0: none).
func secondAt(i int, two bool) string {
	if two {
		return inName("d", i)
	}
	return "0"
}

// perBatch are the obligations of the per-batch rule: with one batch per append (two false,
// where per-append coincides), or with appends of one or two batches (two).
func perBatch(m model.Mutant, two bool) []*obligation {
	free := System{Mutant: m, Restarts: true, Rolls: true, TwoBatchAppends: two}
	lifetime := System{Mutant: m, Rolls: true, TwoBatchAppends: two}
	common := []string{assumeSingleBatch, assumeNoRecover}
	if two {
		common = []string{assumePerBatchTwo, assumeNoRecover}
	}
	variant := ""
	if two {
		variant = "per-batch-two-batch"
	}
	out := []*obligation{
		{
			name: "FirstBatchNeverIndexed", kind: "invariant", sys: free, copies: []copyOf{one}, maxK: 3,
			says:        "for every index.interval.bytes I in [0, 2^31-1], segment.bytes S in [14, 2^31-1] and batches of 61 B to M <= 2^31-1 B: the first batch appended after a counter reset (a new segment, a restart) never gets an offset-index entry",
			assumptions: append(common, assumeAnyRoll, assumeRestarts),
			prop: func(i int) string {
				// e1: the first batch's check (the step's only one but under per-batch two-batch appends)
				return fmt.Sprintf("(=> (and %s %s) (not %s))", inName("ok", i), pre(one, "fresh", i), one.v("e1", i))
			},
			lemmas: []lemma{
				{"the counter is never negative", func(j int) string { return fmt.Sprintf("(<= 0 %s)", one.v("counter", j)) }},
				{"right after a reset the counter is 0", func(j int) string {
					return fmt.Sprintf("(=> %s (= %s 0))", one.v("fresh", j), one.v("counter", j))
				}},
			},
			replay: replayWith(props.FirstBatchNeverIndexed),
		},
		{
			name: "EmptyAboveSegment", kind: "invariant", sys: free, copies: []copyOf{one}, maxK: 3,
			says:        "for every I >= S (both in Kafka's ranges) and any batches: no segment ever gets an offset-index entry",
			assumptions: append(common, assumeAnyRoll, assumeRestarts),
			prop: func(i int) string {
				return fmt.Sprintf("(=> (>= %s S) (= %s 0))", one.interval(), one.v("entries", i+1))
			},
			lemmas: []lemma{
				{"the counter is never negative", func(j int) string { return fmt.Sprintf("(<= 0 %s)", one.v("counter", j)) }},
				{"the counter never exceeds the segment's size", func(j int) string {
					return fmt.Sprintf("(<= %s %s)", one.v("counter", j), one.v("size", j))
				}},
				{"a segment never exceeds segment.bytes", func(j int) string { return fmt.Sprintf("(<= %s S)", one.v("size", j)) }},
			},
			replay: replayWith(props.EmptyAboveSegment),
		},
		{
			name: "StrictlyIncreasing", kind: "invariant", sys: free, copies: []copyOf{one}, maxK: 3,
			says:        "for every configuration in Kafka's ranges: each new offset-index entry has a larger offset and a larger position than the segment's previous entry (the offset index; the time index is not encoded)",
			assumptions: append(common, assumeAnyRoll, assumeRestarts, "batches may leave offset gaps (explicit base offsets)"),
			prop: func(i int) string {
				// The first batch's entry against the segment's previous one, the second batch's
				// (per-batch two-batch appends) against the first's or the previous one.
				return fmt.Sprintf("(and (=> (and %s (> %s 0)) (and (> %s %s) (> %s %s))) (=> (and %s (or %s (> %s 0))) (and (> %s %s) (> %s %s))))",
					one.v("e1", i), pre(one, "entries", i), one.v("lpos1", i), pre(one, "lpos", i), one.v("loff1", i), pre(one, "loff", i),
					one.v("e2", i), one.v("e1", i), pre(one, "entries", i), one.v("lpos", i+1), one.v("lpos1", i), one.v("loff", i+1), one.v("loff1", i))
			},
			lemmas: []lemma{
				{"the latest entry's position is inside the segment", func(j int) string {
					return fmt.Sprintf("(=> (> %s 0) (< %s %s))", one.v("entries", j), one.v("lpos", j), one.v("size", j))
				}},
				{"the latest entry's offset is below the log end offset", func(j int) string {
					return fmt.Sprintf("(=> (> %s 0) (< %s %s))", one.v("entries", j), one.v("loff", j), one.v("next", j))
				}},
			},
			replay: replayWith(props.StrictlyIncreasing),
		},
		{
			name: "EntriesAtBatchBoundaries", kind: "invariant", sys: free, copies: []copyOf{one}, maxK: 3,
			says:        "for every configuration in Kafka's ranges: every offset-index entry (o, p) points at the start p of a batch whose last offset is o (what DumpLogSegments checks); an entry is never changed once written",
			assumptions: append(common, assumeAnyRoll, assumeRestarts, "batches may leave offset gaps (explicit base offsets)"),
			prop: func(i int) string {
				// Each batch's entry: its own start and last offset.
				return fmt.Sprintf("(and (=> %s (and (= %s %s) (= %s %s))) (=> %s (and (= %s (+ %s %s)) (= %s %s))))",
					one.v("e1", i), one.v("lpos1", i), pre(one, "size", i), one.v("loff1", i), firstBatchLast(one, i, two),
					one.v("e2", i), one.v("lpos", i+1), pre(one, "size", i), secondAt(i, two), one.v("loff", i+1), firstBatchLast(one, i, false))
			},
			replay: replayWith(props.EntriesAtBatchBoundaries),
		},
		{
			name: "ScanBound", kind: "invariant", sys: lifetime, copies: []copyOf{one}, maxK: 3,
			says:        "for every I in [0, 2^31-1], S in [14, 2^31-1] and batches of 61 B to M: the lookup of any offset scans at most min(I + the size of the batch before the hit batch, S) bytes (0 for the segment's first batch)",
			assumptions: append(common, assumeAnyRoll, assumeOneLifetime),
			prop: func(i int) string {
				// The first batch is bounded by the batch before the append, the second (if any)
				// by the first.
				prevOfLast := pre(one, "prev", i)
				if two {
					prevOfLast = fmt.Sprintf("(ite (> %s 0) %s %s)", inName("d", i), inName("d", i), prevOfLast)
				}
				return fmt.Sprintf("(and (<= %s (+ %s %s)) (<= %s S) (<= %s (+ %s %s)) (<= %s S))",
					one.v("scan1", i), one.interval(), pre(one, "prev", i), one.v("scan1", i),
					one.v("scan", i), one.interval(), prevOfLast, one.v("scan", i))
			},
			lemmas: []lemma{
				{"the counter is the bytes since the latest entry's position (0 before the first)", func(j int) string {
					return fmt.Sprintf("(= %s (- %s %s))", one.v("counter", j), one.v("size", j), one.v("lpos", j))
				}},
				{"the counter is at most I + the segment's last batch (append, under per-append)", func(j int) string {
					return fmt.Sprintf("(<= %s (+ %s %s))", one.v("counter", j), one.interval(), one.v("prev", j))
				}},
				{"entry positions are not negative", func(j int) string { return fmt.Sprintf("(<= 0 %s)", one.v("lpos", j)) }},
				{"a segment never exceeds segment.bytes", func(j int) string { return fmt.Sprintf("(<= %s S)", one.v("size", j)) }},
			},
			replay: replayWith(props.ScanBound),
		},
		{
			name: "SegmentWithinBytes", kind: "invariant", sys: free, copies: []copyOf{one}, maxK: 3,
			says:        "for every configuration in Kafka's ranges: no segment grows past segment.bytes (the size roll counts the whole append; kidx's own claim, the premise of EmptyAboveSegment and of ScanBound's cap)",
			assumptions: append(common, assumeAnyRoll, assumeRestarts),
			prop:        func(i int) string { return fmt.Sprintf("(<= %s S)", one.v("size", i+1)) },
			lemmas: []lemma{
				{"sizes are not negative", func(j int) string { return fmt.Sprintf("(<= 0 %s)", one.v("size", j)) }},
			},
			replay: replaySegmentsWithin,
		},
		plateau(m, two),
		densityMonotone(m, two),
	}
	if !two {
		out = append(out, acrossRestarts(out), maxScanMonotone(m))
	}
	for _, o := range out {
		o.variant = variant
		if two {
			for j, a := range o.assumptions {
				if a == assumeSingleBatch {
					o.assumptions[j] = assumePerBatchTwo
				}
			}
		}
	}
	return out
}

var assumePerBatchTwo = "the per-batch rule (KAFKA-806, Kafka 3.9.1+, 4.0.1+, 4.1.0+) with appends of one or two batches (a follower's fetched chunk, the cleaner, docs/kafka.md §2.2): one check per batch, the roll and the rejection count the whole append"

// densityMonotone runs the log twice on the same inputs at I1 < I2: the larger interval
// never has more entries in a segment. The strengthening says why: while the entry counts
// are equal, the denser run's counter is at least the sparser one's, so whenever I2's check
// adds an entry that I1's does not, I1 was already ahead.
func densityMonotone(m model.Mutant, two bool) *obligation {
	a, b := copyOf{prefix: "a_"}, copyOf{prefix: "b_"}
	return &obligation{
		name: "DensityMonotone", kind: "invariant", sys: System{Mutant: m, Restarts: true, Rolls: true, TwoBatchAppends: two}, copies: []copyOf{a, b}, maxK: 3,
		says:        "for every I1 < I2 and S in Kafka's ranges: the same workload never has more offset-index entries in a segment at I2 than at I1 (so none in the whole log either: both runs roll at the same places)",
		assumptions: []string{assumeSingleBatch, assumeNoRecover, "rolls by size, or free rolls the same in both runs (time, operator): no index-full roll, which depends on I (the premise of props' DensityMonotone)", assumeRestarts},
		params:      fmt.Sprintf("(< %s %s)", a.interval(), b.interval()),
		prop: func(i int) string {
			return fmt.Sprintf("(<= %s %s)", b.v("entries", i+1), a.v("entries", i+1))
		},
		lemmas: []lemma{
			{"the two runs' segments have the same size", func(j int) string { return fmt.Sprintf("(= %s %s)", a.v("size", j), b.v("size", j)) }},
			{"the counters are never negative", func(j int) string {
				return fmt.Sprintf("(and (<= 0 %s) (<= 0 %s))", a.v("counter", j), b.v("counter", j))
			}},
			{"I2's run has at most I1's entries", func(j int) string {
				return fmt.Sprintf("(<= %s %s)", b.v("entries", j), a.v("entries", j))
			}},
			{"with as many entries, I1's counter is at least I2's", func(j int) string {
				return fmt.Sprintf("(=> (= %s %s) (>= %s %s))", a.v("entries", j), b.v("entries", j), a.v("counter", j), b.v("counter", j))
			}},
		},
		replay: replayWith(props.DensityMonotone),
	}
}

// acrossRestarts is ScanBound without its one-lifetime premise: a question, expected false
// (docs/findings.md: after a restart the counter starts again mid-segment), which shows the
// premise is needed.
func acrossRestarts(sb []*obligation) *obligation {
	var scanBound *obligation
	for _, o := range sb {
		if o.name == "ScanBound" {
			scanBound = o
		}
	}
	return &obligation{
		name: "ScanBoundAcrossRestarts", kind: "question", copies: []copyOf{one}, maxK: 5, smallFirst: true,
		sys:         System{Mutant: scanBound.sys.Mutant, Restarts: true, FileBatches: true},
		says:        "ScanBound's claim for segments written across clean restarts: every lookup scans at most min(I + the size of the batch before the hit batch, S) bytes",
		assumptions: []string{assumeSingleBatch, assumeNoRecover, assumeRestarts, assumeFileBatches},
		prop:        scanBound.prop,
		replay:      replayScanBoundAnyLifetime,
	}
}

// replayScanBoundAnyLifetime runs the counterexample through model and looks for a lookup
// scanning more than min(I + the batch before the hit batch, S), in every segment (props'
// ScanBound leaves out the segments with a restart inside, its premise).
func replayScanBoundAnyLifetime(cx *Counterexample, _ *obligation) (bool, string) {
	c := cx.propsCase
	segs, err := replay(c)
	if err != nil {
		return false, err.Error()
	}
	for _, seg := range segs {
		bs := seg.Batches()
		for j, b := range bs {
			var prev int64
			if j > 0 {
				prev = bs[j-1].Size
			}
			bound := min(c.Config.IndexIntervalBytes+prev, c.Config.SegmentBytes)
			for _, o := range []int64{b.BaseOffset, b.LastOffset} {
				if lr, ok := seg.Lookup(o); ok && lr.ScanBytes > bound {
					return true, fmt.Sprintf("segment %d: lookup of offset %d scans %d B from byte %d > min(I=%d + previous batch %d B, S=%d) = %d B: the counter restarted at 0 mid-segment",
						seg.BaseOffset(), o, lr.ScanBytes, lr.Index.Position, c.Config.IndexIntervalBytes, prev, c.Config.SegmentBytes, bound)
				}
			}
		}
	}
	return false, "every lookup of the replayed workload is within the bound"
}

// replaySegmentsWithin runs the counterexample through model and looks for a segment larger
// than segment.bytes (props has no such property: model's segments are read directly).
func replaySegmentsWithin(cx *Counterexample, _ *obligation) (bool, string) {
	c := cx.propsCase
	segs, err := replay(c)
	if err != nil {
		return false, err.Error()
	}
	for _, seg := range segs {
		if seg.Size() > c.Config.SegmentBytes {
			return true, fmt.Sprintf("segment %d is %d B, more than segment.bytes=%d [LogSegment.shouldRoll: size > segment.bytes - appendSize]",
				seg.BaseOffset(), seg.Size(), c.Config.SegmentBytes)
		}
	}
	return false, "every segment of the replayed workload fits segment.bytes"
}

// plateau runs the log twice on the same inputs, at I and at 0, with every batch larger
// than I: the same decisions at every step.
// plateauAssume: every batch of step i (both of a two-batch append) is larger than I.
func plateauAssume(a copyOf, two bool) func(i int) string {
	if !two {
		return func(i int) string {
			return fmt.Sprintf("(or %s (> %s %s))", inName("restart", i), inName("b", i), a.interval())
		}
	}
	return func(i int) string {
		b, d := inName("b", i), inName("d", i)
		return fmt.Sprintf("(or %s (and (> %s %s) (or (= %s 0) (and (> %s %s) (> (- %s %s) %s)))))",
			inName("restart", i), b, a.interval(), d, d, a.interval(), b, d, a.interval())
	}
}

func plateau(m model.Mutant, two bool) *obligation {
	a, z := copyOf{prefix: "a_"}, copyOf{prefix: "z_"}
	var lemmas []lemma
	for _, f := range append(intFields, boolFields...) {
		lemmas = append(lemmas, lemma{"the two runs' " + f + " are equal", func(j int) string {
			return fmt.Sprintf("(= %s %s)", a.v(f, j), z.v(f, j))
		}})
	}
	lemmas = append(lemmas, lemma{"the counter is 0 or above I", func(j int) string {
		return fmt.Sprintf("(or (= %s 0) (> %s %s))", a.v("counter", j), a.v("counter", j), a.interval())
	}})
	return &obligation{
		name: "Plateau", kind: "invariant", sys: System{Mutant: m, Restarts: true, Rolls: true, TwoBatchAppends: two}, copies: []copyOf{a, z}, maxK: 3,
		says:        "for every I in [0, 2^31-1] below every batch of the workload (and any S): the offset index is the one I = 0 gives, entry for entry, at every step",
		assumptions: []string{assumeSingleBatch, assumeNoRecover, assumeAnyRoll + " (the same rolls in both runs: they cannot depend on I when the entries are the same)", assumeRestarts},
		params:      fmt.Sprintf("(= %s 0)", z.interval()),
		assume:      plateauAssume(a, two),
		prop: func(i int) string {
			return fmt.Sprintf("(and (= %s %s) (= %s %s) (= %s %s) (= %s %s) (= %s %s))", a.v("e1", i), z.v("e1", i), a.v("e2", i), z.v("e2", i),
				a.v("lpos", i+1), z.v("lpos", i+1), a.v("loff", i+1), z.v("loff", i+1), a.v("entries", i+1), z.v("entries", i+1))
		},
		lemmas: lemmas,
		replay: replayWith(props.Plateau),
	}
}

// maxScanMonotone is the question "raising I never lowers the max scan": two runs on the
// same inputs at I1 < I2. Expected false: the solver's counterexample is replayed through
// model by props' own check.
func maxScanMonotone(m model.Mutant) *obligation {
	a, b := copyOf{prefix: "a_"}, copyOf{prefix: "b_"}
	return &obligation{
		name: "MaxScanMonotoneInInterval", kind: "question", sys: System{Mutant: m, FileBatches: true}, copies: []copyOf{a, b}, maxK: 6, smallFirst: true,
		says:        "for every I1 < I2 and S in Kafka's ranges: the same workload's largest scan at I2 is at least the one at I1",
		assumptions: []string{assumeSingleBatch, assumeNoRecover, assumeSizeRolls, "no restart", assumeFileBatches},
		params:      fmt.Sprintf("(< %s %s)", a.interval(), b.interval()),
		prop: func(i int) string {
			return fmt.Sprintf("(>= %s %s)", b.v("maxscan", i+1), a.v("maxscan", i+1))
		},
		replay: replayWith(props.MaxScanMonotoneInInterval),
	}
}

var assumeTwoBatch = "the per-append rule (Kafka up to 3.8.x, 3.9.0, 4.0.0: one index check per append, docs/kafka.md §2.1) with appends of one or two batches; the state after an append depends only on its size and record count, and the second batch's start is free, so the scan claims hold for the last batch of an append of any number of batches"

// twoBatch are the obligations under the per-append rule with appends of one or two
// batches: the invariants that still hold, ScanBound in docs/findings.md's corrected form,
// and the two claims that fail there (EntriesAtBatchBoundaries, ScanBound with "the
// largest append").
func twoBatch(m model.Mutant) []*obligation {
	var out []*obligation
	for _, o := range singleBatch(m) {
		switch o.name {
		case "FirstBatchNeverIndexed", "EmptyAboveSegment", "StrictlyIncreasing", "SegmentWithinBytes", "ScanBound",
			"EntriesAtBatchBoundaries", "Plateau", "DensityMonotone":
		default:
			continue
		}
		o.sys.TwoBatchAppends, o.sys.Rule, o.rule, o.variant = true, model.PerAppend, model.PerAppend, "per-append-two-batch"
		o.assumptions = append([]string{assumeTwoBatch}, o.assumptions[1:]...)
		out = append(out, o)
		switch o.name {
		case "ScanBound":
			o.says = "for every I in [0, 2^31-1], S in [14, 2^31-1] and appends of 61 B to M: the lookup of any offset scans at most min(I + the size of the append before the hit batch's append + the hit batch's distance into its append, S) bytes (docs/findings.md's corrected bound)"
			o.prop = func(i int) string {
				return fmt.Sprintf("(and (<= %s (+ %s %s %s)) (<= %s S) (<= %s (+ %s %s)) (<= %s S))",
					one.v("scan", i), one.interval(), pre(one, "prev", i), inName("d", i), one.v("scan", i),
					one.v("scan1", i), one.interval(), pre(one, "prev", i), one.v("scan1", i))
			}
			out = append(out, largestAppend(o))
		case "EntriesAtBatchBoundaries":
			o.kind = "question"
			o.sys.FileBatches = true
			o.assumptions = append(o.assumptions, assumeFileBatches)
			o.smallFirst = true
			o.says = "for every configuration: every offset-index entry (o, p) points at the start p of a batch whose last offset is o; expected false under per-append, whose entry names the append's last offset at the append's start"
			o.prop = func(i int) string {
				return fmt.Sprintf("(=> %s (and (= %s %s) (= %s %s)))", one.v("entry", i),
					one.v("lpos", i+1), pre(one, "size", i), one.v("loff", i+1), firstBatchLast(one, i, true))
			}
		case "Plateau":
			o.assume = plateauAssume(o.copies[0], true)
		}
	}
	return out
}

// largestAppend is docs/contract.md §6's per-append ScanBound as first written: "the size
// of the largest append" in place of the append before the hit batch's. Expected false
// (docs/findings.md): the solver's counterexample is replayed through model.
func largestAppend(sb *obligation) *obligation {
	return &obligation{
		name: "ScanBoundLargestAppend", kind: "question", sys: System{Mutant: sb.sys.Mutant, TwoBatchAppends: true, Rule: model.PerAppend, FileBatches: true},
		rule: model.PerAppend, variant: "per-append-two-batch", copies: []copyOf{one}, maxK: 4, smallFirst: true,
		says:        "for every I, S in Kafka's ranges and appends of 61 B to M: the lookup of any offset scans at most min(I + the largest append of the workload, S) bytes",
		assumptions: []string{assumeTwoBatch, assumeNoRecover, assumeSizeRolls, "no restart", assumeFileBatches},
		prop: func(i int) string {
			return fmt.Sprintf("(and (<= %s (+ %s %s)) (<= %s S) (<= %s (+ %s %s)) (<= %s S))",
				one.v("scan", i), one.interval(), one.v("maxbatch", i+1), one.v("scan", i),
				one.v("scan1", i), one.interval(), one.v("maxbatch", i+1), one.v("scan1", i))
		},
		replay: replayLargestAppend,
	}
}

// replay is the counterexample's model run, as props' properties see it (props.Case.Run).
func replay(c *props.Case) ([]*model.Segment, error) {
	r := c.Run()
	return r.Segments, r.Err
}

// replayLargestAppend runs the counterexample through model (per-append) and looks for a
// lookup scanning more than min(I + the largest append, S).
func replayLargestAppend(cx *Counterexample, _ *obligation) (bool, string) {
	c := cx.propsCase
	segs, err := replay(c)
	if err != nil {
		return false, err.Error()
	}
	var largest int64
	for _, st := range c.Steps {
		largest = max(largest, st.AppendBytes())
	}
	bound := min(c.Config.IndexIntervalBytes+largest, c.Config.SegmentBytes)
	for _, seg := range segs {
		for _, b := range seg.Batches() {
			for _, o := range []int64{b.BaseOffset, b.LastOffset} {
				if lr, ok := seg.Lookup(o); ok && lr.ScanBytes > bound {
					return true, fmt.Sprintf("segment %d: lookup of offset %d scans %d B from the entry at byte %d > min(I=%d + largest append %d B, S=%d) = %d B",
						seg.BaseOffset(), o, lr.ScanBytes, lr.Index.Position, c.Config.IndexIntervalBytes, largest, c.Config.SegmentBytes, bound)
				}
			}
		}
	}
	return false, fmt.Sprintf("every lookup of the replayed workload scans at most %d B", bound)
}
