package logdir

import "fmt"

// A Restart is where a segment's byte counter (LogSegment.bytesSinceLastIndexEntry) started
// again from 0 inside the segment. The counter lives in the LogSegment object, so it restarts
// whenever one is built for an existing file (a broker restart, recovery after an unclean
// shutdown) and at truncateTo (a follower's truncation). Within one such lifetime the append
// rule bounds every lookup's scan (ScanBound, docs/findings.md); across a restart a lookup
// starts at the last entry before it, however far back that is.
//
// The files do not record restarts; kidx places them where the entries require one, and takes
// a producer snapshot at an offset inside the segment (written at every clean shutdown,
// ProducerStateManager.takeSnapshot) as a witness.
type Restart struct {
	// Position and Offset are the first batch written after the restart, at its latest
	// possible place; EarliestPosition and EarliestOffset bound it from below (the first batch
	// after the previous entry or restart).
	Position         int64  `json:"position"`
	Offset           int64  `json:"offset"`
	EarliestPosition int64  `json:"earliestPosition"`
	EarliestOffset   int64  `json:"earliestOffset"`
	Snapshot         string `json:"snapshot,omitempty"` // the producer snapshot that corroborates it
	// TimeIndexMark is the offset of the time-index entry a shutdown left at the batch before
	// (LogSegment.close and recover append one when the max timestamp grew), -1 when none.
	TimeIndexMark int64 `json:"timeIndexMark"`
	// Unmarked: no snapshot and no time-index entry, though a shutdown or recovery here would
	// have added one (the max timestamp had grown): only a follower's truncation
	// (LogSegment.truncateTo, which resets the counter and writes nothing) explains it.
	Unmarked bool `json:"unmarked"`
	// UntilPosition ends the stretch after the restart that has no entry: the position of the
	// next entry or restart (-1: the end of the segment). Lookups of the offsets in
	// [Position, UntilPosition) start before the restart.
	UntilPosition int64 `json:"untilPosition"`
}

func (r Restart) String() string {
	where := fmt.Sprintf("before the batch at byte %d (offset %d)", r.Position, r.Offset)
	if r.EarliestPosition < r.Position {
		where = fmt.Sprintf("between byte %d (offset %d) and byte %d (offset %d)", r.EarliestPosition, r.EarliestOffset, r.Position, r.Offset)
	}
	switch {
	case r.Snapshot != "":
		return fmt.Sprintf("the byte counter restarted %s: a broker restart, as the producer snapshot %s shows", where, r.Snapshot)
	case r.TimeIndexMark >= 0:
		return fmt.Sprintf("the byte counter restarted %s: a broker restart or recovery, as the time-index entry at offset %d with no offset-index entry beside it shows (LogSegment.close and recover append one)", where, r.TimeIndexMark)
	case r.Unmarked:
		return fmt.Sprintf("the byte counter restarted %s, with no shutdown's marks (a restart or recovery would have added a time-index entry): a follower's truncation (LogSegment.truncateTo)", where)
	}
	return fmt.Sprintf("the byte counter restarted %s: a broker restart, a recovery or a truncation (the entries require one there)", where)
}

// lifetimeTracker places restarts along a walk of a segment's batches, under the per-batch
// rule: a batch gets an entry iff more than I bytes lie between its start and the previous
// entry or restart (docs/kafka.md §2.2). When I is only known as an upper bound (the smallest
// distance between entries, minus one), a batch further than that from the last anchor
// without an entry still proves a restart, since the true interval is no larger.
type lifetimeTracker struct {
	interval     int64 // I, or its upper bound
	exact        bool  // interval is the configured value, not a bound
	anchor       int64 // position of the last entry or restart (segment start: 0)
	lastEntryPos int64 // position of the last entry (-1: none yet)
	afterAnchor  bool  // a batch was seen since the anchor (its start is the window's start)
	windowPos    int64
	windowOff    int64
	snapshots    []snapshotMark // producer snapshots inside the segment, ascending
	restarts     []Restart
	open         int // index in restarts still waiting for its next entry (-1: none)
	// marked is the latest batch since the anchor that follows a shutdown's time-index mark:
	// where a restart the entries require most likely happened.
	marked *markedBatch
}

type markedBatch struct {
	pos, first, timeEntry int64
}

type snapshotMark struct {
	offset int64
	path   string
}

func newLifetimeTracker(interval int64, exact bool, snapshots []snapshotMark) *lifetimeTracker {
	return &lifetimeTracker{interval: interval, exact: exact, lastEntryPos: -1, snapshots: snapshots, open: -1}
}

// shutdownMarks is what the time index says about the batch before the current one: a
// time-index entry in it with no offset-index entry (what LogSegment.close or recover
// appends), or the max timestamp having grown past the last time-index entry (so a close or
// recover there would have appended one).
type shutdownMarks struct {
	timeEntry int64 // offset of such an entry, -1 when none
	wouldMark bool
}

// batch feeds the next batch in position order. It returns the distance to the previous
// entry when an entry sits closer to it than the configured interval allows (a placement of
// restarts cannot explain that: restarts only delay entries), else -1.
func (t *lifetimeTracker) batch(pos, first int64, indexed bool, marks shutdownMarks) (tooClose int64) {
	tooClose = -1
	// A producer snapshot at this batch's offset marks a clean shutdown right before it: the
	// next LogSegment object restarted the counter here (when the batch has no entry, as the
	// first batch after any restart never does).
	snapped := ""
	for len(t.snapshots) > 0 && t.snapshots[0].offset <= first {
		snapped = t.snapshots[0].path
		t.snapshots = t.snapshots[1:]
	}
	if !t.afterAnchor {
		t.windowPos, t.windowOff, t.afterAnchor = pos, first, true
	}
	if marks.timeEntry >= 0 && !indexed {
		t.marked = &markedBatch{pos, first, marks.timeEntry}
	}
	switch {
	case indexed:
		// Restarts only move the counter's start later, so the distance to the previous entry
		// (or to the segment's start) bounds the counter from above.
		if d := pos - max(t.lastEntryPos, 0); t.exact && d <= t.interval {
			tooClose = d
		}
		t.closeOpen(pos)
		t.anchor, t.lastEntryPos, t.afterAnchor, t.marked = pos, pos, false, nil
	case snapped != "":
		t.place(pos, first, snapped, marks)
	case pos-t.anchor > t.interval:
		// A shutdown's mark earlier in the window places the restart there (every batch since
		// lies even closer to it than to the old anchor); if this batch is still too far from
		// it, the counter restarted once more.
		if c := t.marked; c != nil && c.pos < pos {
			t.place(c.pos, c.first, "", shutdownMarks{timeEntry: c.timeEntry})
		}
		if pos-t.anchor > t.interval {
			t.place(pos, first, "", marks)
		}
	}
	return tooClose
}

func (t *lifetimeTracker) place(pos, first int64, snapshot string, marks shutdownMarks) {
	t.closeOpen(pos)
	r := Restart{Position: pos, Offset: first, EarliestPosition: pos, EarliestOffset: first, Snapshot: snapshot, UntilPosition: -1,
		TimeIndexMark: marks.timeEntry}
	if snapshot == "" && marks.timeEntry < 0 {
		r.Unmarked = marks.wouldMark
		if t.afterAnchor {
			r.EarliestPosition, r.EarliestOffset = t.windowPos, t.windowOff
		}
	}
	t.restarts = append(t.restarts, r)
	t.open = len(t.restarts) - 1
	t.anchor, t.afterAnchor, t.marked = pos, false, nil
}

func (t *lifetimeTracker) closeOpen(until int64) {
	if t.open >= 0 {
		t.restarts[t.open].UntilPosition = until
		t.open = -1
	}
}
