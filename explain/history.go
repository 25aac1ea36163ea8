package explain

import (
	"fmt"

	"kidx/logdir"
)

// History is how a segment's files came to be (issue 25, docs/explain.md "Three histories").
type History string

// The histories explain considers per segment.
const (
	// HistoryAppends: written by appends (a leader's, a follower's), with restarts where the
	// files show or need them; every answer before issue 25 is of this history.
	HistoryAppends History = "appends"
	// HistoryCleaned: written by the log cleaner in one pass (Cleaner.cleanSegments): every
	// retained batch appended to a new segment with no restart inside it, then
	// onBecomeInactiveSegment (the final time-index entry and the trims).
	HistoryCleaned History = "cleaned"
	// HistoryRecovered: the indexes rebuilt by LogSegment.recover at a restart, over the
	// segment as it was then, followed by the later appends and close().
	HistoryRecovered History = "recovered"
)

// evaluateGiven tries a candidate of the cleaned or the recovered history: the restarts are
// given (fixed: each with the entry close() or recover() appends), and no other restart nor
// any time-index mark is admitted. The cleaner's appends, and recover()'s own, name the
// batch's last offset in the time index (LogCleaner.cleanInto passes the batch-level
// shallowOffsetOfMaxTimestamp; LogSegment.recover uses batch.lastOffset), so leader false.
// recoverAt < 0: the cleaned history (no restart at all).
func (s *exSegment) evaluateGiven(era logdir.Era, shape AppendShape, want int64, hist History, recoverAt int) candidate {
	c := candidate{era: era, shape: shape, history: hist, recoverAt: recoverAt}
	ms, origin, dis := s.mapEntries(era, shape)
	if dis != nil {
		c.dis = dis
		return c
	}
	c.moments, c.origin = ms, origin
	if hist == HistoryRecovered {
		n := s.batches.len()
		if recoverAt < n {
			for _, m := range ms {
				if m.first == recoverAt {
					// The first append after a restart never gets an entry (the counter is 0).
					c.dis = &Disagreement{File: s.files.Index, Slot: m.slot, Byte: int64(m.slot * 8),
						Found: "an entry at the first batch after the restart", Meaning: "no recovery at that restart gives it"}
					return c
				}
			}
			c.fixed = append(c.fixed, recoverAt)
		}
		later, _ := s.fixedRestarts(ms)
		for _, j := range later {
			if j > recoverAt {
				c.fixed = append(c.fixed, j)
			}
		}
	}
	marks, dis := s.checkTimeIndex(era, false, ms, c.fixed)
	if dis != nil {
		c.dis = dis
		return c
	}
	if len(marks) > 0 {
		mk := marks[0]
		c.dis = &Disagreement{File: s.files.TimeIndex, Slot: -1,
			Found:   fmt.Sprintf("a time-index entry close() appended at a restart between batches %d and %d", mk.lo, mk.hi),
			Meaning: fmt.Sprintf("the %s history has no restart there", hist)}
		return c
	}
	if lo, hi := s.quickBounds(era, ms, c.fixed, shape); lo <= hi && (want < 0 || (lo <= want && want <= hi)) {
		set := intervalRange(lo, hi)
		if want >= 0 {
			set = intervalRange(want, want)
		}
		c.fit = lifetimeFit{ok: true, intervals: set, exact: true, pick: set.Pick(want)}
	} else {
		ss := s.stretches(era, ms, c.fixed, nil, shape)
		c.fit = fitLifetimes(ss, want, false)
		if !c.fit.ok {
			c.dis = s.intervalDisagreement(c.fit.failed, want)
			return c
		}
	}
	c.ok = true
	return c
}
