package kafkaindex

import (
	"fmt"
	"math"
)

// batchHead is what FileLogInputStream.nextBatch learns from a batch's first 17 bytes.
type batchHead struct {
	pos, total int64 // its position and its length, 12 + the size field
	offset     int64 // the offset field: a v2 batch's base offset, a legacy entry's (last) offset
	magic      int8  // byte 16: below 2 the batch is read as legacy
}

// walk is phase 2 from pos as release r does it: the position of the batch Kafka answers, -1
// for none.
func (s *Segment) walk(pos, target int64, r Release) (int64, *ReadError) {
	switch r {
	case Release08, Release0101:
		return s.walkMessageSet(pos, target, r)
	case Release0102:
		return s.walkEntries(pos, target)
	case Release41:
		return s.walkFromPosition(pos, target)
	}
	return s.walkLastOffset(pos, target, r)
}

// walkMessageSet is 0.8's FileMessageSet.searchFor (offset compared before the size is looked
// at) and 0.10.1's searchForOffsetWithSize (the size checked first). Neither looks for the end
// of an entry: while 12 bytes are left past pos, the offset field decides. Positions are Java
// ints: a size that carries the next position past 2^31-1 makes it negative, and the next read
// throws IllegalArgumentException("Negative position"), blamed here on that size field.
func (s *Segment) walkMessageSet(pos, target int64, r Release) (int64, *ReadError) {
	var head [logOverhead]byte
	for pos+logOverhead < s.logSize {
		if err := s.readAt(head[:], pos); err != nil {
			return 0, err
		}
		offset, size := int64At(head[:], 0), int64(int32At(head[:], 8))
		if r == Release08 && offset >= target {
			return pos, nil
		}
		if size < minRecordOverhead {
			return 0, s.corrupt(pos+8, fmt.Sprintf("IllegalStateException: Invalid message size: %d", size))
		}
		if r == Release0101 && offset >= target {
			return pos, nil
		}
		if pos+logOverhead+size > math.MaxInt32 {
			return 0, s.corrupt(pos+8, fmt.Sprintf("IllegalArgumentException: Negative position (the size %d carries the next position past 2^31-1)", size))
		}
		pos += logOverhead + size
	}
	return -1, nil
}

// walkEntries is 0.10.2's FileRecords.searchForOffsetWithSize over
// FileLogInputStream.nextEntry: the end when 12 bytes or fewer are left, a size under 14 an
// error, an entry past the end of the file the end; the offset field of any magic decides.
// nextEntry's end test, position + 12 + size > end, is Java int arithmetic: a size that carries
// it past 2^31-1 wraps it negative, so the entry passes as whole, and the next position is
// negative (IllegalArgumentException at the next read, blamed here on that size field).
func (s *Segment) walkEntries(pos, target int64) (int64, *ReadError) {
	var head [logOverhead]byte
	for pos+logOverhead < s.logSize {
		if err := s.readAt(head[:], pos); err != nil {
			return 0, err
		}
		offset, size := int64At(head[:], 0), int64(int32At(head[:], 8))
		if size < minRecordOverhead {
			return 0, s.corrupt(pos+8, fmt.Sprintf("CorruptRecordException: Record size is smaller than minimum record overhead (%d).", minRecordOverhead))
		}
		next := pos + logOverhead + size
		if next <= math.MaxInt32 && next > s.logSize {
			return -1, nil
		}
		if offset >= target {
			return pos, nil
		}
		if next > math.MaxInt32 {
			return 0, s.corrupt(pos+8, fmt.Sprintf("IllegalArgumentException: Negative position (the size %d carries the next position past 2^31-1)", size))
		}
		pos = next
	}
	return -1, nil
}

// lastOffset is FileChannelRecordBatch.lastOffset: a legacy entry's offset field; for a v2
// batch loadBatchHeader reads 61 bytes at its position whatever its size says (a batch of
// 26..60 bytes reads into the next bytes) and fails only when the file ends first.
func (s *Segment) lastOffset(b batchHead) (int64, *ReadError) {
	if b.magic < 2 {
		return b.offset, nil
	}
	header, err := s.loadBatchHeader(b)
	if err != nil {
		return 0, err
	}
	return b.offset + int64(int32At(header, lastOffsetDeltaAt)), nil
}

// loadBatchHeader is a v2 FileChannelRecordBatch.loadBatchHeader: 61 bytes at the batch's
// position, KafkaException when the file ends before them.
func (s *Segment) loadBatchHeader(b batchHead) ([]byte, *ReadError) {
	if b.pos > s.logSize-v2BatchOverhead {
		return nil, s.corrupt(b.pos, fmt.Sprintf("KafkaException: Failed to load record batch at position %d from FileRecords(file=%s)", b.pos, s.logName))
	}
	header := make([]byte, v2BatchOverhead)
	if err := s.readAt(header, b.pos); err != nil {
		return nil, err
	}
	return header, nil
}

// walkLastOffset is FileRecords.searchForOffsetWithSize from 0.11.0 to 4.0.x: the first batch
// whose lastOffset() reaches the target. From 4.0.0 (KAFKA-17803) the hit's baseOffset() is
// then taken, which for a batch read as legacy loads and, when compressed, deep-iterates it.
func (s *Segment) walkLastOffset(pos, target int64, r Release) (int64, *ReadError) {
	for {
		b, ok, err := s.nextBatch(pos)
		if err != nil || !ok {
			return -1, err
		}
		last, err := s.lastOffset(b)
		if err != nil {
			return 0, err
		}
		if last >= target {
			if r == Release40 {
				if _, err := s.baseOffset(b); err != nil {
					return 0, err
				}
			}
			return b.pos, nil
		}
		pos += b.total
	}
}

// walkFromPosition is 4.1's FileRecords.searchForOffsetFromPosition (KAFKA-18989): a batch
// whose baseOffset() is the target is the hit; at the first batch whose baseOffset() is past
// the target the hit is the previous batch if its lastOffset() reaches the target, else this
// one; after the last batch, the previous one if it reaches the target, else none. It reads
// one batch past the hit, and takes baseOffset() (a full load of a legacy batch) at every hop.
func (s *Segment) walkFromPosition(pos, target int64) (int64, *ReadError) {
	var prev batchHead
	havePrev := false
	prevHolds := func() (bool, *ReadError) {
		if !havePrev {
			return false, nil
		}
		last, err := s.lastOffset(prev)
		return last >= target, err
	}
	for {
		b, ok, err := s.nextBatch(pos)
		if err != nil {
			return 0, err
		}
		if !ok {
			holds, err := prevHolds()
			switch {
			case err != nil:
				return 0, err
			case holds:
				return prev.pos, nil
			}
			return -1, nil
		}
		base, err := s.baseOffset(b)
		if err != nil {
			return 0, err
		}
		if base == target {
			return b.pos, nil
		}
		if base > target {
			holds, err := prevHolds()
			switch {
			case err != nil:
				return 0, err
			case holds:
				return prev.pos, nil
			}
			return b.pos, nil
		}
		prev, havePrev = b, true
		pos += b.total
	}
}

// baseOffset is FileChannelRecordBatch.baseOffset: a v2 batch's offset field; for a batch read
// as legacy, loadFullBatch().baseOffset(), the offset of the first record its iterator gives
// (AbstractLegacyRecordBatch.baseOffset), which deep-iterates a compressed wrapper.
func (s *Segment) baseOffset(b batchHead) (int64, *ReadError) {
	if b.magic >= 2 {
		return b.offset, nil
	}
	entry := make([]byte, b.total)
	if err := s.readAt(entry, b.pos); err != nil {
		return 0, err
	}
	records, rerr, unsupported := legacyRecords(entry)
	switch {
	case rerr != "":
		return 0, s.corrupt(b.pos, rerr)
	case unsupported != "":
		// snappy and lz4 are not in Go's standard library: the wrapper is assumed valid, and
		// the base offset of a valid wrapper answers as its offset field does (it is the
		// wrapper's last offset, and no other batch's offset lies between the two).
		return b.offset, nil
	case records[0].err != "":
		return 0, s.corrupt(b.pos, records[0].err)
	}
	return records[0].offset, nil
}
