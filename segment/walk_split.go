package segment

import (
	"math"
	"runtime"
	"sort"
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
	if l.access != AccessPread || split <= start || split >= end || end-start < splitMin || runtime.GOMAXPROCS(0) < 2 {
		return l.Walk(start, end, fn)
	}
	ahead := l.readAheadFrom(split, end)
	defer ahead.stop()
	res := WalkResult{ValidBytes: start, End: end}
	pos, over := l.walkTo(&res, start, split, end, fn)
	if over {
		return res
	}
	if pos != split {
		// split lies inside a batch: its read ahead is of no use.
		ahead.stop()
		l.walkTo(&res, pos, math.MaxInt64, end, fn)
		return res
	}
	for chunk := range ahead.chunks {
		for _, b := range chunk {
			res.Batches++
			res.ValidBytes = b.End()
			if !fn(b) {
				return res
			}
		}
	}
	res.Err = ahead.result.Err
	return res
}

// splitMin is the smallest range worth a second reader.
const splitMin = 8 << 20

// readAhead is a goroutine walking [from, end) with its own buffer over the same file,
// handing batches over in chunks. The channel's capacity bounds how far ahead it gets.
type readAhead struct {
	chunks chan []BatchInfo
	done   chan struct{}
	exited chan struct{}
	result WalkResult // valid once chunks is closed
}

const (
	aheadChunk  = 1024
	aheadChunks = 64 // at most 64 Ki batches (about 7 MB) ahead
)

func (l *LogFile) readAheadFrom(from, end int64) *readAhead {
	a := &readAhead{chunks: make(chan []BatchInfo, aheadChunks), done: make(chan struct{}), exited: make(chan struct{})}
	// A second reader of the same descriptor: pread is safe for concurrent use, the buffer is
	// its own.
	r := &LogFile{Path: l.Path, BaseOffset: l.BaseOffset, size: l.size, f: l.f, access: AccessPread, readAhead: l.readAhead}
	go func() {
		defer close(a.exited)
		defer close(a.chunks)
		res := WalkResult{ValidBytes: from, End: end}
		chunk := make([]BatchInfo, 0, aheadChunk)
		send := func() bool {
			select {
			case a.chunks <- chunk:
				chunk = make([]BatchInfo, 0, aheadChunk)
				return true
			case <-a.done:
				return false
			}
		}
		for pos := from; ; {
			b, err := r.NextBatch(pos, end)
			if err != nil {
				if err != ErrNoBatch {
					res.Err = err
				}
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
		a.result = res
	}()
	return a
}

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
	n := len(entries)
	if n == 0 {
		return -1
	}
	at := func(i int) int64 {
		if byPos != nil {
			return entries[byPos[i]].Position
		}
		return entries[i].Position
	}
	i := sort.Search(n, func(i int) bool { return at(i) >= size/2 })
	if i == n {
		i = n - 1
	}
	return at(i)
}
