package model

import (
	"strings"
	"testing"
)

// An era spec copies its base era and switches only the candidate knobs (docs/model.md,
// "Candidate eras").
func TestParseEraSpec(t *testing.T) {
	e, err := ParseEraSpec([]byte(`{"id": "fix-a", "base": "4.1-4.4", "description": "roll on room", "rollWhenAppendLacksIndexRoom": true}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != "fix-a" || e.Candidate != "4.1-4.4" || !e.RollWhenAppendLacksIndexRoom || e.SkipEntryWhenIndexFull ||
		e.Entry != EntryBatchLast || !e.HeaderReadsPastHit || e.Sources != "roll on room" {
		t.Errorf("got %+v", e)
	}
	// A release names its era: 4.0.0 is the last per-append one.
	e, err = ParseEraSpec([]byte(`{"id": "b-on-400", "base": "4.0.0", "skipEntryWhenIndexFull": true}`))
	if err != nil || e.Candidate != "3.7-4.0.0" || e.Entry != EntryAppendLast || !e.SkipEntryWhenIndexFull {
		t.Errorf("got %+v, %v", e, err)
	}
	for _, tc := range []struct{ spec, want string }{
		{`{"id": "x"}`, `"id" and "base" are required`},
		{`{"id": "per-batch", "base": "4.1-4.4"}`, "built-in"},
		{`{"id": "4.1-4.4", "base": "4.1-4.4"}`, "built-in"},
		{`{"id": "Fix A", "base": "4.1-4.4"}`, "want 1 to 64"},
		{`{"id": "x", "base": "9.9"}`, "nor is it a release"},
		{`{"id": "x", "base": "4.1-4.4", "rollWhenFull": true}`, "rollWhenFull"},
		{`{"id": "x", "base": "4.1-4.4"} {}`, "more than one"},
		{`[`, "era spec"},
	} {
		if _, err := ParseEraSpec([]byte(tc.spec)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.spec, err, tc.want)
		}
	}
}

// The two candidates on the follower overflow of docs/kafka-hazards.md, worked by hand on a
// small index: segment.index.bytes 24 gives the offset index 24/8 = 3 slots and the time index
// 24/12 = 2, one reserved (TimeIndex.isFull at 1); index.interval.bytes 100, batches of 150
// bytes with rising timestamps; a single-batch append, then an append of two.
//
// Per-batch (4.1): batch 0 gets no entry (the counter starts at 0); the 2-batch append passes
// shouldRoll (no index full), batch 1 (counter 150 > 100) takes the time index's only slot,
// batch 2's time entry throws. (a): room for 1 time entry < 2 batches, so the segment rolls
// at offset 1 first; in the new segment batch 1 gets no entry and batch 2 the one slot. (b):
// batch 1 takes the slot, batch 2 is due but the index is full: no entry, nothing thrown.
// (a) cannot help an append into an empty segment with more batches than the time index has
// slots plus one: the 3-batch append below still throws (docs/kafka-hazards.md §6).
func TestCandidateFixes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SegmentIndexBytes, cfg.IndexIntervalBytes = 24, 100
	b := func(ts int64) Batch { return Batch{Records: 1, Bytes: 150, MaxTimestamp: ts} }
	base := EraForRule(PerBatch)
	fixA, fixB := base, base
	fixA.RollWhenAppendLacksIndexRoom = true
	fixB.SkipEntryWhenIndexFull = true
	steps := []Step{AppendStep(b(1)), AppendStep(b(2), b(3))}
	run := func(era Era, steps []Step) *Log {
		t.Helper()
		l, err := SimulateEra(cfg, era, 0, steps, true)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}

	if ev := run(base, steps).Events(); len(ev) != 1 || ev[0].Kind != EventTimeIndexFull || ev[0].Step != 1 {
		t.Fatalf("per-batch: events %+v, want a time-index overflow at step 1", ev)
	}

	l := run(fixA, steps)
	if ev := l.Events(); len(ev) != 0 {
		t.Fatalf("(a): events %+v, want none", ev)
	}
	segs := l.Segments()
	if len(segs) != 2 || segs[0].RollReason() != RollIndexRoom || segs[1].BaseOffset() != 1 ||
		segs[1].TimeIndex().Entries() != 1 || segs[1].OffsetIndex().All()[0].Offset != 2 {
		t.Fatalf("(a): %d segments, the first rolled for %q; want 2, index-room, the second at 1 with one entry at 2", len(segs), segs[0].RollReason())
	}
	if ev := run(fixA, []Step{AppendStep(b(1)), AppendStep(b(2), b(3), b(4))}).Events(); len(ev) != 1 || ev[0].Kind != EventTimeIndexFull {
		t.Errorf("(a), 3 batches into the rolled segment: events %+v, want the time-index overflow", ev)
	}

	l = run(fixB, steps)
	if ev := l.Events(); len(ev) != 0 {
		t.Fatalf("(b): events %+v, want none", ev)
	}
	if segs := l.Segments(); len(segs) != 1 || segs[0].OffsetIndex().Entries() != 1 {
		t.Errorf("(b): %d segments, offset entries %d, want 1 and 1", len(segs), segs[0].OffsetIndex().Entries())
	}
}
