package segment

import "fmt"

// deleteHorizonFlag is DefaultRecordBatch's DELETE_HORIZON_FLAG_MASK (attribute bit 6): the
// batch's base timestamp is its delete horizon (KIP-534).
const deleteHorizonFlag = 0x40

// appendRebuiltBatch appends the batch the cleaner rebuilds from src with fewer records
// (MemoryRecords.filterTo → buildRetainedRecordsInto, or writeEmptyHeader when no record is
// left), exactly rw.Bytes long. What Kafka keeps of the original: the base offset, the last
// offset (MemoryRecordsBuilder.overrideLastOffset), the partition leader epoch, the producer
// id, epoch and base sequence, the timestamp type and the transactional and control bits. What
// changes: the records, the max timestamp (rw's, else the original's), the CRC, and with a
// delete horizon the attribute bit 0x40 and the base timestamp, which is then the horizon
// (MemoryRecordsBuilder's deleteHorizonMs; an original's horizon is kept when rw names none).
//
// Which records survive is not the step's to say (docs/contract.md §3): the rebuilt batch holds
// one keyed record at the original's last offset (two, at its last two offsets, for the sizes
// no single record has), stamped with the max timestamp, so that
// FilterResult.maxOffset -- the largest retained record's offset, the offset the 3.7-4.0.0
// append names in the index -- is the batch's last offset. With a delete horizon the record
// is a tombstone (a null value), as the batches Kafka gives a horizon hold one. A 61-byte
// rewrite is the empty batch Kafka retains for a producer's state (RETAIN_EMPTY):
// writeEmptyHeader, no record, no horizon, base timestamp -1.
func appendRebuiltBatch(dst, src []byte, rw CleanRewrite, file string, pos int64) ([]byte, error) {
	h, err := ParseBatchHeader(src, file, pos)
	if err != nil {
		return dst, err
	}
	if h.Compression() != CompressionNone {
		return dst, fmt.Errorf("rewrite of batch %d: it is %s-compressed, and the file writer rebuilds only uncompressed batches at an exact size", h.BaseOffset, h.Compression())
	}
	maxTs := h.MaxTimestamp
	if rw.HasMaxTimestamp {
		maxTs = rw.MaxTimestamp
	}
	out := BatchHeader{
		BaseOffset: h.BaseOffset, PartitionLeaderEpoch: h.PartitionLeaderEpoch, Magic: 2,
		Attributes:      h.Attributes & (0x08 | 0x10 | 0x20), // timestamp type, transactional, control
		LastOffsetDelta: h.LastOffsetDelta, BaseTimestamp: NoTimestamp, MaxTimestamp: maxTs,
		ProducerID: h.ProducerID, ProducerEpoch: h.ProducerEpoch, BaseSequence: h.BaseSequence,
	}
	horizon, hasHorizon := rw.DeleteHorizonMs, rw.HasDeleteHorizon
	if !hasHorizon && h.HasDeleteHorizon() {
		horizon, hasHorizon = h.BaseTimestamp, true
	}
	// MemoryRecordsBuilder sets the horizon bit only for a horizon other than NO_TIMESTAMP.
	hasHorizon = hasHorizon && horizon != NoTimestamp
	start := len(dst)
	if rw.Bytes == RecordBatchOverhead {
		if rw.HasDeleteHorizon {
			return dst, fmt.Errorf("rewrite of batch %d: a 61-byte rewrite is the empty batch Kafka retains (DefaultRecordBatch.writeEmptyHeader), which carries no delete horizon", h.BaseOffset)
		}
		dst = appendBatchHeader(dst, out)
		return finishBatch(dst, start), nil
	}
	baseTs := maxTs
	if hasHorizon {
		out.Attributes |= deleteHorizonFlag
		baseTs = horizon
	}
	out.BaseTimestamp = baseTs
	out.RecordCount = 1
	tsDelta := maxTs - baseTs
	target := int(rw.Bytes) - RecordBatchOverhead
	values := []int{0, 1, 2, 3, 4} // a record with a value
	if hasHorizon {
		values = []int{-1, 0, 1, 2, 3} // a tombstone first
	}
	for _, vl := range values {
		if kl, ok := solveKeyLength(h.LastOffsetDelta, tsDelta, vl, target); ok {
			dst = appendBatchHeader(dst, out)
			dst = appendRecord(dst, h.LastOffsetDelta, tsDelta, fixedBytes(kl, 'k'), fixedBytes(vl, 'v'))
			return finishBatch(dst, start), nil
		}
	}
	// No single record has this size (a record's length varint skips one: no record is 65 or
	// 8194 bytes): a second keyed record before the last, at the offset before it, takes a few
	// bytes off the last one's.
	if h.LastOffsetDelta >= 1 {
		for k1 := 1; k1 <= 4; k1++ {
			first := recordSize(h.LastOffsetDelta-1, tsDelta, k1, values[0])
			for _, vl := range values {
				if kl, ok := solveKeyLength(h.LastOffsetDelta, tsDelta, vl, target-first); ok {
					out.RecordCount = 2
					dst = appendBatchHeader(dst, out)
					dst = appendRecord(dst, h.LastOffsetDelta-1, tsDelta, fixedBytes(k1, 'k'), fixedBytes(values[0], 'v'))
					dst = appendRecord(dst, h.LastOffsetDelta, tsDelta, fixedBytes(kl, 'k'), fixedBytes(vl, 'v'))
					return finishBatch(dst, start), nil
				}
			}
		}
	}
	// "no record layout" marks a size the writer's builders cannot make (fuzz skips the case).
	return dst, fmt.Errorf("rewrite of batch %d: no record layout gives %d bytes with keyed records at the batch's last offsets (at least %d bytes; a single-offset batch cannot be 126 or 8255 bytes)",
		h.BaseOffset, rw.Bytes, RecordBatchOverhead+recordSize(h.LastOffsetDelta, tsDelta, 1, values[0]))
}

// solveKeyLength finds a key length >= 1 giving a record of exactly target bytes with a value
// of vl bytes (-1: null). A record grows by one byte per key byte except where a varint gains
// a byte (the key's length at 64, 8192, ...; the body's likewise), which skips a size; the
// caller tries another value length there.
func solveKeyLength(offsetDelta int32, tsDelta int64, vl, target int) (int, bool) {
	if target < recordSize(offsetDelta, tsDelta, 1, vl) {
		return 0, false
	}
	est := target - recordSize(offsetDelta, tsDelta, 0, vl)
	for kl := max(est, 1); kl >= 1 && kl >= est-16; kl-- {
		if recordSize(offsetDelta, tsDelta, kl, vl) == target {
			return kl, true
		}
	}
	return 0, false
}
