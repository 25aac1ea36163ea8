package logdir

import "fmt"

// A Restart is where a segment's byte counter (LogSegment.bytesSinceLastIndexEntry) started
// again from 0 inside the segment. The counter lives in the LogSegment object, so it restarts
// whenever one is built for an existing file (a broker restart, recovery after an unclean
// shutdown) and at truncateTo (a follower's truncation). Within one such lifetime the append
// rule bounds every lookup's scan (ScanBound, docs/findings.md); across a restart a lookup
// starts at the last entry before it, however far back that is.
//
// The files do not record restarts; kidx places them where the files show one: a producer
// snapshot at an offset inside the segment (written at every clean shutdown,
// ProducerStateManager.takeSnapshot), a time-index entry a shutdown left (LogSegment.close and
// recover append one, with no offset-index entry beside it), and, under the per-batch rule,
// where the entries require one. explain places the same restarts (docs/logdirs.md,
// "Byte-counter restarts"): one history per partition for verify, analyze, explain and replay.
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

// lifetimeTracker places restarts along a walk of a segment's batches. A producer snapshot
// and a shutdown's time-index entry place one in every era; under the per-batch rule the
// entries place the others: a batch gets an entry iff more than I bytes lie between its start
// and the previous entry or restart (docs/kafka.md §2.2). When I is only known as an upper
// bound (the smallest distance between entries, minus one), a batch further than that from
// the last anchor without an entry still proves a restart, since the true interval is no
// larger.
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
	open         int   // index in restarts still waiting for its next entry (-1: none)
	maxTs        int64 // the largest batch max timestamp walked so far
	prevPos      int64 // the previous batch's position and first offset
	prevOff      int64
	pending      *pendingMark
}

// pendingMark is a time-index entry in a batch without an offset-index entry: the entry
// LogSegment.close or recover appends at a shutdown (the counter restarted after it), unless
// the next offset-index entry's append added it (an append adds the max timestamp so far
// beside its entry, which may name an earlier batch). It is decided by what follows: a batch
// raising the max timestamp past it first proves a shutdown (no append could add it after
// that); the next entry coming with the max where it was is the append's (no restart: the
// reading explain prefers too); the end of a live newest segment proves a shutdown, the end of
// a rolled or trimmed one is the close of its roll or last shutdown.
type pendingMark struct {
	offset, timestamp        int64
	earliestPos, earliestOff int64 // the batch after the one holding it
	tooFarPos, tooFarOff     int64 // the first batch since too far from the anchor without an entry (-1: none)
}

type snapshotMark struct {
	offset int64
	path   string
}

func newLifetimeTracker(interval int64, exact bool, snapshots []snapshotMark) *lifetimeTracker {
	return &lifetimeTracker{interval: interval, exact: exact, lastEntryPos: -1, snapshots: snapshots, open: -1, maxTs: -1 << 62}
}

// shutdownMarks is what the time index says about the batch before the current one: a
// time-index entry in it with no offset-index entry (what LogSegment.close or recover
// appends), or the max timestamp having grown past the last time-index entry (so a close or
// recover there would have appended one).
type shutdownMarks struct {
	timeEntry int64 // offset of such an entry, -1 when none
	timestamp int64 // its timestamp
	wouldMark bool
}

// batch feeds the next batch in position order (maxTs: its max timestamp). It returns the
// distance to the previous entry when an entry sits closer to it than the configured interval
// allows (a placement of restarts cannot explain that: restarts only delay entries), else -1.
func (t *lifetimeTracker) batch(pos, first, maxTs int64, indexed bool, marks shutdownMarks) (tooClose int64) {
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
	// A shutdown's entry names the max timestamp so far: one below it is no shutdown's.
	if marks.timeEntry >= 0 && t.pending == nil && marks.timestamp >= t.maxTs {
		t.pending = &pendingMark{offset: marks.timeEntry, timestamp: marks.timestamp, earliestPos: pos, earliestOff: first, tooFarPos: -1}
	}
	if t.pending != nil {
		if snapped != "" {
			// The shutdown the snapshot shows appended it: one restart, placed below.
			marks.timeEntry, t.pending = t.pending.offset, nil
		} else {
			t.decide(pos, first, maxTs, indexed)
		}
	}
	switch {
	case indexed:
		// Restarts only move the counter's start later, so the distance to the previous entry
		// (or to the segment's start) bounds the counter from above.
		if d := pos - max(t.lastEntryPos, 0); t.exact && d <= t.interval {
			tooClose = d
		}
		t.closeOpen(pos)
		t.anchor, t.lastEntryPos, t.afterAnchor = pos, pos, false
	case snapped != "":
		t.place(pos, first, snapped, marks)
	case pos-t.anchor > t.interval:
		if p := t.pending; p != nil {
			if p.tooFarPos < 0 {
				p.tooFarPos, p.tooFarOff = pos, first // decided with the mark
			}
			break
		}
		t.place(pos, first, "", marks)
	}
	t.maxTs = max(t.maxTs, maxTs)
	t.prevPos, t.prevOff = pos, first
	return tooClose
}

// decide settles the pending mark at the batch at pos, if this batch decides it.
func (t *lifetimeTracker) decide(pos, first, maxTs int64, indexed bool) {
	p := t.pending
	grew := maxTs > p.timestamp
	switch {
	case !grew && !indexed:
		return // still open
	case !grew:
		// The entry here came with the max where the mark put it: its append added the mark.
		t.pending = nil
		if p.tooFarPos >= 0 {
			t.place(p.tooFarPos, p.tooFarOff, "", shutdownMarks{timeEntry: -1})
		}
		return
	}
	// The max grew past the mark here: a shutdown appended it, before this batch at the latest
	// (before the previous one when this one has an entry: the first batch after a restart has
	// none), and before the first batch too far from the old anchor.
	latestPos, latestOff := pos, first
	if indexed && pos > p.earliestPos {
		latestPos, latestOff = t.prevPos, t.prevOff
	}
	if p.tooFarPos >= 0 && p.tooFarPos < latestPos {
		latestPos, latestOff = p.tooFarPos, p.tooFarOff
	}
	t.placeMark(p, latestPos, latestOff)
}

// placeMark places the restart a shutdown's mark shows, at its latest place.
func (t *lifetimeTracker) placeMark(p *pendingMark, latestPos, latestOff int64) {
	t.pending = nil
	t.closeOpen(latestPos)
	t.restarts = append(t.restarts, Restart{Position: latestPos, Offset: latestOff, EarliestPosition: p.earliestPos, EarliestOffset: p.earliestOff,
		TimeIndexMark: p.offset, UntilPosition: -1})
	t.open = len(t.restarts) - 1
	t.anchor, t.afterAnchor = latestPos, false
}

// end settles the segment's end at the log's size (next: the offset after its last batch):
// last is what the time index says of the last batch, live that the segment is the newest and
// its indexes preallocated (a clean shutdown trims them; the next start preallocates them
// again, so a shutdown's mark at the end was followed by a start).
func (t *lifetimeTracker) end(size, next int64, last shutdownMarks, live bool) {
	if last.timeEntry >= 0 && t.pending == nil && last.timestamp >= t.maxTs {
		t.pending = &pendingMark{offset: last.timeEntry, timestamp: last.timestamp, earliestPos: size, earliestOff: next, tooFarPos: -1}
	}
	p := t.pending
	switch {
	case p == nil:
	case live:
		latestPos, latestOff := size, next
		if p.tooFarPos >= 0 {
			latestPos, latestOff = p.tooFarPos, p.tooFarOff
		}
		t.placeMark(p, latestPos, latestOff)
	default:
		// The close of the segment's roll or of the last shutdown appended it.
		t.pending = nil
		if p.tooFarPos >= 0 {
			t.place(p.tooFarPos, p.tooFarOff, "", shutdownMarks{timeEntry: -1})
		}
	}
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
	t.anchor, t.afterAnchor = pos, false
}

func (t *lifetimeTracker) closeOpen(until int64) {
	if t.open >= 0 {
		t.restarts[t.open].UntilPosition = until
		t.open = -1
	}
}
