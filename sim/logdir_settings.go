package sim

import (
	"fmt"
	"math"
	"math/bits"

	"kidx/model"
	"kidx/segment"
)

// A ReplaySetting is a topic setting a replay runs, and how it was obtained: read off the files
// (FromFiles, with the range they allow), or assumed (Why says why the files cannot tell).
type ReplaySetting struct {
	Key       string
	Value     int64
	FromFiles bool
	// Lo, Hi are the values the files allow (FromFiles; Hi math.MaxInt64: no upper bound).
	Lo, Hi int64
	// Default: an assumed value that is Kafka's default.
	Default bool
	Why     string
}

// Assumed says an assumed setting in a few words: "assumed the default 1073741824".
func (s ReplaySetting) Assumed() string {
	if s.Default {
		return fmt.Sprintf("assumed the default %d", s.Value)
	}
	return fmt.Sprintf("assumed %d", s.Value)
}

// Note says the setting in a sentence for the report.
func (s ReplaySetting) Note() string {
	if s.FromFiles {
		return fmt.Sprintf("%s=%d from the files: %s", s.Key, s.Value, s.Why)
	}
	return fmt.Sprintf("%s not known from the files: %s: %s", s.Key, s.Assumed(), s.Why)
}

// replaySegment is what the replay's steps and the files say about one segment.
type replaySegment struct {
	size         int64 // bytes appended
	beforeLast   int64 // size before its last append
	firstAppend  int64 // bytes of its first append
	firstTs      int64 // max timestamp of its first batch (-1: none)
	maxSpan      int64 // largest append max timestamp - firstTs over its later appends
	entries      int   // valid offset-index entries in the files
	timeEntries  int   // valid time-index entries in the files
	indexSize    int64 // the .index file's size when the file is untrimmed (live), else -1
	timeSize     int64 // the .timeindex file's size when untrimmed, else -1
	hasIndexFile bool
}

// withIndexFigures adds to the segments' figures (the replay's check pass takes them from the
// steps as they pass by, replayStream.shape) what the index files hold.
func withIndexFigures(segs []replaySegment, files []segment.SegmentFiles) []replaySegment {
	for i := range segs {
		if i >= len(files) {
			break
		}
		sf := files[i]
		if sf.Index != "" {
			if x, err := segment.OpenOffsetIndex(sf.Index, sf.BaseOffset); err == nil {
				segs[i].hasIndexFile, segs[i].entries = true, x.ValidLen()
				if x.Untrimmed() {
					segs[i].indexSize = x.FileSize
				}
			}
		}
		if sf.TimeIndex != "" {
			if x, err := segment.OpenTimeIndex(sf.TimeIndex, sf.BaseOffset); err == nil {
				segs[i].timeEntries = x.ValidLen()
				if x.Untrimmed() {
					segs[i].timeSize = x.FileSize
				}
			}
		}
	}
	return segs
}

// inferSettings reads segment.index.bytes, segment.bytes and segment.ms off the files where
// they can be, and otherwise assumes a value that keeps the model from rolling inside any of
// the files' segments (the roll steps place the boundaries), saying why.
func (r *LogDirReplay) inferSettings(files []segment.SegmentFiles) {
	segs := withIndexFigures(r.shapes, files)
	indexBytes := inferIndexBytes(segs)
	r.Settings = []ReplaySetting{r.intervalSetting(), indexBytes, inferSegmentBytes(segs, indexBytes, r.Era), inferSegmentMs(segs)}
}

// intervalSetting says where the replay's index.interval.bytes comes from (chooseSettings).
func (r *LogDirReplay) intervalSetting() ReplaySetting {
	s := ReplaySetting{Key: "index.interval.bytes", Value: r.Interval}
	iv := r.Explanation.Interval
	if iv.Empty() || !iv.Contains(r.Interval) {
		s.Why = "no one value reproduces every segment's entries (see kidx explain)"
		return s
	}
	s.FromFiles, s.Lo, s.Hi = true, iv.Min(), iv.Max()
	s.Why = fmt.Sprintf("the entries allow %s", iv)
	if s.Lo != s.Hi {
		s.Why += fmt.Sprintf(" (every value gives the same entries; the replay runs %d)", r.Interval)
	}
	return s
}

// inferIndexBytes: an untrimmed (live) index is preallocated to segment.index.bytes rounded
// down to whole entries (AbstractIndex: roundDownToExactMultiple(maxIndexSize, entrySize)), so
// its size bounds segment.index.bytes to [size, size + entry size - 1]; both indexes of a live
// segment narrow it further. Closed segments' indexes are trimmed (LogSegment.onBecomeInactive)
// and tell nothing but a lower bound.
func inferIndexBytes(segs []replaySegment) ReplaySetting {
	lo, hi := int64(0), int64(math.MaxInt32)
	bounded := false
	for _, s := range segs {
		lo = max(lo, int64(s.entries)*model.OffsetIndexEntrySize, int64(s.timeEntries)*model.TimeIndexEntrySize)
		if s.indexSize >= 0 {
			lo, hi, bounded = max(lo, s.indexSize), min(hi, s.indexSize+model.OffsetIndexEntrySize-1), true
		}
		if s.timeSize >= 0 {
			lo, hi, bounded = max(lo, s.timeSize), min(hi, s.timeSize+model.TimeIndexEntrySize-1), true
		}
	}
	set := ReplaySetting{Key: "segment.index.bytes"}
	if bounded && lo <= hi {
		set.FromFiles, set.Lo, set.Hi = true, lo, hi
		set.Value = lo
		if lo <= model.DefaultSegmentIndexBytes && model.DefaultSegmentIndexBytes <= hi {
			set.Value = model.DefaultSegmentIndexBytes
		}
		set.Why = fmt.Sprintf("a live segment's preallocated index file puts it in [%d, %d]", lo, hi)
		return set
	}
	set.Value = max(model.DefaultSegmentIndexBytes, lo)
	set.Default = set.Value == model.DefaultSegmentIndexBytes
	set.Why = fmt.Sprintf("no live segment, whose preallocated index would show it (the closed segments' trimmed indexes only show it is at least %d)", lo)
	return set
}

// inferSegmentBytes reads segment.bytes off the rolls (UnifiedLog.maybeRoll ->
// LogSegment.shouldRoll). From 0.8.2 a roll happens before an append when size >
// segment.bytes - append bytes: every segment holds at most segment.bytes (each of its appends
// fit), and a segment that rolled for size was followed by an append that did not fit, so
//
//	max(size_k) <= segment.bytes <= min over size rolls (size_k + next append_k - 1).
//
// Before 0.8.2 the roll comes once size > segment.bytes, after the append that passed it:
// size_k before its last append <= segment.bytes <= size_k - 1. A roll the index explains
// (the offset or time index full at segment.index.bytes) is not a size roll; any other roll
// is taken for one. It takes two rolls or more to read segment.bytes off the files: they check
// each other, where a single roll may as well be by time, by the cleaner or forced. When the
// rolls leave no value, or there is at most one, the files do not tell segment.bytes: it is
// assumed, the default (or the largest segment, when that is larger).
func inferSegmentBytes(segs []replaySegment, indexBytes ReplaySetting, era model.Era) ReplaySetting {
	lo, hi := int64(0), int64(math.MaxInt32)
	rolls := 0
	maxEntries := indexBytes.Value / model.OffsetIndexEntrySize
	maxTimeEntries := indexBytes.Value / model.TimeIndexEntrySize
	for k, s := range segs {
		closed := k+1 < len(segs)
		if era.SizeRollCountsAppend {
			lo = max(lo, s.size)
		} else {
			lo = max(lo, s.beforeLast)
		}
		if !closed || s.size == 0 {
			continue
		}
		if indexBytes.FromFiles && (int64(s.entries) >= maxEntries || (era.HasTimeIndex() && int64(s.timeEntries) >= maxTimeEntries)) {
			continue // an index-full roll
		}
		rolls++
		if era.SizeRollCountsAppend {
			hi = min(hi, s.size+segs[k+1].firstAppend-1)
		} else {
			hi = min(hi, s.size-1)
		}
	}
	set := ReplaySetting{Key: "segment.bytes"}
	switch {
	case rolls == 1 && lo <= hi:
		// One roll fits a size roll, but nothing checks that it was one.
		set.Why = fmt.Sprintf("the one roll fits segment.bytes in [%d, %d] if it was by size, but one roll cannot tell a roll by size "+
			"from one by time, by the cleaner or forced", lo, hi)
	case rolls > 1 && lo <= hi:
		set.FromFiles, set.Lo, set.Hi = true, lo, hi
		set.Value = roundIn(lo, hi, model.DefaultSegmentBytes)
		set.Why = fmt.Sprintf("the %d rolls put it in [%d, %d] (the largest segment, and the first append that did not fit); the replay runs %d",
			rolls, lo, hi, set.Value)
		if set.Value != lo {
			set.Why += ", the roundest value there"
		}
		return set
	case rolls > 0:
		set.Why = "a segment rolled before its next append would have reached the size of the largest, so not every roll was by size (by time, by the cleaner or forced)"
	default:
		set.Why = "no segment rolled for size (one segment, or only index-full rolls)"
	}
	set.Value = max(int64(model.DefaultSegmentBytes), lo)
	set.Default = set.Value == model.DefaultSegmentBytes
	if !set.Default {
		set.Why += "; the largest segment is the smallest value the files allow"
	}
	return set
}

// roundIn picks the value an operator most likely wrote among [lo, hi]: the default, else a
// power of two, else a whole number of MiB, else lo, the smallest the files allow. Every
// value there gives the same segments for this workload.
func roundIn(lo, hi, def int64) int64 {
	if lo <= def && def <= hi {
		return def
	}
	if lo > 0 {
		if p := int64(1) << bits.Len64(uint64(lo-1)); p <= hi {
			return p
		}
	}
	const mib = 1 << 20
	if m := (lo + mib - 1) / mib * mib; m <= hi {
		return m
	}
	return lo
}

// inferSegmentMs: a time roll (LogSegment.shouldRoll: the append's max timestamp minus the
// segment's first batch's exceeds segment.ms - jitter) shows only as a roll size does not
// explain, so the files never tell segment.ms. The replay must not roll inside a segment: the
// default when no segment spans more, else no time roll at all.
func inferSegmentMs(segs []replaySegment) ReplaySetting {
	var span int64
	timestamps := false
	for _, s := range segs {
		span = max(span, s.maxSpan)
		timestamps = timestamps || s.firstTs >= 0
	}
	set := ReplaySetting{Key: "segment.ms", Value: model.DefaultSegmentMs, Default: true}
	switch {
	case !timestamps:
		set.Why = "the files cannot show it (a roll by time looks like any other), and no batch carries a timestamp, so none rolls by time"
	case span <= model.DefaultSegmentMs:
		set.Why = fmt.Sprintf("the files cannot show it (a roll by time looks like any other); under the default no segment rolls by time inside the files' boundaries (their timestamps span at most %d ms)", span)
	default:
		set.Value, set.Default = math.MaxInt64, false
		set.Why = fmt.Sprintf("the files cannot show it, and a segment's timestamps span %d ms, more than the default: the replay does not roll by time", span)
	}
	return set
}
