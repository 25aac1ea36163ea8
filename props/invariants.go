package props

import (
	"fmt"
	"slices"
	"sort"

	"kidx/model"
)

// FirstBatchNeverIndexed: the first batch after any counter reset never gets an entry.
var FirstBatchNeverIndexed = &Property{
	Name:    "FirstBatchNeverIndexed",
	Kafka:   "LogSegment.append checks bytesSinceLastIndexEntry > index.interval.bytes before adding the batch, and the counter is 0 in every new LogSegment object (docs/kafka.md §2.1, §2.2)",
	KindFor: always(Invariant),
	Check: func(c *Case) *Violation {
		r := c.Run()
		for i, s := range r.Segments {
			for _, reset := range r.Traces[i].Resets {
				if reset >= s.Size() {
					continue
				}
				for _, e := range s.OffsetIndex().All() {
					if e.Position == reset {
						return violation("LogSegment.append checks the counter before adding the batch; it is 0 after a reset",
							"segment %d: entry (%d, %d) indexes the first batch after a counter reset at byte %d",
							s.BaseOffset(), e.Offset, e.Position, reset)
					}
				}
			}
		}
		return nil
	},
}

// ScanBound: per-batch, scanBytes(o) <= min(I + size of the batch just before the hit
// batch, S); per-append, the unit is the append. Premise: the segment was written in one
// process lifetime (no restart or recovery after its first batch), as in the
// derivation of docs/kafka.md §2.2.
var ScanBound = &Property{
	Name:    "ScanBound",
	Kafka:   "an entry is added as soon as bytesSinceLastIndexEntry > index.interval.bytes (docs/kafka.md §2.2: worst scan <= interval + the batch before the target batch)",
	KindFor: always(Invariant),
	Check: func(c *Case) *Violation {
		r := c.Run()
		for i, s := range r.Segments {
			if r.Traces[i].MidReset {
				continue
			}
			bs := s.Batches()
			unitStart := make([]int64, len(bs)) // start of the unit (batch or append) holding batch j
			prevUnit := make([]int64, len(bs))  // size of the unit before it
			if c.Rule == model.PerBatch {
				for j, b := range bs {
					unitStart[j] = b.Position
					if j > 0 {
						prevUnit[j] = bs[j-1].Size
					}
				}
			} else {
				apps := r.Traces[i].Appends
				a := 0
				for j, b := range bs {
					for a+1 < len(apps) && apps[a][1] <= b.Position {
						a++
					}
					unitStart[j] = apps[a][0]
					if a > 0 {
						prevUnit[j] = apps[a-1][1] - apps[a-1][0]
					}
				}
			}
			for _, o := range candidates(s) {
				lr, ok := s.Lookup(o)
				if !ok || o < s.BaseOffset() {
					continue // LookupHitsTarget's business
				}
				j := sort.Search(len(bs), func(k int) bool { return bs[k].Position >= lr.Hit.Position })
				bound := min(c.Config.IndexIntervalBytes+prevUnit[j]+(bs[j].Position-unitStart[j]), c.Config.SegmentBytes)
				if lr.ScanBytes > bound {
					unit := "batch"
					if c.Rule == model.PerAppend {
						unit = "append"
					}
					return violation("an entry is added once bytesSinceLastIndexEntry exceeds index.interval.bytes",
						"segment %d: lookup of offset %d starts at byte %d (entry %d) and hits the batch at byte %d: scan %d B > bound %d B (I=%d + previous %s %d B + %d B into its %s, at most S=%d)",
						s.BaseOffset(), o, lr.Index.Position, lr.IndexSlot, lr.Hit.Position, lr.ScanBytes, bound,
						c.Config.IndexIntervalBytes, unit, prevUnit[j], bs[j].Position-unitStart[j], unit, c.Config.SegmentBytes)
				}
			}
		}
		return nil
	},
}

// Plateau: if I < the smallest batch, the index equals the one for I = 0 (every batch but
// the first after each counter reset is indexed; index files byte-identical).
var Plateau = &Property{
	Name:    "Plateau",
	Kafka:   "with bytesSinceLastIndexEntry >= the previous batch's size > I, every check after the first succeeds, as with I = 0 (docs/kafka.md §2.2: 0 and 1 are indistinguishable)",
	KindFor: always(Invariant),
	Check: func(c *Case) *Violation {
		smallest := int64(-1)
		for _, s := range c.Steps {
			for _, b := range s.Append {
				if smallest < 0 || b.Bytes < smallest {
					smallest = b.Bytes
				}
			}
		}
		if c.Config.IndexIntervalBytes == 0 || c.Config.IndexIntervalBytes >= smallest {
			return nil
		}
		r, z := c.Run(), c.with(0)
		if len(r.Segments) != len(z.Segments) || len(r.Log.Events()) != len(z.Log.Events()) {
			return &Violation{Explanation: fmt.Sprintf("I=%d < smallest batch %d B, yet the run differs from I=0: %d vs %d segments, %d vs %d events [index decisions are the same as at I=0]",
				c.Config.IndexIntervalBytes, smallest, len(r.Segments), len(z.Segments), len(r.Log.Events()), len(z.Log.Events())),
				Compare: map[string][2]int64{"index.interval.bytes": {c.Config.IndexIntervalBytes, 0}}}
		}
		for i, s := range r.Segments {
			a, b := s.OffsetIndex().All(), z.Segments[i].OffsetIndex().All()
			ta, tb := s.TimeIndex().All(), z.Segments[i].TimeIndex().All()
			if !slices.Equal(a, b) || !slices.Equal(ta, tb) {
				return &Violation{Explanation: fmt.Sprintf("segment %d: I=%d < smallest batch %d B, but the indexes differ from I=0: offset index %v vs %v, time index %v vs %v [every check after the first succeeds when I < every batch]",
					s.BaseOffset(), c.Config.IndexIntervalBytes, smallest, a, b, ta, tb),
					Compare: map[string][2]int64{"index.interval.bytes": {c.Config.IndexIntervalBytes, 0}}}
			}
		}
		return nil
	},
}

// EmptyAboveSegment: I >= S implies every offset index is empty.
var EmptyAboveSegment = &Property{
	Name:    "EmptyAboveSegment",
	Kafka:   "bytesSinceLastIndexEntry never reaches segment.bytes before a batch (shouldRoll keeps size + append <= segment.bytes), so > I >= S never holds (docs/kafka.md §2.2, §8)",
	KindFor: always(Invariant),
	Check: func(c *Case) *Violation {
		if c.Config.IndexIntervalBytes < c.Config.SegmentBytes {
			return nil
		}
		for _, s := range c.Run().Segments {
			if n := s.OffsetIndex().Entries(); n > 0 {
				return violation("the counter before a batch stays below segment.bytes",
					"segment %d: I=%d >= S=%d, yet the offset index has %d entries, first %v",
					s.BaseOffset(), c.Config.IndexIntervalBytes, c.Config.SegmentBytes, n, s.OffsetIndex().All()[0])
			}
		}
		return nil
	},
}

// entryMismatch is DumpLogSegments' .index check (docs/kafka.md §10): the first batch at the
// entry's position must end at the entry's offset.
func entryMismatch(s *model.Segment) (model.OffsetPosition, int64, bool) {
	bs := s.Batches()
	for _, e := range s.OffsetIndex().All() {
		j := sort.Search(len(bs), func(k int) bool { return bs[k].Position >= e.Position })
		if j == len(bs) || bs[j].Position != e.Position {
			return e, -1, true
		}
		if bs[j].LastOffset != e.Offset {
			return e, bs[j].LastOffset, true
		}
	}
	return model.OffsetPosition{}, 0, false
}

// EntriesAtBatchBoundaries: per-batch, every entry (o, p) has a batch starting at p whose
// last offset is o. Under per-append this fails for multi-batch appends, which kidx shows
// as a finding.
var EntriesAtBatchBoundaries = &Property{
	Name:  "EntriesAtBatchBoundaries",
	Kafka: "KAFKA-806 LogSegment.append: offsetIndex.append(batch.lastOffset, its position); DumpLogSegments checks the batch at each entry (docs/kafka.md §2.2, §10)",
	KindFor: func(r model.AppendRule) Kind {
		if r == model.PerAppend {
			return Question
		}
		return Invariant
	},
	Check: func(c *Case) *Violation {
		for _, s := range c.Run().Segments {
			if e, got, bad := entryMismatch(s); bad {
				if got < 0 {
					return violation("an entry points at the start of a batch",
						"segment %d: entry (%d, %d) points at no batch start", s.BaseOffset(), e.Offset, e.Position)
				}
				why := "an entry names the last offset of the batch at its position"
				if c.Rule == model.PerAppend {
					why = "pre-KAFKA-806 LogSegment.append names the append's last offset at the append's start"
				}
				return violation(why, "segment %d: entry (%d, %d) but the batch at byte %d ends at offset %d (DumpLogSegments: Index offset: %d, log offset: %d)",
					s.BaseOffset(), e.Offset, e.Position, e.Position, got, e.Offset, got)
			}
		}
		return nil
	},
}

// StrictlyIncreasing: entry offsets and positions strictly increase; time-index timestamps
// strictly increase and their offsets never decrease.
var StrictlyIncreasing = &Property{
	Name:    "StrictlyIncreasing",
	Kafka:   "OffsetIndex.append rejects an offset not larger than the last; TimeIndex.maybeAppend appends only a strictly larger timestamp (docs/kafka.md §4, §6)",
	KindFor: always(Invariant),
	Check: func(c *Case) *Violation {
		for _, s := range c.Run().Segments {
			es := s.OffsetIndex().All()
			for i := 1; i < len(es); i++ {
				if es[i].Offset <= es[i-1].Offset || es[i].Position <= es[i-1].Position {
					return violation("offset-index entries strictly increase",
						"segment %d: offset-index entry %d %v after %v", s.BaseOffset(), i, es[i], es[i-1])
				}
			}
			ts := s.TimeIndex().All()
			for i := 1; i < len(ts); i++ {
				if ts[i].Timestamp <= ts[i-1].Timestamp || ts[i].Offset < ts[i-1].Offset {
					return violation("TimeIndex.maybeAppend appends only a strictly larger timestamp",
						"segment %d: time-index entry %d %v after %v", s.BaseOffset(), i, ts[i], ts[i-1])
				}
			}
		}
		return nil
	},
}

// DensityMonotone: for a fixed workload, raising I never adds entries. Runs that Kafka
// would have stopped (an index overflow) are NoIndexOverflowMidAppend's business and are
// not compared: a stopped log has fewer steps.
var DensityMonotone = &Property{
	Name:    "DensityMonotone",
	Kafka:   "a larger index.interval.bytes makes the strict > test fail more often (docs/kafka.md §2.2: the config only makes the index sparser)",
	KindFor: always(Invariant),
	Check: func(c *Case) *Violation {
		hi := c.compareInterval()
		r, q := c.Run(), c.with(hi)
		// Premise: segment boundaries do not depend on I. An index-full roll (shouldRoll's
		// isFull) makes them depend on it, and a new segment's first batch is never indexed,
		// so a denser index can end with fewer entries (docs/findings.md).
		if r.Stopped() || q.Stopped() || r.indexFullRoll() || q.indexFullRoll() {
			return nil
		}
		if q.Entries() > r.Entries() {
			return &Violation{Explanation: fmt.Sprintf("raising index.interval.bytes from %d to %d adds entries: %d -> %d [the strict > check fails more often at a larger interval]",
				c.Config.IndexIntervalBytes, hi, r.Entries(), q.Entries()),
				Compare: map[string][2]int64{"index.interval.bytes": {c.Config.IndexIntervalBytes, hi}}}
		}
		return nil
	},
}

// compareInterval is the second, larger interval of a comparison.
func (c *Case) compareInterval() int64 {
	if c.Compare > c.Config.IndexIntervalBytes {
		return c.Compare
	}
	return 2*c.Config.IndexIntervalBytes + 1
}

// LookupHitsTarget: the hit batch contains o.
var LookupHitsTarget = &Property{
	Name:    "LookupHitsTarget",
	Kafka:   "LogSegment.translateOffset: OffsetIndex.lookup gives the largest entry <= o, then FileRecords.searchForOffsetWithSize walks to the first batch whose last offset >= o (docs/kafka.md §5, §7.1)",
	KindFor: always(Invariant),
	Check: func(c *Case) *Violation {
		for _, s := range c.Run().Segments {
			for _, o := range candidates(s) {
				if o < s.BaseOffset() || o > s.LastOffset() {
					continue
				}
				lr, ok := s.Lookup(o)
				if !ok || o < lr.Hit.BaseOffset || o > lr.Hit.LastOffset {
					return violation("phase 1 never starts after the target's batch",
						"segment %d: lookup of offset %d starts at byte %d (entry %v) and hits the batch %d..%d at byte %d (found %v)",
						s.BaseOffset(), o, lr.Index.Position, lr.Index, lr.Hit.BaseOffset, lr.Hit.LastOffset, lr.Hit.Position, ok)
				}
			}
		}
		return nil
	},
}

// WarmSearchAgrees: Kafka's warm-section search returns the slot a plain binary search
// returns.
var WarmSearchAgrees = &Property{
	Name:    "WarmSearchAgrees",
	Kafka:   "AbstractIndex.indexSlotRangeFor: warm section of 8192/entrySize entries, then slot 0, then the upper-middle binary search (docs/kafka.md §5)",
	KindFor: always(Invariant),
	Check: func(c *Case) *Violation {
		for _, s := range c.Run().Segments {
			if v := WarmSearchOn(s.OffsetIndex(), s.TimeIndex()); v != nil {
				return v
			}
		}
		return nil
	},
}

// WarmSearchOn compares Kafka's search with a plain largest-lower-bound search on every
// entry's key, one below and one above, and on both ends.
func WarmSearchOn(oi *model.OffsetIndex, ti *model.TimeIndex) *Violation {
	es := oi.All()
	keys := []int64{oi.BaseOffset() - 1, oi.BaseOffset()}
	for _, e := range es {
		keys = append(keys, e.Offset-1, e.Offset, e.Offset+1)
	}
	for _, k := range keys {
		want := sort.Search(len(es), func(i int) bool { return es[i].Offset > k }) - 1
		if _, got, _ := oi.LookupSlot(k); got != want {
			return violation("the warm-section search is a largest-lower-bound search",
				"offset index of %d entries: lookup(%d) returns slot %d, a plain binary search slot %d", len(es), k, got, want)
		}
	}
	ts := ti.All()
	keys = keys[:0]
	for _, e := range ts {
		keys = append(keys, e.Timestamp-1, e.Timestamp, e.Timestamp+1)
	}
	for _, k := range keys {
		want := sort.Search(len(ts), func(i int) bool { return ts[i].Timestamp > k }) - 1
		if _, got, _ := ti.LookupSlot(k); got != want {
			return violation("the warm-section search is a largest-lower-bound search",
				"time index of %d entries: lookup(%d) returns slot %d, a plain binary search slot %d", len(ts), k, got, want)
		}
	}
	return nil
}
