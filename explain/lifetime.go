package explain

import (
	"math"
	"sort"
)

// The offset index as a function of index.interval.bytes (I) and the process lifetimes
// (docs/explain.md). LogSegment.append checks bytesSinceLastIndexEntry > I once per append
// (per batch from KAFKA-806), before the append is counted; the counter is the distance from
// the latest anchor: the position of the latest entry, or of the first append after the
// counter was reset (the segment's start, a restart, a recovery). So between two anchors a and
// the next entry at p, every check point q without an entry needs q - a <= I, and the entry
// needs p - a > I: an interval of I per stretch, and their intersection for the segment.
// A restart inside a stretch at the check point k splits it: the points before k still count
// from a, those after from k, and the entry from k.

// stretch is the run of check points between one anchor and the next entry (or the end of
// the segment).
type stretch struct {
	anchor    int64   // the anchor's position
	anchorIdx int     // its batch ordinal
	checks    []int64 // positions of check points without an entry, ascending
	checkIdx  []int   // their batch ordinals
	entry     int64   // the closing entry's position, -1 at the end of the segment
	entryIdx  int     // its batch ordinal (-1: none)
	// mark restricts a restart the time index shows to the check points with ordinals in
	// [markLo, markHi] (markLo < 0: no such restart).
	markLo, markHi int
}

// noRestart is the set of I for the stretch as one lifetime.
func (s *stretch) noRestart() IntervalSet {
	lo := int64(0)
	if n := len(s.checks); n > 0 {
		lo = s.checks[n-1] - s.anchor
	}
	hi := int64(MaxIntervalBytes)
	if s.entryIdx >= 0 {
		hi = s.entry - s.anchor - 1
	}
	return intervalRange(lo, hi)
}

// oneRestart is the set of I for which one restart, at a check point whose ordinal is in
// [kLo, kHi], explains the stretch; with it, for one I, the check points where it may be.
func (s *stretch) oneRestart(kLo, kHi int) IntervalSet {
	var rs []IntervalRange
	for i, k := range s.checkIdx {
		if k < kLo || k > kHi {
			continue
		}
		r := s.restartAt(i)
		if r.Min <= r.Max {
			rs = append(rs, r)
		}
	}
	return unionRanges(rs)
}

// restartAt is the range of I for a restart at check point i of the stretch.
func (s *stretch) restartAt(i int) IntervalRange {
	lo := int64(0)
	if i > 0 {
		lo = s.checks[i-1] - s.anchor
	}
	if n := len(s.checks); i < n-1 {
		lo = max(lo, s.checks[n-1]-s.checks[i])
	}
	hi := int64(MaxIntervalBytes)
	if s.entryIdx >= 0 {
		hi = s.entry - s.checks[i] - 1
	}
	return IntervalRange{lo, hi}
}

// marked reports a restart the time index shows inside the stretch.
func (s *stretch) marked() bool { return s.markLo >= 0 }

// set0 is the set of I for the stretch with no restart but the one its time index shows: a
// restart after the last batch (markHi past every check point) changes nothing.
func (s *stretch) set0() IntervalSet {
	if !s.marked() {
		return s.noRestart()
	}
	set := s.oneRestart(s.markLo, s.markHi)
	if n := len(s.checkIdx); n == 0 || s.markHi > s.checkIdx[n-1] {
		set = unionRanges(append(append([]IntervalRange{}, set...), s.noRestart()...))
	}
	return set
}

// restartsFor places the fewest restarts that explain the stretch at interval I, each as the
// range of check points (indexes into checks) where it may be. ok is false when no placement
// does (the closing entry comes too soon after every place a restart could be).
func (s *stretch) restartsFor(I int64) (places [][2]int, ok bool) {
	n := len(s.checks)
	if s.marked() {
		// The time index placed one restart; it must do.
		lo, hi := -1, -1
		for i, k := range s.checkIdx {
			if k >= s.markLo && k <= s.markHi {
				if r := s.restartAt(i); r.Min <= I && I <= r.Max {
					if lo < 0 {
						lo = i
					}
					hi = i
				}
			}
		}
		if lo < 0 {
			if s.set0().Contains(I) { // after the last batch
				return nil, true
			}
			return nil, false
		}
		return [][2]int{{lo, hi}}, true
	}
	entryOK := func(from int64) bool { return s.entryIdx < 0 || s.entry-from > I }
	if n == 0 || s.checks[n-1]-s.anchor <= I {
		return nil, entryOK(s.anchor)
	}
	// reach(pos): the first check point more than I past pos; a restart may come at any check
	// point up to it, since all before it are within I of the anchor at pos.
	reach := func(pos int64) int { return sort.Search(n, func(i int) bool { return s.checks[i]-pos > I }) }
	final := func(i int) bool { return s.checks[n-1]-s.checks[i] <= I && entryOK(s.checks[i]) }
	// Layer t: the check points where the t-th restart can first be.
	var layers [][2]int
	lo, hi := 0, min(reach(s.anchor), n-1)
	for lo <= hi {
		layers = append(layers, [2]int{lo, hi})
		last := -1
		for i := lo; i <= hi; i++ {
			if final(i) {
				last = i
			}
		}
		if last >= 0 {
			return s.backtrack(layers, final, reach), true
		}
		next := min(reach(s.checks[hi]), n-1)
		lo, hi = hi+1, next
	}
	return nil, false
}

// backtrack turns the reachable layers into the places each restart may take: the last one
// anywhere in its layer that ends the stretch, each earlier one where it still reaches the
// next one's earliest place.
func (s *stretch) backtrack(layers [][2]int, final func(int) bool, reach func(int64) int) [][2]int {
	t := len(layers) - 1
	places := make([][2]int, len(layers))
	lo, hi := -1, -1
	for i := layers[t][0]; i <= layers[t][1]; i++ {
		if final(i) {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	places[t] = [2]int{lo, hi}
	for t--; t >= 0; t-- {
		// A restart at i reaches the check points up to reach(checks[i]).
		nextLo, nextHi := places[t+1][0], places[t+1][1]
		lo, hi := -1, -1
		for i := layers[t][0]; i <= layers[t][1] && i < nextHi; i++ {
			if reach(s.checks[i]) >= nextLo {
				if lo < 0 {
					lo = i
				}
				hi = i
			}
		}
		if lo < 0 {
			lo, hi = layers[t][0], layers[t][1]
		}
		places[t] = [2]int{lo, hi}
	}
	return places
}

// lifetimeFit is the outcome of fitting I and restarts to a segment's stretches.
type lifetimeFit struct {
	ok        bool
	intervals IntervalSet // the values of I needing the fewest unmarked restarts
	// restarts: for each stretch that needs one, the check points (positions) where it may be,
	// found for the interval value pick (the value a replay uses).
	restarts []fitRestart
	pick     int64
	exact    bool // intervals is exact (false: restarts were placed for pick alone)
	// failed is the stretch no value of I explains (ok false).
	failed *stretch
}

type fitRestart struct {
	earliest, latest int // batch ordinals of the first batch after the restart
	marked           bool
}

// fitLifetimes finds the values of I that reproduce the stretches with the fewest restarts
// beyond those the files show. want >= 0 is the configured interval, when known.
func fitLifetimes(ss []stretch, want int64, allowRestarts bool) lifetimeFit {
	// With no further restart: the intersection of every stretch's set. Unmarked stretches
	// have one range each, intersected without allocating (a segment may have a million).
	lo, hi := int64(0), int64(MaxIntervalBytes)
	for i := range ss {
		s := &ss[i]
		if s.marked() {
			continue
		}
		if n := len(s.checks); n > 0 {
			lo = max(lo, s.checks[n-1]-s.anchor)
		}
		if s.entryIdx >= 0 {
			hi = min(hi, s.entry-s.anchor-1)
		}
	}
	all := intervalRange(lo, hi)
	for i := range ss {
		if all.Empty() {
			break
		}
		if ss[i].marked() {
			all = all.Intersect(ss[i].set0())
		}
	}
	if want >= 0 {
		all = all.Intersect(intervalRange(want, want))
	}
	if !all.Empty() {
		fit := lifetimeFit{ok: true, intervals: all, exact: true}
		fit.pick = all.Pick(want)
		fit.placeMarked(ss)
		return fit
	}
	if !allowRestarts {
		return lifetimeFit{failed: firstFailing(ss, want)}
	}
	// One more restart per stretch at most: sweep the values of I, counting per value the
	// stretches it needs a restart in, and keep the values with the fewest.
	type event struct {
		at       int64
		inA, inB int // +1 entering, -1 leaving
	}
	var evs []event
	add := func(set IntervalSet, a bool) {
		for _, r := range set {
			if a {
				evs = append(evs, event{r.Min, 1, 0}, event{r.Max + 1, -1, 0})
			} else {
				evs = append(evs, event{r.Min, 0, 1}, event{r.Max + 1, 0, -1})
			}
		}
	}
	for i := range ss {
		s := &ss[i]
		if s.marked() {
			a := s.set0()
			add(a, true)
			add(a, false)
			continue
		}
		a := s.noRestart()
		add(a, true)
		add(unionRanges(append(append([]IntervalRange{}, a...), s.oneRestart(0, math.MaxInt)...)), false)
	}
	if want >= 0 {
		// Only the configured value counts.
		evs = append(evs, event{0, 0, 0})
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].at < evs[j].at })
	best := -1
	var bestSet []IntervalRange
	inA, inB := 0, 0
	for i := 0; i < len(evs); {
		at := evs[i].at
		for i < len(evs) && evs[i].at == at {
			inA += evs[i].inA
			inB += evs[i].inB
			i++
		}
		end := int64(MaxIntervalBytes)
		if i < len(evs) {
			end = evs[i].at - 1
		}
		if at > MaxIntervalBytes || at > end {
			continue
		}
		lo, hi := at, end
		if want >= 0 {
			if want < lo || want > hi {
				continue
			}
			lo, hi = want, want
		}
		if inB != len(ss) {
			continue
		}
		need := len(ss) - inA
		switch {
		case best < 0 || need < best:
			best, bestSet = need, []IntervalRange{{lo, hi}}
		case need == best:
			bestSet = append(bestSet, IntervalRange{lo, hi})
		}
	}
	if best >= 0 {
		fit := lifetimeFit{ok: true, intervals: unionRanges(bestSet), exact: true}
		fit.pick = fit.intervals.Pick(want)
		fit.place(ss)
		return fit
	}
	// Some stretch needs several restarts for every value: place them for one value, the
	// configured one or the largest the entries allow.
	pick := want
	if pick < 0 {
		upper := AllIntervals
		for i := range ss {
			if ss[i].entryIdx >= 0 {
				upper = upper.Intersect(intervalRange(0, ss[i].entry-ss[i].anchor-1))
			}
		}
		if upper.Empty() {
			return lifetimeFit{failed: firstFailing(ss, want)}
		}
		pick = upper.Max()
	}
	fit := lifetimeFit{ok: true, intervals: intervalRange(pick, pick), pick: pick}
	for i := range ss {
		places, ok := ss[i].restartsFor(pick)
		if !ok {
			return lifetimeFit{failed: &ss[i]}
		}
		for _, p := range places {
			fit.restarts = append(fit.restarts, fitRestart{earliest: ss[i].checkIdx[p[0]], latest: ss[i].checkIdx[p[1]], marked: ss[i].marked()})
		}
	}
	return fit
}

// placeMarked records the restarts the time index showed, placed for fit.pick.
func (fit *lifetimeFit) placeMarked(ss []stretch) {
	for i := range ss {
		if !ss[i].marked() {
			continue
		}
		if places, ok := ss[i].restartsFor(fit.pick); ok {
			for _, p := range places {
				fit.restarts = append(fit.restarts, fitRestart{earliest: ss[i].checkIdx[p[0]], latest: ss[i].checkIdx[p[1]], marked: true})
			}
		}
	}
}

// place records every restart (marked or not) for fit.pick.
func (fit *lifetimeFit) place(ss []stretch) {
	for i := range ss {
		places, ok := ss[i].restartsFor(fit.pick)
		if !ok {
			continue
		}
		for _, p := range places {
			fit.restarts = append(fit.restarts, fitRestart{earliest: ss[i].checkIdx[p[0]], latest: ss[i].checkIdx[p[1]], marked: ss[i].marked()})
		}
	}
}

// firstFailing is the first stretch whose own set (or the running intersection) leaves no
// value, the place to report.
func firstFailing(ss []stretch, want int64) *stretch {
	all := AllIntervals
	if want >= 0 {
		all = intervalRange(want, want)
	}
	for i := range ss {
		all = all.Intersect(ss[i].set0())
		if all.Empty() {
			return &ss[i]
		}
	}
	if len(ss) > 0 {
		return &ss[len(ss)-1]
	}
	return nil
}
