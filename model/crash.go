package model

import (
	"errors"
	"fmt"
)

// Crash is a crash step (docs/contract.md §3): an unclean shutdown (kill -9, power loss) at
// this point of the workload, then the broker's restart, loaded as Kafka 2.3+ loads a log
// (LogLoader.recoverLog; KAFKA-7283: no offset or time index sanity check at load). It says
// what survived, so that the model and the files agree on what the crash did.
type Crash struct {
	// RecoveryPoint is the offset the broker reads from recovery-point-offset-checkpoint:
	// everything below it was flushed.
	RecoveryPoint int64
	// Segments lists, oldest first, every segment whose files survived, from the first
	// unflushed one (the segment holding RecoveryPoint: the last whose base offset is at
	// most RecoveryPoint, or the first segment when RecoveryPoint is below every base).
	// Segments after the last one listed did not survive (their names never became durable).
	Segments []CrashSegment
}

// CrashSegment is what a crash left of one segment's files: their sizes in bytes.
type CrashSegment struct {
	BaseOffset int64
	// LogBytes is the .log's size after the crash: its first LogBytes bytes survived.
	LogBytes int64
	// IndexBytes and TimeIndexBytes are the .index's and .timeindex's sizes. They do not
	// change the recovered state (2.3+ rebuilds every unflushed segment's indexes whatever
	// they hold); the crash explorer reports findings from them.
	IndexBytes     int64
	TimeIndexBytes int64
}

// A CrashError names the invalid field of a crash step ("recoveryPoint",
// "segments[1].logBytes").
type CrashError struct {
	Field string
	Err   error
}

func (e *CrashError) Error() string { return e.Field + ": " + e.Err.Error() }

func (e *CrashError) Unwrap() error { return e.Err }

func crashErr(field string, format string, args ...any) error {
	return &CrashError{Field: field, Err: fmt.Errorf(format, args...)}
}

// Validate checks what a crash step must satisfy whatever the log: a recovery point and sizes
// that are not negative, and at least one segment, with strictly increasing base offsets.
func (c Crash) Validate() error {
	if c.RecoveryPoint < 0 {
		return crashErr("recoveryPoint", "%d is negative", c.RecoveryPoint)
	}
	if len(c.Segments) == 0 {
		return crashErr("segments", "a crash lists at least one segment: the one holding the recovery point, whose files a broker always finds")
	}
	for i, s := range c.Segments {
		field := fmt.Sprintf("segments[%d]", i)
		switch {
		case s.BaseOffset < 0:
			return crashErr(field+".baseOffset", "%d is negative", s.BaseOffset)
		case i > 0 && s.BaseOffset <= c.Segments[i-1].BaseOffset:
			return crashErr(field+".baseOffset", "%d is not above %d, the segment before: segments are listed oldest first", s.BaseOffset, c.Segments[i-1].BaseOffset)
		case s.LogBytes < 0:
			return crashErr(field+".logBytes", "%d is negative", s.LogBytes)
		case s.IndexBytes < 0:
			return crashErr(field+".indexBytes", "%d is negative", s.IndexBytes)
		case s.TimeIndexBytes < 0:
			return crashErr(field+".timeIndexBytes", "%d is negative", s.TimeIndexBytes)
		}
	}
	return nil
}

// crashLoadsFrom is the first release whose load the crash step models (KAFKA-7283).
var crashLoadsFrom = release(2, 3, 0)

// Crash applies a crash step (docs/contract.md §3): segments before the first unflushed one
// stay as they are (they were flushed); each listed segment keeps the batches that end within
// its first LogBytes bytes and is recovered as LogSegment.recover does (the code of Recover);
// a segment whose surviving bytes end inside a batch (recover truncates bytes) deletes every
// later segment, as LogLoader.recoverLog does. The last segment left is the active one, a new
// LogSegment object with its indexes resized to segment.index.bytes (LogLoader's
// resizeIndexes), and the log end offset follows from its batches, so offsets lost in the
// crash are given again to later appends.
//
// An invalid crash (one that does not describe this log) is an error. An index that fills
// during a rebuild is an overflow event, as in Recover: the log stops, unchanged.
func (l *Log) Crash(c Crash) error {
	if l.opts.ForgetBatches {
		return errForgotten("a crash (the truncation and LogSegment.recover)")
	}
	step, err := l.startStep()
	if errors.Is(err, ErrStopped) {
		return fmt.Errorf("a crash step cannot follow the index overflow that stopped the log (Kafka threw there; the model does not guess what the broker did next): %w", ErrStopped)
	}
	if err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("step %d: crash: %w", step, err)
	}
	return l.loadUnflushed(step, "crash", c)
}

// RecoverFrom is a recover step with a recovery point (docs/contract.md §3 "recover"): an
// unclean restart whose recovery-point checkpoint reads recoveryPoint, so that LogLoader
// recovers every segment from the one holding it (the first unflushed one, found as the crash
// step finds it) to the active one. It is exactly a crash step where every segment survived
// whole, and runs the crash step's code.
func (l *Log) RecoverFrom(recoveryPoint int64) error {
	if l.opts.ForgetBatches {
		return errForgotten("a recover (LogSegment.recover)")
	}
	step, err := l.startStep()
	if err != nil {
		return err
	}
	if recoveryPoint < 0 {
		return fmt.Errorf("step %d: recover: %w", step, crashErr("recoveryPoint", "%d is negative", recoveryPoint))
	}
	if recoveryPoint < l.active.baseOffset && l.active.baseOffset > l.opts.StartOffset && (!l.opts.KeepSegments || l.opts.OnSegmentDone != nil) {
		return fmt.Errorf("step %d: recover: %w", step, crashErr("recoveryPoint", "%d lies before the active segment (base offset %d), and this run does not keep rolled segments to recover them (a streamed run, such as kidx whatif's or kidx sim's text table, keeps only the active one; model.LogOptions.KeepSegments without OnSegmentDone)",
			recoveryPoint, l.active.baseOffset))
	}
	all := append(append(make([]*Segment, 0, len(l.kept)+1), l.kept...), l.active)
	floor := 0
	for i, s := range all {
		if s.baseOffset <= recoveryPoint {
			floor = i
		}
	}
	c := Crash{RecoveryPoint: recoveryPoint}
	for _, s := range all[floor:] {
		c.Segments = append(c.Segments, CrashSegment{BaseOffset: s.baseOffset, LogBytes: s.size,
			IndexBytes: s.offsetIndex.SizeInBytes(), TimeIndexBytes: s.timeIndex.SizeInBytes()})
	}
	return l.loadUnflushed(step, "recover", c)
}

// loadUnflushed is the load after an unclean shutdown that a crash step (or a recover step
// with a recovery point) describes; what names the step in errors.
func (l *Log) loadUnflushed(step int, what string, c Crash) error {
	if l.era.Last != (KafkaVersion{}) && l.era.Last.Less(crashLoadsFrom) {
		return fmt.Errorf("step %d: %s: the %s step models the load of Kafka 2.3+ (LogLoader.recoverLog, KAFKA-7283); era %s loads a crashed log otherwise", step, what, what, l.era.ID)
	}
	all, at, err := l.unflushed(c)
	if err != nil {
		if what != "crash" {
			// The recovery point is the only field a recover step has.
			var ce *CrashError
			if errors.As(err, &ce) {
				err = crashErr("recoveryPoint", "%d: %v", c.RecoveryPoint, ce.Err)
			}
		}
		return fmt.Errorf("step %d: %s: %w", step, what, err)
	}
	for i, cs := range c.Segments {
		if s := all[at[i]]; cs.LogBytes > s.size {
			return fmt.Errorf("step %d: %s: %w", step, what, crashErr(fmt.Sprintf("segments[%d].logBytes", i), "%d is more than the %d bytes segment %d holds: a crash cannot keep bytes that were never written",
				cs.LogBytes, s.size, s.baseOffset))
		}
	}
	first := at[0]

	// Recover copies, so that an overflow leaves the log as it was (docs/contract.md §4: the
	// state after the previous step), and so that a Clone sharing the rolled segments is not
	// changed.
	recovered := make([]*Segment, 0, len(c.Segments))
	for i, cs := range c.Segments {
		s := all[at[i]].clone()
		s.decisions = l.decisions
		torn := s.keepBytes(cs.LogBytes)
		if err := s.recover(l.cfg); err != nil {
			return l.stop(step, err)
		}
		recovered = append(recovered, s)
		if torn {
			// LogLoader.recoverLog: recover truncated bytes, "we had an invalid message, delete
			// all remaining log".
			break
		}
	}
	active := recovered[len(recovered)-1]
	for _, s := range recovered[:len(recovered)-1] {
		// A recovered segment that is not the last stays closed: recover trimmed its indexes.
		s.offsetIndex.TrimToValidSize()
		s.timeIndex.TrimToValidSize()
		s.closed = true
	}
	active.closed, active.rollReason = false, rollNone
	if first < len(l.kept) {
		l.kept = append(append([]*Segment(nil), l.kept[:first]...), recovered[:len(recovered)-1]...)
		l.total = ScanStats{}
		for _, s := range l.kept {
			l.total.Merge(s.Scan())
		}
	}
	l.active = active
	l.nextOffset = active.LastOffset() + 1
	return nil
}

// unflushed returns the segments a crash can reach, oldest first, and where each listed
// segment is among them. The listed segments are the ones whose files survived from the first
// unflushed one on; a segment between two listed ones that is not listed lost its files (a
// filesystem may make a later segment's names durable before an earlier one's). The first
// listed must be the first unflushed one: the segment holding the recovery point
// (LocalLog.logSegments from the recovery point, a floor lookup; the first segment when the
// recovery point is below every base) among the segments that survived, the listed ones and
// those before them. A crash in the middle of a roll can leave the old segment alone with a
// recovery point at the new one's base: the broker's floor lookup then finds the old one.
func (l *Log) unflushed(c Crash) ([]*Segment, []int, error) {
	// l.kept is empty unless KeepSegments is set.
	all := append(append(make([]*Segment, 0, len(l.kept)+1), l.kept...), l.active)
	base := c.Segments[0].BaseOffset
	if base < l.active.baseOffset && (!l.opts.KeepSegments || l.opts.OnSegmentDone != nil) {
		return nil, nil, crashErr("segments[0].baseOffset", "%d lies before the active segment (base offset %d), and this run does not keep rolled segments to recover them (a streamed run, such as kidx whatif's or kidx sim's text table, keeps only the active one; model.LogOptions.KeepSegments without OnSegmentDone)",
			base, l.active.baseOffset)
	}
	at := make([]int, len(c.Segments))
	j := 0
	for i, cs := range c.Segments {
		for j < len(all) && all[j].baseOffset < cs.BaseOffset {
			j++
		}
		if j == len(all) || all[j].baseOffset != cs.BaseOffset {
			return nil, nil, crashErr(fmt.Sprintf("segments[%d].baseOffset", i), "%d is the base offset of no segment of the log", cs.BaseOffset)
		}
		at[i] = j
		j++
	}
	floor := -1
	for i, s := range all[:at[0]] {
		if s.baseOffset <= c.RecoveryPoint {
			floor = i
		}
	}
	for i, cs := range c.Segments {
		if cs.BaseOffset <= c.RecoveryPoint {
			floor = at[i]
		}
	}
	if floor == -1 {
		floor = 0
	}
	if floor != at[0] {
		return nil, nil, crashErr("segments[0].baseOffset", "%d is not %d, the base offset of the segment holding the recovery point %d among the surviving segments (the first unflushed one)",
			base, all[floor].baseOffset, c.RecoveryPoint)
	}
	return all, at, nil
}

// keepBytes truncates the segment's .log to its first n bytes as a crash leaves it: the
// batches that end within them stay. It reports whether the bytes end inside a batch (a torn
// tail: LogSegment.recover then truncates bytes).
func (s *Segment) keepBytes(n int64) (torn bool) {
	k := 0
	for k < len(s.batches) && s.batches[k].Position+s.batches[k].Size <= n {
		k++
	}
	s.batches = s.batches[:k]
	s.size = 0
	if k > 0 {
		s.size = s.batches[k-1].Position + s.batches[k-1].Size
	}
	return s.size != n
}
