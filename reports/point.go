package reports

import (
	"fmt"

	"kidx/model"
)

// DefaultMaxMapCount is Linux's default vm.max_map_count (DEFAULT_MAX_MAP_COUNT = 65530).
const DefaultMaxMapCount = 65530

// latestRules is the release line whose config ranges are checked when no --kafka-version
// is given: the newest rules (segment.bytes >= 1 MiB since 4.1).
const latestRules = "4.1.0"

// Regime names where a point sits on the interval axis (docs/reports.md defines them).
type Regime string

// The three regimes of the seed post (docs/background.md).
const (
	// Plateau: the index has as many entries as with index.interval.bytes=0, the densest the
	// batching allows (every batch after each segment's first); lowering the interval changes
	// nothing. When no segment holds a second batch that is no entry at all: an empty index,
	// but not a cliff (issue 22), since no interval could index anything.
	Plateau Regime = "plateau"
	// Thinning: some batches that could carry an entry are skipped.
	Thinning Regime = "thinning"
	// Cliff: not on the plateau, and the offset index is empty (index.interval.bytes=0 would
	// give entries): every lookup walks from its segment's start. It depends on the run only
	// (not on the interval itself), so every value of an exact interval piece has the same
	// regime.
	Cliff Regime = "cliff"
	// Empty: the workload has no batches (an empty partition): no regime at all.
	Empty Regime = "empty"
)

// Point is one configuration of a what-if sweep with its exact figures.
type Point struct {
	Config   model.Config
	Rule     model.AppendRule // the era's rule name (model.Era.Rule)
	Era      model.Era
	Producer []Setting // swept producer settings, if any

	Segments           int
	Batches            int64
	OffsetIndexEntries int64
	TimeIndexEntries   int64
	// DensestEntries is the entry count with index.interval.bytes=0 (same workload, same
	// other settings): the most entries the batching allows.
	DensestEntries       int64
	MaxEntriesPerSegment int
	IndexBytes           int64 // .index bytes over all segments, trimmed as rolled segments are
	TimeIndexBytes       int64 // .timeindex bytes likewise
	LogBytes             int64
	MaxBatchBytes        int64
	MaxAppendBytes       int64 // the largest append (equals MaxBatchBytes for single-batch workloads)
	IndexFullRolls       int
	Rejected             int64
	// Restarts counts the workload's restart, recover and crash steps: the ScanBound holds per
	// process lifetime, so a lookup after one may walk from an entry before it.
	Restarts       int64
	OverflowEvents []model.Event

	Scan       model.ScanStats
	ScanQ      map[Quantile]int64 // exact quantiles of scan bytes
	HopsQ      map[Quantile]int64 // exact quantiles of hops
	ScanCDF    []CDFPoint
	Regime     Regime
	BoundLimit int64 // min(I + largest batch (per-append: append), S)
	BoundSlack int64 // BoundLimit - Scan.MaxScanBytes
	Phase1     Phase1
	Warm       Warm
	Maps       Maps
	// OverflowHazard says appends can overflow an index after shouldRoll's single check
	// (per-batch rule, several batches per append, a small segment.index.bytes).
	OverflowHazard bool
	// Exposure says whether an index can fill before segment.bytes with the workload's batch
	// sizes under the point's era (issue 23: the follower index overflow; docs/kafka-hazards.md).
	Exposure        Exposure
	VersionWarnings []string

	// Advice is the point's recommendations in machine-readable form; Recommendations are
	// their sentences.
	Advice          []Advice
	Recommendations []string
}

// Phase1 is the cost of Kafka's warm-section search in the fullest segment's offset index.
type Phase1 struct {
	Entries int // entries of the fullest segment's index
	// Tail: the lookup of the newest entry (followers, caught-up consumers).
	TailSlots, TailPages int
	// Cold: the worst lookup of an offset below the warm section (lagging consumers).
	ColdSlots, ColdPages int
	// ColdTargets is how many targets the cold figure was taken over (every slot below the
	// warm section up to coldExhaustive, else that many evenly spaced ones).
	ColdTargets int
}

// Warm is what the warm section (the last warmEntries+1 offset-index entries) covers.
type Warm struct {
	Entries int // warmEntries + 1 = 1025
	// CoveredBytes is the log the warm section's entries span in the fullest segment: the whole
	// segment when it has at most Entries entries, else Entries × its mean entry spacing.
	CoveredBytes int64
	WholeSegment bool
}

// Maps is the memory-map count at scale: every segment maps its .index and .timeindex.
type Maps struct {
	Partitions       int
	SegmentsPerPart  int
	Maps             int64
	MaxMapCount      int64
	Headroom         int64 // MaxMapCount - Maps (negative: over the limit)
	MaxPartitions    int64 // partitions that fit under MaxMapCount at SegmentsPerPart
	SegmentsObserved bool  // SegmentsPerPart came from the workload, not --retained-segments
}

// aggregate adds up segment summaries as the model closes them.
type aggregate struct {
	segments, nonEmpty, indexFullRolls int
	batches, entries, timeEntries      int64
	logBytes, maxBatch                 int64
	maxEntries                         int
	maxEntriesSize                     int64
	largestSize                        int64
}

func (a *aggregate) add(s model.SegmentSummary) {
	a.segments++
	if s.BatchCount > 0 {
		a.nonEmpty++
	}
	a.batches += int64(s.BatchCount)
	a.entries += int64(s.OffsetIndexEntries)
	a.timeEntries += int64(s.TimeIndexEntries)
	a.logBytes += s.SizeBytes
	a.maxBatch = max(a.maxBatch, s.MaxBatchBytes)
	a.largestSize = max(a.largestSize, s.SizeBytes)
	if s.OffsetIndexEntries > a.maxEntries || (s.OffsetIndexEntries == a.maxEntries && s.SizeBytes > a.maxEntriesSize) {
		a.maxEntries, a.maxEntriesSize = s.OffsetIndexEntries, s.SizeBytes
	}
	if s.RollReason == model.RollOffsetIndexFull || s.RollReason == model.RollTimeIndexFull {
		a.indexFullRolls++
	}
}

// finishPoint turns a run's counters into the point's figures.
func finishPoint(r *run, ref *run, shape sourceShape, rep *WhatIf) {
	p, a := r.point, r.agg
	p.Segments, p.Batches = a.segments, a.batches
	p.OffsetIndexEntries, p.TimeIndexEntries = a.entries, a.timeEntries
	p.DensestEntries = ref.agg.entries
	p.MaxEntriesPerSegment = a.maxEntries
	p.IndexBytes = a.entries * model.OffsetIndexEntrySize
	p.TimeIndexBytes = a.timeEntries * model.TimeIndexEntrySize
	p.LogBytes, p.MaxBatchBytes, p.IndexFullRolls = a.logBytes, a.maxBatch, a.indexFullRolls
	p.MaxAppendBytes = max(a.maxBatch, shape.maxAppendBytes)
	p.Rejected = r.rejected
	p.Restarts = shape.restarts
	for _, e := range r.events {
		if e.Kind == model.EventOffsetIndexFull || e.Kind == model.EventTimeIndexFull {
			p.OverflowEvents = append(p.OverflowEvents, e)
		}
	}
	p.Scan = r.stats
	p.ScanQ, p.HopsQ = map[Quantile]int64{}, map[Quantile]int64{}
	for _, q := range ReportedQuantiles {
		p.ScanQ[q], p.HopsQ[q] = r.scan.Quantile(q), r.hops.Quantile(q)
	}
	p.ScanCDF = r.scan.CDF()

	cfg := p.Config
	switch {
	case p.Batches == 0:
		p.Regime = Empty
	case p.OffsetIndexEntries == p.DensestEntries:
		// Before the cliff: an index empty because nothing can be indexed is the plateau.
		p.Regime = Plateau
	case p.OffsetIndexEntries == 0:
		p.Regime = Cliff
	default:
		p.Regime = Thinning
	}
	// ScanBound (docs/contract.md §6): per-batch, I + the batch before the hit; per-append, I + the
	// largest append. The largest batch (append) bounds both.
	grow := p.MaxBatchBytes
	if p.Rule == model.PerAppend {
		grow = p.MaxAppendBytes
	}
	p.BoundLimit = min(cfg.IndexIntervalBytes+grow, cfg.SegmentBytes)
	p.BoundSlack = p.BoundLimit - p.Scan.MaxScanBytes

	p.Phase1 = phase1For(a.maxEntries)
	p.Warm = warmFor(a.maxEntries, a.maxEntriesSize, a.largestSize)
	p.Maps = mapsFor(rep.Scale, a.segments)
	p.OverflowHazard = len(p.OverflowEvents) > 0 || (p.Rule == model.PerBatch && shape.multiBatch && p.IndexFullRolls > 0)
	p.VersionWarnings = versionWarnings(cfg, rep.KafkaVersion, p.Producer)
	p.Exposure = exposureOf(cfg, p.Era, shape.sizes, timestampsGrow(p))
	if p.IndexFullRolls > 0 && !p.Exposure.Exposed {
		// The run itself filled an index before segment.bytes: exposed, whatever the
		// timestamps' guess (the spacing is the least these batches allow, so only a time
		// index taken for the offset one can get here).
		p.Exposure = exposureOf(cfg, p.Era, shape.sizes, true)
		p.Exposure.Exposed, p.Exposure.Remedy = true, remedyFor(cfg)
	}
}

// timestampsGrow says the point's indexed batches brought newer max timestamps (a producer's
// CreateTime): its time index took an entry for at least half of its offset entries. Where
// timestamps do not grow the time index holds one entry a segment and only the offset index
// can fill; an empty offset index tells nothing, and the time index (the smaller) is assumed.
func timestampsGrow(p *Point) bool {
	return p.OffsetIndexEntries == 0 || 2*p.TimeIndexEntries >= p.OffsetIndexEntries
}

func warmFor(entries int, size, largest int64) Warm {
	w := Warm{Entries: model.WarmEntries(model.OffsetIndexEntrySize) + 1}
	if entries <= w.Entries {
		w.WholeSegment = true
		w.CoveredBytes = max(size, largest)
		return w
	}
	w.CoveredBytes = size * int64(w.Entries) / int64(entries)
	return w
}

func mapsFor(sc Scale, segments int) Maps {
	m := Maps{Partitions: sc.Partitions, SegmentsPerPart: sc.RetainedSegments, MaxMapCount: sc.MaxMapCount}
	if m.SegmentsPerPart <= 0 {
		m.SegmentsPerPart, m.SegmentsObserved = max(segments, 1), true
	}
	m.Maps = int64(m.Partitions) * int64(m.SegmentsPerPart) * 2
	m.Headroom = m.MaxMapCount - m.Maps
	m.MaxPartitions = m.MaxMapCount / (2 * int64(m.SegmentsPerPart))
	return m
}

// versionWarnings lists what the given release would refuse or surprise with (docs/kafka.md §9).
func versionWarnings(cfg model.Config, version string, producer []Setting) []string {
	out, _ := model.VersionWarnings(cfg, version)
	if cfg.MaxMessageBytes > cfg.SegmentBytes {
		out = append(out, fmt.Sprintf("max.message.bytes=%d is above segment.bytes=%d: a batch of %d..%d bytes passes the "+
			"message-size check and is then rejected by the segment-size check (RecordBatchTooLargeException)",
			cfg.MaxMessageBytes, cfg.SegmentBytes, cfg.SegmentBytes+1, cfg.MaxMessageBytes))
	}
	for _, s := range producer {
		if s.Key == "linger.ms" {
			if v, err := model.ParseKafkaVersion(version); err == nil && v.Major >= 4 && s.Value == 0 {
				out = append(out, "linger.ms=0 is an explicit setting from Kafka 4.0 on: the producer default became 5 (KAFKA-16368)")
			}
		}
	}
	return out
}

// SweptValue is the point's value of a swept key: a topic config or a producer setting.
func (p *Point) SweptValue(key string) int64 {
	if IsProducerKey(key) {
		for _, x := range p.Producer {
			if x.Key == key {
				return x.Value
			}
		}
		return 0
	}
	v, _ := p.Config.Get(key)
	return v
}
