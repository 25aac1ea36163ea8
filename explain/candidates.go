package explain

import (
	"fmt"
	"slices"
	"sort"

	"kidx/logdir"
	"kidx/segment"
)

type fitKey struct {
	time         int
	every, moved bool
}

type fitResult struct {
	fit lifetimeFit
	dis *Disagreement
}

// movedMoments reports a moment whose append ends past its first batch, or may.
func movedMoments(ms []moment) bool {
	for _, m := range ms {
		if m.last != m.first || m.lastMax != m.first {
			return true
		}
	}
	return false
}

type timeKey struct {
	time    int // 1 last offsets, 2 a leader's exact records
	entry   logdir.EntryRule
	wrapper bool
	moved   bool // some moment's append end differs from its first batch (or is open)
}

type timeResult struct {
	marks []timeMark
	dis   *Disagreement
}

// moment is an offset-index entry placed on the batches: the append it belongs to starts at
// batch first and ends at batch last (lastMax: its latest possible end, when the index does
// not say).
type moment struct {
	slot          int
	first, last   int
	lastMax       int
	wrapperOffset bool // named a follower's legacy wrapper by its own offset (0.10.0+)
}

// candidate is one way of writing the segment: an era's rules, an append shape, an origin.
type candidate struct {
	era       logdir.Era
	shape     AppendShape
	leader    bool // for the time index of 0.11-3.6: a leader names the exact record
	ok        bool
	fit       lifetimeFit
	moments   []moment
	marks     []timeMark
	fixed     []int // batch ordinals after a producer snapshot's restart
	origin    string
	dis       *Disagreement
	unmarked  int      // restarts nothing in the files shows
	rank      int      // score: lower is preferred
	appends   [][2]int // the appends the replay that reproduced the files used
	snapNotes []string
	// history is the history the candidate writes the segment by; recoverAt, for
	// HistoryRecovered, the batch ordinal recovery ran before (the batch count: after the
	// last batch).
	history   History
	recoverAt int
}

// mapEntries places the offset index's entries on the batches under an entry rule and shape.
func (s *exSegment) mapEntries(era logdir.Era, shape AppendShape) ([]moment, string, *Disagreement) {
	ms := make([]moment, 0, len(s.entries))
	origin := ""
	prevEnd := -1
	wrapperOK := wrapperOffsetEra(era)
	j := 0 // entries ascend, so the batch at each one is found walking forward
	for i, e := range s.entries {
		slotByte := int64(i * segment.OffsetIndexEntrySize)
		for j < s.batches.len() && s.batches.at(j).pos < e.Position {
			j++
		}
		if j >= s.batches.len() || s.batches.at(j).pos != e.Position || j <= prevEnd {
			j = s.batchAtPos(e.Position)
			what := "no batch starts there"
			if e.Position >= s.logEnd {
				what = fmt.Sprintf("past the log's %d valid bytes", s.logEnd)
			} else if j >= 0 {
				what = "at or before the previous entry's append"
			}
			return nil, "", &Disagreement{File: s.files.Index, Slot: i, Byte: slotByte,
				Found:   fmt.Sprintf("offset %d at byte %d", e.Offset, e.Position),
				Meaning: "the entry points " + what + ": no append rule writes that (damage, or an index of other data)"}
		}
		b := s.batches.at(j)
		m := moment{slot: i, first: j, last: j, lastMax: j}
		want, rule := b.last, "the batch's last offset"
		switch era.OffsetEntry {
		case logdir.EntryAppendFirst:
			want, rule = b.base, "the append's first offset"
			if e.Offset == b.last && b.wrapper() && wrapperOK && b.last != b.base {
				want, m.wrapperOffset, origin = b.last, true, "replication"
			}
		case logdir.EntryAppendLast:
			if shape == SeveralBatchesPerAppend {
				k := j
				for k < s.batches.len() && s.batches.at(k).last < e.Offset {
					k++
				}
				if k < s.batches.len() && s.batches.at(k).last == e.Offset {
					want, m.last, m.lastMax = e.Offset, k, k
				}
				rule = "the last offset of an append starting there"
			}
		}
		if e.Offset != want {
			return nil, "", &Disagreement{File: s.files.Index, Slot: i, Byte: slotByte,
				Found:    fmt.Sprintf("offset %d at byte %d", e.Offset, e.Position),
				Expected: fmt.Sprintf("offset %d (%s)", want, rule),
				Meaning:  fmt.Sprintf("%s does not name this offset there", era)}
		}
		prevEnd = m.last
		ms = append(ms, m)
	}
	// Appends whose end the index does not pin may run to the batch before the next entry.
	for i := range ms {
		if shape == SeveralBatchesPerAppend && era.OffsetEntry == logdir.EntryAppendFirst {
			ms[i].lastMax = s.batches.len() - 1
			if i+1 < len(ms) {
				ms[i].lastMax = ms[i+1].first - 1
			}
		}
	}
	return ms, origin, nil
}

// wrapperOffsetEra: a follower's legacy compressed wrapper may be indexed at its own offset
// (KAFKA-3047, 0.10.0; segment's era 0.9.0-0.10.0 holds 0.10.0).
func wrapperOffsetEra(era logdir.Era) bool { return era.ID != "0.8.0" && era.ID != "0.8.1-0.8.2" }

// behaviour is what of an era and shape changes an explanation: candidates with equal
// behaviours are evaluated once.
type behaviour struct {
	entry   logdir.EntryRule
	wrapper bool
	every   bool
	shape   AppendShape
	time    int // 0 none, 1 last offsets, 2 a leader's exact records
}

func behaviourOf(era logdir.Era, shape AppendShape, leader bool) behaviour {
	b := behaviour{entry: era.OffsetEntry, every: everyBatchChecked(era, shape), shape: shape}
	if era.OffsetEntry == logdir.EntryBatchLast {
		b.shape = OneBatchPerAppend // the grouping changes nothing
	}
	if era.OffsetEntry == logdir.EntryAppendFirst {
		b.wrapper = wrapperOffsetEra(era)
	}
	switch {
	case !era.HasTimeIndex():
	case era.TimeEntry == logdir.TimeExactRecord && leader:
		b.time = 2
	default:
		b.time = 1
	}
	return b
}

// fixedRestarts are the restarts the producer snapshots show: before the first batch at or
// after the snapshot's offset (the log end offset at a clean shutdown), when that batch is
// inside the segment and carries no entry (the first append after a restart never does).
func (s *exSegment) fixedRestarts(ms []moment) ([]int, []string) {
	entryAt := func(j int) bool {
		i := sort.Search(len(ms), func(i int) bool { return ms[i].first >= j })
		return i < len(ms) && ms[i].first == j
	}
	var out []int
	var notes []string
	for _, sn := range s.snaps {
		j := s.batchFrom(sn.offset)
		if j <= 0 || j >= s.batches.len() {
			continue
		}
		if entryAt(j) {
			notes = append(notes, fmt.Sprintf("the producer snapshot %s is not a restart of this segment's byte counter: the batch at its offset has an index entry", sn.path))
			continue
		}
		out = append(out, j)
	}
	return out, notes
}

// everyBatchChecked: the counter is checked at every batch, as under the per-batch rule
// whatever the grouping, or with one batch per append.
func everyBatchChecked(era logdir.Era, shape AppendShape) bool {
	return era.OffsetEntry == logdir.EntryBatchLast || shape == OneBatchPerAppend
}

// stretches cuts the batches at the anchors: entries, the fixed restarts, and the append
// starts the shape makes check points.
func (s *exSegment) stretches(era logdir.Era, ms []moment, fixed []int, marks []timeMark, shape AppendShape) []stretch {
	n := s.batches.len()
	// The check points of all stretches share two backing arrays.
	checks := make([]int64, 0, n)
	checkIdx := make([]int, 0, n)
	out := make([]stretch, 0, len(ms)+len(fixed)+1)
	s.walkStretches(era, ms, fixed, shape, func(st *stretch) {
		from := len(checks)
		checks = append(checks, st.checks...)
		checkIdx = append(checkIdx, st.checkIdx...)
		c := *st
		c.checks, c.checkIdx = checks[from:len(checks):len(checks)], checkIdx[from:len(checkIdx):len(checkIdx)]
		out = append(out, c)
	})
	if everyBatchChecked(era, shape) {
		for _, mk := range marks {
			// The stretch holding the mark's earliest place.
			i := sort.Search(len(out), func(i int) bool { return out[i].anchorIdx >= mk.lo }) - 1
			if i < 0 {
				continue
			}
			st := &out[i]
			end := n
			if st.entryIdx >= 0 {
				end = st.entryIdx
			}
			if mk.lo <= end && !st.marked() {
				st.markLo, st.markHi = mk.lo, min(mk.hi, end)
			}
		}
	}
	return out
}

// quickBounds is the interval [lo, hi] the stretches allow with no restart but the files' own
// (what fitLifetimes finds first), in one pass that builds no stretch: a segment of a million
// batches has about as many stretches.
func (s *exSegment) quickBounds(era logdir.Era, ms []moment, fixed []int, shape AppendShape) (lo, hi int64) {
	lo, hi = 0, MaxIntervalBytes
	s.walkStretches(era, ms, fixed, shape, func(st *stretch) {
		if n := len(st.checks); n > 0 {
			lo = max(lo, st.checks[n-1]-st.anchor)
		}
		if st.entryIdx >= 0 {
			hi = min(hi, st.entry-st.anchor-1)
		}
	})
	return lo, hi
}

// walkStretches cuts the batches at the anchors (entries, the fixed restarts) and calls fn
// with each stretch and its check points: every batch with one batch per append or under the
// per-batch rule, else the append starts the index pins. The stretch and its slices are
// valid during the call only.
func (s *exSegment) walkStretches(era logdir.Era, ms []moment, fixed []int, shape AppendShape, fn func(*stretch)) {
	every := everyBatchChecked(era, shape)
	n := s.batches.len()
	var checks []int64
	var checkIdx []int
	cur := stretch{anchor: 0, anchorIdx: 0, entry: -1, entryIdx: -1, markLo: -1, markHi: -1}
	emit := func() {
		cur.checks, cur.checkIdx = checks, checkIdx
		fn(&cur)
		checks, checkIdx = checks[:0], checkIdx[:0]
	}
	restart := func(pos int64, idx int) {
		cur = stretch{anchor: pos, anchorIdx: idx, entry: -1, entryIdx: -1, markLo: -1, markHi: -1}
	}
	skipTo := -1 // batches inside an append that carries an entry are no check points
	forced := -1 // the batch after such an append is one (several-batch shape)
	mi, fi := 0, 0
	for j := 1; j < n; j++ {
		b := s.batches.at(j)
		if mi < len(ms) && ms[mi].first == j {
			m := &ms[mi]
			mi++
			cur.entry, cur.entryIdx = b.pos, j
			emit()
			restart(b.pos, j)
			skipTo = m.last
			forced = m.last + 1
			if m.lastMax != m.last {
				forced = -1 // the append's end is not known
			}
			continue
		}
		if fi < len(fixed) && fixed[fi] == j {
			fi++
			emit()
			restart(b.pos, j)
			continue
		}
		if j <= skipTo || (!every && j != forced) {
			continue
		}
		checks = append(checks, b.pos)
		checkIdx = append(checkIdx, j)
	}
	emit()
}

// evaluate tries one candidate of the appends history.
func (s *exSegment) evaluate(era logdir.Era, shape AppendShape, leader bool, want int64) candidate {
	c := candidate{era: era, shape: shape, leader: leader, history: HistoryAppends}
	ms, origin, dis := s.mapEntries(era, shape)
	if dis != nil {
		c.dis = dis
		return c
	}
	c.moments, c.origin = ms, origin
	c.fixed, c.snapNotes = s.fixedRestarts(ms)
	marks, dis := s.checkTimeIndexMemo(era, leader, ms, c.fixed)
	if dis != nil {
		c.dis = dis
		return c
	}
	c.marks = marks
	// A mark whose place the timestamps pin to one batch is a restart at a known place, as a
	// producer snapshot's is: an anchor of its own. The others keep their range (at most one
	// per stretch, lifetime.go).
	every := everyBatchChecked(era, shape)
	anchors, loose := c.fixed, marks
	if every {
		anchors, loose = s.pinnedMarks(ms, c.fixed, marks)
	}
	// With every append end at its first batch, equal checks give equal fits whatever the
	// entry rule: the stretches depend on the moments' places alone.
	fkey := fitKey{time: behaviourOf(era, shape, leader).time, every: every, moved: movedMoments(ms)}
	if r, ok := s.fitMemo[fkey]; ok && !fkey.moved {
		c.fit, c.dis = r.fit, r.dis
	} else if lo, hi := s.quickBounds(era, ms, anchors, shape); len(loose) == 0 && lo <= hi && (want < 0 || (lo <= want && want <= hi)) {
		// One lifetime (or the files' own restarts) explains it: no stretch needs building.
		set := intervalRange(lo, hi)
		if want >= 0 {
			set = intervalRange(want, want)
		}
		c.fit = lifetimeFit{ok: true, intervals: set, exact: true, pick: set.Pick(want)}
		if !fkey.moved {
			s.fitMemo[fkey] = fitResult{fit: c.fit}
		}
	} else {
		ss := s.stretches(era, ms, anchors, loose, shape)
		c.fit = fitLifetimes(ss, want, every)
		if !c.fit.ok {
			c.dis = s.intervalDisagreement(c.fit.failed, want)
		}
		if !fkey.moved {
			s.fitMemo[fkey] = fitResult{fit: c.fit, dis: c.dis}
		}
	}
	if !c.fit.ok {
		return c
	}
	for _, r := range c.fit.restarts {
		if !r.marked {
			c.unmarked++
		}
	}
	c.ok = true
	return c
}

// checkTimeIndexMemo is checkTimeIndex, once per set of moments: the shapes of one era often
// place the entries alike.
func (s *exSegment) checkTimeIndexMemo(era logdir.Era, leader bool, ms []moment, fixed []int) ([]timeMark, *Disagreement) {
	key := timeKey{time: behaviourOf(era, OneBatchPerAppend, leader).time, entry: era.OffsetEntry}
	if era.OffsetEntry == logdir.EntryAppendFirst {
		key.wrapper = wrapperOffsetEra(era)
	}
	key.moved = movedMoments(ms)
	if key.time == 0 || key.moved {
		return s.checkTimeIndex(era, leader, ms, fixed)
	}
	if r, ok := s.timeMemo[key]; ok {
		return r.marks, r.dis
	}
	marks, dis := s.checkTimeIndex(era, leader, ms, fixed)
	s.timeMemo[key] = timeResult{marks: marks, dis: dis}
	return marks, dis
}

// originOf says who appended, as far as a 0.11-3.6 time index tells: a leader names the
// record holding a batch's max timestamp, a follower (or recover()) the batch's last offset.
func (s *exSegment) originOf(ms []moment, leader bool) string {
	switch {
	case !s.exactMatters(ms):
		return "" // every time-indexed batch's max is held by its last record: both name it
	case leader:
		return "leader"
	}
	return "replication"
}

// exactMatters reports whether some time-indexed batch would be named differently by a
// leader of 0.11-3.6 (its max timestamp is not held by its last record).
func (s *exSegment) exactMatters(ms []moment) bool {
	for _, t := range s.times {
		j := s.batchWithLastOrHolding(t.Offset)
		if j >= 0 && s.batches.at(j).exactEligible() && s.batches.at(j).last != s.batches.at(j).base {
			if off, err := s.exactOffset(j); err == nil && off != s.batches.at(j).last {
				return true
			}
		}
	}
	return false
}

func (s *exSegment) batchWithLastOrHolding(off int64) int {
	i := sort.Search(s.batches.len(), func(i int) bool { return s.batches.at(i).last >= off })
	if i < s.batches.len() && s.batches.at(i).base <= off {
		return i
	}
	return -1
}

// intervalDisagreement reports the stretch no interval explains.
func (s *exSegment) intervalDisagreement(st *stretch, want int64) *Disagreement {
	if st == nil {
		return &Disagreement{File: s.files.Index, Slot: -1, Found: "no consistent interval", Meaning: "no index.interval.bytes reproduces the index"}
	}
	d := &Disagreement{File: s.files.Index, Slot: -1}
	if st.entryIdx >= 0 {
		slot := -1
		for i, e := range s.entries {
			if e.Position == st.entry {
				slot = i
			}
		}
		d.Slot, d.Byte = slot, int64(slot*segment.OffsetIndexEntrySize)
		d.Found = fmt.Sprintf("an entry at byte %d, %d bytes after the previous anchor at byte %d", st.entry, st.entry-st.anchor, st.anchor)
	} else {
		d.File, d.Byte = s.files.Log, st.anchor
		d.Found = fmt.Sprintf("no entry after byte %d", st.anchor)
	}
	if n := len(st.checks); n > 0 {
		d.Expected = fmt.Sprintf("an entry at byte %d (%d bytes after it) too", st.checks[n-1], st.checks[n-1]-st.anchor)
	}
	if want >= 0 {
		d.Meaning = fmt.Sprintf("index.interval.bytes=%d does not give these entries, with or without restarts", want)
	} else {
		d.Meaning = "no index.interval.bytes gives both with one batch per append, even with restarts: appends of several batches, a cleaner's rewrite, a release kidx does not know, or damage"
	}
	return d
}

// pinnedMarks splits the time-index marks into those pinned to one place (a restart before
// batch k, 0 < k < n, where no entry is: the first append after a restart gets none), merged
// with fixed into the anchors of the stretches, and the loose ones. Several marks may fall
// between two entries (a broker restarted several times while a small segment was active:
// __consumer_offsets-45's segment 507, six restarts and no entry); one range per stretch is
// what fitLifetimes handles, and a pinned mark needs none.
func (s *exSegment) pinnedMarks(ms []moment, fixed []int, marks []timeMark) (anchors []int, loose []timeMark) {
	n := s.batches.len()
	entryAt := func(j int) bool {
		i := sort.Search(len(ms), func(i int) bool { return ms[i].first >= j })
		return i < len(ms) && ms[i].first == j
	}
	var pinned []int
	for _, mk := range marks {
		if mk.lo == mk.hi && mk.lo > 0 && mk.lo < n && !entryAt(mk.lo) {
			pinned = append(pinned, mk.lo)
			continue
		}
		loose = append(loose, mk)
	}
	if len(pinned) == 0 {
		return fixed, marks
	}
	anchors = append(append([]int(nil), fixed...), pinned...)
	sort.Ints(anchors)
	anchors = slices.Compact(anchors)
	return anchors, loose
}
