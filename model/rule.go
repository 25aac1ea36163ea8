package model

import (
	"fmt"
	"strconv"
	"strings"
)

// AppendRule says how LogSegment.append decides on index entries (docs/kafka.md §2).
type AppendRule int

const (
	// PerBatch is KAFKA-806 (Kafka 3.9.1+, 4.0.1+, 4.1.0+): one index check per record
	// batch inside an append; an entry names the batch's own last offset and start position.
	PerBatch AppendRule = iota
	// PerAppend is the older rule (Kafka up to 3.8.x, 3.9.0, 4.0.0): one index check per
	// LogSegment.append call; an entry names the last offset of the whole append and the
	// position where the append starts.
	PerAppend
)

// String returns the rule's CLI and JSON name.
func (r AppendRule) String() string {
	switch r {
	case PerBatch:
		return "per-batch"
	case PerAppend:
		return "per-append"
	}
	return fmt.Sprintf("AppendRule(%d)", int(r))
}

// ParseRule accepts "per-batch" or "per-append".
func ParseRule(s string) (AppendRule, error) {
	switch strings.TrimSpace(s) {
	case "per-batch":
		return PerBatch, nil
	case "per-append":
		return PerAppend, nil
	}
	return 0, fmt.Errorf("unknown rule %q (want per-batch or per-append)", s)
}

// KafkaVersion is a parsed Apache Kafka release number.
type KafkaVersion struct{ Major, Minor, Patch int }

func (v KafkaVersion) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

func (v KafkaVersion) less(o KafkaVersion) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Patch < o.Patch
}

// releaseLines are Apache Kafka's minor release lines, major -> lowest and highest minor:
// 0.8-0.11, 1.0-1.1, 2.0-2.8, 3.0-3.9, 4.0-4.5, where 4.5 is trunk (unreleased, as of
// 2026-08). A release past them is refused: kidx does not know its rules. logdir.ParseRelease
// reads releases the same way.
var releaseLines = map[int][2]int{0: {8, 11}, 1: {0, 1}, 2: {0, 8}, 3: {0, 9}, 4: {0, 5}}

// ReleaseLines names the release lines ParseKafkaVersion accepts, for messages.
const ReleaseLines = "0.8-0.11, 1.0-1.1, 2.0-2.8, 3.0-3.9 and 4.0-4.5 (4.5 is trunk, unreleased)"

// ParseKafkaVersion parses a release as Kafka users write it: "4" (4.0.0), "3.6" (3.6.0),
// "3.6.1", the four-part 0.x releases ("0.10.2.1": Minor 10, Patch 2; the fourth part changes
// no index rule), with an optional "-SUFFIX" that is ignored ("3.7.0-SNAPSHOT"). A missing
// minor or patch number means .0. What is no release of a known line ("9.9.9", "5.0", "2.9",
// "3.10", "0.7.2") is refused, naming the lines (ReleaseLines).
func ParseKafkaVersion(s string) (KafkaVersion, error) {
	core, _, _ := strings.Cut(strings.TrimSpace(s), "-")
	parts := strings.Split(core, ".")
	maxParts := 3
	if parts[0] == "0" {
		maxParts = 4
	}
	if len(parts) > maxParts || (parts[0] == "0" && len(parts) < 2) {
		return KafkaVersion{}, fmt.Errorf("kafka version %q: want X.Y.Z (e.g. 3.6.1, 3.6 or 4) or 0.X.Y.Z (e.g. 0.10.2.1)", s)
	}
	var nums [4]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p[0] == '+' {
			return KafkaVersion{}, fmt.Errorf("kafka version %q: %q is not a number (want X.Y.Z, e.g. 3.6.1, or 0.X.Y.Z, e.g. 0.10.2.1)", s, p)
		}
		nums[i] = n
	}
	ver := KafkaVersion{nums[0], nums[1], nums[2]}
	if line, ok := releaseLines[ver.Major]; !ok || ver.Minor < line[0] || ver.Minor > line[1] {
		return KafkaVersion{}, fmt.Errorf("kafka version %q is no Apache Kafka release; the release lines are %s", s, ReleaseLines)
	}
	return ver, nil
}

// RuleForKafkaVersion maps a release to its append rule (docs/kafka.md §0.1): per-batch from
// 3.9.1, 4.0.1 and 4.1.0 on. The 3.8 branch also carries the fix (#18843) but no 3.8.2
// release is known; 3.8.2 and later 3.8.x are mapped to per-batch because that is the
// branch's code (see docs/model.md). EraForVersion gives the release's whole behaviour.
func RuleForKafkaVersion(s string) (AppendRule, error) {
	e, err := EraForKafkaVersion(s)
	if err != nil {
		return 0, err
	}
	return e.Rule(), nil
}

// VersionWarnings lists the config values that the given Kafka release would reject as a
// topic config, with the reason (docs/kafka.md §9). The model itself accepts them, so that small
// what-if segments stay possible (docs/contract.md §2).
func VersionWarnings(c Config, version string) ([]string, error) {
	v, err := ParseKafkaVersion(version)
	if err != nil {
		return nil, err
	}
	var out []string
	const minSegment4x = 1024 * 1024
	if c.SegmentBytes < minSegment4x {
		switch {
		case !v.less(KafkaVersion{4, 1, 0}):
			out = append(out, fmt.Sprintf("Kafka %s rejects segment.bytes=%d: the minimum is %d since 4.1 (KAFKA-19080)",
				v, c.SegmentBytes, minSegment4x))
		case v.Major == 4 && v.Minor == 0:
			out = append(out, fmt.Sprintf("Kafka %s accepts segment.bytes=%d as a topic config, but not as the broker's "+
				"log.segment.bytes (minimum %d since 4.0, KAFKA-16368)", v, c.SegmentBytes, minSegment4x))
		}
	}
	return out, nil
}

// Less orders releases: major, then minor, then patch.
func (v KafkaVersion) Less(o KafkaVersion) bool { return v.less(o) }
