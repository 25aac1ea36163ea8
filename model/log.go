package model

import (
	"errors"
	"fmt"
	"strings"
)

// RollReason says which condition of LogSegment.shouldRoll rolled a segment (docs/kafka.md §8).
type RollReason string

// The roll conditions, in the order shouldRoll tests them.
const (
	RollSize             RollReason = "size"
	RollTime             RollReason = "time"
	RollOffsetIndexFull  RollReason = "offset-index-full"
	RollTimeIndexFull    RollReason = "time-index-full"
	RollOffsetOutOfRange RollReason = "relative-offset-overflow"
	// RollIndexRoom is candidate fix (a)'s roll (Era.RollWhenAppendLacksIndexRoom): an index
	// has fewer free slots than the append has batches.
	RollIndexRoom RollReason = "index-room"
	// RollForced is a "roll" step of the workload.
	RollForced RollReason = "forced"
	rollNone   RollReason = ""
)

// Event kinds (docs/contract.md §4; offset-overflow is kidx's addition for an append spanning more than
// 2^31 offsets, LogSegmentOffsetOverflowException).
const (
	EventRejected         = "rejected"
	EventOffsetIndexFull  = "offset-index-overflow"
	EventTimeIndexFull    = "time-index-overflow"
	EventOffsetOutOfRange = "offset-overflow"
)

// An Event is something Kafka would throw on (docs/contract.md §4): an append rejected before it is
// written, or an index overflow inside LogSegment.append or LogSegment.recover.
type Event struct {
	Kind string `json:"kind"`
	// Step is the 0-based index into the workload's batches or steps.
	Step int `json:"step"`
	// Bytes is the append's size (rejected appends).
	Bytes int64 `json:"bytes,omitempty"`
	// Message is the text of Kafka's exception.
	Message string `json:"message"`
}

// ErrStopped is returned for steps given after an index overflow stopped the log: Kafka
// threw, and the model does not guess what the broker would do next.
var ErrStopped = errors.New("the log stopped at an earlier index overflow")

// LogOptions tune what a Log keeps.
type LogOptions struct {
	// StartOffset is the first offset (and the first segment's base offset).
	StartOffset int64
	// KeepSegments keeps every rolled segment with its batches and indexes, for lookups and
	// full output. Without it a rolled segment is reduced to a SegmentSummary and its memory
	// is reused, so a log of any length runs in the memory of one segment.
	KeepSegments bool
	// Mutant breaks one of Kafka's rules on purpose (props' mutation tests); Exact otherwise.
	Mutant Mutant
	// Era, when set, selects a Kafka era's rules (docs/kafka.md §13) in place of the rule
	// NewLog is given; the zero Era means the rule's own era (EraForRule).
	Era Era
	// OnSegmentDone, if set, sees every segment once it is final: at its roll, and the last
	// one at Close. The segment must not be kept unless KeepSegments is set.
	OnSegmentDone func(*Segment)
	// ForgetRolled keeps not even a summary of a rolled segment (Summaries then has only the
	// active one): for streamed runs whose OnSegmentDone sees every segment.
	ForgetRolled bool
	// ForgetBatches keeps only the last append's batches of the active segment, so that a
	// segment of any length costs the memory of one append and its index entries (issue 27:
	// a 2 GiB segment of 68-byte batches is 31.6 M batches, 40 bytes each when kept). The
	// append rule, the roll checks, a clean restart and the scan walk read no earlier batch,
	// so every figure is the same; what needs them is refused with an error: a recover or a
	// crash step (LogSegment.recover and the truncation read every batch) and lookups.
	// Segment.Runs is then not available: OnRun gets the runs as the appends are walked.
	ForgetBatches bool
	// OnRun, with ForgetBatches, sees every run of offsets that share one lookup cost, per
	// append once it succeeded (the same runs Segment.Runs gives, in no particular order).
	OnRun func(count, scanBytes, hops int64)
}

// SegmentSummary is what remains of a rolled segment when segments are not kept.
type SegmentSummary struct {
	BaseOffset         int64
	LastOffset         int64
	SizeBytes          int64
	BatchCount         int
	OffsetIndexEntries int
	TimeIndexEntries   int
	MaxBatchBytes      int64
	RollReason         RollReason
	Scan               ScanStats
	// Cleaned: the log cleaner wrote the segment (Segment.Cleaned).
	Cleaned bool
}

// Summarize reduces a segment to its summary.
func (s *Segment) Summarize() SegmentSummary {
	maxBatch := s.maxBatch // ForgetBatches: the batches are gone
	if !s.forget {
		maxBatch = 0
		for i := range s.batches {
			maxBatch = max(maxBatch, s.batches[i].Size)
		}
	}
	return SegmentSummary{
		BaseOffset: s.baseOffset, LastOffset: s.LastOffset(), SizeBytes: s.size, BatchCount: s.BatchCount(),
		OffsetIndexEntries: s.offsetIndex.Entries(), TimeIndexEntries: s.timeIndex.Entries(),
		MaxBatchBytes: maxBatch, RollReason: s.rollReason, Scan: s.Scan(), Cleaned: s.cleaned,
	}
}

// Log is the model of one partition's log: it plays UnifiedLog's part (assign offsets,
// reject oversized appends, roll) over Segments, and applies restart, recover and crash steps.
type Log struct {
	cfg  Config
	rule AppendRule
	era  *Era
	opts LogOptions

	kept      []*Segment
	summaries []SegmentSummary
	active    *Segment

	nextOffset int64
	step       int
	events     []Event
	stopped    bool
	total      ScanStats
	finished   bool
	decisions  *decisionRange
	// dropActive: the step that stopped the log had rolled to a new segment, which Kafka
	// left empty when it threw. docs/contract.md §4 shows the state up to the previous step, so that
	// segment is not shown.
	dropActive bool
}

// NewLog creates an empty log with one empty active segment.
func NewLog(cfg Config, rule AppendRule, opts LogOptions) (*Log, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rule != PerBatch && rule != PerAppend {
		return nil, fmt.Errorf("unknown append rule %d", int(rule))
	}
	if opts.StartOffset < 0 {
		return nil, fmt.Errorf("start offset %d is negative", opts.StartOffset)
	}
	era := opts.Era
	if era.ID == "" {
		era = EraForRule(rule)
	}
	decisions := newDecisionRange()
	if opts.ForgetBatches && opts.Mutant != Exact {
		return nil, errors.New("ForgetBatches runs Kafka's exact rules only (a mutant's entry may name an earlier batch)")
	}
	l := &Log{cfg: cfg, rule: era.Rule(), era: &era, opts: opts, nextOffset: opts.StartOffset, decisions: decisions}
	active, err := l.newSegment(opts.StartOffset, nil)
	if err != nil {
		return nil, err
	}
	l.active = active
	return l, nil
}

// newSegment starts a segment at base with the log's options, reusing recycled's memory.
func (l *Log) newSegment(base int64, recycled []BatchInfo) (*Segment, error) {
	s, err := newSegment(base, l.cfg, recycled, l.opts.Mutant, l.era, l.decisions)
	if err != nil {
		return nil, err
	}
	if l.opts.ForgetBatches {
		s.forget, s.onRun = true, l.opts.OnRun
	}
	return s, nil
}

// errForgotten refuses what needs the batches a ForgetBatches log let go.
func errForgotten(what string) error {
	return fmt.Errorf("%s reads every batch of the segment, which this log does not keep (LogOptions.ForgetBatches)", what)
}

// IntervalRange is the closed range of index.interval.bytes values under which this run so far
// would be exactly the same (every index check deciding as it did: docs/model.md, "Exact
// interval breakpoints"). The log's own interval is always in it; the index changes only
// outside it.
func (l *Log) IntervalRange() (lo, hi int64) { return l.decisions.lo, l.decisions.hi }

// Era is the Kafka era whose rules the log follows.
func (l *Log) Era() Era { return *l.era }

// Config is the log's configuration.
func (l *Log) Config() Config { return l.cfg }

// Rule is the log's append rule.
func (l *Log) Rule() AppendRule { return l.rule }

// Active is the active (last) segment.
func (l *Log) Active() *Segment { return l.active }

// NextOffset is the log end offset.
func (l *Log) NextOffset() int64 { return l.nextOffset }

// Events lists the rejections and overflows so far.
func (l *Log) Events() []Event { return l.events }

// Stopped reports whether an index overflow stopped the log.
func (l *Log) Stopped() bool { return l.stopped }

// Steps is the number of steps applied or attempted so far.
func (l *Log) Steps() int { return l.step }

// Segments returns the kept rolled segments followed by the active one. Without
// KeepSegments only the active segment is returned.
func (l *Log) Segments() []*Segment {
	out := make([]*Segment, 0, len(l.kept)+1)
	out = append(out, l.kept...)
	if l.dropActive {
		return out
	}
	return append(out, l.active)
}

// Summaries returns a summary of every segment, rolled and active, in offset order.
func (l *Log) Summaries() []SegmentSummary {
	out := make([]SegmentSummary, 0, len(l.summaries)+len(l.kept)+1)
	if l.opts.KeepSegments {
		for _, s := range l.kept {
			out = append(out, s.Summarize())
		}
	} else {
		out = append(out, l.summaries...)
	}
	if l.dropActive {
		return out
	}
	return append(out, l.active.Summarize())
}

// SegmentCount is the number of segments, the active one included.
func (l *Log) SegmentCount() int {
	n := len(l.kept) + len(l.summaries) + 1
	if l.dropActive {
		n--
	}
	return n
}

// Scan is the exact phase-2 cost over every offset of the log so far.
func (l *Log) Scan() ScanStats {
	s := l.total
	if !l.dropActive {
		s.Merge(l.active.Scan())
	}
	return s
}

// Apply runs one workload step.
func (l *Log) Apply(s Step) error {
	switch {
	case s.Crash != nil:
		return l.Crash(*s.Crash)
	case s.Clean != nil:
		return l.Clean(*s.Clean)
	case s.Restart:
		return l.Restart()
	case s.Recover && s.HasRecoveryPoint:
		return l.RecoverFrom(s.RecoveryPoint)
	case s.Recover:
		return l.Recover()
	case s.Roll:
		return l.Roll(s.RollBaseOffset)
	case s.Fetch || s.Elect:
		return fmt.Errorf("a %s step needs a replicated workload (ReplicaSet)", s.Kind())
	}
	return l.AppendFrom(s.Origin, s.Append...)
}

func (l *Log) startStep() (int, error) {
	if l.finished {
		return 0, errors.New("the log is closed")
	}
	if l.stopped {
		return 0, ErrStopped
	}
	step := l.step
	l.step++
	return step, nil
}

// Append is one UnifiedLog.append of the given batches by the leader; see AppendFrom.
func (l *Log) Append(batches ...Batch) error { return l.AppendFrom(OriginLeader, batches...) }

// AppendFrom is one UnifiedLog.append of the given batches from origin: validate, reject
// an append larger than segment.bytes, roll if shouldRoll says so, then LogSegment.append.
// Rejections and index overflows are recorded as events, not returned as errors; an error
// means the input itself is invalid (or the log stopped earlier).
func (l *Log) AppendFrom(origin Origin, batches ...Batch) error {
	step, err := l.startStep()
	if err != nil {
		return err
	}
	if len(batches) == 0 {
		return fmt.Errorf("step %d: an append needs at least one batch", step)
	}
	var size int64
	appendMaxTs := int64(NoTimestamp)
	next := l.nextOffset
	firstOffset, lastOffset := int64(-1), int64(0)
	for i, b := range batches {
		if err := b.Validate(); err != nil {
			return fmt.Errorf("step %d: batch %d: %w", step, i, err)
		}
		if b.BaseOffset > 0 && b.BaseOffset < next {
			return fmt.Errorf("step %d: batch %d: base offset %d is below %d, the offset after the previous batch: offsets must increase",
				step, i, b.BaseOffset, next)
		}
		next = max(next, b.BaseOffset)
		if firstOffset < 0 {
			firstOffset = next
		}
		next += b.Records
		lastOffset = next - 1
		size += b.Bytes
		appendMaxTs = max(appendMaxTs, b.MaxTimestamp)
	}
	// UnifiedLog.append: RecordBatchTooLargeException before maybeRoll, so nothing is
	// written, not even into an empty segment; exactly segment.bytes is accepted. Kafka
	// before 0.8.2 has no such check; trunk (KAFKA-17375) writes a follower's append anyway.
	oversizeAccepted := !l.era.SizeRollCountsAppend || (origin == OriginReplication && l.era.ReplicationAcceptsOversize)
	if size > l.cfg.SegmentBytes && !oversizeAccepted {
		l.events = append(l.events, Event{Kind: EventRejected, Step: step, Bytes: size,
			Message: fmt.Sprintf("Message batch size is %d bytes, which exceeds the maximum configured segment size of %d: Kafka rejects the append (RecordBatchTooLargeException), nothing is written.",
				size, l.cfg.SegmentBytes)})
		return nil
	}
	// rolled: this step closed the active segment and started a new one (replacing an empty
	// active segment, the KAFKA-6388 branch, is the same segment started again).
	rolled := false
	if reason := l.shouldRoll(size, len(batches), lastOffset, appendMaxTs); reason != rollNone {
		rolled = l.active.size > 0
		if err := l.roll(reason, firstOffset); err != nil {
			return l.stop(step, err)
		}
	}
	// LogSegment.append's ensureOffsetInRange: only an append spanning more than 2^31
	// offsets can fail here, after the roll; before 0.10.2 no roll prevents it (KAFKA-4451).
	if !l.active.offsetIndex.CanAppendOffset(lastOffset) {
		msg := fmt.Sprintf("Detected offset overflow at offset %d in segment %d", lastOffset, l.active.baseOffset)
		if !l.era.OverflowRoll {
			msg = fmt.Sprintf("offset %d does not fit the relative offsets of segment %d: %s has no overflow roll (KAFKA-4451, 0.10.2) and would index a wrapped relative offset",
				lastOffset, l.active.baseOffset, l.era)
		}
		l.events = append(l.events, Event{Kind: EventOffsetOutOfRange, Step: step, Message: msg})
		l.stopped = true
		l.dropActive = rolled && l.active.size == 0
		return nil
	}
	if err := l.active.appendBatches(batches, firstOffset, origin, l.cfg.IndexIntervalBytes); err != nil {
		if serr := l.stop(step, err); serr != nil {
			return serr
		}
		// The roll happened, then LogSegment.append threw: the new segment stays empty.
		l.dropActive = rolled && l.active.size == 0
		return nil
	}
	l.nextOffset = lastOffset + 1
	return nil
}

// stop records an exception Kafka throws inside the segment and stops the log.
func (l *Log) stop(step int, err error) error {
	var ie *IndexError
	if !errors.As(err, &ie) {
		return err
	}
	kind := EventOffsetIndexFull
	if ie.Kind == ErrIndexFull && strings.Contains(ie.Msg, "time index") {
		kind = EventTimeIndexFull
	}
	l.events = append(l.events, Event{Kind: kind, Step: step, Message: ie.Msg})
	l.stopped = true
	return nil
}

// shouldRoll is LogSegment.shouldRoll as UnifiedLog.maybeRoll calls it, once per append of
// batches batches.
func (l *Log) shouldRoll(appendBytes int64, batches int, lastOffset, appendMaxTs int64) RollReason {
	s := l.active
	countsAppend := l.era.SizeRollCountsAppend && l.opts.Mutant != MutantRollIgnoresAppendSize
	switch {
	// Written as Kafka writes it (size > maxSegmentBytes - messagesSize): the whole append
	// counts, and a segment may end at exactly segment.bytes.
	case countsAppend && s.size > l.cfg.SegmentBytes-appendBytes:
		return RollSize
	// Kafka 0.8.0-0.8.1 (Log.maybeRoll: segment.size > segment.bytes) roll only once the
	// segment is already past segment.bytes, so a segment overshoots by one append.
	case !countsAppend && s.size > l.cfg.SegmentBytes:
		return RollSize
	case l.era.TimeRollOnTimestamps && s.size > 0 && s.timeWaitedForRoll(appendMaxTs) > l.cfg.SegmentMs:
		return RollTime
	case s.offsetIndex.IsFull():
		return RollOffsetIndexFull
	case l.era.HasTimeIndex() && s.timeIndex.IsFull():
		return RollTimeIndexFull
	case l.era.OverflowRoll && !s.offsetIndex.CanAppendOffset(lastOffset):
		return RollOffsetOutOfRange
	// Candidate fix (a): for a single batch this is isFull again, so a leader rolls as before.
	case l.era.RollWhenAppendLacksIndexRoom && s.size > 0 && s.lacksIndexRoom(batches):
		return RollIndexRoom
	}
	return rollNone
}

// roll is LocalLog.roll: the old active segment becomes inactive (final time-index entry,
// trimmed indexes) and a new segment starts at the log end offset, or from 2.0 (KAFKA-6264)
// at max(log end offset, the append's first offset). An empty active segment is replaced
// rather than kept (the KAFKA-6388 branch of LocalLog.roll).
func (l *Log) roll(reason RollReason, appendFirst int64) error {
	base := l.nextOffset
	if l.era.RollToFirstOffset || reason == RollForced {
		base = max(base, appendFirst)
	}
	old := l.active
	if old.size == 0 {
		fresh, err := l.newSegment(base, old.batches)
		if err != nil {
			return err
		}
		l.active = fresh
		return nil
	}
	if err := old.onBecomeInactive(); err != nil {
		return err
	}
	old.rollReason = reason
	if l.opts.OnSegmentDone != nil {
		l.opts.OnSegmentDone(old)
	}
	var recycled []BatchInfo
	switch {
	case l.opts.KeepSegments:
		l.kept = append(l.kept, old)
	case l.opts.ForgetRolled:
		// Keep nothing of it, so a streamed run's memory is one segment's whatever its
		// length (kidx sim --records 100G, issue 11 defect 9).
		recycled = old.batches
	default:
		l.summaries = append(l.summaries, old.Summarize())
		recycled = old.batches
	}
	l.total.Merge(old.Scan())
	fresh, err := l.newSegment(base, recycled)
	if err != nil {
		return err
	}
	l.active = fresh
	return nil
}

// Roll is a roll the workload asks for (a "roll" step): LocalLog.roll for a reason outside
// the model, to max(log end offset, baseOffset).
func (l *Log) Roll(baseOffset int64) error {
	step, err := l.startStep()
	if err != nil {
		return err
	}
	if err := l.roll(RollForced, baseOffset); err != nil {
		return l.stop(step, err)
	}
	return nil
}

// Restart is a clean broker restart: the active segment is closed (final time-index entry,
// trimmed indexes) and reopened by a new LogSegment object, whose byte counter is 0.
func (l *Log) Restart() error {
	step, err := l.startStep()
	if err != nil {
		return err
	}
	if err := l.active.onBecomeInactive(); err != nil {
		return l.stop(step, err)
	}
	l.active.reopen(l.cfg)
	return nil
}

// Recover is an unclean restart: LogLoader recovers the active segment (LogSegment.recover
// rebuilds both indexes per batch). An index overflow inside recover is an event.
func (l *Log) Recover() error {
	if l.opts.ForgetBatches {
		return errForgotten("a recover (LogSegment.recover)")
	}
	step, err := l.startStep()
	if err != nil {
		return err
	}
	if err := l.active.recover(l.cfg); err != nil {
		return l.stop(step, err)
	}
	return nil
}

// Close closes the log as a clean shutdown does: the active segment gets its final
// time-index entry and trimmed indexes. Every segment is then as docs/contract.md §4 shows it.
func (l *Log) Close() error {
	if l.finished {
		return nil
	}
	l.finished = true
	if l.dropActive {
		return nil
	}
	if err := l.active.onBecomeInactive(); err != nil {
		return err
	}
	if l.opts.OnSegmentDone != nil {
		l.opts.OnSegmentDone(l.active)
	}
	return nil
}
