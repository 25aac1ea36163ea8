package smt

import (
	"fmt"
	"math"
	"strings"

	"kidx/model"
)

// The symbolic transition system: one partition's active segment under the per-batch rule
// with single-batch appends (per-append gives the same index then: one batch is one append,
// docs/kafka.md §2.2 "on a leader the old and the new rule give the same index"), or with
// appends of one or two batches under either rule (System.TwoBatchAppends). One step is one
// workload step: an append (rejected when larger than segment.bytes, rolled first when it
// does not fit), or a clean restart. The rule is Kafka's KAFKA-806
// LogSegment.append (docs/kafka.md §2.2): check bytesSinceLastIndexEntry > index.interval.bytes
// before adding the batch; on an entry (the batch's last offset at its first byte) reset the
// counter to 0; then add the batch's size. The roll is LogSegment.shouldRoll's size test as
// UnifiedLog.maybeRoll asks it (size > segment.bytes - appendSize, docs/kafka.md §8.1), after
// UnifiedLog.append's RecordBatchTooLargeException check (append > segment.bytes: nothing
// written).

// MinBatchBytes is the smallest batch the system appends: a v2 batch header
// (DefaultRecordBatch.RECORD_BATCH_OVERHEAD), the smallest batch model.Batch.Validate accepts.
const MinBatchBytes = model.RecordBatchOverhead

// maxInt32 is the top of Kafka's int configs' range (ConfigDef's Int, docs/kafka.md §9).
const maxInt32 = math.MaxInt32

// Params are the configuration the system is parametric in.
type Params struct {
	Interval     int64 // index.interval.bytes, 0..2^31-1
	SegmentBytes int64 // segment.bytes, 14..2^31-1
	MaxBatch     int64 // the largest batch (max.message.bytes), 61..2^31-1
	// IndexBytes is segment.index.bytes, 12..2^31-1 (read with System.IndexBytes only).
	IndexBytes int64
}

// Input is one step's choice: a restart, or an append of one batch (Bytes, Records) whose
// base offset is Gap past the log end offset (0: right after it), rolled first for a
// reason outside the size rule when Roll is set.
type Input struct {
	Bytes, Records, Gap int64
	Restart             bool
	Roll                bool
	// SecondAt and FirstRecords shape a two-batch append (System.TwoBatchAppends):
	// SecondAt 0 is a one-batch append.
	SecondAt, FirstRecords int64
}

// State is the system's state: the active segment's part that decides every future step
// and every property, and the log's running maxima.
type State struct {
	Size        int64 // the .log's size
	Counter     int64 // LogSegment.bytesSinceLastIndexEntry
	EntryPos    int64 // the latest offset-index entry's position (0 before the first)
	EntryOffset int64 // its offset (0 before the first)
	Entries     int64 // offset-index entries
	PrevBatch   int64 // size of the segment's last batch (0 when empty)
	Batches     int64 // batches in the segment
	EntryBatch  int64 // ordinal of the batch at EntryPos (0 before the first entry)
	NextOffset  int64 // the log end offset
	MaxScan     int64 // the largest scanBytes of any offset so far, over every segment
	MaxHops     int64 // the largest hops of any offset so far
	MaxBatch    int64 // the largest batch appended so far
	// Fresh: the counter was reset (a new segment object: segment start or restart) and no
	// batch was appended since.
	Fresh bool
}

// Observed is what one step did: whether it rolled, rejected the batch or added an entry,
// and the largest lookup cost (scanBytes, hops) of the appended batch's offsets.
type Observed struct {
	Rolled, Rejected, Entry bool
	Scan, Hops              int64
	// Overflow: an entry met a full index and Kafka threw (System.IndexBytes only).
	Overflow bool
}

// System selects the variant of the rules the encoding follows.
type System struct {
	// Mutant breaks one rule as model.Mutant does (proofs must then fail, by test);
	// model.Exact is Kafka. model.MutantTimeIndexOnEqual is not encoded (no time index here).
	Mutant model.Mutant
	// Restarts allows clean-restart steps (counter back to 0 mid-segment).
	Restarts bool
	// Rolls allows a roll before any append for a reason outside the size rule: an
	// index-full roll, a time roll, a relative-offset roll, an operator's roll. Left free, it
	// over-approximates all of them, so a proof with Rolls covers them without modelling
	// segment.index.bytes, timestamps or offsets' int32 range.
	Rolls bool
	// TwoBatchAppends allows appends of one or two batches: Bytes and Records in all, the
	// second batch, if any, starting SecondAt bytes in and holding Records - FirstRecords
	// offsets. With Rule model.PerAppend (docs/kafka.md §2.1): one index check per append, an
	// entry names the append's last offset at the append's start; the state after an append
	// depends only on its size and record count, and SecondAt is free, so the scan claims
	// cover the last batch of an append of any number of batches; PrevBatch and MaxBatch are
	// then the previous and the largest append.
	TwoBatchAppends bool
	// Rule is the append rule of two-batch appends: model.PerAppend as above, or
	// model.PerBatch (KAFKA-806: one check per batch, as for a follower's fetched chunk,
	// docs/kafka.md §2.2), where PrevBatch and MaxBatch stay batches. Ignored for one-batch
	// appends, where the rules coincide.
	Rule model.AppendRule
	// FileBatches keeps to batches a file can hold (model.Batch.Possible: at least
	// model.MinBatchBytes for their record count, none of a 1-record batch's impossible
	// sizes), so that a counterexample is a workload Kafka could have written. Proofs leave it
	// off: they cover every batch of 61 bytes or more, a superset.
	FileBatches bool
	// IndexBytes models segment.index.bytes (docs/proofs-parametric.md, "Candidate eras"): a
	// parameter X in [12, 2^31-1] (the smallest a segment can be created with,
	// model.Config.Validate), the offset index's X div 8 slots (OffsetIndex: maxIndexSize
	// rounded down to 8-byte entries) and the time index's X div 12, of which isFull leaves
	// one for the closing entry (TimeIndex.isFull: entries >= maxEntries - 1); shouldRoll's
	// offsetIndex.isFull() || timeIndex.isFull(); and "ov", an entry of the per-batch loop
	// into a full index (OffsetIndex.append and TimeIndex.maybeAppend throw). The time index
	// has the offset index's entries: batches' timestamps rise, and without restarts no
	// closing entry is written mid-segment. Needs TwoBatchAppends, Rule model.PerBatch and no
	// Restarts.
	IndexBytes bool
	// RollOnIndexRoom is candidate fix (a) (model.Era.RollWhenAppendLacksIndexRoom):
	// shouldRoll also rolls a non-empty segment whose offset index has fewer free slots than
	// the append has batches, or whose time index has fewer beside its reserved one. Needs
	// IndexBytes.
	RollOnIndexRoom bool
}

// The index capacities of IndexBytes, in SMT: the offset index's slots and the time index's
// usable ones.
const (
	offsetSlots = "(div X 8)"
	timeSlots   = "(- (div X 12) 1)"
)

// indexFull is OffsetIndex.isFull || TimeIndex.isFull at entries entries.
func indexFull(entries string) string {
	return fmt.Sprintf("(or (>= %s %s) (>= %s %s))", entries, offsetSlots, entries, timeSlots)
}

// fileBatch says a v2 batch of bytes bytes and records records can exist
// (model.MinBatchBytes and oneRecordHole, written in SMT).
func fileBatch(bytes, records string) string {
	least := fmt.Sprintf("(+ %d (* 7 %s)", MinBatchBytes, records)
	for _, at := range []int64{64, 8192, 1 << 20, 1 << 27} {
		least += fmt.Sprintf(" (ite (> %s %d) (- %s %d) 0)", records, at, records, at)
	}
	least += ")"
	return fmt.Sprintf("(and (<= %s %s) (=> (= %s 1) (not (or (= %s 126) (= %s 8255) (= %s 1048640) (= %s 134217793)))))",
		least, bytes, records, bytes, bytes, bytes, bytes)
}

func (s System) check() error {
	if s.IndexBytes && (!s.TwoBatchAppends || s.Rule != model.PerBatch || s.Restarts) {
		return fmt.Errorf("segment.index.bytes is encoded for per-batch appends of one or two batches without restarts only")
	}
	if s.RollOnIndexRoom && !s.IndexBytes {
		return fmt.Errorf("fix (a)'s roll needs segment.index.bytes (System.IndexBytes)")
	}
	switch s.Mutant {
	case model.Exact, model.MutantGreaterOrEqual, model.MutantIncrementBeforeCheck, model.MutantEntryNamesBaseOffset,
		model.MutantEntryPositionAfterBatch, model.MutantRollIgnoresAppendSize:
		return nil
	}
	return fmt.Errorf("mutant %q is not encoded (the system has no time index)", s.Mutant)
}

// The state's SMT fields, in State's order.
var (
	intFields  = []string{"size", "counter", "lpos", "loff", "entries", "prev", "nbatch", "ebatch", "next", "maxscan", "maxhops", "maxbatch"}
	boolFields = []string{"fresh"}
	// preFields are the state as the batch meets it: after the roll, if any.
	preFields = []string{"size", "counter", "lpos", "loff", "entries", "prev", "nbatch", "ebatch", "fresh"}
)

func (st State) ints() []int64 {
	return []int64{st.Size, st.Counter, st.EntryPos, st.EntryOffset, st.Entries, st.PrevBatch, st.Batches,
		st.EntryBatch, st.NextOffset, st.MaxScan, st.MaxHops, st.MaxBatch}
}

func stateFromInts(v []int64, fresh bool) State {
	return State{Size: v[0], Counter: v[1], EntryPos: v[2], EntryOffset: v[3], Entries: v[4], PrevBatch: v[5],
		Batches: v[6], EntryBatch: v[7], NextOffset: v[8], MaxScan: v[9], MaxHops: v[10], MaxBatch: v[11], Fresh: fresh}
}

// copyOf is one copy of the system in a script: two copies run the same inputs under two
// intervals (MaxScanMonotoneInInterval, Plateau). Prefix names its symbols.
type copyOf struct{ prefix string }

func (c copyOf) v(field string, j int) string { return fmt.Sprintf("%s%s_%d", c.prefix, field, j) }
func (c copyOf) interval() string             { return c.prefix + "I" }

func inName(field string, i int) string { return fmt.Sprintf("%s_%d", field, i) }

// script is an SMT-LIB 2 text under construction.
type script struct{ strings.Builder }

func (w *script) f(format string, args ...any) {
	fmt.Fprintf(w, format, args...)
	w.WriteByte('\n')
}

// declareParams declares I per copy and the shared S and M, with Kafka's ranges.
func declareParams(w *script, copies []copyOf) {
	w.f("; parameters: index.interval.bytes per copy, segment.bytes S, the largest batch M")
	for _, c := range copies {
		w.f("(declare-const %s Int)", c.interval())
		w.f("(assert (and (<= 0 %s) (<= %s %d)))", c.interval(), c.interval(), maxInt32)
	}
	w.f("(declare-const S Int)")
	w.f("(assert (and (<= 14 S) (<= S %d)))", maxInt32)
	w.f("(declare-const M Int)")
	w.f("(assert (and (<= %d M) (<= M %d)))", MinBatchBytes, maxInt32)
}

func declareState(w *script, c copyOf, j int) {
	for _, f := range intFields {
		w.f("(declare-const %s Int)", c.v(f, j))
	}
	for _, f := range boolFields {
		w.f("(declare-const %s Bool)", c.v(f, j))
	}
}

// initial is the empty log: one empty segment, a counter of 0, the first offset free (>= 0).
func initial(c copyOf) string {
	var parts []string
	for _, f := range intFields {
		if f == "next" {
			parts = append(parts, fmt.Sprintf("(>= %s 0)", c.v(f, 0)))
			continue
		}
		parts = append(parts, fmt.Sprintf("(= %s 0)", c.v(f, 0)))
	}
	parts = append(parts, c.v("fresh", 0))
	return "(and " + strings.Join(parts, " ") + ")"
}

// declareStep declares (into d) step i's inputs, shared by the copies, and per copy the
// step's intermediate values and state i+1; it writes (into w) the transition: the inputs'
// ranges and the equations of the intermediate values and state i+1.
func (s System) declareStep(d, w *script, copies []copyOf, i int) {
	n := i + 1
	d.f("; step %d: inputs", i)
	w.f("; step %d: the transition", i)
	d.f("(declare-const %s Int)", inName("b", i))
	d.f("(declare-const %s Int)", inName("r", i))
	d.f("(declare-const %s Int)", inName("g", i))
	d.f("(declare-const %s Bool)", inName("restart", i))
	d.f("(declare-const %s Bool)", inName("force", i))
	d.f("(declare-const %s Bool)", inName("rej", i))
	d.f("(declare-const %s Bool)", inName("ok", i))
	w.f("(assert (and (<= %d %s) (<= %s M)))", MinBatchBytes, inName("b", i), inName("b", i))
	w.f("(assert (and (<= 1 %s) (<= %s %d)))", inName("r", i), inName("r", i), maxInt32)
	w.f("(assert (<= 0 %s))", inName("g", i))
	if !s.Restarts {
		w.f("(assert (not %s))", inName("restart", i))
	}
	if !s.Rolls {
		w.f("(assert (not %s))", inName("force", i))
	}
	w.f("; UnifiedLog.append: a batch larger than segment.bytes is rejected, nothing is written")
	w.f("(assert (= %s (and (not %s) (> %s S))))", inName("rej", i), inName("restart", i), inName("b", i))
	w.f("(assert (= %s (and (not %s) (not %s))))", inName("ok", i), inName("restart", i), inName("rej", i))
	b, r, g, ok := inName("b", i), inName("r", i), inName("g", i), inName("ok", i)
	if s.FileBatches && !s.TwoBatchAppends {
		w.f("(assert %s)", fileBatch(b, r))
	}
	// The last batch of the append starts dd bytes in and holds rHit offsets; the first
	// batch ends at offset next + g + r1 - 1.
	dd, r1, rHit, two := "0", r, r, "false"
	if s.TwoBatchAppends {
		dd, r1, two = inName("d", i), inName("r1", i), fmt.Sprintf("(> %s 0)", inName("d", i))
		rHit = fmt.Sprintf("(ite %s (- %s %s) %s)", two, r, r1, r)
		d.f("(declare-const %s Int)", dd)
		d.f("(declare-const %s Int)", r1)
		w.f("; a one-batch append (d = 0), or two batches: %s bytes then the rest, each at least %d", dd, MinBatchBytes)
		w.f("(assert (or (= %s 0) (and (<= %d %s) (<= %s (- %s %d)))))", dd, MinBatchBytes, dd, dd, b, MinBatchBytes)
		w.f("(assert (ite %s (and (<= 1 %s) (< %s %s)) (= %s %s)))", two, r1, r1, r, r1, r)
		if s.FileBatches {
			w.f("(assert (ite %s (and %s %s) %s))", two, fileBatch(dd, r1),
				fileBatch(fmt.Sprintf("(- %s %s)", b, dd), fmt.Sprintf("(- %s %s)", r, r1)), fileBatch(b, r))
		}
	}
	if s.IndexBytes && i == 0 {
		d.f("; segment.index.bytes")
		d.f("(declare-const X Int)")
		d.f("(assert (and (<= 12 X) (<= X %d)))", maxInt32)
	}
	for _, c := range copies {
		declareState(d, c, n)
		pre := func(f string) string { return c.v("pre"+f, i) }
		roll, entry, scan, hops := c.v("roll", i), c.v("entry", i), c.v("scan", i), c.v("hops", i)
		w.f("; step %d, copy %q: the roll, the segment as the batch meets it, the index check", i, c.prefix)
		d.f("(declare-const %s Bool)", roll)
		d.f("(declare-const %s Bool)", entry)
		d.f("(declare-const %s Int)", scan)
		d.f("(declare-const %s Int)", hops)
		d.f("(declare-const %s Int)", c.v("scan1", i))
		d.f("(declare-const %s Int)", c.v("hops1", i))
		// e1, e2: the checks of the first and second batch added an entry; lpos1, loff1:
		// the latest entry after the first batch (one check per step but per-batch
		// two-batch appends: e1 is the step's entry, e2 false).
		d.f("(declare-const %s Bool)", c.v("e1", i))
		d.f("(declare-const %s Bool)", c.v("e2", i))
		d.f("(declare-const %s Int)", c.v("lpos1", i))
		d.f("(declare-const %s Int)", c.v("loff1", i))
		for _, f := range preFields {
			sort := "Int"
			if f == "fresh" {
				sort = "Bool"
			}
			d.f("(declare-const %s %s)", pre(f), sort)
		}
		sizeRoll := fmt.Sprintf("(> %s (- S %s))", c.v("size", i), b) // LogSegment.shouldRoll: size > maxSegmentBytes - messagesSize
		if s.Mutant == model.MutantRollIgnoresAppendSize {
			sizeRoll = fmt.Sprintf("(> %s S)", c.v("size", i))
		}
		rolls := []string{sizeRoll, inName("force", i)}
		if s.IndexBytes {
			rolls = append(rolls, indexFull(c.v("entries", i)))
		}
		if s.RollOnIndexRoom {
			// Fix (a): fewer free slots than the append's batches, in a non-empty segment.
			batches := fmt.Sprintf("(ite %s 2 1)", two)
			rolls = append(rolls, fmt.Sprintf("(and (> %s 0) (or (< (- %s %s) %s) (< (- %s %s) %s)))", c.v("size", i),
				offsetSlots, c.v("entries", i), batches, timeSlots, c.v("entries", i), batches))
		}
		w.f("(assert (= %s (and %s (or %s))))", roll, ok, strings.Join(rolls, " "))
		for _, f := range preFields {
			fresh := "0"
			if f == "fresh" {
				fresh = "true"
			}
			w.f("(assert (= %s (ite %s %s %s)))", pre(f), roll, fresh, c.v(f, i))
		}
		eq := func(f, expr string) { w.f("(assert (= %s %s))", c.v(f, n), expr) }
		last := fmt.Sprintf("(+ %s %s %s -1)", c.v("next", i), g, r)
		eq("size", fmt.Sprintf("(ite %s (+ %s %s) %s)", ok, pre("size"), b, c.v("size", i)))
		eq("next", fmt.Sprintf("(ite %s (+ %s 1) %s)", ok, last, c.v("next", i)))
		eq("fresh", fmt.Sprintf("(ite %s true (ite %s false %s))", inName("restart", i), ok, c.v("fresh", i)))
		eq("nbatch", fmt.Sprintf("(ite %s (+ %s (ite %s 2 1)) %s)", ok, pre("nbatch"), two, c.v("nbatch", i)))
		if s.TwoBatchAppends && s.Rule == model.PerBatch {
			s.perBatchChecks(d, w, c, i, dd, r1)
			if s.IndexBytes {
				// The per-batch loop throws when a batch's entry meets a full index.
				d.f("(declare-const %s Bool)", c.v("ov", i))
				w.f("(assert (= %s (or (and %s %s) (and %s %s))))", c.v("ov", i), c.v("e1", i), indexFull(pre("entries")),
					c.v("e2", i), indexFull(fmt.Sprintf("(+ %s (ite %s 1 0))", pre("entries"), c.v("e1", i))))
			}
		} else {
			counter := pre("counter")
			if s.Mutant == model.MutantIncrementBeforeCheck {
				counter = fmt.Sprintf("(+ %s %s)", pre("counter"), b)
			}
			cmp := ">"
			if s.Mutant == model.MutantGreaterOrEqual {
				cmp = ">="
			}
			w.f("(assert (= %s (and %s (%s %s %s))))", entry, ok, cmp, counter, c.interval())
			pos := pre("size")
			base := fmt.Sprintf("(+ %s %s)", c.v("next", i), g)
			entryOff, entryPos := last, pos
			switch s.Mutant {
			case model.MutantEntryNamesBaseOffset:
				entryOff = base
			case model.MutantEntryPositionAfterBatch:
				entryPos = fmt.Sprintf("(+ %s %s)", pos, b)
			}
			newCounter := fmt.Sprintf("(+ (ite %s 0 %s) %s)", entry, pre("counter"), b)
			if s.Mutant == model.MutantIncrementBeforeCheck {
				newCounter = fmt.Sprintf("(ite %s 0 (+ %s %s))", entry, pre("counter"), b)
			}
			eq("counter", fmt.Sprintf("(ite %s 0 (ite %s %s %s))", inName("restart", i), ok, newCounter, c.v("counter", i)))
			eq("lpos", fmt.Sprintf("(ite %s %s %s)", entry, entryPos, pre("lpos")))
			eq("loff", fmt.Sprintf("(ite %s %s %s)", entry, entryOff, pre("loff")))
			eq("entries", fmt.Sprintf("(+ %s (ite %s 1 0))", pre("entries"), entry))
			eq("prev", fmt.Sprintf("(ite %s %s %s)", ok, b, c.v("prev", i)))
			eq("ebatch", fmt.Sprintf("(ite %s %s %s)", entry, pre("nbatch"), pre("ebatch")))
			w.f("; the largest lookup cost of the (last) batch's offsets (docs/contract.md §5): an entry names the")
			w.f("; batch's (append's) last offset, so its other offsets still start at the previous entry")
			w.f("(assert (= %s (ite %s (ite (and %s (= %s 1)) %s (- (+ %s %s) %s)) 0)))", scan, ok, entry, rHit, dd, pos, dd, pre("lpos"))
			w.f("(assert (= %s (ite %s (ite (and %s (= %s 1)) (ite %s 2 1) (+ (- (+ %s (ite %s 1 0)) %s) 1)) 0)))",
				hops, ok, entry, rHit, two, pre("nbatch"), two, pre("ebatch"))
			w.f("; the first batch of a two-batch append: all its offsets precede the entry's (the append's last)")
			w.f("(assert (= %s (ite (and %s %s) (- %s %s) %s)))", c.v("scan1", i), ok, two, pos, pre("lpos"), scan)
			w.f("(assert (= %s (ite (and %s %s) (+ (- %s %s) 1) %s)))", c.v("hops1", i), ok, two, pre("nbatch"), pre("ebatch"), hops)
			maxOf := func(a, b, c string) string {
				ab := fmt.Sprintf("(ite (> %s %s) %s %s)", a, b, a, b)
				return fmt.Sprintf("(ite (> %s %s) %s %s)", ab, c, ab, c)
			}
			eq("maxscan", maxOf(scan, c.v("scan1", i), c.v("maxscan", i)))
			eq("maxhops", maxOf(hops, c.v("hops1", i), c.v("maxhops", i)))
			w.f("(assert (and (= %s %s) (not %s) (= %s %s) (= %s %s)))", c.v("e1", i), entry, c.v("e2", i),
				c.v("lpos1", i), c.v("lpos", n), c.v("loff1", i), c.v("loff", n))
			eq("maxbatch", fmt.Sprintf("(ite (and %s (> %s %s)) %s %s)", ok, b, c.v("maxbatch", i), b, c.v("maxbatch", i)))
		}
	}
}

// perBatchChecks writes the per-batch rule (KAFKA-806 LogSegment.append, docs/kafka.md §2.2)
// over an append of one or two batches: the first batch (dd bytes, or the whole append when
// dd = 0) is checked, then the second (the rest) with the counter the first left, each
// check before its batch's bytes are added, each entry naming its own batch's last offset at
// the batch's start. The roll and the rejection (whole append) are the caller's.
func (s System) perBatchChecks(d, w *script, c copyOf, i int, dd, r1 string) {
	n := i + 1
	pre := func(f string) string { return c.v("pre"+f, i) }
	b, r, g, ok := inName("b", i), inName("r", i), inName("g", i), inName("ok", i)
	two := fmt.Sprintf("(> %s 0)", dd)
	b1 := fmt.Sprintf("(ite %s %s %s)", two, dd, b)
	b2 := fmt.Sprintf("(- %s %s)", b, dd)
	r2 := fmt.Sprintf("(- %s %s)", r, r1)
	pos := pre("size")
	pos2 := fmt.Sprintf("(+ %s %s)", pos, dd)
	base1 := fmt.Sprintf("(+ %s %s)", c.v("next", i), g)
	last1 := fmt.Sprintf("(+ %s %s %s -1)", c.v("next", i), g, r1)
	base2 := fmt.Sprintf("(+ %s %s %s)", c.v("next", i), g, r1)
	last := fmt.Sprintf("(+ %s %s %s -1)", c.v("next", i), g, r)
	e1, e2, lpos1, loff1 := c.v("e1", i), c.v("e2", i), c.v("lpos1", i), c.v("loff1", i)
	c1, eb1 := c.v("c1", i), c.v("eb1", i)
	// The mutants as model.Mutant breaks the rule, per batch.
	due := func(counter, size string) string {
		switch s.Mutant {
		case model.MutantGreaterOrEqual:
			return fmt.Sprintf("(>= %s %s)", counter, c.interval())
		case model.MutantIncrementBeforeCheck:
			return fmt.Sprintf("(> (+ %s %s) %s)", counter, size, c.interval())
		}
		return fmt.Sprintf("(> %s %s)", counter, c.interval())
	}
	after := func(entry, counter, size string) string {
		if s.Mutant == model.MutantIncrementBeforeCheck {
			return fmt.Sprintf("(ite %s 0 (+ %s %s))", entry, counter, size)
		}
		return fmt.Sprintf("(+ (ite %s 0 %s) %s)", entry, counter, size)
	}
	entryAt := func(base, lastOff, at, size string) (string, string) {
		switch s.Mutant {
		case model.MutantEntryNamesBaseOffset:
			return base, at
		case model.MutantEntryPositionAfterBatch:
			return lastOff, fmt.Sprintf("(+ %s %s)", at, size)
		}
		return lastOff, at
	}
	d.f("(declare-const %s Int)", c1)
	d.f("(declare-const %s Int)", eb1)
	w.f("; per-batch: the first batch's check, then the second's")
	w.f("(assert (= %s (and %s %s)))", e1, ok, due(pre("counter"), b1))
	w.f("(assert (= %s %s))", c1, after(e1, pre("counter"), b1))
	off1, at1 := entryAt(base1, last1, pos, b1)
	w.f("(assert (= %s (ite %s %s %s)))", lpos1, e1, at1, pre("lpos"))
	w.f("(assert (= %s (ite %s %s %s)))", loff1, e1, off1, pre("loff"))
	w.f("(assert (= %s (ite %s %s %s)))", eb1, e1, pre("nbatch"), pre("ebatch"))
	w.f("(assert (= %s (and %s %s %s)))", e2, ok, two, due(c1, b2))
	w.f("(assert (= %s (or %s %s)))", c.v("entry", i), e1, e2)
	off2, at2 := entryAt(base2, last, pos2, b2)
	eq := func(f, expr string) { w.f("(assert (= %s %s))", c.v(f, n), expr) }
	eq("counter", fmt.Sprintf("(ite %s 0 (ite %s (ite %s %s %s) %s))", inName("restart", i), ok, two, after(e2, c1, b2), c1, c.v("counter", i)))
	eq("lpos", fmt.Sprintf("(ite %s %s %s)", e2, at2, lpos1))
	eq("loff", fmt.Sprintf("(ite %s %s %s)", e2, off2, loff1))
	eq("entries", fmt.Sprintf("(+ %s (ite %s 1 0) (ite %s 1 0))", pre("entries"), e1, e2))
	eq("ebatch", fmt.Sprintf("(ite %s (+ %s 1) %s)", e2, pre("nbatch"), eb1))
	eq("prev", fmt.Sprintf("(ite %s (ite %s %s %s) %s)", ok, two, b2, b, c.v("prev", i)))
	w.f("; lookup costs: the first batch's offsets from the previous entry (0 for a 1-record batch")
	w.f("; that got the entry), the second's from the entry the first batch left")
	scan1, hops1, scan, hops := c.v("scan1", i), c.v("hops1", i), c.v("scan", i), c.v("hops", i)
	w.f("(assert (= %s (ite %s (ite (and %s (= %s 1)) 0 (- %s %s)) 0)))", scan1, ok, e1, r1, pos, pre("lpos"))
	w.f("(assert (= %s (ite %s (ite (and %s (= %s 1)) 1 (+ (- %s %s) 1)) 0)))", hops1, ok, e1, r1, pre("nbatch"), pre("ebatch"))
	w.f("(assert (= %s (ite (and %s %s) (ite (and %s (= %s 1)) 0 (- %s %s)) %s)))", scan, ok, two, e2, r2, pos2, lpos1, scan1)
	w.f("(assert (= %s (ite (and %s %s) (ite (and %s (= %s 1)) 1 (+ (- (+ %s 1) %s) 1)) %s)))", hops, ok, two, e2, r2, pre("nbatch"), eb1, hops1)
	maxOf := func(a, b, c string) string {
		ab := fmt.Sprintf("(ite (> %s %s) %s %s)", a, b, a, b)
		return fmt.Sprintf("(ite (> %s %s) %s %s)", ab, c, ab, c)
	}
	eq("maxscan", maxOf(scan, scan1, c.v("maxscan", i)))
	eq("maxhops", maxOf(hops, hops1, c.v("maxhops", i)))
	largest := fmt.Sprintf("(ite %s (ite (> %s %s) %s %s) %s)", two, dd, b2, dd, b2, b)
	eq("maxbatch", fmt.Sprintf("(ite (and %s (> %s %s)) %s %s)", ok, largest, c.v("maxbatch", i), largest, c.v("maxbatch", i)))
}

// header starts a script: logic, options, the parameters and state 0 of every copy.
func header(w *script, title string, copies []copyOf) {
	w.f("; %s", title)
	w.f("; written by kidx (props/smt); re-check with any SMT-LIB 2 solver, e.g. z3 -smt2 FILE")
	w.f("(set-logic QF_LIA)")
	w.f("(set-option :produce-models true)")
	declareParams(w, copies)
	for _, c := range copies {
		declareState(w, c, 0)
	}
}
