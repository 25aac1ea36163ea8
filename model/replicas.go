package model

import (
	"errors"
	"fmt"
	"sort"
)

// A ReplicaSet is a partition's replicas (docs/contract.md §3.1, docs/kafka-hazards.md): one
// Log per replica under the same config and era, one of them the leader. Produces go to the
// leader, one LogSegment.append each (UnifiedLog.appendAsLeader); a follower fetches chunks
// of the leader's batches and appends each chunk in one call (ReplicaFetcherThread →
// UnifiedLog.appendAsFollower), so each replica rolls by its own indexes. That is where the
// follower overflow lives: a chunk that passes shouldRoll's single isFull check and then
// adds more entries than the index has room for.
//
// kidx models no truncation: leadership only moves to a replica holding the whole log, and a
// follower never fetches past the leader's log end.
type ReplicaSet struct {
	spec     ReplicaSpec
	replicas []*Log
	leader   int
	// produced holds every batch the leaders took, in offset order, each with its base
	// offset: the bytes a fetch serves (every replica holds the same batches at the same
	// offsets; only the segment boundaries differ).
	produced []Batch
	step     int
	events   []ReplicaEvent
	notes    []ReplicaNote
}

// A ReplicaEvent is an Event (an exception Kafka throws, a rejection) on one replica; Step is
// the workload's step.
type ReplicaEvent struct {
	Replica int `json:"replica"`
	Event
}

// A ReplicaNote says why a step did nothing: a caught-up follower's fetch, a step for a
// replica whose log failed.
type ReplicaNote struct {
	Step    int    `json:"step"`
	Replica int    `json:"replica"`
	Text    string `json:"text"`
}

// NewReplicaSet creates spec.Count empty replicas under cfg and era, replica 0 the leader.
// Every replica keeps its segments (a replicated workload is small, and its output shows
// every replica's segments).
func NewReplicaSet(cfg Config, era Era, spec ReplicaSpec) (*ReplicaSet, error) {
	if spec.Count < 2 || spec.Count > MaxReplicas || len(spec.StartOffsets) != spec.Count || spec.FetchMaxBytes < 1 {
		return nil, fmt.Errorf("replica spec %+v: want 2 to %d replicas, a start offset each and a positive fetchMaxBytes", spec, MaxReplicas)
	}
	rs := &ReplicaSet{spec: spec}
	for i := 0; i < spec.Count; i++ {
		l, err := NewLog(cfg, era.Rule(), LogOptions{StartOffset: spec.StartOffsets[i], KeepSegments: true, Era: era})
		if err != nil {
			return nil, err
		}
		rs.replicas = append(rs.replicas, l)
	}
	return rs, nil
}

// Replicas returns every replica's log, by replica number.
func (rs *ReplicaSet) Replicas() []*Log { return rs.replicas }

// Leader is the current leader's replica number.
func (rs *ReplicaSet) Leader() int { return rs.leader }

// Events returns every replica's events in step order.
func (rs *ReplicaSet) Events() []ReplicaEvent { return rs.events }

// Notes returns the steps that did nothing, and why.
func (rs *ReplicaSet) Notes() []ReplicaNote { return rs.notes }

// Spec returns the replicas' spec.
func (rs *ReplicaSet) Spec() ReplicaSpec { return rs.spec }

// Apply runs one workload step. An error means the workload asks for something the model
// does not do (a fetch by the leader, an election of a replica that is not caught up) or is
// invalid; exceptions Kafka throws are events.
func (rs *ReplicaSet) Apply(s Step) error {
	step := rs.step
	rs.step++
	target := rs.leader
	if s.HasReplica {
		target = s.Replica
	}
	if target < 0 || target >= len(rs.replicas) {
		return fmt.Errorf("step %d: replica %d: the workload has replicas 0 to %d", step, target, len(rs.replicas)-1)
	}
	switch {
	case s.Crash != nil:
		return fmt.Errorf("step %d: a replicated workload has no crash steps", step)
	case s.Clean != nil:
		return fmt.Errorf("step %d: a replicated workload has no clean steps", step)
	case s.HasRecoveryPoint:
		return fmt.Errorf("step %d: a replicated workload's recover step takes no recovery point", step)
	case s.Elect:
		return rs.elect(step, target)
	case s.Fetch:
		maxBytes := rs.spec.FetchMaxBytes
		if s.FetchMaxBytes > 0 {
			maxBytes = s.FetchMaxBytes
		}
		return rs.fetch(step, target, maxBytes)
	case len(s.Append) > 0:
		return rs.produce(step, s.Append)
	}
	return rs.on(step, target, func(l *Log) error {
		switch {
		case s.Restart:
			return l.Restart()
		case s.Recover:
			return l.Recover()
		case s.Roll:
			return l.Roll(s.RollBaseOffset)
		}
		return fmt.Errorf("step %d: an empty step", step)
	})
}

// on applies f to replica r's log, or notes that the replica failed earlier; new events of
// the log are recorded under the workload's step.
func (rs *ReplicaSet) on(step, r int, f func(*Log) error) error {
	l := rs.replicas[r]
	if l.Stopped() {
		rs.notes = append(rs.notes, ReplicaNote{Step: step, Replica: r,
			Text: fmt.Sprintf("replica %d threw at an earlier step: its partition is failed (kidx does not guess what the broker does next)", r)})
		return nil
	}
	before := len(l.Events())
	if err := f(l); err != nil {
		return fmt.Errorf("step %d: replica %d: %w", step, r, err)
	}
	for _, e := range l.Events()[before:] {
		e.Step = step
		rs.events = append(rs.events, ReplicaEvent{Replica: r, Event: e})
	}
	return nil
}

// produce is one ProduceRequest's append to the leader (UnifiedLog.appendAsLeader): the
// leader assigns the offsets after its log end.
func (rs *ReplicaSet) produce(step int, batches []Batch) error {
	l := rs.replicas[rs.leader]
	next := l.NextOffset()
	if err := rs.on(step, rs.leader, func(l *Log) error { return l.Append(batches...) }); err != nil {
		return err
	}
	if l.NextOffset() == next {
		return nil // rejected, thrown or refused: nothing to serve
	}
	for _, b := range batches {
		b.BaseOffset = next
		next += b.Records
		rs.produced = append(rs.produced, b)
	}
	return nil
}

// fetch is one fetch of follower r and its appendAsFollower. The leader serves from one
// segment (LocalLog.read → LogSegment.read): the batches from r's log end offset up to the
// end of the leader segment holding it, whole batches up to maxBytes, at least one (the
// first batch comes even when larger: minOneMessage).
func (rs *ReplicaSet) fetch(step, r int, maxBytes int64) error {
	if r == rs.leader {
		return fmt.Errorf("step %d: replica %d is the leader: only a follower fetches", step, r)
	}
	leader, f := rs.replicas[rs.leader], rs.replicas[r]
	if f.Stopped() {
		return rs.on(step, r, nil)
	}
	from := f.NextOffset()
	if from > leader.NextOffset() {
		// Kafka answers OFFSET_OUT_OF_RANGE and the follower truncates to the leader's end.
		return fmt.Errorf("step %d: replica %d's log ends at offset %d, past the leader's (replica %d) end %d: Kafka would truncate the follower, and kidx models no truncation",
			step, r, from, rs.leader, leader.NextOffset())
	}
	if from == leader.NextOffset() {
		rs.notes = append(rs.notes, ReplicaNote{Step: step, Replica: r,
			Text: fmt.Sprintf("replica %d is at the leader's log end offset %d: nothing to fetch", r, leader.NextOffset())})
		return nil
	}
	if start := rs.spec.StartOffsets[rs.leader]; from < start {
		// Kafka answers OFFSET_OUT_OF_RANGE and the follower truncates its whole log to start
		// at the leader's log start offset (ReplicaFetcherThread): a truncation, which kidx
		// does not model.
		return fmt.Errorf("step %d: replica %d fetches from offset %d, below the leader's (replica %d) log start offset %d: Kafka would truncate the follower's whole log, and kidx models no truncation",
			step, r, from, rs.leader, start)
	}
	end := leaderSegmentEnd(leader, from)
	i := sort.Search(len(rs.produced), func(i int) bool { return rs.produced[i].BaseOffset+rs.produced[i].Records > from })
	if i == len(rs.produced) {
		return fmt.Errorf("step %d: replica %d fetches from offset %d, which no produce wrote", step, r, from)
	}
	if b := rs.produced[i]; b.BaseOffset != from {
		return fmt.Errorf("step %d: replica %d's log end offset %d is inside the leader's batch of offsets %d to %d: a follower's log starts at a batch boundary",
			step, r, from, b.BaseOffset, b.BaseOffset+b.Records-1)
	}
	var chunk []Batch
	var size int64
	for ; i < len(rs.produced) && rs.produced[i].BaseOffset < end; i++ {
		b := rs.produced[i]
		if len(chunk) > 0 && size+b.Bytes > maxBytes {
			break
		}
		chunk = append(chunk, b)
		size += b.Bytes
	}
	return rs.on(step, r, func(l *Log) error { return l.AppendFrom(OriginReplication, chunk...) })
}

// leaderSegmentEnd is the offset where the leader segment holding offset ends: the next
// segment's base offset, or the log end offset for the active segment.
func leaderSegmentEnd(l *Log, offset int64) int64 {
	segs := l.Summaries()
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i].BaseOffset <= offset {
			if i+1 < len(segs) {
				return segs[i+1].BaseOffset
			}
			return l.NextOffset()
		}
	}
	return l.NextOffset()
}

// elect moves leadership to replica r, which must hold the leader's whole log (kidx models
// no truncation: docs/contract.md §3.1).
func (rs *ReplicaSet) elect(step, r int) error {
	if r == rs.leader {
		return nil
	}
	l, lead := rs.replicas[r], rs.replicas[rs.leader]
	if l.Stopped() {
		return fmt.Errorf("step %d: replica %d threw at an earlier step and cannot lead", step, r)
	}
	if l.NextOffset() != lead.NextOffset() {
		return fmt.Errorf("step %d: replica %d is not caught up (log end offset %d, the leader's %d): kidx models no truncation, so only a caught-up replica becomes leader",
			step, r, l.NextOffset(), lead.NextOffset())
	}
	rs.leader = r
	return nil
}

// Close closes every replica's log as a clean shutdown does.
func (rs *ReplicaSet) Close() error {
	var errs []error
	for _, l := range rs.replicas {
		errs = append(errs, l.Close())
	}
	return errors.Join(errs...)
}

// SimulateReplicas runs a replicated workload (w.Replicas set) under cfg and era, then closes
// every replica, as `kidx sim` does.
func SimulateReplicas(cfg Config, era Era, w Workload) (*ReplicaSet, error) {
	if w.Replicas == nil {
		return nil, errors.New("the workload has no \"replicas\"")
	}
	rs, err := NewReplicaSet(cfg, era, *w.Replicas)
	if err != nil {
		return nil, err
	}
	for _, s := range w.Steps {
		if err := rs.Apply(s); err != nil {
			return nil, err
		}
		if rs.replicas[rs.leader].Stopped() {
			// The leader threw on a produce: the partition takes no more, and kidx does not
			// guess what follows (the file writer ends there too).
			break
		}
	}
	return rs, rs.Close()
}
