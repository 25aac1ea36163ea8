package explain

import "math"

// batchTable holds a segment's batches as explain reads them, in columns of compact fields, in
// chunks that are filled and never copied (issue 27: a 2 GiB segment of 68-byte batches is
// 31.6 M batches; 48-byte structs in a slice grown by doubling took 4.4 GB). Per batch:
//   - the position, 4 bytes: a .log Kafka opens is at most 2^31-1 bytes (CheckLogSize comes
//     first);
//   - the base offset as 4 bytes above the segment's base offset, and the last offset as 4
//     bytes above the base: what a healthy segment holds (its offset index stores offsets as
//     4-byte deltas from the base, OffsetIndex.relativeOffset; a v2 batch's lastOffsetDelta is
//     an int32). A chunk holding a batch outside that range keeps the two in full (wideOffsets);
//   - the max timestamp, 8 bytes;
//   - the flags, 1 byte.
//
// 21 bytes a batch (a chunk's 8 bytes of header aside); 37 in a chunk with an offset out of
// range. The size is the next batch's position minus its own (the walk's batches are
// contiguous), the last one's the end of the walk minus its position.
type batchTable struct {
	segBase int64
	chunks  []*batchChunk
	n       int
	end     int64 // where the last batch ends
}

const (
	chunkBits = 16
	chunkLen  = 1 << chunkBits
)

type batchChunk struct {
	pos, base, span []uint32
	maxTs           []int64
	flags           []uint8
	// wide holds the base and last offsets in full once one of the chunk's does not fit.
	wide []wideOffsets
}

type wideOffsets struct{ base, last int64 }

func newBatchChunk() *batchChunk {
	return &batchChunk{
		pos: make([]uint32, 0, chunkLen), base: make([]uint32, 0, chunkLen), span: make([]uint32, 0, chunkLen),
		maxTs: make([]int64, 0, chunkLen), flags: make([]uint8, 0, chunkLen),
	}
}

// add appends a batch; its position must be where the previous batch ends.
func (t *batchTable) add(b exBatch) {
	if t.n&(chunkLen-1) == 0 {
		t.chunks = append(t.chunks, newBatchChunk())
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
	c.maxTs = append(c.maxTs, b.maxTs)
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
	b := exBatch{pos: int64(c.pos[i]), maxTs: c.maxTs[i], flags: c.flags[i] &^ batchMagic1, magic1: c.flags[i]&batchMagic1 != 0}
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
