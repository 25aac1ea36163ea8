package logdir

import (
	"fmt"
	"strconv"
	"strings"

	"kidx/segment"
)

// An Era is a range of Kafka releases that write and load segment indexes the same way
// (docs/kafka.md §13.2; docs/segment.md, "Kafka's eras"). Files are judged by the rules of the
// era that wrote them: which offset an entry names, which offset a time-index entry names,
// and what a broker does at startup with an index it did not trim.
type Era struct {
	ID       string // short stable name, e.g. "2.6-3.6"
	Releases string // the releases, as people write them
	// Latest is a release of the era a replay runs as: its newest (4.1.0 for the per-batch
	// era, whose later lines differ only in what files do not show).
	Latest string
	// OffsetEntry is which offset an offset-index entry names, for the entry at the start
	// position of an append.
	OffsetEntry EntryRule
	// TimeEntry is which offset a time-index entry names.
	TimeEntry TimeRule
	// Load is what the broker does at startup with an untrimmed (zero-tailed) index left by an
	// unclean shutdown.
	Load LoadRule
	// Sources are the Kafka changes that open the era.
	Sources string
}

// EntryRule is which offset an offset-index entry names (LogSegment.append).
type EntryRule int

// Entry rules of the eras.
const (
	// EntryAppendFirst: the append's first offset (the log end offset before it), for leader
	// appends up to 1.1; a follower's legacy compressed wrapper is named by its own offset (its
	// last inner offset) from 0.10.0 (KAFKA-3047), a follower's v2 batch by its base offset.
	EntryAppendFirst EntryRule = iota
	// EntryAppendLast: the append's last offset (KAFKA-6530, 2.0 to 3.9.0/4.0.0): one entry per
	// append, at the append's first batch.
	EntryAppendLast
	// EntryBatchLast: each batch's own last offset (KAFKA-806: 3.9.1+, 4.0.1+, 4.1+).
	EntryBatchLast
)

// TimeRule is which offset a time-index entry names.
type TimeRule int

// Time rules of the eras.
const (
	TimeNone TimeRule = iota // no time index (before 0.10.1)
	// TimeShallow: the wrapper's or message's offset (0.10.1-0.10.2, legacy data).
	TimeShallow
	// TimeExactRecord: for leader appends of uncompressed CreateTime v2 batches, the offset of
	// the first record holding the batch's max timestamp (LogValidator, 0.11 to 3.6); every
	// other path names the batch's last offset.
	TimeExactRecord
	// TimeBatchLast: the batch's last offset (3.7+, #14697 and KAFKA-16310).
	TimeBatchLast
)

// LoadRule is what a broker's startup does with an untrimmed index after an unclean shutdown.
type LoadRule int

// Load rules of the eras.
const (
	// LoadRecoverThenRequire (0.8.0-0.8.2): recovery rebuilds the active segment (0.8.0) or
	// every segment from the recovery point (0.8.1+, KAFKA-615); every segment's index must then
	// pass the sanity requirement (last offset > base offset, KAFKA-1112) or the log does not
	// load.
	LoadRecoverThenRequire LoadRule = iota
	// LoadSanityRebuildsOffset (0.9.0-1.1, KAFKA-2012): sanityCheck runs per segment before
	// recovery; a zero-tailed offset index fails ("no larger"/"no greater than the base
	// offset") and the segment's indexes are deleted and rebuilt.
	LoadSanityRebuildsOffset
	// LoadSanityRebuildsTime (2.0-2.2, KAFKA-7076): the offset check became "less than", so a
	// zero-tailed offset index passes; a time index with real entries then zeros fails ("the
	// last timestamp is 0 which is less than the first timestamp") and is rebuilt.
	LoadSanityRebuildsTime
	// LoadRecoversFromCheckpoint (2.3+, KAFKA-7283): no offset or time index sanity check at
	// load; every segment from the recovery point on is recovered, its indexes rebuilt.
	LoadRecoversFromCheckpoint
)

// Eras lists every era, oldest first.
var Eras = []Era{
	{ID: "0.8.0", Latest: "0.8.0", Releases: "0.8.0", OffsetEntry: EntryAppendFirst, TimeEntry: TimeNone, Load: LoadRecoverThenRequire, Sources: "0.8.0"},
	{ID: "0.8.1-0.8.2", Latest: "0.8.2.2", Releases: "0.8.1-0.8.2", OffsetEntry: EntryAppendFirst, TimeEntry: TimeNone, Load: LoadRecoverThenRequire, Sources: "KAFKA-615 (recovery point), KAFKA-1112 (sanityCheck after recovery)"},
	{ID: "0.9.0-0.10.0", Latest: "0.10.0.1", Releases: "0.9.0-0.10.0", OffsetEntry: EntryAppendFirst, TimeEntry: TimeNone, Load: LoadSanityRebuildsOffset, Sources: "KAFKA-2012 (sanity check per segment, rebuild on failure), KAFKA-3047 (0.10.0 follower wrapper offsets)"},
	{ID: "0.10.1-0.10.2", Latest: "0.10.2.2", Releases: "0.10.1-0.10.2", OffsetEntry: EntryAppendFirst, TimeEntry: TimeShallow, Load: LoadSanityRebuildsOffset, Sources: "KAFKA-3163 (time index), KAFKA-4734"},
	{ID: "0.11-1.1", Latest: "1.1.1", Releases: "0.11.0-1.1", OffsetEntry: EntryAppendFirst, TimeEntry: TimeExactRecord, Load: LoadSanityRebuildsOffset, Sources: "KIP-98 (v2 batches), KAFKA-6324 (1.1)"},
	{ID: "2.0-2.2", Latest: "2.2.2", Releases: "2.0-2.2", OffsetEntry: EntryAppendLast, TimeEntry: TimeExactRecord, Load: LoadSanityRebuildsTime, Sources: "KAFKA-6530 (entry names the append's last offset), KAFKA-6264, KAFKA-7076"},
	{ID: "2.3-3.6", Latest: "3.6.2", Releases: "2.3-3.6", OffsetEntry: EntryAppendLast, TimeEntry: TimeExactRecord, Load: LoadRecoversFromCheckpoint, Sources: "KAFKA-7283 (no index sanity check at load), KAFKA-9156 (lazy indexes)"},
	{ID: "3.7-4.0.0", Latest: "4.0.0", Releases: "3.7.x, 3.8.0-3.8.1, 3.9.0, 4.0.0", OffsetEntry: EntryAppendLast, TimeEntry: TimeBatchLast, Load: LoadRecoversFromCheckpoint, Sources: "#14697, KAFKA-16310 (time index names the batch's last offset)"},
	{ID: "per-batch", Latest: "4.1.0", Releases: "3.9.1+, 4.0.1+, 4.1+", OffsetEntry: EntryBatchLast, TimeEntry: TimeBatchLast, Load: LoadRecoversFromCheckpoint, Sources: "KAFKA-806 (one index check per batch)"},
}

// String names the era as people write releases: "Kafka 2.3-3.6".
func (e Era) String() string { return "Kafka " + e.Releases }

// PerBatch reports the KAFKA-806 era, where one append never covers several batches without
// a check and a long run of unindexed batches means the byte counter was reset.
func (e Era) PerBatch() bool { return e.OffsetEntry == EntryBatchLast }

// EraByID returns the era with the given ID.
func EraByID(id string) (Era, bool) {
	for _, e := range Eras {
		if e.ID == id {
			return e, true
		}
	}
	return Era{}, false
}

// Release is an Apache Kafka release number. 0.x releases have four parts (0.10.2.1);
// Minor then holds the second and Patch the third.
type Release struct{ Major, Minor, Patch int }

func (r Release) String() string {
	if r.Major == 0 {
		return fmt.Sprintf("0.%d.%d", r.Minor, r.Patch)
	}
	return fmt.Sprintf("%d.%d.%d", r.Major, r.Minor, r.Patch)
}

func (r Release) less(o Release) bool {
	if r.Major != o.Major {
		return r.Major < o.Major
	}
	if r.Minor != o.Minor {
		return r.Minor < o.Minor
	}
	return r.Patch < o.Patch
}

// releaseLines are the minor release lines of Apache Kafka: major -> lowest and highest
// minor: 0.8-0.11, 1.0-1.1, 2.0-2.8, 3.0-3.9, 4.0-4.5, where 4.5 is trunk (unreleased, as of
// 2026-08). The same lines as model.ParseKafkaVersion's; a release past them is refused.
var releaseLines = map[int][2]int{0: {8, 11}, 1: {0, 1}, 2: {0, 8}, 3: {0, 9}, 4: {0, 5}}

// ReleaseLines names the release lines ParseRelease accepts, for messages.
const ReleaseLines = "0.8-0.11, 1.0-1.1, 2.0-2.8, 3.0-3.9 and 4.0-4.5 (4.5 is trunk, unreleased)"

// ParseRelease parses a Kafka release as Kafka users write it: "4" (4.0.0), "3.6" (3.6.0),
// "3.6.1", "0.10.2.1", "3.7.0-SNAPSHOT" (the suffix is ignored). It refuses what no release
// of a known line is ("9.9.9", "5.0", "2.9", "3.10"), naming the lines (ReleaseLines).
func ParseRelease(s string) (Release, error) {
	core, _, _ := strings.Cut(strings.TrimSpace(s), "-")
	parts := strings.Split(core, ".")
	var nums []int
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p[0] == '+' {
			return Release{}, fmt.Errorf("kafka version %q: %q is not a number (want X.Y.Z, e.g. 3.6.1, or 0.X.Y.Z, e.g. 0.10.2.1)", s, p)
		}
		nums = append(nums, n)
	}
	var r Release
	switch {
	case len(nums) >= 2 && nums[0] == 0 && len(nums) <= 4:
		r.Minor = nums[1]
		if len(nums) > 2 {
			r.Patch = nums[2]
		}
	case len(nums) >= 1 && nums[0] > 0 && len(nums) <= 3:
		r.Major = nums[0]
		if len(nums) > 1 {
			r.Minor = nums[1]
		}
		if len(nums) > 2 {
			r.Patch = nums[2]
		}
	default:
		return Release{}, fmt.Errorf("kafka version %q: want X.Y.Z (e.g. 3.6.1, 3.6 or 4) or 0.X.Y.Z (e.g. 0.10.2.1)", s)
	}
	if line, ok := releaseLines[r.Major]; !ok || r.Minor < line[0] || r.Minor > line[1] {
		return Release{}, fmt.Errorf("kafka version %q is no Apache Kafka release; the release lines are %s", s, ReleaseLines)
	}
	return r, nil
}

// eraBounds are the eras up to 3.6 by the first release after each (docs/kafka.md §13.2).
var eraBounds = []struct {
	before Release
	id     string
}{
	{Release{0, 8, 1}, "0.8.0"},
	{Release{0, 9, 0}, "0.8.1-0.8.2"},
	{Release{0, 10, 1}, "0.9.0-0.10.0"},
	{Release{0, 11, 0}, "0.10.1-0.10.2"},
	{Release{2, 0, 0}, "0.11-1.1"},
	{Release{2, 3, 0}, "2.0-2.2"},
	{Release{3, 7, 0}, "2.3-3.6"},
}

// EraFor returns the era of a release (docs/kafka.md §13.2).
func EraFor(r Release) Era {
	for _, b := range eraBounds {
		if r.less(b.before) {
			e, _ := EraByID(b.id)
			return e
		}
	}
	// KAFKA-806 landed in 3.9.1, 4.0.1 and 4.1.0 (and on the 3.8 branch, for a 3.8.2 if one
	// is ever released; kidx maps 3.8.2+ to the branch's code, as model does).
	perBatch := !r.less(Release{4, 1, 0}) ||
		(r.Major == 4 && r.Minor == 0 && r.Patch >= 1) ||
		(r.Major == 3 && r.Minor == 9 && r.Patch >= 1) ||
		(r.Major == 3 && r.Minor == 8 && r.Patch >= 2)
	id := "3.7-4.0.0"
	if perBatch {
		id = "per-batch"
	}
	e, _ := EraByID(id)
	return e
}

// EraForRule maps kidx's two rule names to the two current eras.
func EraForRule(rule segment.Rule) Era {
	if rule == segment.PerAppend {
		e, _ := EraByID("3.7-4.0.0")
		return e
	}
	e, _ := EraByID("per-batch")
	return e
}

// HasTimeIndex reports whether the era writes a time index (0.10.1+, KAFKA-3163).
func (e Era) HasTimeIndex() bool { return e.TimeEntry != TimeNone }
