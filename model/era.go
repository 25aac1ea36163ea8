package model

import (
	"fmt"
	"strings"
)

// An Era is a range of Kafka releases whose LogSegment.append, recover() and roll rules are
// the same for everything the model computes (docs/kafka.md §13.2 and §13.5; docs/model.md "Eras"). A
// release selects one era; so does each of the two rule names (AppendRule).
type Era struct {
	ID       string // stable name, used on the CLI and in JSON
	Releases string // the releases, as people write them
	// First is the era's first release; Last its last one (zero Last: still current).
	First, Last KafkaVersion
	// Entry is which offset an offset-index entry names on the append path.
	Entry EntryOffset
	// Time is which offset a time-index entry names (TimeIndexNone: no time index).
	Time TimeOffset
	// RecoverNamesBase: recover() names each batch's first offset (0.8 to 1.1); from 2.0
	// (KAFKA-6264) its last offset.
	RecoverNamesBase bool
	// FollowerWrapperOffset: a follower's first legacy compressed wrapper is indexed at the
	// wrapper's own offset (its last inner offset), KAFKA-3047 (0.10.0 to 1.1).
	FollowerWrapperOffset bool
	// SizeRollCountsAppend: shouldRoll counts the incoming append (size > segment.bytes -
	// appendBytes), and UnifiedLog rejects an append larger than a segment (0.8.2+). Before,
	// Log.maybeRoll rolled once the segment was already past segment.bytes, and accepted any
	// append.
	SizeRollCountsAppend bool
	// TimeRollOnTimestamps: time-based rolls judge the batches' timestamps (KIP-33, 0.10.1+).
	// Before, they judged the wall-clock age of the segment, which a workload does not carry:
	// the model does not roll on time in those eras.
	TimeRollOnTimestamps bool
	// OverflowRoll: a segment rolls when an append's last offset would not fit the index's
	// relative offsets (KAFKA-4451, 0.10.2+).
	OverflowRoll bool
	// RollToFirstOffset: a roll starts the new segment at max(log end offset, the append's
	// first offset) (KAFKA-6264, 2.0+); before, at the log end offset.
	RollToFirstOffset bool
	// ReplicationAcceptsOversize: a follower's append larger than segment.bytes is written,
	// not rejected (KAFKA-17375, trunk 4.5).
	ReplicationAcceptsOversize bool
	// HeaderReadsPastHit: phase 2 reads one batch header past the hit unless the hit is the
	// segment's last batch (searchForOffsetFromPosition, KAFKA-18989, 4.1+, docs/kafka.md §13.6).
	HeaderReadsPastHit bool
	// RollWhenAppendLacksIndexRoom is candidate fix (a) for the follower overflow
	// (docs/kafka-hazards.md §6), in no release: shouldRoll also rolls a non-empty segment when
	// either index has fewer free slots than the incoming append has batches (the time index
	// keeping its reserved slot), so that one entry per batch always fits.
	RollWhenAppendLacksIndexRoom bool
	// SkipEntryWhenIndexFull is candidate fix (b), in no release: the per-batch loop of
	// LogSegment.append adds no entry once either index is full (the byte counter keeps
	// growing), so the append never throws and the next append's shouldRoll rolls.
	SkipEntryWhenIndexFull bool
	// Candidate is set on an era that is a proposed patch rather than a release (an era spec,
	// model.ParseEraSpec): the base era's ID. Output names such an era as a candidate.
	Candidate string
	// Sources are the Kafka changes that open the era.
	Sources string
	// Derived says what of the era is read from Kafka's code but was not run against it.
	Derived string
}

// EntryOffset is which offset an offset-index entry names when LogSegment.append adds it.
type EntryOffset int

// The offset-index rules of the eras.
const (
	// EntryAppendFirst: the append's first offset, the log end offset before it (0.8.0 to
	// 1.1). A follower's v2 append names its first batch's base offset; a follower's legacy
	// compressed wrapper names the wrapper's own offset from 0.10.0 (FollowerWrapperOffset).
	EntryAppendFirst EntryOffset = iota
	// EntryAppendLast: the append's last offset, one check per append (KAFKA-6530, 2.0 to
	// 3.9.0/4.0.0): kidx's per-append rule.
	EntryAppendLast
	// EntryBatchLast: each batch's own last offset, one check per batch (KAFKA-806, 3.9.1+,
	// 4.0.1+, 4.1+): kidx's per-batch rule.
	EntryBatchLast
)

func (e EntryOffset) String() string {
	switch e {
	case EntryAppendFirst:
		return "append's first offset"
	case EntryAppendLast:
		return "append's last offset"
	case EntryBatchLast:
		return "each batch's last offset"
	}
	return fmt.Sprintf("EntryOffset(%d)", int(e))
}

// TimeOffset is which offset a time-index entry names.
type TimeOffset int

// The time-index rules of the eras.
const (
	// TimeIndexNone: there is no time index (before 0.10.1, KAFKA-3163).
	TimeIndexNone TimeOffset = iota
	// TimeShallow: the offset of the message or compressed wrapper holding the max timestamp
	// (0.10.1 to 0.10.2); for the model's batches, the batch's last offset.
	TimeShallow
	// TimeExactRecord: on a leader's uncompressed CreateTime v2 append, the offset of the
	// first record holding the batch's max timestamp (LogValidator, 0.11 to 3.6); every other
	// path names the batch's last offset.
	TimeExactRecord
	// TimeBatchLast: the batch's last offset (#14697, KAFKA-16310, 3.7+).
	TimeBatchLast
)

func (t TimeOffset) String() string {
	switch t {
	case TimeIndexNone:
		return "no time index"
	case TimeShallow:
		return "the message's or wrapper's offset"
	case TimeExactRecord:
		return "the record holding the max timestamp (leader, uncompressed, CreateTime)"
	case TimeBatchLast:
		return "the batch's last offset"
	}
	return fmt.Sprintf("TimeOffset(%d)", int(t))
}

func release(major, minor, patch int) KafkaVersion { return KafkaVersion{major, minor, patch} }

// Eras lists every era, oldest first (docs/kafka.md §13.2, §13.5, §13.6).
var Eras = []Era{
	{ID: "0.8.0-0.8.1", Releases: "0.8.0-0.8.1", First: release(0, 8, 0), Last: release(0, 8, 1),
		Entry: EntryAppendFirst, Time: TimeIndexNone, RecoverNamesBase: true,
		Sources: "0.8.0 (Log.maybeRoll: segment.size > segment.bytes)",
		Derived: "read from Kafka's code at the release tags (docs/kafka.md §13), not run against it"},
	{ID: "0.8.2-0.9.0", Releases: "0.8.2-0.9.0", First: release(0, 8, 2), Last: release(0, 9, 0),
		Entry: EntryAppendFirst, Time: TimeIndexNone, RecoverNamesBase: true, SizeRollCountsAppend: true,
		Sources: "0.8.2 (the roll counts the incoming append; an append larger than a segment is rejected)",
		Derived: "read from Kafka's code at the release tags (docs/kafka.md §13), not run against it"},
	{ID: "0.10.0", Releases: "0.10.0", First: release(0, 10, 0), Last: release(0, 10, 0),
		Entry: EntryAppendFirst, Time: TimeIndexNone, RecoverNamesBase: true, SizeRollCountsAppend: true,
		FollowerWrapperOffset: true,
		Sources:               "KAFKA-3047 (a follower's compressed wrapper is indexed at its own offset)",
		Derived:               "read from Kafka's code at the release tags (docs/kafka.md §13), not run against it"},
	{ID: "0.10.1", Releases: "0.10.1", First: release(0, 10, 1), Last: release(0, 10, 1),
		Entry: EntryAppendFirst, Time: TimeShallow, RecoverNamesBase: true, SizeRollCountsAppend: true,
		FollowerWrapperOffset: true, TimeRollOnTimestamps: true,
		Sources: "KAFKA-3163 (time index), KIP-33 (time rolls on message timestamps)",
		Derived: "read from Kafka's code at the release tags (docs/kafka.md §13), not run against it"},
	{ID: "0.10.2", Releases: "0.10.2", First: release(0, 10, 2), Last: release(0, 10, 2),
		Entry: EntryAppendFirst, Time: TimeShallow, RecoverNamesBase: true, SizeRollCountsAppend: true,
		FollowerWrapperOffset: true, TimeRollOnTimestamps: true, OverflowRoll: true,
		Sources: "KAFKA-4451 (roll before a relative offset overflows)",
		Derived: "read from Kafka's code at the release tags (docs/kafka.md §13), not run against it"},
	{ID: "0.11-1.1", Releases: "0.11.0-1.1", First: release(0, 11, 0), Last: release(1, 1, 1),
		Entry: EntryAppendFirst, Time: TimeExactRecord, RecoverNamesBase: true, SizeRollCountsAppend: true,
		FollowerWrapperOffset: true, TimeRollOnTimestamps: true, OverflowRoll: true,
		Sources: "KIP-98 (v2 batches; LogValidator names the record holding the max timestamp)",
		Derived: "read from Kafka's code at the release tags (docs/kafka.md §13), not run against it"},
	{ID: "2.0-3.6", Releases: "2.0-3.6", First: release(2, 0, 0), Last: release(3, 6, 2),
		Entry: EntryAppendLast, Time: TimeExactRecord, SizeRollCountsAppend: true,
		TimeRollOnTimestamps: true, OverflowRoll: true, RollToFirstOffset: true,
		Sources: "KAFKA-6530 (the entry names the append's last offset), KAFKA-6264 (recover names a batch's last offset; roll to the append's first offset)",
		Derived: "read from Kafka's code at the release tags, not run; recover() naming the batch's last offset in a leader's time index is derived (docs/kafka.md §13.2)"},
	{ID: "3.7-4.0.0", Releases: "3.7.x, 3.8.0-3.8.1, 3.9.0, 4.0.0", First: release(3, 7, 0), Last: release(4, 0, 0),
		Entry: EntryAppendLast, Time: TimeBatchLast, SizeRollCountsAppend: true,
		TimeRollOnTimestamps: true, OverflowRoll: true, RollToFirstOffset: true,
		Sources: "#14697, KAFKA-16310 (the time index names the batch's last offset)"},
	{ID: "3.9.1-4.0.x", Releases: "3.9.1+ (3.9.x), 4.0.1+ (4.0.x)", First: release(3, 9, 1), Last: release(4, 0, 99),
		Entry: EntryBatchLast, Time: TimeBatchLast, SizeRollCountsAppend: true,
		TimeRollOnTimestamps: true, OverflowRoll: true, RollToFirstOffset: true,
		Sources: "KAFKA-806 (one index check per batch; #18842, #18843)"},
	{ID: "4.1-4.4", Releases: "4.1-4.4", First: release(4, 1, 0), Last: release(4, 4, 99),
		Entry: EntryBatchLast, Time: TimeBatchLast, SizeRollCountsAppend: true,
		TimeRollOnTimestamps: true, OverflowRoll: true, RollToFirstOffset: true, HeaderReadsPastHit: true,
		Sources: "KAFKA-806 (#18012), KAFKA-18989 (phase 2 searches by base offset)"},
	{ID: "4.5-trunk", Releases: "4.5 (trunk, unreleased)", First: release(4, 5, 0),
		Entry: EntryBatchLast, Time: TimeBatchLast, SizeRollCountsAppend: true,
		TimeRollOnTimestamps: true, OverflowRoll: true, RollToFirstOffset: true, HeaderReadsPastHit: true,
		ReplicationAcceptsOversize: true,
		Sources:                    "KAFKA-17375 (a follower's append larger than segment.bytes is written)",
		Derived:                    "unreleased: trunk as of 2026-08"},
}

// eraByID returns the era with the given ID.
func eraByID(id string) (Era, bool) {
	for _, e := range Eras {
		if e.ID == id {
			return e, true
		}
	}
	return Era{}, false
}

// EraByID returns the era with the given ID, or an error naming the known ones.
func EraByID(id string) (Era, error) {
	if e, ok := eraByID(id); ok {
		return e, nil
	}
	ids := make([]string, len(Eras))
	for i, e := range Eras {
		ids[i] = e.ID
	}
	return Era{}, fmt.Errorf("unknown era %q (known: %s)", id, strings.Join(ids, ", "))
}

func mustEra(id string) Era {
	e, ok := eraByID(id)
	if !ok {
		panic("model: no era " + id)
	}
	return e
}

// EraForRule maps the two rule names to the two current eras: per-append is Kafka 3.7 to
// 4.0.0 (the last releases before KAFKA-806), per-batch the newest released line, 4.1-4.4.
func EraForRule(r AppendRule) Era {
	if r == PerAppend {
		return mustEra("3.7-4.0.0")
	}
	return mustEra("4.1-4.4")
}

// EraForVersion returns the era of a Kafka release (docs/kafka.md §13.2). The 3.8 branch carries
// KAFKA-806 for a 3.8.2 if one is ever released; kidx maps 3.8.2+ to the branch's code.
func EraForVersion(ver KafkaVersion) Era {
	perBatch := (ver.Major == 3 && ver.Minor == 8 && ver.Patch >= 2) ||
		(ver.Major == 3 && ver.Minor == 9 && ver.Patch >= 1) ||
		(ver.Major == 4 && ver.Minor == 0 && ver.Patch >= 1)
	switch {
	case ver.less(release(0, 8, 2)):
		return mustEra("0.8.0-0.8.1")
	case ver.less(release(0, 10, 0)):
		return mustEra("0.8.2-0.9.0")
	case ver.less(release(0, 10, 1)):
		return mustEra("0.10.0")
	case ver.less(release(0, 10, 2)):
		return mustEra("0.10.1")
	case ver.less(release(0, 11, 0)):
		return mustEra("0.10.2")
	case ver.less(release(2, 0, 0)):
		return mustEra("0.11-1.1")
	case ver.less(release(3, 7, 0)):
		return mustEra("2.0-3.6")
	case perBatch:
		return mustEra("3.9.1-4.0.x")
	case ver.less(release(4, 1, 0)):
		return mustEra("3.7-4.0.0")
	case ver.less(release(4, 5, 0)):
		return mustEra("4.1-4.4")
	}
	return mustEra("4.5-trunk")
}

// EraForKafkaVersion parses a release ("3.6.1", "0.10.2.1", "4.1") and returns its era.
func EraForKafkaVersion(s string) (Era, error) {
	ver, err := ParseKafkaVersion(s)
	if err != nil {
		return Era{}, err
	}
	return EraForVersion(ver), nil
}

// Rule is the era's name among kidx's two rules: per-batch when every batch is checked on
// its own, per-append otherwise (the older eras included).
func (e Era) Rule() AppendRule {
	if e.Entry == EntryBatchLast {
		return PerBatch
	}
	return PerAppend
}

// HasTimeIndex reports whether segments of the era have a time index.
func (e Era) HasTimeIndex() bool { return e.Time != TimeIndexNone }

// String names the era as people write releases: "Kafka 2.0-3.6".
func (e Era) String() string {
	if e.Candidate != "" {
		return e.Releases
	}
	return "Kafka " + e.Releases
}

// IsCurrentRule reports whether the era is the one a rule name selects, so that output can
// keep naming it by the rule.
func (e Era) IsCurrentRule() bool {
	return e.ID == EraForRule(PerBatch).ID || e.ID == EraForRule(PerAppend).ID
}

// Origin is where an append comes from (docs/contract.md §3): the leader validates and assigns offsets
// (UnifiedLog.appendAsLeader), a follower writes what it fetched (appendAsFollower).
type Origin int8

// Append origins.
const (
	OriginLeader Origin = iota
	OriginReplication
)

func (o Origin) String() string {
	if o == OriginReplication {
		return "replication"
	}
	return "leader"
}

// ParseOrigin accepts "leader" or "replication".
func ParseOrigin(s string) (Origin, error) {
	switch s {
	case "leader":
		return OriginLeader, nil
	case "replication":
		return OriginReplication, nil
	}
	return 0, fmt.Errorf("unknown origin %q (want leader or replication)", s)
}
