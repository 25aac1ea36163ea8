package props

import (
	"kidx/model"
)

// Run is a workload's model run with what the properties need and the model does not keep:
// where each segment's byte counter was reset, and where each append landed.
type Run struct {
	Log      *model.Log
	Segments []*model.Segment
	Traces   []SegmentTrace // parallel to Segments
	Err      error          // the input was invalid (a bug in the generator)
}

// SegmentTrace records one segment's history.
type SegmentTrace struct {
	// Resets are the positions where bytesSinceLastIndexEntry was 0 before a batch was
	// appended: 0 (the segment's start), and the segment's size at every restart and
	// recovery (semantics §2: the counter starts at 0 whenever a LogSegment is constructed).
	Resets []int64
	// MidReset says a restart or recovery happened inside the segment, after its first
	// batch: the "one process lifetime" premise of ScanBound does not hold.
	MidReset bool
	// Appends are the [start, end) byte ranges of the appends that landed in the segment.
	Appends [][2]int64
}

func simulate(steps []model.Step, start int64, cfg model.Config, rule model.AppendRule, mutant model.Mutant) *Run {
	r := &Run{}
	l, err := model.NewLog(cfg, rule, model.LogOptions{StartOffset: start, KeepSegments: true, Mutant: mutant})
	if err != nil {
		r.Err = err
		return r
	}
	r.Log = l
	r.Traces = []SegmentTrace{{Resets: []int64{0}}}
	for _, s := range steps {
		if l.Stopped() {
			break
		}
		events := len(l.Events())
		if err := l.Apply(s); err != nil {
			r.Err = err
			return r
		}
		for l.SegmentCount() > len(r.Traces) {
			r.Traces = append(r.Traces, SegmentTrace{Resets: []int64{0}})
		}
		t := &r.Traces[len(r.Traces)-1]
		size := l.Active().Size()
		switch {
		case s.Restart:
			t.Resets = append(t.Resets, size)
			t.MidReset = t.MidReset || size > 0
		case s.Recover:
			// recover() rebuilds the index from position 0 with its own counter; the segment
			// object's counter then starts at 0 at the end.
			t.Resets = []int64{0, size}
			t.MidReset = t.MidReset || size > 0
		default:
			if len(l.Events()) == events {
				t.Appends = append(t.Appends, [2]int64{size - s.AppendBytes(), size})
			}
		}
	}
	if err := l.Close(); err != nil {
		r.Err = err
		return r
	}
	r.Segments = l.Segments()
	return r
}

// Stopped reports whether Kafka would have thrown (an index overflow stopped the log).
func (r *Run) Stopped() bool { return r.Log != nil && r.Log.Stopped() }

// Entries is the total number of offset-index entries.
func (r *Run) Entries() int {
	n := 0
	for _, s := range r.Segments {
		n += s.OffsetIndex().Entries()
	}
	return n
}

// candidates are the offsets of a segment where the lookup cost can change: each batch's
// base and last offset, and around every entry's offset. Every run of offsets sharing one
// cost (SPEC §5) starts at one of them, so a per-offset claim checked on them holds for all.
func candidates(s *model.Segment) []int64 {
	var out []int64
	for _, b := range s.Batches() {
		out = append(out, b.BaseOffset, b.LastOffset)
	}
	for _, e := range s.OffsetIndex().All() {
		out = append(out, e.Offset-1, e.Offset)
	}
	return out
}

// indexFullRoll reports whether a segment rolled because an index was full.
func (r *Run) indexFullRoll() bool {
	for _, s := range r.Segments {
		if s.RollReason() == model.RollOffsetIndexFull || s.RollReason() == model.RollTimeIndexFull {
			return true
		}
	}
	return false
}
