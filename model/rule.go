package model

import (
	"fmt"
	"strconv"
	"strings"
)

// AppendRule says how LogSegment.append decides on index entries (semantics §2).
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

// releaseLines are Apache Kafka's closed minor release lines, major -> lowest and highest
// minor: 0.8-0.11, 1.0-1.1, 2.0-2.8, 3.0-3.9. Any 4.x or later is accepted: releases after the
// newest kidx knows (4.5, trunk) are read with trunk's rules (NewerThanKnown).
var releaseLines = map[int][2]int{0: {8, 11}, 1: {0, 1}, 2: {0, 8}, 3: {0, 9}}

// NewerThanKnown reports a release past the newest line kidx knows (4.5, trunk as of
// 2026-08), whose rules kidx takes to be trunk's.
func (v KafkaVersion) NewerThanKnown() bool { return !v.less(KafkaVersion{4, 6, 0}) }

// ParseKafkaVersion parses a release as people write it: "X.Y" or "X.Y.Z", and the four-part
// 0.x releases ("0.10.2.1": Minor 10, Patch 2; the fourth part changes no index rule), with
// an optional "-SUFFIX" (e.g. -SNAPSHOT) that is ignored. A missing patch number means .0.
// What is no release line is refused, naming the lines.
func ParseKafkaVersion(s string) (KafkaVersion, error) {
	core, _, _ := strings.Cut(strings.TrimSpace(s), "-")
	parts := strings.Split(core, ".")
	maxParts := 3
	if len(parts) > 0 && parts[0] == "0" {
		maxParts = 4
	}
	if len(parts) < 2 || len(parts) > maxParts {
		return KafkaVersion{}, fmt.Errorf("kafka version %q: want X.Y.Z (e.g. 3.6.1) or 0.X.Y.Z (e.g. 0.10.2.1)", s)
	}
	var nums [4]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return KafkaVersion{}, fmt.Errorf("kafka version %q: %q is not a number", s, p)
		}
		nums[i] = n
	}
	ver := KafkaVersion{nums[0], nums[1], nums[2]}
	if line, ok := releaseLines[ver.Major]; (!ok && ver.Major < 4) || (ok && (ver.Minor < line[0] || ver.Minor > line[1])) {
		return KafkaVersion{}, fmt.Errorf("kafka version %q is no Apache Kafka release line; the lines are 0.8-0.11, 1.0-1.1, 2.0-2.8, 3.0-3.9 and 4.0 on", s)
	}
	return ver, nil
}

// RuleForKafkaVersion maps a release to its append rule (semantics §0.1): per-batch from
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
// topic config, with the reason (semantics §9). The model itself accepts them, so that small
// what-if segments stay possible (SPEC §2).
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
