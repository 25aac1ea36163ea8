package explain

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// MaxIntervalBytes is the largest index.interval.bytes Kafka accepts (an INT config).
const MaxIntervalBytes = math.MaxInt32

// IntervalRange is the closed range [Min, Max] of index.interval.bytes values.
type IntervalRange struct {
	Min int64 `json:"min"`
	Max int64 `json:"max"`
}

// IntervalSet is a set of index.interval.bytes values: sorted, disjoint, non-adjacent closed
// ranges inside [0, MaxIntervalBytes]. The index an append rule writes changes only where the
// interval crosses a distance between batch starts, so the values that reproduce an index are
// always such a union of ranges (docs/explain.md).
type IntervalSet []IntervalRange

// AllIntervals is every value Kafka accepts.
var AllIntervals = IntervalSet{{0, MaxIntervalBytes}}

// intervalRange is [lo, hi] clipped to the valid values (empty when lo > hi).
func intervalRange(lo, hi int64) IntervalSet {
	lo, hi = max(lo, 0), min(hi, MaxIntervalBytes)
	if lo > hi {
		return nil
	}
	return IntervalSet{{lo, hi}}
}

// Empty reports whether no value is in the set.
func (s IntervalSet) Empty() bool { return len(s) == 0 }

// Contains reports whether v is in the set.
func (s IntervalSet) Contains(v int64) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i].Max >= v })
	return i < len(s) && s[i].Min <= v
}

// Min is the smallest value (-1 when empty).
func (s IntervalSet) Min() int64 {
	if len(s) == 0 {
		return -1
	}
	return s[0].Min
}

// Max is the largest value (-1 when empty).
func (s IntervalSet) Max() int64 {
	if len(s) == 0 {
		return -1
	}
	return s[len(s)-1].Max
}

// Intersect is the values in both sets.
func (s IntervalSet) Intersect(o IntervalSet) IntervalSet {
	var out IntervalSet
	i, j := 0, 0
	for i < len(s) && j < len(o) {
		lo, hi := max(s[i].Min, o[j].Min), min(s[i].Max, o[j].Max)
		if lo <= hi {
			out = append(out, IntervalRange{lo, hi})
		}
		if s[i].Max < o[j].Max {
			i++
		} else {
			j++
		}
	}
	return out
}

// unionRanges normalizes any list of ranges into a set.
func unionRanges(rs []IntervalRange) IntervalSet {
	var in []IntervalRange
	for _, r := range rs {
		r.Min, r.Max = max(r.Min, 0), min(r.Max, MaxIntervalBytes)
		if r.Min <= r.Max {
			in = append(in, r)
		}
	}
	sort.Slice(in, func(i, j int) bool { return in[i].Min < in[j].Min })
	var out IntervalSet
	for _, r := range in {
		if n := len(out); n > 0 && r.Min <= out[n-1].Max+1 {
			out[n-1].Max = max(out[n-1].Max, r.Max)
			continue
		}
		out = append(out, r)
	}
	return out
}

// Pick is the value a replay uses: want when the set holds it, else Kafka's default 4096
// when it does, else the smallest value.
func (s IntervalSet) Pick(want int64) int64 {
	switch {
	case want >= 0 && s.Contains(want):
		return want
	case s.Contains(4096):
		return 4096
	}
	return s.Min()
}

// String says the set as an operator reads it: "any value in [4096, 16349]", "any value
// from 4096", "any value in [0, 99] or [200, 300]", "no value".
func (s IntervalSet) String() string {
	if len(s) == 0 {
		return "no value"
	}
	if len(s) == 1 && s[0].Min == 0 && s[0].Max == MaxIntervalBytes {
		return "any value"
	}
	var parts []string
	for _, r := range s {
		switch {
		case r.Min == r.Max:
			parts = append(parts, fmt.Sprintf("%d", r.Min))
		case r.Max == MaxIntervalBytes:
			parts = append(parts, fmt.Sprintf("from %d", r.Min))
		default:
			parts = append(parts, fmt.Sprintf("[%d, %d]", r.Min, r.Max))
		}
	}
	if len(parts) == 1 && strings.HasPrefix(parts[0], "from ") {
		return "any value " + parts[0]
	}
	if len(parts) == 1 && !strings.HasPrefix(parts[0], "[") {
		return "exactly " + parts[0]
	}
	return "any value in " + strings.Join(parts, " or ")
}
