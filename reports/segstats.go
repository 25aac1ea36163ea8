package reports

import (
	"fmt"
	"os"
	"sort"

	"kidx/logdir"
	"kidx/model"
	"kidx/segment"
)

// bruteForceLimit bounds the per-offset fallback for segments whose index the one-pass walk
// cannot follow (entries off batch boundaries, unsorted entries): beyond it the segment's
// statistics are skipped and said so.
const bruteForceLimit = 1 << 20

// segmentFigures is what one pass over a real segment gives.
type segmentFigures struct {
	batches       int64
	logBytes      int64 // bytes of whole batches
	maxBatch      int64
	lastBatchPos  int64 // where the last batch starts
	entries       int   // valid offset-index entries (before the zero tail of a live index)
	timeEntries   int   // likewise for the time index
	warmCovered   int64 // log bytes the warm section's entries span
	skipped       string
	indexFileSize int64
	timeFileSize  int64
	// reads41 are the phase-2 header reads of Kafka 4.1+ over the segment's offsets (before
	// 4.1 they are the hops).
	reads41 readsWalk
}

// costRun is a run of consecutive offsets [first, first+count) of one batch (at position
// pos) that share one phase-2 cost.
type costRun struct {
	first, count, scanBytes, hops, pos int64
	// base is the first offset of the batch at pos (Kafka's baseOffset()), and own says the
	// hit is that batch. Kafka 4.1+'s loop then reads one header more than the hops for an
	// offset other than base, unless the batch is the segment's last (readsWalk). Otherwise
	// (an entry past the batch, a brute-force lookup from inside a batch) it reads the hops.
	base int64
	own  bool
}

// readsWalk adds up, from a segment's runs in batch order, the header reads of Kafka 4.1+'s
// phase 2 (FileRecords.searchForOffsetFromPosition, KAFKA-18989; docs/kafka.md §7.1, §13.6). From
// the start it reads batch headers and returns at the first batch whose base offset equals the
// target, or at the first whose base offset is past it (returning the batch before), or at the
// end of the file. For an offset o of its hit batch h that is h's base offset, it reads the
// hops; for any other o, the hops and h's successor, unless h is the segment's last batch.
// Whether a batch is the last is known only at the segment's end, so the runs of the latest
// batch are held apart until the next batch or the end.
type readsWalk struct {
	total, max int64 // reads of the batches settled so far
	pos        int64 // the pending batch
	pending    bool
	// The pending batch's reads if another batch follows it, and if it is the last.
	notLastTotal, notLastMax, lastTotal, lastMax int64
}

func (w *readsWalk) add(r costRun) {
	if !w.pending || r.pos != w.pos {
		w.settle(false)
		w.pos, w.pending = r.pos, true
	}
	reads := r.count * r.hops
	w.lastTotal += reads
	w.lastMax = max(w.lastMax, r.hops)
	past := int64(0) // offsets of the run for which 4.1 reads the header after the hit
	if r.own {
		past = r.count
		if r.first == r.base {
			past--
		}
	}
	w.notLastTotal += reads + past
	if past > 0 {
		w.notLastMax = max(w.notLastMax, r.hops+1)
	} else {
		w.notLastMax = max(w.notLastMax, r.hops)
	}
}

// settle adds the pending batch's reads: as the segment's last batch, or not.
func (w *readsWalk) settle(last bool) {
	if !w.pending {
		return
	}
	if last {
		w.total += w.lastTotal
		w.max = max(w.max, w.lastMax)
	} else {
		w.total += w.notLastTotal
		w.max = max(w.max, w.notLastMax)
	}
	w.pending = false
	w.notLastTotal, w.notLastMax, w.lastTotal, w.lastMax = 0, 0, 0, 0
}

// OffsetCosts computes, as analyze does, the exact phase-2 cost of every offset one real
// segment holds, and calls fn for every run of consecutive offsets [first, last] that share
// one scanBytes and hops (docs/contract.md §5).
func OffsetCosts(files segment.SegmentFiles, fn func(first, last, scanBytes, hops int64)) error {
	_, err := segmentRuns(files, func(r costRun) { fn(r.first, r.first+r.count-1, r.scanBytes, r.hops) })
	return err
}

// segmentRuns walks one segment's headers on its own (OffsetCosts, and the refinement passes
// that cannot replay from memory) with the same costWalk analyze runs inside verify's walk.
func segmentRuns(files segment.SegmentFiles, fn func(costRun)) (segmentFigures, error) {
	return segmentRunsWith(files, nil, fn)
}

// segmentRunsWith is segmentRuns with index standing for the segment's own offset index when
// not nil (the index recovery rebuilds for a segment without one).
func segmentRunsWith(files segment.SegmentFiles, index *segment.OffsetIndex, fn func(costRun)) (segmentFigures, error) {
	// No caller needs the time index's entries (a rebuild counts its own): it is not loaded,
	// so a .timeindex of any size costs nothing here (issue 27), and only its size is kept.
	timePath := files.TimeIndex
	files.TimeIndex = ""
	seg, err := segment.OpenSegmentFiles(files, segment.AccessPread)
	if err != nil {
		return segmentFigures{}, err
	}
	defer seg.Close()
	if index != nil {
		// The caller's index outlives this walk: the segment's Close must not release it.
		own := seg.Index
		seg.Index = index
		defer func() { seg.Index = own }()
	}
	cw := newCostWalk(seg, fn)
	if index != nil {
		cw.fig.indexFileSize = 0 // no file: the entries are the rebuild's
	}
	seg.Log.SetReadAhead(logdir.HeaderWindow)
	res := seg.Log.WalkSplit(0, 0, segment.SplitHint(cw.entries, nil, seg.Log.Size()), func(b segment.BatchInfo) bool {
		first, err := seg.Log.FirstOffset(b)
		if err != nil {
			return cw.stop(b, err.Error())
		}
		return cw.Batch(b, first, b.LastOffset())
	})
	cw.End(seg, res)
	if st, err := os.Stat(timePath); timePath != "" && err == nil {
		cw.fig.timeFileSize = st.Size()
	}
	return cw.fig, nil
}

// costWalk computes the exact phase-2 cost of every offset of one real segment and hands it
// to fn as runs, without keeping per-offset or per-batch memory: it follows the batch headers
// in file order and the index's valid entries together, in offset order (docs/contract.md §5). Entries
// must name increasing offsets at increasing batch-start positions; an entry's offset may lie
// beyond the batch at its position (the per-append rule) or be its first offset (Kafka up to
// 1.1). When that does not hold (a corrupt index), every offset is looked up instead, as
// Kafka would, once the walk has listed the batches.
//
// Within batch k (offsets base..last at position p) the entries whose offsets fall in it split
// its offsets into runs; each run's start is the latest entry at or below it (or byte 0), so
// scanBytes = p - start and hops = k - (batch at start) + 1.
type costWalk struct {
	fig     segmentFigures
	sizes   *batchSizes // the partition's batch sizes, for the follower-overflow exposure (nil: not kept)
	emit    func(costRun)
	entries []segment.IndexEntry
	brute   bool
	stopped bool

	entryBatch []int64 // batch number at each entry's position
	posNext    int     // next entry to match to a batch start
	offNext    int     // next entry not yet in force
	cur        int     // entry in force (-1: start at byte 0, batch 0)
	k          int64
	prevLast   int64
	base       int64 // first offset of the batch being walked

	spans   []span // brute force: every batch's offsets
	offsets int64

	progress func(bytes int64) // called with the segment's log bytes at its end (analyze's progress bar)
}

type span struct{ base, last, pos int64 }

func newCostWalk(seg *segment.Segment, fn func(costRun)) *costWalk {
	cw := &costWalk{cur: -1, prevLast: -1 << 62}
	cw.emit = func(r costRun) {
		if r.count > 0 {
			cw.fig.reads41.add(r)
			fn(r)
		}
	}
	if seg.Index != nil {
		cw.fig.entries = seg.Index.ValidLen()
		cw.fig.indexFileSize = seg.Index.FileSize
		cw.entries = seg.Index.Entries(cw.fig.entries)
	}
	if seg.TimeIndex != nil {
		cw.fig.timeEntries = seg.TimeIndex.ValidLen()
		cw.fig.timeFileSize = seg.TimeIndex.FileSize
	}
	// An index whose entries are not strictly increasing (in offset and position) or point
	// past the log is searched by Kafka in ways a merge cannot follow: look every offset up.
	cw.brute = !sortedIndex(cw.entries, seg.Log.Size())
	cw.entryBatch = make([]int64, len(cw.entries))
	return cw
}

func (cw *costWalk) stop(b segment.BatchInfo, why string) bool {
	cw.fig.skipped = fmt.Sprintf("%s at byte %d: offsets from %d on are not counted", why, b.Position, b.BaseOffset())
	cw.stopped = true
	return false
}

// Batch follows the next batch; false once the walk cannot go on.
func (cw *costWalk) Batch(b segment.BatchInfo, base, last int64) bool {
	if cw.stopped {
		return false
	}
	cw.fig.batches++
	cw.fig.maxBatch = max(cw.fig.maxBatch, b.Size)
	cw.fig.lastBatchPos = b.Position
	if cw.sizes != nil {
		cw.sizes.add(b.Size)
	}
	cw.base = base
	if cw.brute {
		if last >= base {
			cw.spans = append(cw.spans, span{base, last, b.Position})
			cw.offsets += last - base + 1
		}
		if cw.offsets > bruteForceLimit {
			cw.fig.skipped = fmt.Sprintf("index entries are not in order or not at batch starts, and the segment has more than %d offsets to look up one by one: scan statistics skipped", bruteForceLimit)
			cw.stopped = true
			return false
		}
		return true
	}
	p, entries := b.Position, cw.entries
	if base <= cw.prevLast || last < base {
		return cw.stop(b, "batch offsets out of order")
	}
	cw.prevLast = last
	if cw.posNext < len(entries) && entries[cw.posNext].Position < p {
		return cw.stop(b, fmt.Sprintf("index entry (%d, %d) points inside a batch", entries[cw.posNext].Offset, entries[cw.posNext].Position))
	}
	if cw.posNext < len(entries) && entries[cw.posNext].Position == p {
		cw.entryBatch[cw.posNext] = cw.k
		cw.posNext++
	}
	o := base
	for cw.offNext < len(entries) && entries[cw.offNext].Offset <= last {
		if e := entries[cw.offNext]; e.Offset > o {
			cw.runAt(p, o, e.Offset-o)
			o = e.Offset
		}
		cw.cur = cw.offNext
		cw.offNext++
	}
	cw.runAt(p, o, last-o+1)
	cw.k++
	return true
}

// runAt emits the run of count offsets from first in the batch at position p (batch number
// cw.k), whose lookups start at the entry in force.
func (cw *costWalk) runAt(p, first, count int64) {
	if count <= 0 {
		return
	}
	if cw.cur < 0 {
		cw.emit(costRun{first, count, p, cw.k + 1, p, cw.base, true})
		return
	}
	if cw.posNext <= cw.cur {
		// The entry in force points past this batch: Kafka starts there, and the first batch
		// from there holds a larger offset, so the hit is that batch: no walk.
		cw.emit(costRun{first, count, 0, 1, p, cw.base, false})
		return
	}
	cw.emit(costRun{first, count, p - cw.entries[cw.cur].Position, cw.k - cw.entryBatch[cw.cur] + 1, p, cw.base, true})
}

// End closes the walk: the figures, and for a brute-force segment the lookups of every offset
// through segment.Segment.Lookup (Kafka's search on the file as it is, then the header walk).
func (cw *costWalk) End(seg *segment.Segment, res segment.WalkResult) {
	cw.fig.logBytes = res.ValidBytes
	if cw.progress != nil {
		cw.progress(res.ValidBytes)
	}
	// The last batch the walk followed is the segment's last unless the count stopped early.
	defer func() { cw.fig.reads41.settle(!cw.stopped && cw.fig.reads41.pos == cw.fig.lastBatchPos) }()
	if !cw.brute {
		cw.fig.warmCovered = warmCoverage(cw.entries, cw.fig.logBytes)
		return
	}
	if cw.stopped {
		return
	}
	cw.bruteForce(seg)
}

// bruteHops bounds the headers the brute force may walk past when an entry's position is no
// batch start (Kafka's walk from there parses whatever it finds).
const bruteHops = 1 << 24

// bruteForce looks every offset up as Kafka would on the index as it is: phase 1 is Kafka's
// search (segment.OffsetIndex.Lookup, whatever the order of the entries); phase 2, when the
// start is a batch start and the batches' offsets increase, is the first batch from there
// whose last offset reaches the target (a binary search: what the walk would find); otherwise
// segment.Segment.Lookup walks the file, within bruteHops headers in all.
func (cw *costWalk) bruteForce(seg *segment.Segment) {
	spans := cw.spans
	byPos := make(map[int64]int, len(spans))
	ordered := true
	for i, s := range spans {
		byPos[s.pos] = i
		if i > 0 && s.base <= spans[i-1].last {
			ordered = false
		}
	}
	budget := int64(bruteHops)
	var lost int64
	defer func() {
		if lost > 0 && cw.fig.skipped == "" {
			cw.fig.skipped = fmt.Sprintf("%s cannot be found through the index: their lookups start inside a batch, where Kafka's walk reads payload as a header", plural(lost, "offset"))
		}
	}()
	for _, s := range spans {
		for o := s.base; o <= s.last; o++ {
			start := int64(0)
			if seg.Index != nil {
				e, _, _ := seg.Index.Lookup(o)
				start = e.Position
			}
			if i, ok := byPos[start]; ok && ordered {
				j := i + sort.Search(len(spans)-i, func(k int) bool { return spans[i+k].last >= o })
				if j < len(spans) {
					h := spans[j] // the batch holding o, or the start's batch when that lies past o
					cw.emit(costRun{o, 1, h.pos - start, int64(j - i + 1), s.pos, h.base, h.base <= o})
				}
				continue
			}
			r, err := seg.Lookup(o)
			if err != nil || !r.Found {
				lost++
				continue
			}
			if budget -= int64(r.Hops); budget < 0 {
				cw.fig.skipped = fmt.Sprintf("index entries point inside batches, and looking every offset up from them would walk more than %d headers: scan statistics skipped from offset %d on", bruteHops, o)
				return
			}
			cw.emit(costRun{o, 1, r.ScanBytes(), int64(r.Hops), s.pos, s.base, false})
		}
	}
}

// sortedIndex reports whether entries name strictly increasing offsets at strictly increasing
// positions inside the log.
func sortedIndex(entries []segment.IndexEntry, logSize int64) bool {
	for i, e := range entries {
		if e.Position < 0 || e.Position >= logSize || (i > 0 && (e.Offset <= entries[i-1].Offset || e.Position <= entries[i-1].Position)) {
			return false
		}
	}
	return true
}

// warmCoverage is the log the warm section spans: from the position of the first warm entry
// (slot n-1-warmEntries) to the end of the log, or the whole log when the index is smaller.
func warmCoverage(entries []segment.IndexEntry, logBytes int64) int64 {
	f := len(entries) - 1 - model.WarmEntries(model.OffsetIndexEntrySize)
	if f <= 0 {
		return logBytes
	}
	return max(0, logBytes-entries[f].Position)
}
