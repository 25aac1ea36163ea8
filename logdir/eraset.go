package logdir

import (
	"math/bits"
	"strings"
)

// EraSet is a set of eras (bit i is Eras[i]): the eras whose rules explain what a file shows.
type EraSet uint32

// AllEras holds every era.
var AllEras = EraSet(1)<<len(Eras) - 1

// ErasWhere is the set of eras satisfying keep.
func ErasWhere(keep func(Era) bool) EraSet {
	var s EraSet
	for i, e := range Eras {
		if keep(e) {
			s |= 1 << i
		}
	}
	return s
}

// EraSetOf is the set holding e.
func EraSetOf(e Era) EraSet {
	return ErasWhere(func(x Era) bool { return x.ID == e.ID })
}

// Has reports whether e is in the set.
func (s EraSet) Has(e Era) bool { return s&EraSetOf(e) != 0 }

// Empty reports an empty set.
func (s EraSet) Empty() bool { return s == 0 }

// Eras lists the set's eras, oldest first.
func (s EraSet) Eras() []Era {
	var out []Era
	for i, e := range Eras {
		if s&(1<<i) != 0 {
			out = append(out, e)
		}
	}
	return out
}

// IDs lists the set's era IDs, oldest first.
func (s EraSet) IDs() []string {
	out := []string{}
	for _, e := range s.Eras() {
		out = append(out, e.ID)
	}
	return out
}

// String names the set as release ranges: runs of consecutive eras are joined, so that
// {0.8.0 ... 0.11-1.1} reads "Kafka 0.8.0-1.1".
func (s EraSet) String() string {
	if s == 0 {
		return "no Kafka release"
	}
	if s == AllEras {
		return "any Kafka release"
	}
	var parts []string
	for i := 0; i < len(Eras); {
		if s&(1<<i) == 0 {
			i++
			continue
		}
		j := i
		for j+1 < len(Eras) && s&(1<<(j+1)) != 0 {
			j++
		}
		parts = append(parts, eraRange(Eras[i], Eras[j]))
		i = j + 1
	}
	return "Kafka " + strings.Join(parts, ", ")
}

// eraRange names the releases from the first of a to the last of b.
func eraRange(a, b Era) string {
	if a.ID == b.ID {
		return a.Releases
	}
	first, _, _ := strings.Cut(a.Releases, "-")
	first, _, _ = strings.Cut(first, ",")
	last := b.Releases
	if i := strings.LastIndexAny(last, "-,"); i >= 0 && !strings.HasSuffix(last, "+") {
		last = strings.TrimSpace(last[i+1:])
	}
	if b.ID == "per-batch" {
		return first + " and later"
	}
	return first + "-" + last
}

// Count is the number of eras in the set.
func (s EraSet) Count() int { return bits.OnesCount32(uint32(s)) }
