package reports

import (
	"fmt"
	"strings"

	"kidx/logdir"
	"kidx/model"
)

// A partition's exposure to the follower index overflow (issue 23, docs/kafka-hazards.md §4),
// from its files: can an index fill before segment.bytes with the batch sizes the partition
// holds, under the topic config analyze knows (--config) or infers, for the release lines its
// files show?

// PartitionExposure is one partition's exposure and what it was computed from.
type PartitionExposure struct {
	Exposure
	// Config holds the settings used: index.interval.bytes, segment.bytes and
	// segment.index.bytes.
	Config model.Config
	// Assumed names each setting not given with --config, with its value's source.
	Assumed []string
	// PerBatch: the newest segment's files allow a release with the per-batch rule (3.9.1,
	// 4.0.1, 4.1+), where a follower's fetch throws; Older: they allow an earlier release
	// (with a time index), where only a recovery can. With --kafka-version, that release's.
	PerBatch, Older bool
}

// Sentence is the exposure in one sentence with the remedy and the settings assumed; "" when
// not exposed.
func (e *PartitionExposure) Sentence() string {
	if e == nil || !e.Exposed {
		return ""
	}
	x := e.Exposure
	x.PerBatch = e.PerBatch
	s := x.Sentence(e.Config, "releases before 3.9.1 and 4.0.1")
	if e.PerBatch && e.Older {
		s += " (Under releases before 3.9.1 and 4.0.1, which these files also fit, only a recovery of a follower's segment can throw.)"
	}
	if len(e.Assumed) > 0 {
		s += " Settings not given (--config): " + strings.Join(e.Assumed, "; ") + "."
	}
	return s
}

// partitionExposure computes pr's exposure: sizes are its batch sizes, pv verify's verdict
// on it (the interval the entries allow, the eras), judge the options given.
func partitionExposure(pr *PartitionReport, sizes *batchSizes, pv *logdir.PartitionVerdict, judge logdir.VerifyOptions) *PartitionExposure {
	if sizes == nil || sizes.count == 0 {
		return nil
	}
	e := &PartitionExposure{Config: model.DefaultConfig()}
	cfg := &e.Config
	switch {
	case judge.HaveInterval:
		cfg.IndexIntervalBytes = judge.IndexIntervalBytes
	case pv.IntervalKnown && pv.Interval < cfg.IndexIntervalBytes:
		cfg.IndexIntervalBytes = pv.Interval
		e.Assumed = append(e.Assumed, fmt.Sprintf("index.interval.bytes=%d, the largest the entries allow", pv.Interval))
	case pv.IntervalKnown:
		e.Assumed = append(e.Assumed, fmt.Sprintf("index.interval.bytes=%d, Kafka's default (the entries allow up to %d)", cfg.IndexIntervalBytes, pv.Interval))
	default:
		e.Assumed = append(e.Assumed, fmt.Sprintf("index.interval.bytes=%d, Kafka's default (no entry tells)", cfg.IndexIntervalBytes))
	}
	if judge.SegmentIndexBytes > 0 {
		cfg.SegmentIndexBytes = judge.SegmentIndexBytes
	} else if b, base, ok := liveIndexBytes(pr.Live); ok {
		// A live index is preallocated to segment.index.bytes rounded down to whole entries
		// (AbstractIndex: roundDownToExactMultiple): the larger of the two files' sizes gives
		// both capacities.
		cfg.SegmentIndexBytes = b
		e.Assumed = append(e.Assumed, fmt.Sprintf("segment.index.bytes=%d, from the live segment %d's preallocated indexes", b, base))
	} else {
		e.Assumed = append(e.Assumed, fmt.Sprintf("segment.index.bytes=%d, Kafka's default (no live segment shows it)", cfg.SegmentIndexBytes))
	}
	if judge.SegmentBytes > 0 {
		cfg.SegmentBytes = judge.SegmentBytes
	} else {
		e.Assumed = append(e.Assumed, fmt.Sprintf("segment.bytes=%d, Kafka's default", cfg.SegmentBytes))
	}
	eras := logdir.AllEras
	if n := len(pv.Segments); n > 0 && !pv.Segments[n-1].EraSet().Empty() {
		eras = pv.Segments[n-1].EraSet()
	}
	if judge.Era != nil {
		eras = logdir.EraSetOf(*judge.Era)
	}
	for _, era := range eras.Eras() {
		switch {
		case era.OffsetEntry == logdir.EntryBatchLast:
			e.PerBatch = true
		case era.TimeEntry != logdir.TimeNone:
			e.Older = true
		}
	}
	rule := model.EraForRule(model.PerAppend)
	if e.PerBatch {
		rule = model.EraForRule(model.PerBatch)
	}
	grow := pr.OffsetIndexEntries == 0 || 2*pr.TimeIndexEntries >= pr.OffsetIndexEntries
	e.Exposure = exposureOf(*cfg, rule, sizes, grow)
	return e
}

// liveIndexBytes is segment.index.bytes as a live segment's preallocated indexes show it.
func liveIndexBytes(live []LiveReport) (int64, int64, bool) {
	for _, l := range live {
		b := max(int64(l.IndexSlots)*model.OffsetIndexEntrySize, int64(l.TimeSlots)*model.TimeIndexEntrySize)
		if b > 0 {
			return b, l.BaseOffset, true
		}
	}
	return 0, 0, false
}
