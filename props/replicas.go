package props

import (
	"kidx/model"
)

// A ReplicaCase is a replicated workload (docs/contract.md §3.1) with the config and era
// every replica runs (a cluster runs one release). Its run is model.SimulateReplicas.
type ReplicaCase struct {
	Workload model.Workload
	Config   model.Config
	Era      model.Era

	rs  *model.ReplicaSet
	err error
	ran bool
}

// Run returns the case's model run, computed once; an error means the model refused the
// workload (a generator bug: the realizer only emits steps the model takes).
func (c *ReplicaCase) Run() (*model.ReplicaSet, error) {
	if !c.ran {
		c.ran = true
		c.rs, c.err = model.SimulateReplicas(c.Config, c.Era, c.Workload)
	}
	return c.rs, c.err
}

// A ReplicaProperty is a claim over replicated workloads. Its kind depends on the era:
// see KindFor.
type ReplicaProperty struct {
	Name    string
	Kafka   string
	KindFor func(model.Era) Kind
	Check   func(c *ReplicaCase) *Violation
}

// overflowOn returns the first index overflow (offset or time) the run threw on a step of
// the given kind ("fetch", "append" for a produce, "recover"), nil when none.
func overflowOn(c *ReplicaCase, kind string) (*model.ReplicaEvent, *Violation) {
	rs, err := c.Run()
	if err != nil {
		return nil, &Violation{Explanation: "the model refused the case: " + err.Error()}
	}
	for i, e := range rs.Events() {
		if e.Kind != model.EventOffsetIndexFull && e.Kind != model.EventTimeIndexFull {
			continue
		}
		if e.Step < len(c.Workload.Steps) && stepKind(c.Workload.Steps[e.Step]) == kind {
			return &rs.Events()[i], nil
		}
	}
	return nil, nil
}

// stepKind names a replicated workload's step as overflowOn classifies it.
func stepKind(s model.Step) string {
	switch {
	case s.Fetch:
		return "fetch"
	case s.Elect:
		return "elect"
	}
	return s.Kind()
}

// perBatchUnfixed reports whether an era indexes per batch (KAFKA-806: 3.9.1+, 4.0.1+, 4.1+)
// without either candidate fix: the releases whose followers can overflow.
func perBatchUnfixed(e model.Era) bool {
	return e.Entry == model.EntryBatchLast && !e.RollWhenAppendLacksIndexRoom && !e.SkipEntryWhenIndexFull
}

// FollowerAppendNeverOverflows (docs/kafka-hazards.md, docs/props.md): no follower's fetch
// (ReplicaFetcherThread → UnifiedLog.appendAsFollower) throws an index overflow. A question
// under the per-batch releases, which fail it: UnifiedLog.maybeRoll → LogSegment.shouldRoll
// asks offsetIndex.isFull/timeIndex.isFull once, then LogSegment.append's per-batch loop
// (KAFKA-806) may add one entry per batch of the fetched chunk. An invariant under the
// per-append eras (one entry per append after the isFull check), under candidate fix (b)
// (no entry into a full index) and under candidate fix (a) within its assumption: no fetch
// brings more batches than the time index has slots (segment.index.bytes/12), which the
// checkers' generators keep to (RollOnRoomMaxBatches).
var FollowerAppendNeverOverflows = &ReplicaProperty{
	Name:  "FollowerAppendNeverOverflows",
	Kafka: "UnifiedLog.appendAsFollower → maybeRoll → LogSegment.shouldRoll checks offsetIndex.isFull()/timeIndex.isFull() once per fetched chunk; KAFKA-806's per-batch loop in LogSegment.append then adds up to one entry per batch (OffsetIndex.append / TimeIndex.maybeAppend throw on a full index)",
	KindFor: func(e model.Era) Kind {
		if perBatchUnfixed(e) {
			return Question
		}
		return Invariant
	},
	Check: func(c *ReplicaCase) *Violation {
		e, v := overflowOn(c, "fetch")
		if e == nil {
			return v
		}
		return violation("shouldRoll checks isFull once per fetched chunk, the per-batch loop adds an entry per batch",
			"step %d: follower %d's fetch throws %q (%s; segment.index.bytes=%d, index.interval.bytes=%d)",
			e.Step, e.Replica, e.Message, e.Kind, c.Config.SegmentIndexBytes, c.Config.IndexIntervalBytes)
	},
}

// LeaderAppendNeverOverflows: no produce throws an index overflow. A produce is one batch
// (a ProduceRequest holds one batch per partition), and shouldRoll's isFull check before it
// leaves room for its one entry, so this holds under every era: an invariant, reported apart
// from the follower's overflow.
var LeaderAppendNeverOverflows = &ReplicaProperty{
	Name:    "LeaderAppendNeverOverflows",
	Kafka:   "UnifiedLog.appendAsLeader of one batch: LogSegment.shouldRoll's isFull check leaves the one slot its entry needs",
	KindFor: func(model.Era) Kind { return Invariant },
	Check: func(c *ReplicaCase) *Violation {
		e, v := overflowOn(c, "append")
		if e == nil {
			return v
		}
		return violation("a produce of one batch takes at most one entry after shouldRoll's isFull check",
			"step %d: the leader (replica %d) throws %q on a produce", e.Step, e.Replica, e.Message)
	},
}

// ReplicaRecoverNeverOverflows (question): no replica's unclean restart throws in
// LogSegment.recover. recover() rebuilds the indexes per batch with a counter from the
// segment's start (docs/kafka-hazards.md §1): a segment whose live index was sparser (a
// per-append era, or a live counter reset by a clean restart) can hold more batches than the
// rebuild can index.
var ReplicaRecoverNeverOverflows = &ReplicaProperty{
	Name:    "ReplicaRecoverNeverOverflows",
	Kafka:   "LogSegment.recover rebuilds both indexes per batch from position 0 and throws on a full index (OffsetIndex.append / TimeIndex.maybeAppend); the segment was rolled by the live, sparser index",
	KindFor: func(model.Era) Kind { return Question },
	Check: func(c *ReplicaCase) *Violation {
		e, v := overflowOn(c, "recover")
		if e == nil {
			return v
		}
		return violation("recover() rebuilds per batch from the segment's start, denser than the live index that decided the roll",
			"step %d: replica %d's recover throws %q", e.Step, e.Replica, e.Message)
	},
}

// ReplicaProperties lists the replicated properties, the follower's first.
func ReplicaProperties() []*ReplicaProperty {
	return []*ReplicaProperty{FollowerAppendNeverOverflows, LeaderAppendNeverOverflows, ReplicaRecoverNeverOverflows}
}
