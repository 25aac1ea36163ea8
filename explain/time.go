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

// prefixMax is the running max timestamp: ts[c] over the first c batches, and the ordinal of
// the first batch reaching it (strict >, as LogSegment keeps maxTimestampSoFar), -1 for none.
type prefixMax struct {
	ts    []int64
	batch []int
}

func (s *exSegment) prefixMax() *prefixMax {
	if s.pm != nil {
		return s.pm
	}
	n := len(s.batches)
	pm := &prefixMax{ts: make([]int64, n+1), batch: make([]int, n+1)}
	s.pm = pm
	pm.ts[0], pm.batch[0] = -1, -1
	for j := 0; j < n; j++ {
		pm.ts[j+1], pm.batch[j+1] = pm.ts[j], pm.batch[j]
		if s.batches[j].maxTs > pm.ts[j] {
			pm.ts[j+1], pm.batch[j+1] = s.batches[j].maxTs, j
		}
	}
	return pm
}

// timeName is the offset the era time-indexes batch j's max timestamp at.
func (s *exSegment) timeName(era logdir.Era, leader bool, j int) (int64, error) {
	b := &s.batches[j]
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
	if !s.hasTime {
		if era.TimeEntry == logdir.TimeNone {
			return nil, nil
		}
		return nil, &Disagreement{File: s.files.Log, Slot: -1, Found: "no .timeindex file",
			Expected: "one", Meaning: fmt.Sprintf("%s writes a time index for every segment (KAFKA-3163, 0.10.1)", era)}
	}
	if era.TimeEntry == logdir.TimeNone {
		if len(s.times) > 0 {
			return nil, &Disagreement{File: s.files.TimeIndex, Slot: 0, Byte: 0,
				Found:   fmt.Sprintf("timestamp %d offset %d", s.times[0].Timestamp, s.times[0].Offset),
				Meaning: fmt.Sprintf("%s writes no time index (it came with 0.10.1, KAFKA-3163)", era)}
		}
		return nil, nil
	}
	n := len(s.batches)
	pm := s.prefixMax()
	// Under a 0.11-3.6 leader's rule the entries name records inside batches. Once the first
	// entries agree (a wrong era disagrees at once), the batches the rest would name are read
	// on every core.
	prefetchAt := -1
	if era.TimeEntry == logdir.TimeExactRecord && leader {
		prefetchAt = 256
	}
	prefetch := func(from int) {
		js := make([]int, 0, len(ms)-from+1)
		for _, m := range ms[from:] {
			if b := pm.batch[m.last+1]; b >= 0 && s.batches[b].exactEligible() && s.batches[b].base != s.batches[b].last {
				js = append(js, b)
			}
		}
		s.prefetchExact(js)
	}
	var evs []timeEvent
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
	if !s.newest || !s.timeLive {
		evs = append(evs, timeEvent{kind: 2, cLo: n, cHi: n, before: n})
	}
	ptr, lastTs, lastC := 0, int64(-1), 0
	var marks []timeMark
	slotErr := func(want string, meaning string) *Disagreement {
		d := &Disagreement{File: s.files.TimeIndex, Slot: ptr, Byte: int64(ptr * segment.TimeIndexEntrySize), Expected: want, Meaning: meaning}
		if ptr < len(s.times) {
			d.Found = fmt.Sprintf("timestamp %d offset %d", s.times[ptr].Timestamp, s.times[ptr].Offset)
		} else {
			d.Found = "no entry (the valid entries end here)"
		}
		return d
	}
	// expect is the entry the state of the first c batches appends, if any.
	expect := func(c int) (segment.TimeIndexEntry, bool, error) {
		if pm.ts[c] <= lastTs {
			return segment.TimeIndexEntry{}, false, nil
		}
		off, err := s.timeName(era, leader, pm.batch[c])
		return segment.TimeIndexEntry{Timestamp: pm.ts[c], Offset: off}, true, err
	}
	matches := func(e segment.TimeIndexEntry) bool { return ptr < len(s.times) && s.times[ptr] == e }
	// mark explains times[ptr] as a shutdown's entry at some c in [lo, hi].
	mark := func(lo, hi int) (bool, error) {
		t := s.times[ptr]
		lo = max(lo, 1)
		if t.Timestamp <= lastTs || lo > hi {
			return false, nil
		}
		c := lo + sort.Search(hi-lo+1, func(i int) bool { return pm.ts[lo+i] >= t.Timestamp })
		if c > hi || pm.ts[c] != t.Timestamp {
			return false, nil
		}
		end := c + sort.Search(hi-c+1, func(i int) bool { return pm.ts[c+i] > t.Timestamp }) - 1
		off, err := s.timeName(era, leader, pm.batch[c])
		if err != nil || off != t.Offset {
			return false, err
		}
		marks = append(marks, timeMark{lo: c, hi: end})
		ptr++
		lastTs, lastC = t.Timestamp, c
		return true, nil
	}
	readErr := func(err error) *Disagreement {
		return &Disagreement{File: s.files.Log, Slot: -1, Found: err.Error(), Meaning: "a batch's records could not be read for the time index"}
	}
	for _, ev := range evs {
		if ev.kind == 0 && ev.m == prefetchAt {
			prefetch(ev.m)
		}
		// The entry the event appends, for each place its append may end (usually one).
		matched, anyNone := -1, false
		var want segment.TimeIndexEntry
		scan := func() error {
			matched, anyNone, want = -1, false, segment.TimeIndexEntry{}
			for c := ev.cLo; c <= ev.cHi; c++ {
				e, ok, err := expect(c)
				if err != nil {
					return err
				}
				if !ok {
					anyNone = true
					continue
				}
				if matches(e) {
					matched = c
					return nil
				}
				if want == (segment.TimeIndexEntry{}) {
					want = e
				}
			}
			return nil
		}
		if err := scan(); err != nil {
			return nil, readErr(err)
		}
		// Entries before the event's own are shutdowns' marks.
		for matched < 0 && ptr < len(s.times) {
			ok, err := mark(lastC, ev.before)
			if err != nil {
				return nil, readErr(err)
			}
			if !ok {
				break
			}
			if err := scan(); err != nil {
				return nil, readErr(err)
			}
		}
		switch {
		case matched >= 0:
			lastTs = s.times[ptr].Timestamp
			ptr++
			lastC = matched
			if ev.kind == 0 && ev.cLo != ev.cHi {
				ms[ev.m].last, ms[ev.m].lastMax = matched-1, matched-1
			}
		case anyNone || ev.kind == 1:
			// No entry: the max did not grow (or the snapshot's shutdown left none).
			lastC = ev.cLo
		default:
			what := "the closing entry close() appends"
			if ev.kind == 0 {
				what = fmt.Sprintf("the entry appended with the offset-index entry %d", ms[ev.m].slot)
			}
			return nil, slotErr(fmt.Sprintf("timestamp %d offset %d", want.Timestamp, want.Offset),
				fmt.Sprintf("%s writes %s there", era, what))
		}
	}
	for ptr < len(s.times) {
		ok, err := mark(lastC, n)
		if err != nil {
			return nil, readErr(err)
		}
		if !ok {
			return nil, slotErr("", fmt.Sprintf("no offset-index entry, restart or close of %s accounts for this entry", era))
		}
	}
	return marks, nil
}
