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

// ParseKafkaVersion parses "X.Y" or "X.Y.Z", with an optional "-SUFFIX" (e.g. -SNAPSHOT)
// that is ignored. A missing patch number means .0.
func ParseKafkaVersion(s string) (KafkaVersion, error) {
	core, _, _ := strings.Cut(strings.TrimSpace(s), "-")
	parts := strings.Split(core, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return KafkaVersion{}, fmt.Errorf("kafka version %q: want X.Y.Z", s)
	}
	var nums [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return KafkaVersion{}, fmt.Errorf("kafka version %q: %q is not a number", s, p)
		}
		nums[i] = n
	}
	return KafkaVersion{nums[0], nums[1], nums[2]}, nil
}

// RuleForKafkaVersion maps a release to its append rule (semantics §0.1): per-batch from
// 3.9.1, 4.0.1 and 4.1.0 on. The 3.8 branch also carries the fix (#18843) but no 3.8.2
// release is known; 3.8.2 and later 3.8.x are mapped to per-batch because that is the
// branch's code (see docs/model.md).
func RuleForKafkaVersion(s string) (AppendRule, error) {
	v, err := ParseKafkaVersion(s)
	if err != nil {
		return 0, err
	}
	switch {
	case v.Major == 3 && v.Minor == 8:
		if v.Patch >= 2 {
			return PerBatch, nil
		}
		return PerAppend, nil
	case v.Major == 3 && v.Minor == 9, v.Major == 4 && v.Minor == 0:
		if v.Patch >= 1 {
			return PerBatch, nil
		}
		return PerAppend, nil
	case v.less(KafkaVersion{3, 8, 0}):
		return PerAppend, nil
	}
	return PerBatch, nil
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
