package segment

import (
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// WalkSplit is Walk, with the part of the range from split on read ahead by another
// goroutine: split must be a batch start the caller knows of (an offset-index entry's
// position, near the middle). Reading headers costs a read per batch, and two cores read
// twice as many. fn still sees every batch in order, on the calling goroutine; when split
// turns out not to be a batch boundary of the walk from start (a damaged index), the read
// ahead is dropped and the walk goes on by itself, so the result is always Walk's.
func (l *LogFile) WalkSplit(start, end, split int64, fn func(BatchInfo) bool) WalkResult {
	if end <= 0 || end > l.size {
		end = l.size
	}
	if l.access != AccessPread || end-start < splitMin || runtime.GOMAXPROCS(0) < 2 {
		return l.Walk(start, end, fn)
	}
	return l.WalkChains(start, end, []int64{split}, fn)
}

// WalkIndexed is Walk, read with as many concurrent chains as the file needs, each starting
// at the position of an entry of the segment's offset index (a batch start, in a valid index).
// While the file's pages are in memory: two chains, the second from the entry nearest the
// middle (two cores read twice as many headers). While they are not: the kernel is asked to
// read the pages of every entry's header in the background (adviseHeaders: one queued
// request per run of pages, where a blocked pread has one at a time), and up to maxChains
// chains read the headers the entries do not name meanwhile (docs/segment.md, "Header
// walks"). byPos orders entries by position (nil: they are in order). The result, and what fn
// sees, is always Walk's, whatever the entries hold (WalkChains).
func (l *LogFile) WalkIndexed(start, end int64, entries []IndexEntry, byPos []int, fn func(BatchInfo) bool) WalkResult {
	if end <= 0 || end > l.size {
		end = l.size
	}
	if l.access != AccessPread || end-start < splitMin || len(entries) == 0 {
		return l.Walk(start, end, fn)
	}
	if l.resident(start, end) {
		if runtime.GOMAXPROCS(0) < 2 {
			return l.Walk(start, end, fn)
		}
		return l.WalkChains(start, end, ChainStarts(entries, byPos, start, end, 2), fn)
	}
	chains := int(min(maxChains, (end-start)/coldChainBytes))
	defer l.adviseHeaders(entryPositions(entries, byPos, start, end))()
	return l.WalkChains(start, end, ChainStarts(entries, byPos, start, end, chains), fn)
}

// entryPositions is the entries' positions inside [start, end), sorted.
func entryPositions(entries []IndexEntry, byPos []int, start, end int64) []int64 {
	out := make([]int64, 0, len(entries))
	for i := range entries {
		e := entries[i]
		if byPos != nil {
			e = entries[byPos[i]]
		}
		if e.Position >= start && e.Position < end {
			out = append(out, e.Position)
		}
	}
	if !slices.IsSorted(out) {
		slices.Sort(out)
	}
	return out
}

const (
	// splitMin is the smallest range worth a second reader.
	splitMin = 8 << 20
	// maxChains bounds the readers of one cold walk (docs/segment.md, "Header walks").
	maxChains = 32
	// coldChainBytes is the least range one chain of a cold walk is given.
	coldChainBytes = 4 << 20
)

// ChainStarts picks chains-1 positions of entries spread evenly over (start, end): for each
// j, the entry nearest at or after start + j·(end-start)/chains in byPos order (nil: entries
// are in order). A damaged index's positions are harmless to WalkChains, which checks each.
func ChainStarts(entries []IndexEntry, byPos []int, start, end int64, chains int) []int64 {
	n := len(entries)
	at := func(i int) int64 {
		if byPos != nil {
			return entries[byPos[i]].Position
		}
		return entries[i].Position
	}
	var out []int64
	for j := 1; j < chains && n > 0; j++ {
		target := start + (end-start)*int64(j)/int64(chains)
		i := sort.Search(n, func(i int) bool { return at(i) >= target })
		out = append(out, at(min(i, n-1)))
	}
	return out
}

// WalkChains is Walk, with the range cut at starts (batch starts the caller knows of: offset
// index entries' positions) and each piece read ahead by a goroutine of its own, a chain,
// with its own pread buffer over the same file. fn still sees every batch in order, on the
// calling goroutine, which reads the first piece itself. A chain's batches are handed over
// only when the walk from start arrives exactly at its start; one that lies inside a batch,
// out of order, repeated or past the end (a damaged index) is dropped, and the walk reads on
// by itself to the next chain it meets at its start, so the result is always Walk's.
func (l *LogFile) WalkChains(start, end int64, starts []int64, fn func(BatchInfo) bool) WalkResult {
	if end <= 0 || end > l.size {
		end = l.size
	}
	starts = chainPositions(starts, start, end)
	if len(starts) == 0 {
		return l.Walk(start, end, fn)
	}
	// Together the chains run at most aheadBatches ahead of fn: a chain that has filled its
	// share waits until the walk reaches it.
	perChain := max(1, aheadBatches/aheadChunk/len(starts))
	chains := make([]*readAhead, len(starts))
	for i, from := range starts {
		stop := int64(math.MaxInt64)
		if i+1 < len(starts) {
			stop = starts[i+1]
		}
		chains[i] = l.readAheadFrom(from, stop, end, perChain)
	}
	defer func() {
		for _, c := range chains {
			c.stop()
		}
	}()
	res := WalkResult{ValidBytes: start, End: end}
	pos := start
	for next := 0; ; next++ {
		// Walk by ourselves to the first chain starting at or after pos.
		for next < len(chains) && chains[next].from < pos {
			chains[next].stop()
			next++
		}
		stop := int64(math.MaxInt64)
		if next < len(chains) {
			stop = chains[next].from
		}
		var over bool
		if pos, over = l.walkTo(&res, pos, stop, end, fn); over {
			return res
		}
		if pos != stop {
			// The chain starts inside a batch: its batches are not the walk's.
			chains[next].stop()
			continue
		}
		c := chains[next]
		for chunk := range c.chunks {
			for _, b := range chunk {
				res.Batches++
				res.ValidBytes = b.End()
				if !fn(b) {
					return res
				}
			}
			putAheadChunk(chunk)
		}
		if c.over {
			// The chain met the end of the data, or corruption, before its stop: so does Walk,
			// at the same position.
			res.Err = c.result.Err
			return res
		}
		pos = c.result.ValidBytes
	}
}

// chainPositions is starts sorted, without repeats, keeping only those strictly inside
// (start, end - HeaderSizeUpToMagic), where a batch can begin.
func chainPositions(starts []int64, start, end int64) []int64 {
	out := make([]int64, 0, len(starts))
	for _, s := range starts {
		if s > start && s < end-HeaderSizeUpToMagic {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// readAhead is a goroutine walking from `from` while the next batch would start before
// `stop`, with its own buffer over the same file, handing batches over in chunks. The
// channel's capacity bounds how far ahead it gets.
type readAhead struct {
	from   int64
	chunks chan []BatchInfo
	done   chan struct{}
	exited chan struct{}
	// valid once chunks is closed: where the chain stopped (ValidBytes), and over when it met
	// the end of the data or corruption (Err) before stop.
	result WalkResult
	over   bool
}

const (
	aheadChunk   = 1024
	aheadBatches = 64 * aheadChunk // at most 64 Ki batches (about 10 MB) ahead, all chains together
)

func (l *LogFile) readAheadFrom(from, stop, end int64, chunks int) *readAhead {
	a := &readAhead{from: from, chunks: make(chan []BatchInfo, chunks), done: make(chan struct{}), exited: make(chan struct{})}
	// Another reader of the same descriptor: pread is safe for concurrent use, the buffer is
	// its own.
	r := &LogFile{Path: l.Path, BaseOffset: l.BaseOffset, size: l.size, f: l.f, access: AccessPread, readAhead: l.readAhead}
	go func() {
		defer close(a.exited)
		defer close(a.chunks)
		res := WalkResult{ValidBytes: from, End: end}
		chunk := getAheadChunk()
		send := func() bool {
			select {
			case a.chunks <- chunk:
				chunk = getAheadChunk()
				return true
			case <-a.done:
				return false
			}
		}
		over := false
		for pos := from; pos < stop; {
			if len(chunk)%64 == 63 {
				// A chain the walk dropped stops soon, not at its next hand-over.
				select {
				case <-a.done:
					return
				default:
				}
			}
			b, err := r.NextBatch(pos, end)
			if err != nil {
				if err != ErrNoBatch {
					res.Err = err
				}
				over = true
				break
			}
			pos = b.End()
			res.ValidBytes = pos
			if chunk = append(chunk, b); len(chunk) == aheadChunk && !send() {
				return
			}
		}
		if len(chunk) > 0 && !send() {
			return
		}
		a.result, a.over = res, over
	}()
	return a
}

// aheadChunks recycles the chunks the walk has handed to fn: without it a walk of 31.6 M
// batches allocates 5 GB of chunks that the garbage collector lets pile up to the size of
// what the caller keeps (issue 27).
var aheadChunks = sync.Pool{New: func() any { c := make([]BatchInfo, 0, aheadChunk); return &c }}

func getAheadChunk() []BatchInfo { return (*aheadChunks.Get().(*[]BatchInfo))[:0] }

func putAheadChunk(c []BatchInfo) { aheadChunks.Put(&c) }

// stop ends the read ahead (idempotent) and waits for it.
func (a *readAhead) stop() {
	select {
	case <-a.done:
	default:
		close(a.done)
	}
	for range a.chunks {
	}
	<-a.exited
}

// SplitHint is the position of the offset-index entry nearest the middle of the log, a batch
// start where a second reader can begin (WalkSplit); -1 when there is none. byPos orders the
// entries by position (nil: they are in order).
func SplitHint(entries []IndexEntry, byPos []int, size int64) int64 {
	if len(entries) == 0 {
		return -1
	}
	return ChainStarts(entries, byPos, 0, size, 2)[0]
}
