package reports

import (
	"fmt"

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
	bruteForce    bool  // the per-offset fallback was used
	skipped       string
	walkErr       error
	indexFileSize int64
	timeFileSize  int64
}

// costRun is a run of consecutive offsets [first, first+count) of one batch (at position
// pos) that share one phase-2 cost.
type costRun struct {
	first, count, scanBytes, hops, pos int64
}

// OffsetCosts computes, as analyze does, the exact phase-2 cost of every offset one real
// segment holds, and calls fn for every run of consecutive offsets [first, last] that share
// one scanBytes and hops (SPEC §5).
func OffsetCosts(files segment.SegmentFiles, fn func(first, last, scanBytes, hops int64)) error {
	_, err := segmentRuns(files, func(r costRun) { fn(r.first, r.first+r.count-1, r.scanBytes, r.hops) })
	return err
}

// segmentRuns computes the exact phase-2 cost of every offset of one real segment and hands it
// to fn as runs, without keeping per-offset or per-batch memory: it walks the batch headers
// and the index's valid entries together, in offset order (SPEC §5), reading headers only.
// Entries must name increasing offsets at increasing batch-start positions; an entry's offset
// may lie beyond the batch at its position (the per-append rule) or at its first offset
// (Kafka up to 1.1). When that does not hold (a corrupt index), every offset is looked up
// instead, as Kafka would.
func segmentRuns(files segment.SegmentFiles, fn func(costRun)) (segmentFigures, error) {
	var fig segmentFigures
	seg, err := segment.OpenSegmentWith(files.Log, segment.AccessPread)
	if err != nil {
		return fig, err
	}
	seg.Log.SetReadAhead(segment.HeaderWindow)
	defer seg.Close()
	if files.Index == "" {
		seg.Index = nil
	}
	if files.TimeIndex == "" {
		seg.TimeIndex = nil
	}
	var entries []segment.IndexEntry
	if seg.Index != nil {
		fig.entries = seg.Index.ValidLen()
		fig.indexFileSize = seg.Index.FileSize
		entries = seg.Index.Entries(fig.entries)
	}
	if seg.TimeIndex != nil {
		fig.timeEntries = seg.TimeIndex.ValidLen()
		fig.timeFileSize = seg.TimeIndex.FileSize
	}
	emit := func(r costRun) {
		if r.count > 0 {
			fn(r)
		}
	}
	// An index whose entries are not strictly increasing (in offset and position) or point
	// past the log is searched by Kafka in ways a merge cannot follow: look every offset up.
	if !sortedIndex(entries, seg.Log.Size()) {
		fig.bruteForce = true
		if err := walkBrute(seg, &fig, emit); err != nil {
			fig.skipped = err.Error()
		}
		return fig, nil
	}
	walkRegular(seg, entries, &fig, emit)
	fig.warmCovered = warmCoverage(entries, fig.logBytes)
	return fig, nil
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

// walkRegular is the one-pass walk. Within batch k (offsets base..last at position p) the
// entries whose offsets fall in it split its offsets into runs; each run's start is the latest
// entry at or below it (or byte 0), so scanBytes = p - start and hops = k - (batch at start) + 1.
//
// Two things stop the walk early, with the offsets before them counted and the rest reported
// as skipped: an entry that points inside a batch (Kafka's phase 2 would parse payload bytes
// as a header) and a batch whose offsets do not follow the previous one's.
func walkRegular(seg *segment.Segment, entries []segment.IndexEntry, fig *segmentFigures, emit func(costRun)) {
	entryBatch := make([]int64, len(entries)) // batch number at each entry's position
	posNext := 0                              // next entry to match to a batch start
	offNext := 0                              // next entry not yet in force
	cur := -1                                 // entry in force (-1: start at byte 0, batch 0)
	var k int64
	prevLast := int64(-1 << 62)
	stop := func(b segment.BatchInfo, why string) bool {
		fig.skipped = fmt.Sprintf("%s at byte %d: offsets from %d on are not counted", why, b.Position, b.BaseOffset())
		return false
	}
	res := seg.Log.Walk(0, 0, func(b segment.BatchInfo) bool {
		p, last := b.Position, b.LastOffset()
		base, err := seg.Log.FirstOffset(b)
		if err != nil {
			fig.skipped = fmt.Sprintf("%v: offsets from %d on are not counted", err, last)
			return false
		}
		if base <= prevLast || last < base {
			return stop(b, "batch offsets out of order")
		}
		prevLast = last
		if posNext < len(entries) && entries[posNext].Position < p {
			return stop(b, fmt.Sprintf("index entry (%d, %d) points inside a batch", entries[posNext].Offset, entries[posNext].Position))
		}
		if posNext < len(entries) && entries[posNext].Position == p {
			entryBatch[posNext] = k
			posNext++
		}
		runAt := func(first, count int64) {
			if count <= 0 {
				return
			}
			if cur < 0 {
				emit(costRun{first, count, p, k + 1, p})
				return
			}
			e := entries[cur]
			if posNext <= cur {
				// The entry in force points past this batch: Kafka starts there, and the first
				// batch from there holds a larger offset, so the hit is that batch: no walk.
				emit(costRun{first, count, 0, 1, p})
				return
			}
			emit(costRun{first, count, p - e.Position, k - entryBatch[cur] + 1, p})
		}
		o := base
		for offNext < len(entries) && entries[offNext].Offset <= last {
			if e := entries[offNext]; e.Offset > o {
				runAt(o, e.Offset-o)
				o = e.Offset
			}
			cur = offNext
			offNext++
		}
		runAt(o, last-o+1)
		fig.batches++
		fig.maxBatch = max(fig.maxBatch, b.Size)
		fig.lastBatchPos = p
		k++
		return true
	})
	fig.logBytes = res.ValidBytes
	fig.walkErr = res.Err
}

// walkBrute looks every offset up through segment.Segment.Lookup (Kafka's search on the file
// as it is, then the header walk), for indexes the one-pass walk cannot follow.
func walkBrute(seg *segment.Segment, fig *segmentFigures, emit func(costRun)) error {
	var offsets int64
	type span struct{ base, last, pos int64 }
	var spans []span
	var ferr error
	res := seg.Log.Walk(0, 0, func(b segment.BatchInfo) bool {
		fig.batches++
		fig.maxBatch = max(fig.maxBatch, b.Size)
		fig.lastBatchPos = b.Position
		first, err := seg.Log.FirstOffset(b)
		if err != nil {
			ferr = err
			return false
		}
		if b.LastOffset() >= first {
			spans = append(spans, span{first, b.LastOffset(), b.Position})
			offsets += b.LastOffset() - first + 1
		}
		return offsets <= bruteForceLimit
	})
	fig.logBytes, fig.walkErr = res.ValidBytes, res.Err
	if ferr != nil {
		return ferr
	}
	if offsets > bruteForceLimit {
		return fmt.Errorf("index entries are not in order or not at batch starts, and the segment has more than %d offsets to look up one by one: scan statistics skipped", bruteForceLimit)
	}
	for _, s := range spans {
		for o := s.base; o <= s.last; o++ {
			r, err := seg.Lookup(o)
			if err != nil {
				return err
			}
			if r.Found {
				emit(costRun{o, 1, r.ScanBytes(), int64(r.Hops), s.pos})
			}
		}
	}
	return nil
}
