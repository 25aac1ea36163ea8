package reports

import (
	"container/heap"
	"fmt"
	"math"
	"sync"

	"kidx/model"
)

// Exposure to the follower index overflow (issue 23, docs/kafka-hazards.md §4): can a
// segment's index fill before segment.bytes with a workload's batches? A leader appends one
// batch per append and rolls exactly when an index is full (LogSegment.shouldRoll:
// offsetIndex().isFull() || timeIndex().isFull(), asked once before each append). A follower
// appends a fetched chunk of many batches after that one check, and from KAFKA-806 (3.9.1,
// 4.0.1, 4.1+) LogSegment.append indexes each batch of it, so once its segments are out of line
// with the leader's an index can fill mid-chunk and TimeIndex.maybeAppend throws. Before
// KAFKA-806 one append makes one entry, but LogSegment.recover indexes per batch in every
// release, so recovering a follower's segment can overflow the same way. Neither happens where
// no index can fill before segment.bytes: Exposure says whether one can.

// Exposure is one configuration's exposure, for one era and one workload's batch sizes.
type Exposure struct {
	// Exposed: some order of the workload's batches fills an index before segment.bytes.
	Exposed bool
	// PerBatch: the era indexes each batch of an append (KAFKA-806), so a follower's fetch
	// throws; otherwise only a recovery of a follower's segment can overflow.
	PerBatch bool
	// Index is the index that fills first ("time" where timestamps grow and the era has a
	// time index, else "offset"); Entries is what it holds when full.
	Index   string
	Entries int64
	// SpacingBytes is the closest two entries can be with these batch sizes: the smallest sum
	// of batch sizes above index.interval.bytes. ExactSpacing is false when the workload has
	// more distinct sizes than kidx tracks (or a huge smallest batch): the spacing is then the
	// lower bound max(index.interval.bytes + 1, the smallest batch), and "exposed" means an
	// index may fill.
	SpacingBytes int64
	ExactSpacing bool
	// FullAtBytes is the segment's size when the index is first full: Entries × SpacingBytes
	// plus the smallest batch (the one carrying the last entry).
	FullAtBytes int64
	// Remedy holds the settings that keep every index from filling before segment.bytes,
	// whatever the batches (one change each).
	Remedy ExposureRemedy
}

// ExposureRemedy is what keeps every index from filling before segment.bytes whatever the
// batches, each on its own with the rest of the configuration unchanged. A zero field is not
// offered: IndexIntervalBytes only below segment.bytes/2, SegmentBytes only from 1 MiB (Kafka
// 4.1's minimum, KAFKA-19080).
type ExposureRemedy struct {
	SegmentIndexBytes  int64 `json:"segmentIndexBytes"`
	IndexIntervalBytes int64 `json:"indexIntervalBytes"`
	SegmentBytes       int64 `json:"segmentBytes,omitempty"`
}

// minSegmentBytes41 is Kafka 4.1's smallest segment.bytes (KAFKA-19080).
const minSegmentBytes41 = 1 << 20

// remedyFor computes the remedies with cfg's other settings: the time index (the smaller)
// holds C = segment.index.bytes/12 - 1 entries; whatever the batches, entries are at least
// max(I+1, 68) bytes apart and the last entry's batch is at least 68 bytes, so no index fills
// when C × max(I+1, 68) + 68 > segment.bytes.
func remedyFor(cfg model.Config) ExposureRemedy {
	r := ExposureRemedy{SegmentIndexBytes: model.SegmentIndexBytesNeverFull(cfg)}
	c := model.TimeIndexCapacity(cfg.SegmentIndexBytes)
	if c == 0 {
		return r // a time index with no slot is full from the start: only a larger index helps
	}
	// The smallest I with C × (I+1) > segment.bytes - 68; offered below segment.bytes/2 only
	// (from there no segment gets a second entry, recommend's rule).
	if i := (cfg.SegmentBytes - model.SmallestV2BatchBytes) / c; 2*i < cfg.SegmentBytes {
		r.IndexIntervalBytes = i
	}
	closest := max(max(cfg.IndexIntervalBytes, 0)+1, model.SmallestV2BatchBytes)
	if k := c*closest + model.SmallestV2BatchBytes - 1; k >= minSegmentBytes41 && k < cfg.SegmentBytes {
		r.SegmentBytes = k
	}
	return r
}

// batchSizes is what a workload's batch sizes tell exposure: the smallest, and the distinct
// sizes while there are few.
type batchSizes struct {
	count    int64
	smallest int64
	distinct []int64 // nil once many is set
	many     bool    // more than maxDistinctSizes distinct sizes
	last     int64
	// dist caches residueSums once every size is in (exposure is asked after the pass).
	once sync.Once
	dist []int64
}

// maxDistinctSizes bounds the distinct sizes kept for the exact spacing.
const maxDistinctSizes = 16

// maxResidueModulus bounds the smallest batch the exact spacing is computed for (a shortest
// path over that many residues per distinct size).
const maxResidueModulus = 1 << 18

func (s *batchSizes) add(n int64) {
	if s.count > 0 && n == s.last {
		s.count++
		return
	}
	if s.count == 0 || n < s.smallest {
		s.smallest = n
	}
	s.count++
	s.last = n
	if s.many {
		return
	}
	for _, d := range s.distinct {
		if d == n {
			return
		}
	}
	if len(s.distinct) == maxDistinctSizes {
		s.many, s.distinct = true, nil
		return
	}
	s.distinct = append(s.distinct, n)
}

// addChunk adds a chunk of a batch stream's sizes.
func (s *batchSizes) addChunk(b []int32) {
	for _, n := range b {
		if s.count > 0 && int64(n) == s.last {
			s.count++
			continue
		}
		s.add(int64(n))
	}
}

// closestSpacing is the smallest distance two index entries can have with batches of these
// sizes under index.interval.bytes I: an entry goes to the batch at which the bytes since the
// previous entry's batch (or the segment's start) exceed I (LogSegment.append: the check
// comes before the batch is counted), so a stretch between two entries sums to more than I
// while the stretch minus its last batch does not. The smallest sum of sizes above I always
// qualifies (put its largest batch last: dropping any batch leaves a sum at most I, else that
// sum would be smaller), so the spacing is the smallest sum of sizes above I. It is computed
// by the money-changing shortest path over residues modulo the smallest size; with more
// distinct sizes than tracked it is the bound max(I+1, smallest), and exact is false.
func closestSpacing(interval int64, s *batchSizes) (spacing int64, exact bool) {
	interval = max(interval, 0)
	m := max(s.smallest, 1)
	lo := max(interval+1, m)
	hi := m * (interval/m + 1) // batches of the smallest size only
	if lo == hi {
		return lo, true
	}
	if s.many || m > maxResidueModulus {
		return lo, false
	}
	dist := s.residueSums()
	best := hi
	for _, d := range dist {
		if d == noSum {
			continue
		}
		if d <= interval { // add smallest batches until the sum passes I
			d += m * ((interval-d)/m + 1)
		}
		best = min(best, d)
	}
	return best, true
}

// noSum marks a residue no sum of the sizes reaches.
const noSum = math.MaxInt64

// residueSums is, for each residue r modulo the smallest size, the smallest sum of sizes
// congruent to r (Dijkstra over the residues: adding a size d goes from r to (r+d) mod m at
// cost d). It depends on the sizes only, so a workload computes it once for all its points.
func (s *batchSizes) residueSums() []int64 {
	s.once.Do(func() {
		m := max(s.smallest, 1)
		dist := make([]int64, m)
		for i := range dist {
			dist[i] = noSum
		}
		dist[0] = 0
		q := &residueQueue{{0, 0}}
		for q.Len() > 0 {
			e := heap.Pop(q).(residueEntry)
			if e.sum != dist[e.residue] {
				continue
			}
			for _, d := range s.distinct {
				sum := e.sum + d
				r := sum % m
				if sum < dist[r] {
					dist[r] = sum
					heap.Push(q, residueEntry{r, sum})
				}
			}
		}
		s.dist = dist
	})
	return s.dist
}

type residueEntry struct{ residue, sum int64 }

type residueQueue []residueEntry

func (q residueQueue) Len() int           { return len(q) }
func (q residueQueue) Less(i, j int) bool { return q[i].sum < q[j].sum }
func (q residueQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *residueQueue) Push(x any)        { *q = append(*q, x.(residueEntry)) }
func (q *residueQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// exposureOf decides cfg's exposure under era for batches of these sizes. timestampsGrow says
// every indexed batch brings a newer max timestamp (a producer's CreateTime): then the time
// index, with fewer slots, fills first; otherwise it holds one entry and only the offset index
// can fill.
func exposureOf(cfg model.Config, era model.Era, sizes *batchSizes, timestampsGrow bool) Exposure {
	e := Exposure{PerBatch: era.Rule() == model.PerBatch}
	if sizes == nil || sizes.count == 0 {
		return e
	}
	e.SpacingBytes, e.ExactSpacing = closestSpacing(cfg.IndexIntervalBytes, sizes)
	e.Index, e.Entries = "offset", model.OffsetIndexCapacity(cfg.SegmentIndexBytes)
	if timestampsGrow && era.HasTimeIndex() {
		e.Index, e.Entries = "time", model.TimeIndexCapacity(cfg.SegmentIndexBytes)
	}
	e.FullAtBytes = e.Entries*e.SpacingBytes + sizes.smallest
	e.Exposed = e.FullAtBytes <= cfg.SegmentBytes
	if e.Exposed {
		e.Remedy = remedyFor(cfg)
	}
	return e
}

// Cell is the table's one word: "exposed" or "no".
func (e Exposure) Cell() string {
	if e.Exposed {
		return "exposed"
	}
	return "no"
}

// Sentence says, for an exposed configuration, what can happen and what to change; "" when
// not exposed. releases names the per-append releases the sentence is about (unused under the
// per-batch rule, whose releases it names itself).
func (e Exposure) Sentence(cfg model.Config, releases string) string {
	if !e.Exposed {
		return ""
	}
	may := "can"
	if !e.ExactSpacing {
		may = "may"
	}
	full := fmt.Sprintf("the %s index %s be full (%s) at %d bytes, before segment.bytes=%d",
		e.Index, may, plural(e.Entries, "entry"), e.FullAtBytes, cfg.SegmentBytes)
	var what string
	if e.PerBatch {
		what = fmt.Sprintf("Exposed to the follower index overflow of Kafka 3.9.1, 4.0.1 and 4.1+ (one entry per batch): %s, so a follower "+
			"whose segments are out of line with the leader's (after a restart of either) can throw \"%s\" on a fetch, and its partition "+
			"is marked failed (docs/kafka-hazards.md).", full, fullIndexMessage(e.Index))
	} else {
		what = fmt.Sprintf("Exposed to recovery's index overflow only: under %s (one entry per append) a follower's fetch cannot throw, "+
			"but LogSegment.recover indexes every batch and %s, so recovering a follower's segment after an unclean shutdown can throw "+
			"\"%s\" and the log does not load (docs/kafka-hazards.md).", releases, full, fullIndexMessage(e.Index))
	}
	return what + " " + e.Remedy.Sentence(cfg)
}

// fullIndexMessage is Kafka's exception message for an append to a full index of that kind
// (TimeIndex.maybeAppend; OffsetIndex.append does not name its index).
func fullIndexMessage(index string) string {
	if index == "time" {
		return "Attempt to append to a full time index"
	}
	return "Attempt to append to a full index"
}

// Sentence is the remedy in one sentence.
func (r ExposureRemedy) Sentence(cfg model.Config) string {
	s := fmt.Sprintf("Lower the risk: raise segment.index.bytes to at least %d", r.SegmentIndexBytes)
	if r.IndexIntervalBytes > cfg.IndexIntervalBytes {
		if r.SegmentBytes > 0 {
			s += fmt.Sprintf(", or index.interval.bytes to at least %d", r.IndexIntervalBytes)
		} else {
			s += fmt.Sprintf(" or index.interval.bytes to at least %d", r.IndexIntervalBytes)
		}
	}
	if r.SegmentBytes > 0 {
		s += fmt.Sprintf(", or lower segment.bytes to at most %d", r.SegmentBytes)
	}
	return s + " (each keeps every index from filling before the segment is full, whatever the batches)."
}
