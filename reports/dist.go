package reports

import "math/bits"

// Dist is the exact distribution of one cost metric (scan bytes or hops) over every offset,
// built from runs (count offsets sharing one value) in bounded memory, whatever the number of
// offsets or of distinct values.
//
// One pass over the runs fills log-linear buckets (exact below 512, then 256 buckets per power
// of two) that remember the count, the smallest and the largest value they saw. A quantile
// whose bucket saw a single value is exact after that pass, which is the rule for workloads
// of a few batch sizes. Otherwise the bucket's [min, max] range is refined: the source is
// replayed (every source is replayable) and only values inside the range are counted, either
// one counter per value when the range is at most refineSlots wide, or refineSlots equal
// sub-buckets with their own min/max, narrowing the range refineSlots-fold per pass. A 64-bit
// range is exact after at most five refinement passes; ranges of scan bytes inside a 1 GiB
// segment after two.
type Dist struct {
	n int64
	// buckets grow to the largest value's bucket as values come (at most numBuckets): a
	// partition of small values keeps a few KB, not the whole 350 KB table.
	buckets   []bucket
	quantiles []Quantile
	// refining is set while a refinement pass is counting: Add then only looks at targets.
	refining bool
	targets  []*refineTarget
}

// Quantile names a quantile as a fraction in thousandths: 500 is the median, 999 p99.9.
type Quantile int

// The quantiles every report shows.
const (
	P50  Quantile = 500
	P99  Quantile = 990
	P999 Quantile = 999
)

// ReportedQuantiles are the quantiles Dist resolves by default.
var ReportedQuantiles = []Quantile{P50, P99, P999}

type bucket struct{ count, min, max int64 }

const (
	exactBelow  = 512 // values below this get a bucket each
	subBits     = 8   // 256 sub-buckets per power of two above that
	numBuckets  = exactBelow + (64-subBits-1)*(1<<subBits)
	refineSlots = 4096
)

func bucketOf(v int64) int {
	if v < exactBelow {
		return int(v)
	}
	e := bits.Len64(uint64(v)) // >= 10
	sub := int(uint64(v)>>(e-subBits-1)) & (1<<subBits - 1)
	return exactBelow + (e-subBits-2)*(1<<subBits) + sub
}

// refineTarget is one quantile still being searched for: its rank among the values in
// [lo, hi] and the counters of the current refinement pass.
type refineTarget struct {
	q        Quantile
	lo, hi   int64
	rank     int64 // 1-based rank inside [lo, hi]
	width    int64 // values per slot: 1 means exact counters
	slots    []bucket
	resolved bool
	value    int64
}

// NewDist returns an empty distribution that will resolve the ReportedQuantiles.
func NewDist() *Dist { return &Dist{quantiles: ReportedQuantiles} }

// Add records count offsets of value v (v >= 0). Runs of count 0 are ignored.
func (d *Dist) Add(count, v int64) {
	if count <= 0 {
		return
	}
	if d.refining {
		for _, t := range d.targets {
			if v >= t.lo && v <= t.hi && !t.resolved {
				s := &t.slots[(v-t.lo)/t.width]
				if s.count == 0 || v < s.min {
					s.min = v
				}
				if v > s.max {
					s.max = v
				}
				s.count += count
			}
		}
		return
	}
	i := bucketOf(v)
	if i >= len(d.buckets) {
		d.grow(i)
	}
	b := &d.buckets[i]
	if b.count == 0 {
		b.min, b.max = v, v
	}
	// min and max compile to conditional moves: no branch to mispredict on mixed values.
	b.min, b.max = min(b.min, v), max(b.max, v)
	b.count += count
	d.n += count
}

// grow makes bucket i addressable, at least doubling the table.
func (d *Dist) grow(i int) {
	n := min(max(i+1, 2*len(d.buckets), 1024), numBuckets)
	d.buckets = append(d.buckets, make([]bucket, n-len(d.buckets))...)
}

// clone is an independent copy of a distribution in its first pass (no refinement targets).
func (d *Dist) clone() *Dist {
	c := *d
	c.buckets = append([]bucket(nil), d.buckets...)
	c.targets = nil
	return &c
}

// Count is the number of offsets recorded.
func (d *Dist) Count() int64 { return d.n }

// Max is the largest value recorded.
func (d *Dist) Max() int64 {
	for i := len(d.buckets) - 1; i >= 0; i-- {
		if d.buckets[i].count > 0 {
			return d.buckets[i].max
		}
	}
	return 0
}

// rankOf is the nearest-rank position of quantile q among n values: ceil(q/1000 × n).
func rankOf(q Quantile, n int64) int64 {
	r := (int64(q)*n + 999) / 1000
	return max(r, 1)
}

// Resolve finishes the first pass: it reports whether every quantile is now exact. When it is
// not, the caller replays the runs once more through Add after BeginRefine, then calls
// Resolve again, until it returns true.
func (d *Dist) Resolve() bool {
	if d.n == 0 {
		return true
	}
	if !d.refining && d.targets == nil {
		for _, q := range d.quantiles {
			rank := rankOf(q, d.n)
			var cum int64
			for i := range d.buckets {
				b := d.buckets[i]
				if cum+b.count >= rank {
					d.targets = append(d.targets, newTarget(q, b.min, b.max, rank-cum))
					break
				}
				cum += b.count
			}
		}
	} else {
		for _, t := range d.targets {
			if !t.resolved {
				t.narrow()
			}
		}
	}
	d.refining = false
	for _, t := range d.targets {
		if !t.resolved {
			return false
		}
	}
	return true
}

func newTarget(q Quantile, lo, hi, rank int64) *refineTarget {
	t := &refineTarget{q: q, lo: lo, hi: hi, rank: rank}
	if lo == hi {
		t.resolved, t.value = true, lo
	}
	return t
}

// narrow moves the target into the slot that holds its rank after a refinement pass.
func (t *refineTarget) narrow() {
	var cum int64
	for _, s := range t.slots {
		if cum+s.count >= t.rank {
			t.rank -= cum
			t.lo, t.hi = s.min, s.max
			if t.width == 1 || s.min == s.max {
				t.resolved, t.value = true, s.min
			}
			t.slots = nil
			return
		}
		cum += s.count
	}
	// Unreachable when the replay saw the same runs as the first pass.
	panic("reports: refinement pass saw fewer values than the first pass; the source is not replayable")
}

// BeginRefine prepares a refinement pass: Add will count only values inside the unresolved
// quantiles' ranges.
func (d *Dist) BeginRefine() {
	d.refining = true
	for _, t := range d.targets {
		if t.resolved {
			continue
		}
		span := t.hi - t.lo + 1
		t.width = max(1, (span+refineSlots-1)/refineSlots)
		t.slots = make([]bucket, (span+t.width-1)/t.width)
	}
}

// Quantile returns the exact value of quantile q (nearest rank: the smallest value v such that
// at least ceil(q/1000 × Count) offsets cost v or less). It is valid once Resolve returned
// true; 0 for an empty distribution.
func (d *Dist) Quantile(q Quantile) int64 {
	for _, t := range d.targets {
		if t.q == q {
			return t.value
		}
	}
	return 0
}

// CDFPoint is one exact point of a cumulative distribution: Fraction of the offsets cost
// Value or less.
type CDFPoint struct {
	Value    int64   `json:"value"`
	Fraction float64 `json:"fraction"`
}

// CDF returns exact points of the cumulative distribution, one per non-empty bucket, at the
// bucket's largest value: every value of the bucket and of the buckets before it is at most
// that value, and every value of later buckets is above it.
func (d *Dist) CDF() []CDFPoint {
	var out []CDFPoint
	var cum int64
	for _, b := range d.buckets {
		if b.count == 0 {
			continue
		}
		cum += b.count
		out = append(out, CDFPoint{Value: b.max, Fraction: float64(cum) / float64(d.n)})
	}
	return out
}
