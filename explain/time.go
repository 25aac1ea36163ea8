package explain

import (
	"fmt"
	"sort"

	"kidx/logdir"
	"kidx/segment"
)

// The time index as the offset index's moments write it (docs/explain.md): at every
// offset-index entry TimeIndex.maybeAppend gets (the max timestamp so far, the offset the era
// names for it) and keeps it only when the timestamp grew; close() (a roll, a clean shutdown)
// and recover() add the same once more. So the entries are fixed by the offset index alone,
// and an entry that no offset-index entry accounts for is a shutdown's mark: a restart.

// timeMark is a restart the time index shows: before the batch with ordinal c, for some c in
// [lo, hi] (len(batches): after the last batch).
type timeMark struct{ lo, hi int }

// prefixMax is the running max timestamp over the first c batches: the ordinal of the first
// batch reaching it (strict >, as LogSegment keeps maxTimestampSoFar), -1 for none, and that
// batch's max timestamp (-1 for none). 4 bytes a batch (issue 27): the timestamp is read off
// the batch.
type prefixMax struct {
	first   []int32
	batches *batchTable
}

// batch is the ordinal of the batch holding the max of the first c batches, -1 for none.
func (pm *prefixMax) batch(c int) int { return int(pm.first[c]) }

// ts is the max timestamp of the first c batches, -1 for none.
func (pm *prefixMax) ts(c int) int64 {
	if b := pm.first[c]; b >= 0 {
		return pm.batches.at(int(b)).maxTs
	}
	return -1
}

func (s *exSegment) prefixMax() *prefixMax {
	if s.pm != nil {
		return s.pm
	}
	n := s.batches.len()
	pm := &prefixMax{first: make([]int32, n+1), batches: &s.batches}
	s.pm = pm
	pm.first[0] = -1
	maxTs := int64(-1)
	for j := 0; j < n; j++ {
		pm.first[j+1] = pm.first[j]
		if ts := s.batches.at(j).maxTs; ts > maxTs {
			maxTs, pm.first[j+1] = ts, int32(j)
		}
	}
	return pm
}

// timeName is the offset the era time-indexes batch j's max timestamp at.
func (s *exSegment) timeName(era logdir.Era, leader bool, j int) (int64, error) {
	b := s.batches.at(j)
	if era.TimeEntry == logdir.TimeExactRecord && leader && b.exactEligible() && b.base != b.last {
		return s.exactOffset(j)
	}
	return b.last, nil
}

type timeEvent struct {
	kind   int // 0 offset-index entry, 1 producer-snapshot restart, 2 close
	cLo    int // batches included in the state it appends
	cHi    int
	before int // a mark explaining an earlier entry lies at c <= before
	m      int // the moment (kind 0)
}

// checkTimeIndex compares the time index with what the era appends at the moments, the
// snapshot restarts and the close, and returns the restarts its extra entries show. Moments
// whose append end the offset index leaves open get the end the time index pins.
func (s *exSegment) checkTimeIndex(era logdir.Era, leader bool, ms []moment, fixed []int) ([]timeMark, *Disagreement) {
	if d, done := s.timeIndexPresence(era); done {
		return nil, d
	}
	tc := &timeCheck{s: s, era: era, leader: leader, ms: ms, pm: s.prefixMax(), lastTs: -1}
	// Under a 0.11-3.6 leader's rule the entries name records inside batches. Once the first
	// entries agree (a wrong era disagrees at once), the batches the rest would name are read
	// on every core.
	prefetchAt := -1
	if era.TimeEntry == logdir.TimeExactRecord && leader {
		prefetchAt = 256
	}
	for _, ev := range s.timeEvents(ms, fixed) {
		if ev.kind == 0 && ev.m == prefetchAt {
			tc.prefetch(ev.m)
		}
		if d := tc.event(ev); d != nil {
			return nil, d
		}
	}
	for tc.ptr < len(s.times) {
		ok, err := tc.mark(tc.lastC, s.batches.len())
		if err != nil {
			return nil, tc.readErr(err)
		}
		if !ok {
			return nil, tc.slotErr("", fmt.Sprintf("no offset-index entry, restart or close of %s accounts for this entry", era))
		}
	}
	return tc.marks, nil
}

// timeIndexPresence settles the eras without a time index and the segments without one:
// done when nothing is left to compare (d nil: they agree).
func (s *exSegment) timeIndexPresence(era logdir.Era) (d *Disagreement, done bool) {
	if !s.hasTime {
		if era.TimeEntry == logdir.TimeNone {
			return nil, true
		}
		return &Disagreement{File: s.files.Log, Slot: -1, Found: "no .timeindex file",
			Expected: "one", Meaning: fmt.Sprintf("%s writes a time index for every segment (KAFKA-3163, 0.10.1)", era)}, true
	}
	if era.TimeEntry == logdir.TimeNone {
		if len(s.times) > 0 {
			return &Disagreement{File: s.files.TimeIndex, Slot: 0, Byte: 0,
				Found:   fmt.Sprintf("timestamp %d offset %d", s.times[0].Timestamp, s.times[0].Offset),
				Meaning: fmt.Sprintf("%s writes no time index (it came with 0.10.1, KAFKA-3163)", era)}, true
		}
		return nil, true
	}
	return nil, false
}

// timeEvents is what may append a time-index entry, in order: each moment, each producer
// snapshot's restart (fixed), and the close of a segment that was closed.
func (s *exSegment) timeEvents(ms []moment, fixed []int) []timeEvent {
	// One event per moment and restart, sized once: a 2 GiB segment has half a million
	// entries, and doubling left ~300 MB of garbage behind (issue 27).
	evs := make([]timeEvent, 0, len(ms)+len(fixed)+1)
	fi := 0
	for i, m := range ms {
		for fi < len(fixed) && fixed[fi] <= m.first {
			evs = append(evs, timeEvent{kind: 1, cLo: fixed[fi], cHi: fixed[fi], before: fixed[fi] - 1})
			fi++
		}
		evs = append(evs, timeEvent{kind: 0, cLo: m.last + 1, cHi: m.lastMax + 1, before: m.first - 1, m: i})
	}
	for ; fi < len(fixed); fi++ {
		evs = append(evs, timeEvent{kind: 1, cLo: fixed[fi], cHi: fixed[fi], before: fixed[fi] - 1})
	}
	// A rolled segment, and the newest one after a clean shutdown (trimmed), were closed.
	if n := s.batches.len(); !s.newest || !s.timeLive {
		evs = append(evs, timeEvent{kind: 2, cLo: n, cHi: n, before: n})
	}
	return evs
}

// timeCheck walks the time index's entries against the events: ptr is the next entry to
// account for, lastTs the largest timestamp appended so far, lastC the batches the last
// accounted entry's state included, marks the shutdowns' entries found on the way.
type timeCheck struct {
	s      *exSegment
	era    logdir.Era
	leader bool
	ms     []moment
	pm     *prefixMax
	ptr    int
	lastTs int64
	lastC  int
	marks  []timeMark
}

// prefetch reads, on every core, the batches whose records the entries from moment from on
// would name.
func (tc *timeCheck) prefetch(from int) {
	s := tc.s
	js := make([]int, 0, len(tc.ms)-from+1)
	for _, m := range tc.ms[from:] {
		if b := tc.pm.batch(m.last + 1); b >= 0 && s.batches.at(b).exactEligible() && s.batches.at(b).base != s.batches.at(b).last {
			js = append(js, b)
		}
	}
	s.prefetchExact(js)
}

// slotErr is the disagreement at the entry ptr names.
func (tc *timeCheck) slotErr(want string, meaning string) *Disagreement {
	s := tc.s
	d := &Disagreement{File: s.files.TimeIndex, Slot: tc.ptr, Byte: int64(tc.ptr * segment.TimeIndexEntrySize), Expected: want, Meaning: meaning}
	if tc.ptr < len(s.times) {
		d.Found = fmt.Sprintf("timestamp %d offset %d", s.times[tc.ptr].Timestamp, s.times[tc.ptr].Offset)
	} else {
		d.Found = "no entry (the valid entries end here)"
	}
	return d
}

func (tc *timeCheck) readErr(err error) *Disagreement {
	return &Disagreement{File: tc.s.files.Log, Slot: -1, Found: err.Error(), Meaning: "a batch's records could not be read for the time index"}
}

// expect is the entry the state of the first c batches appends, if any.
func (tc *timeCheck) expect(c int) (segment.TimeIndexEntry, bool, error) {
	if tc.pm.ts(c) <= tc.lastTs {
		return segment.TimeIndexEntry{}, false, nil
	}
	off, err := tc.s.timeName(tc.era, tc.leader, tc.pm.batch(c))
	return segment.TimeIndexEntry{Timestamp: tc.pm.ts(c), Offset: off}, true, err
}

func (tc *timeCheck) matches(e segment.TimeIndexEntry) bool {
	return tc.ptr < len(tc.s.times) && tc.s.times[tc.ptr] == e
}

// mark explains times[ptr] as a shutdown's entry at some c in [lo, hi].
func (tc *timeCheck) mark(lo, hi int) (bool, error) {
	t := tc.s.times[tc.ptr]
	lo = max(lo, 1)
	if t.Timestamp <= tc.lastTs || lo > hi {
		return false, nil
	}
	pm := tc.pm
	c := lo + sort.Search(hi-lo+1, func(i int) bool { return pm.ts(lo+i) >= t.Timestamp })
	if c > hi || pm.ts(c) != t.Timestamp {
		return false, nil
	}
	end := c + sort.Search(hi-c+1, func(i int) bool { return pm.ts(c+i) > t.Timestamp }) - 1
	off, err := tc.s.timeName(tc.era, tc.leader, pm.batch(c))
	if err != nil || off != t.Offset {
		return false, err
	}
	tc.marks = append(tc.marks, timeMark{lo: c, hi: end})
	tc.ptr++
	tc.lastTs, tc.lastC = t.Timestamp, c
	return true, nil
}

// scan looks for the entry the event appends, for each place its append may end (usually
// one): matched is where the entry at ptr is that one (-1: none), anyNone that some place
// appends nothing, want the first entry a place would append.
func (tc *timeCheck) scan(ev timeEvent) (matched int, anyNone bool, want segment.TimeIndexEntry, err error) {
	matched = -1
	for c := ev.cLo; c <= ev.cHi; c++ {
		e, ok, err := tc.expect(c)
		if err != nil {
			return matched, anyNone, want, err
		}
		if !ok {
			anyNone = true
			continue
		}
		if tc.matches(e) {
			return c, anyNone, want, nil
		}
		if want == (segment.TimeIndexEntry{}) {
			want = e
		}
	}
	return matched, anyNone, want, nil
}

// event accounts for the entries up to and including the one ev appends.
func (tc *timeCheck) event(ev timeEvent) *Disagreement {
	matched, anyNone, want, err := tc.scan(ev)
	if err != nil {
		return tc.readErr(err)
	}
	// Entries before the event's own are shutdowns' marks.
	for matched < 0 && tc.ptr < len(tc.s.times) {
		ok, err := tc.mark(tc.lastC, ev.before)
		if err != nil {
			return tc.readErr(err)
		}
		if !ok {
			break
		}
		if matched, anyNone, want, err = tc.scan(ev); err != nil {
			return tc.readErr(err)
		}
	}
	switch {
	case matched >= 0:
		tc.lastTs = tc.s.times[tc.ptr].Timestamp
		tc.ptr++
		tc.lastC = matched
		if ev.kind == 0 && ev.cLo != ev.cHi {
			tc.ms[ev.m].last, tc.ms[ev.m].lastMax = matched-1, matched-1
		}
	case anyNone || ev.kind == 1:
		// No entry: the max did not grow (or the snapshot's shutdown left none).
		tc.lastC = ev.cLo
	default:
		what := "the closing entry close() appends"
		if ev.kind == 0 {
			what = fmt.Sprintf("the entry appended with the offset-index entry %d", tc.ms[ev.m].slot)
		}
		return tc.slotErr(fmt.Sprintf("timestamp %d offset %d", want.Timestamp, want.Offset),
			fmt.Sprintf("%s writes %s there", tc.era, what))
	}
	return nil
}
