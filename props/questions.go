package props

import (
	"fmt"
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
		rec := simulate(append(slices.Clip(c.Steps), model.Step{Recover: true}), c.StartOffset, c.Config, c.Rule, c.Mutant)
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
var NoIndexOverflowMidAppend = &Property{
	Name:    "NoIndexOverflowMidAppend",
	Kafka:   "UnifiedLog.maybeRoll checks offsetIndex.isFull()/timeIndex.isFull() once per append; KAFKA-806 may then add one entry per batch (docs/kafka.md §2.4)",
	KindFor: always(Question),
	Check: func(c *Case) *Violation {
		for _, e := range c.Run().Log.Events() {
			if e.Step < len(c.Steps) && len(c.Steps[e.Step].Append) > 0 && (e.Kind == model.EventOffsetIndexFull || e.Kind == model.EventTimeIndexFull) {
				return violation("shouldRoll checks isFull once, the per-batch loop may add several entries",
					"step %d: %s: Kafka throws %q (segment.index.bytes=%d)", e.Step, e.Kind, e.Message, c.Config.SegmentIndexBytes)
			}
		}
		return nil
	},
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
