package props

import (
	"fmt"
	"math"
	"slices"

	"kidx/model"
)

// RecoveryRebuildsSameIndex (question): recover() rebuilds the live offset index. Known to
// fail after a restart (docs/kafka.md §2.3): the live counter restarted at 0 mid-segment while
// recover() counts from the segment's start.
var RecoveryRebuildsSameIndex = &Property{
	Name:    "RecoveryRebuildsSameIndex",
	Kafka:   "LogSegment.recover rebuilds per batch with a counter from position 0; the live counter restarts at 0 in every new LogSegment object (docs/kafka.md §2.3, §3)",
	KindFor: always(Question),
	Check: func(c *Case) *Violation {
		r := c.Run()
		if r.Stopped() {
			return nil
		}
		live := r.Segments[len(r.Segments)-1].OffsetIndex().All()
		rec := simulate(append(slices.Clip(c.Steps), model.Step{Recover: true}), c.StartOffset, c.Config, c.Rule, c.Era, c.Mutant)
		if rec.Stopped() || rec.Err != nil {
			return nil
		}
		got := rec.Segments[len(rec.Segments)-1].OffsetIndex().All()
		if !slices.Equal(live, got) {
			return violation("recover() counts from the segment's start, the live counter from the last reset",
				"active segment %d: live offset index %v, rebuilt by recover() %v (replay the workload, then add {\"recover\": true} to see the rebuilt one)",
				r.Segments[len(r.Segments)-1].BaseOffset(), live, got)
		}
		return nil
	},
}

// NoIndexOverflowMidAppend (question): no append makes an index overflow. Under per-batch a
// multi-batch append can add more entries than shouldRoll's single isFull check left room
// for (docs/kafka.md §2.4); Kafka throws "Attempt to append to a full (time) index".
//
// Under a candidate with fix (a) (Era.RollWhenAppendLacksIndexRoom, without (b)) the claim
// is the fix's: no append of at most RollOnRoomMaxBatches batches overflows, whatever came
// before; an overflow on a larger append is outside it (MidAppendOverflow still sees it).
var NoIndexOverflowMidAppend = &Property{
	Name:    "NoIndexOverflowMidAppend",
	Kafka:   "UnifiedLog.maybeRoll checks offsetIndex.isFull()/timeIndex.isFull() once per append; KAFKA-806 may then add one entry per batch (docs/kafka.md §2.4)",
	KindFor: always(Question),
	Check:   func(c *Case) *Violation { return appendOverflow(c, true) },
}

// appendOverflow is the first overflow an append made, as a violation; within says an
// overflow outside fix (a)'s assumption does not count (NoIndexOverflowMidAppend's claim).
func appendOverflow(c *Case, within bool) *Violation {
	limit := math.MaxInt
	if e := c.Era; within && e != nil && e.RollWhenAppendLacksIndexRoom && !e.SkipEntryWhenIndexFull {
		limit = RollOnRoomMaxBatches(c.Config, *e)
	}
	for _, e := range c.Run().Log.Events() {
		if e.Step < len(c.Steps) && len(c.Steps[e.Step].Append) > 0 && (e.Kind == model.EventOffsetIndexFull || e.Kind == model.EventTimeIndexFull) {
			if len(c.Steps[e.Step].Append) > limit {
				return nil // the log stopped on an append the claim leaves out
			}
			return violation("shouldRoll checks isFull once, the per-batch loop may add several entries",
				"step %d: %s: Kafka throws %q (segment.index.bytes=%d)", e.Step, e.Kind, e.Message, c.Config.SegmentIndexBytes)
		}
	}
	return nil
}

// RollOnRoomMaxBatches is fix (a)'s assumption (docs/kafka-hazards.md §7): the most batches
// an append may have for the fix to guarantee that it never overflows an index. Into a
// non-empty segment the fix rolls unless both indexes have a free slot per batch (the time
// index keeping the slot TimeIndex.isFull reserves), so the append fits. Into an empty
// segment it cannot roll again: the append's first batch is never indexed (the counter is 0
// and LogSegment.append's check is strict), so an append of n batches adds at most n-1
// entries, which fit while n-1 <= segment.index.bytes/12 - 1 usable time slots and n-1 <=
// segment.index.bytes/8 offset slots (OffsetIndex and TimeIndex take maxIndexSize
// rounded down to their entry size). With a time index the first bound is the smaller:
// n <= segment.index.bytes/12.
func RollOnRoomMaxBatches(cfg model.Config, era model.Era) int {
	offsetSlots := cfg.SegmentIndexBytes / 8
	limit := offsetSlots + 1
	if era.HasTimeIndex() {
		limit = min(limit, cfg.SegmentIndexBytes/12)
	}
	return int(min(limit, math.MaxInt32))
}

// MaxScanMonotoneInInterval (question): for a fixed workload, the max scanBytes never
// decreases as the interval grows.
var MaxScanMonotoneInInterval = &Property{
	Name:    "MaxScanMonotoneInInterval",
	Kafka:   "a larger index.interval.bytes gives fewer entries (DensityMonotone), but not necessarily entries at a subset of positions (docs/kafka.md §2.2)",
	KindFor: always(Question),
	Check: func(c *Case) *Violation {
		hi := c.compareInterval()
		r, q := c.Run(), c.with(hi)
		if r.Stopped() || q.Stopped() {
			return nil
		}
		a, b := r.Log.Scan().MaxScanBytes, q.Log.Scan().MaxScanBytes
		if b < a {
			return &Violation{Explanation: fmt.Sprintf("max scanBytes falls from %d B at index.interval.bytes=%d to %d B at %d [entries move, not only thin out]",
				a, c.Config.IndexIntervalBytes, b, hi),
				Compare: map[string][2]int64{"index.interval.bytes": {c.Config.IndexIntervalBytes, hi}}}
		}
		return nil
	},
}
