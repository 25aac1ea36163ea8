package props

import (
	"errors"
	"slices"

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
	// recovery (docs/kafka.md §2: the counter starts at 0 whenever a LogSegment is constructed).
	Resets []int64
	// MidReset says a restart or recovery happened inside the segment, after its first
	// batch: the "one process lifetime" premise of ScanBound does not hold.
	MidReset bool
	// Appends are the [start, end) byte ranges of the appends that landed in the segment.
	Appends [][2]int64
}

func simulate(steps []model.Step, start int64, cfg model.Config, rule model.AppendRule, era *model.Era, mutant model.Mutant) *Run {
	// Inside an exhaustive walk the same workload's runs are shared (exhaustive_walk.go):
	// the properties' variant runs (Case.with, the recovery replay) come from its cache.
	if r := exhaustiveCached(steps, start, cfg, rule, era, mutant); r != nil {
		return r
	}
	p := newPartialRun(start, cfg, rule, era, mutant)
	for _, s := range steps {
		if !p.apply(s) {
			break
		}
	}
	return p.finish()
}

// partialRun is a Run before the log is closed: the state after a workload prefix. The
// exhaustive walk keeps one per prefix and extends it by one step (extend) instead of
// replaying the prefix; simulate is the same code applied to a whole workload.
type partialRun struct {
	log    *model.Log
	traces []SegmentTrace
	err    error
}

// newPartialRun starts a run under the rule's era, or under era when it is set (a candidate,
// model.ParseEraSpec: its Rule() is the rule).
func newPartialRun(start int64, cfg model.Config, rule model.AppendRule, era *model.Era, mutant model.Mutant) *partialRun {
	opts := model.LogOptions{StartOffset: start, KeepSegments: true, Mutant: mutant}
	if era != nil {
		opts.Era, rule = *era, era.Rule()
	}
	l, err := model.NewLog(cfg, rule, opts)
	if err != nil {
		return &partialRun{err: err}
	}
	return &partialRun{log: l, traces: []SegmentTrace{{Resets: []int64{0}}}}
}

// done reports whether further steps are ignored: an invalid step was seen, or Kafka would
// have thrown and stopped the log.
func (p *partialRun) done() bool { return p.err != nil || p.log.Stopped() }

// apply runs one step and records its trace; false once further steps are ignored.
func (p *partialRun) apply(s model.Step) bool {
	if p.done() {
		return false
	}
	if s.Clean != nil || s.HasRecoveryPoint {
		// CleanCase and the CleanProperties look at cleaned segments (cleaned.go).
		p.err = errors.New("a clean step, or a recover step from a recovery point, is outside the properties' step space (appends, restarts, recovers)")
		return false
	}
	if s.Crash != nil {
		p.err = errors.New("a crash step is outside the properties' step space (appends, restarts, recovers)")
		return false
	}
	l := p.log
	events := len(l.Events())
	if err := l.Apply(s); err != nil {
		p.err = err
		return false
	}
	for l.SegmentCount() > len(p.traces) {
		p.traces = append(p.traces, SegmentTrace{Resets: []int64{0}})
	}
	t := &p.traces[len(p.traces)-1]
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
	return true
}

// extend returns the state after p and then steps, leaving p unchanged (the log is cloned,
// the traces copied). A state that ignores further steps is immutable and returned as is.
func (p *partialRun) extend(steps ...model.Step) *partialRun {
	if p.done() {
		return p
	}
	q := p.fork()
	for _, s := range steps {
		if !q.apply(s) {
			break
		}
	}
	return q
}

// fork returns an independent copy of p, to be extended or finished without changing p. An
// invalid state is never changed again and is returned as is; a stopped log is copied
// because finish still closes it.
func (p *partialRun) fork() *partialRun {
	if p.err != nil {
		return p
	}
	q := &partialRun{log: p.log.Clone(), traces: make([]SegmentTrace, len(p.traces), len(p.traces)+1)}
	copy(q.traces, p.traces)
	// Only the last segment's trace can grow; clipping its slices makes an append copy them
	// rather than write into p's arrays (which p's other extensions share).
	last := &q.traces[len(q.traces)-1]
	last.Resets, last.Appends = slices.Clip(last.Resets), slices.Clip(last.Appends)
	return q
}

// finish closes the log and returns the Run; p must not be used afterwards (fork it first
// to keep it).
func (p *partialRun) finish() *Run {
	r := &Run{Log: p.log, Traces: p.traces, Err: p.err}
	if p.err != nil {
		return r
	}
	if err := p.log.Close(); err != nil {
		r.Err = err
		return r
	}
	r.Segments = p.log.Segments()
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
// cost (docs/contract.md §5) starts at one of them, so a per-offset claim checked on them holds for all.
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
