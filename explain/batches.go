package explain

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
)

// batchTable holds a segment's batches as explain reads them, in columns of compact fields, in
// chunks that are filled and never copied (issue 27: a 2 GiB segment of 68-byte batches is
// 31.6 M batches; 48-byte structs in a slice grown by doubling took 4.4 GB). Per batch:
//   - the position, 4 bytes: a .log Kafka opens is at most 2^31-1 bytes (CheckLogSize comes
//     first);
//   - the base offset as 4 bytes above the segment's base offset, and the last offset as 4
//     bytes above the base: what a healthy segment holds (its offset index stores offsets as
//     4-byte deltas from the base, OffsetIndex.relativeOffset; a v2 batch's lastOffsetDelta is
//     an int32). A chunk holding a batch outside that range keeps the two in full (wideOffsets);
//   - the max timestamp, 4 bytes: a signed delta from the chunk's first batch's (a chunk of
//     65,536 batches spans far less than the ±24.8 days an int32 of milliseconds holds); a
//     chunk where one does not fit (a batch with no timestamp, -1, beside real ones; a clock
//     jump) keeps that chunk's timestamps in full (wideTs), 8 more bytes a batch;
//   - the flags, 1 byte.
//
// 17 bytes a batch (a chunk's header aside); 33 or 41 in a chunk that needs the full
// offsets or timestamps. The size is the next batch's position minus its own (the walk's batches are
// contiguous), the last one's the end of the walk minus its position.
type batchTable struct {
	segBase int64
	chunks  []*batchChunk
	n       int
	end     int64 // where the last batch ends
	// release gives back the garbage collector's target once a huge table is unreachable
	// (holdHugeTable, explainSegment); nil for a table that never grew past hugeTableChunks.
	release func()
}

const (
	chunkBits = 16
	chunkLen  = 1 << chunkBits
)

type batchChunk struct {
	pos, base, span []uint32
	tsBase          int64 // the chunk's first batch's max timestamp
	tsDelta         []int32
	flags           []uint8
	// wide holds the base and last offsets in full once one of the chunk's does not fit;
	// wideTs the max timestamps once one's delta does not.
	wide   []wideOffsets
	wideTs []int64
}

type wideOffsets struct{ base, last int64 }

func newBatchChunk() *batchChunk {
	return &batchChunk{
		pos: make([]uint32, 0, chunkLen), base: make([]uint32, 0, chunkLen), span: make([]uint32, 0, chunkLen),
		tsDelta: make([]int32, 0, chunkLen), flags: make([]uint8, 0, chunkLen),
	}
}

// hugeTableChunks is the size (4,194,304 batches, about 71 MB of columns) from which a table
// lowers the garbage collector's target while it is live (holdHugeTable).
const hugeTableChunks = 64

// hugeTableGCPercent is the GOGC a huge table runs under: the heap may grow 10 % past what
// is live, not 100 % (GOGC's default), before a collection. The columns hold no pointers, so
// a collection does not scan them and the extra collections cost little (a 2 GiB segment of
// 68-byte batches: 29 collections, no slower); at 100 % that segment's 0.78 GB live took
// 1.5 GB RSS, at 10 % 0.90 GB (issue 27).
const hugeTableGCPercent = 10

// hugeTables counts the huge tables live (explain runs segments in parallel) and keeps the
// GOGC to restore when the last one goes.
var hugeTables struct {
	sync.Mutex
	live  int
	saved int
}

// holdHugeTable lowers GOGC to hugeTableGCPercent while a huge table is live and returns
// what gives it back. A GOGC already at or below it (or off) is left alone.
func holdHugeTable() func() {
	hugeTables.Lock()
	defer hugeTables.Unlock()
	if hugeTables.live == 0 {
		hugeTables.saved = debug.SetGCPercent(hugeTableGCPercent)
		if hugeTables.saved <= hugeTableGCPercent {
			debug.SetGCPercent(hugeTables.saved)
		}
	}
	hugeTables.live++
	var once sync.Once
	return func() {
		once.Do(func() {
			hugeTables.Lock()
			defer hugeTables.Unlock()
			hugeTables.live--
			if hugeTables.live == 0 {
				// The heap's target is still live × 1.1 of the last collection, which counted
				// the tables: collect them first, else GOGC's 100 % would let the heap grow to
				// twice their size before the next collection (1.6 GB after a 2 GiB segment).
				runtime.GC()
				debug.SetGCPercent(hugeTables.saved)
			}
		})
	}
}

// add appends a batch; its position must be where the previous batch ends.
func (t *batchTable) add(b exBatch) {
	if t.n&(chunkLen-1) == 0 {
		t.chunks = append(t.chunks, newBatchChunk())
		if len(t.chunks) == hugeTableChunks+1 && t.release == nil {
			t.release = holdHugeTable()
		}
	}
	c := t.chunks[len(t.chunks)-1]
	rel, span := b.base-t.segBase, b.last-b.base
	fits := rel >= 0 && rel <= math.MaxUint32 && span >= 0 && span <= math.MaxUint32
	if !fits && c.wide == nil {
		c.wide = make([]wideOffsets, len(c.pos), chunkLen)
		for i := range c.wide {
			c.wide[i] = wideOffsets{t.segBase + int64(c.base[i]), t.segBase + int64(c.base[i]) + int64(c.span[i])}
		}
	}
	if fits {
		c.base, c.span = append(c.base, uint32(rel)), append(c.span, uint32(span))
	} else {
		c.base, c.span = append(c.base, 0), append(c.span, 0)
	}
	if c.wide != nil {
		c.wide = append(c.wide, wideOffsets{b.base, b.last})
	}
	c.pos = append(c.pos, uint32(b.pos))
	if len(c.tsDelta) == 0 {
		c.tsBase = b.maxTs
	}
	d := b.maxTs - c.tsBase
	tsFits := d >= math.MinInt32 && d <= math.MaxInt32
	if !tsFits && c.wideTs == nil {
		c.wideTs = make([]int64, len(c.tsDelta), chunkLen)
		for i, d := range c.tsDelta {
			c.wideTs[i] = c.tsBase + int64(d)
		}
	}
	if tsFits {
		c.tsDelta = append(c.tsDelta, int32(d))
	} else {
		c.tsDelta = append(c.tsDelta, 0)
	}
	if c.wideTs != nil {
		c.wideTs = append(c.wideTs, b.maxTs)
	}
	f := b.flags
	if b.magic1 {
		f |= batchMagic1
	}
	c.flags = append(c.flags, f)
	t.n++
	t.end = b.pos + b.size
}

// len is the number of batches.
func (t *batchTable) len() int { return t.n }

// at is batch j.
func (t *batchTable) at(j int) exBatch {
	c, i := t.chunks[j>>chunkBits], j&(chunkLen-1)
	b := exBatch{pos: int64(c.pos[i]), flags: c.flags[i] &^ batchMagic1, magic1: c.flags[i]&batchMagic1 != 0}
	if c.wideTs != nil {
		b.maxTs = c.wideTs[i]
	} else {
		b.maxTs = c.tsBase + int64(c.tsDelta[i])
	}
	if c.wide != nil {
		b.base, b.last = c.wide[i].base, c.wide[i].last
	} else {
		b.base = t.segBase + int64(c.base[i])
		b.last = b.base + int64(c.span[i])
	}
	if j+1 < t.n {
		b.size = t.posOf(j+1) - b.pos
	} else {
		b.size = t.end - b.pos
	}
	return b
}

// posOf is batch j's position.
func (t *batchTable) posOf(j int) int64 {
	return int64(t.chunks[j>>chunkBits].pos[j&(chunkLen-1)])
}
