package segment

import (
	"encoding/binary"
	"fmt"
	"kidx/internal/english"
)

// RecordSpec is one record for BuildBatch. A nil Key or Value is null.
type RecordSpec struct {
	Key       []byte
	Value     []byte
	Timestamp int64
}

// BatchOptions are the header fields a producer controls. The zero value is
// what the golden vectors use and what MemoryRecords.builder(...) writes for
// a non-idempotent producer: BatchDefaults.
type BatchOptions struct {
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	PartitionLeaderEpoch int32
	Attributes           int16 // only timestamp type / transactional / control bits; compression is not supported
}

// BatchDefaults: producer id -1, epoch -1, base sequence -1, partition
// leader epoch 0, attributes 0 (no compression, CreateTime).
var BatchDefaults = BatchOptions{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}

// recordBodySize is DefaultRecord.sizeOfBodyInBytes with no headers.
func recordBodySize(offsetDelta int32, tsDelta int64, keyLen, valueLen int) int {
	n := 1 + varlongSize(tsDelta) + varintSize(offsetDelta) + 1 // attributes, ts, offset, header count
	if keyLen < 0 {
		n++
	} else {
		n += varintSize(int32(keyLen)) + keyLen
	}
	if valueLen < 0 {
		n++
	} else {
		n += varintSize(int32(valueLen)) + valueLen
	}
	return n
}

// recordSize is DefaultRecord.sizeInBytes: length varint + body.
func recordSize(offsetDelta int32, tsDelta int64, keyLen, valueLen int) int {
	b := recordBodySize(offsetDelta, tsDelta, keyLen, valueLen)
	return varintSize(int32(b)) + b
}

func appendRecord(dst []byte, offsetDelta int32, tsDelta int64, key, value []byte) []byte {
	kl, vl := -1, -1
	if key != nil {
		kl = len(key)
	}
	if value != nil {
		vl = len(value)
	}
	dst = appendVarint(dst, int32(recordBodySize(offsetDelta, tsDelta, kl, vl)))
	dst = append(dst, 0) // attributes: unused
	dst = appendVarlong(dst, tsDelta)
	dst = appendVarint(dst, offsetDelta)
	dst = appendVarint(dst, int32(kl))
	dst = append(dst, key...)
	dst = appendVarint(dst, int32(vl))
	dst = append(dst, value...)
	return appendVarint(dst, 0) // no headers
}

// finishBatch fills Length and CRC of the batch that starts at dst[start:].
func finishBatch(dst []byte, start int) []byte {
	b := dst[start:]
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-LogOverhead))
	binary.BigEndian.PutUint32(b[crcOffset:], ComputeBatchCRC(b))
	return dst
}

// AppendBatch appends one uncompressed v2 batch holding records at offsets
// baseOffset, baseOffset+1, ... exactly as MemoryRecordsBuilder writes it:
// baseTimestamp = first record's timestamp, maxTimestamp = the largest,
// records with offset deltas 0..n-1 and no headers.
func AppendBatch(dst []byte, baseOffset int64, records []RecordSpec, opts BatchOptions) []byte {
	start := len(dst)
	h := BatchHeader{
		BaseOffset: baseOffset, PartitionLeaderEpoch: opts.PartitionLeaderEpoch, Magic: 2,
		Attributes: opts.Attributes &^ 7, LastOffsetDelta: int32(len(records) - 1),
		BaseTimestamp: NoTimestamp, MaxTimestamp: NoTimestamp,
		ProducerID: opts.ProducerID, ProducerEpoch: opts.ProducerEpoch, BaseSequence: opts.BaseSequence,
		RecordCount: int32(len(records)),
	}
	if len(records) > 0 {
		h.BaseTimestamp = records[0].Timestamp
		for _, r := range records {
			h.MaxTimestamp = max(h.MaxTimestamp, r.Timestamp)
		}
	}
	dst = appendBatchHeader(dst, h)
	for i, r := range records {
		dst = appendRecord(dst, int32(i), r.Timestamp-h.BaseTimestamp, r.Key, r.Value)
	}
	return finishBatch(dst, start)
}

// BuildSizedBatch returns a valid, uncompressed v2 batch of exactly
// sizeInBytes bytes holding the given number of records at offsets
// baseOffset.., every record stamped maxTimestamp (so the header's
// maxTimestamp is maxTimestamp). Keys are null; value sizes are chosen so
// the batch has the requested size: every record but the last gets the same
// value size q, the last one absorbs the remainder; where varint length
// steps make that remainder unreachable, the next-to-last record takes up to
// 4 more value bytes or the last one a key of 1..4 bytes. It fails when the size is too small for the count.
func BuildSizedBatch(baseOffset int64, records, sizeInBytes int, maxTimestamp int64) ([]byte, error) {
	plan, err := planSizedBatch(records, sizeInBytes)
	if err != nil {
		return nil, err
	}
	return appendPlannedBatch(make([]byte, 0, sizeInBytes), baseOffset, records, maxTimestamp, plan), nil
}

// sizedPlan is the value size of records 0..n-2 and the key/value size of
// the last record.
type sizedPlan struct {
	q, d              int // value size of records 0..n-2; record n-2 gets q+d
	lastKey, lastVal  int
	size, recordCount int
}

// MinBatchSize is the smallest v2 batch that holds n records: the 61-byte header plus, for
// record i, DefaultRecord with a null key and value, timestamp delta 0 and no headers, which
// is 6 bytes + the zig-zag varint of its offset delta i (1 byte below 64, 2 below 8192, 3
// below 2^20, 4 below 2^27, then 5): 61 + 7n + max(0, n-64) + max(0, n-8192) + ...
// (docs/segment.md). Package model states the same rule (model.MinBatchBytes); a test holds
// them equal, as segment never imports model.
func MinBatchSize(n int) int {
	s := RecordBatchOverhead
	if n <= 0 {
		return s
	}
	s += 7 * n
	for _, at := range []int{64, 8192, 1 << 20, 1 << 27} {
		if n > at {
			s += n - at
		}
	}
	return s
}

func planSizedBatch(n, size int) (sizedPlan, error) {
	p := sizedPlan{size: size, recordCount: n}
	if n < 0 || n > 1<<30 {
		return p, fmt.Errorf("record count %d out of range", n)
	}
	if size > 1<<31-1 {
		return p, fmt.Errorf("batch size %d exceeds Integer.MAX_VALUE", size)
	}
	minSize := MinBatchSize(n)
	if size < minSize {
		return p, fmt.Errorf("a batch of %s needs at least %d bytes (61-byte header + %d bytes of minimal records); %d requested", plural(n, "record"), minSize, minSize-RecordBatchOverhead, size)
	}
	if n == 0 {
		if size != RecordBatchOverhead {
			return p, fmt.Errorf("a batch of 0 records is exactly %d bytes; %d requested", RecordBatchOverhead, size)
		}
		return p, nil
	}
	R := size - RecordBatchOverhead
	E := size - minSize
	for q := E / n; q >= 0; q-- {
		rest := 0
		for i := 0; i < n-2; i++ {
			rest += recordSize(int32(i), 0, -1, q)
		}
		// d extra value bytes on record n-2 step over a size the last record
		// cannot take (e.g. no record is 65 bytes: body 63 -> 64, 64 -> 66).
		for d := 0; d <= 4; d++ {
			r2 := rest
			if n >= 2 {
				r2 += recordSize(int32(n-2), 0, -1, q+d)
			} else if d > 0 {
				break
			}
			if k, v, ok := solveLastRecord(int32(n-1), R-r2); ok {
				p.q, p.d, p.lastKey, p.lastVal = q, d, k, v
				return p, nil
			}
		}
	}
	return p, fmt.Errorf("no record layout gives a batch of %s and %d bytes", plural(n, "record"), size)
}

// solveLastRecord finds key and value lengths giving a record of exactly
// target bytes. Record size grows by 1 per value byte except where a varint
// gains a byte (value length 64, 8192, ...; body length likewise), which
// skips one size; a key of 1..4 bytes lands on the skipped sizes.
func solveLastRecord(offsetDelta int32, target int) (key, value int, ok bool) {
	if target < recordSize(offsetDelta, 0, -1, -1) {
		return 0, 0, false
	}
	if target == recordSize(offsetDelta, 0, -1, -1) {
		return -1, -1, true
	}
	for _, k := range []int{-1, 1, 2, 3, 4} {
		base := recordSize(offsetDelta, 0, k, 0)
		est := target - base
		for v := est; v >= 0 && v >= est-16; v-- {
			if recordSize(offsetDelta, 0, k, v) == target {
				return k, v, true
			}
		}
	}
	return 0, 0, false
}

var fillBytes = func() []byte {
	b := make([]byte, 1<<16)
	for i := range b {
		b[i] = 'v'
	}
	return b
}()

func appendFill(dst []byte, n int, c byte) []byte {
	for n > 0 {
		k := min(n, len(fillBytes))
		if c == 'v' {
			dst = append(dst, fillBytes[:k]...)
		} else {
			for i := 0; i < k; i++ {
				dst = append(dst, c)
			}
		}
		n -= k
	}
	return dst
}

func appendPlannedBatch(dst []byte, baseOffset int64, n int, ts int64, p sizedPlan) []byte {
	start := len(dst)
	h := BatchHeader{
		BaseOffset: baseOffset, Magic: 2, LastOffsetDelta: int32(n - 1),
		BaseTimestamp: ts, MaxTimestamp: ts, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		RecordCount: int32(n),
	}
	if n == 0 {
		h.BaseTimestamp, h.MaxTimestamp = NoTimestamp, NoTimestamp
	}
	dst = appendBatchHeader(dst, h)
	for i := 0; i < n; i++ {
		kl, vl := -1, p.q
		if i == n-2 {
			vl += p.d
		}
		if i == n-1 {
			kl, vl = p.lastKey, p.lastVal
		}
		dst = appendVarint(dst, int32(recordBodySize(int32(i), 0, kl, vl)))
		dst = append(dst, 0)
		dst = appendVarlong(dst, 0)
		dst = appendVarint(dst, int32(i))
		dst = appendVarint(dst, int32(kl))
		if kl > 0 {
			dst = appendFill(dst, kl, 'k')
		}
		dst = appendVarint(dst, int32(vl))
		if vl > 0 {
			dst = appendFill(dst, vl, 'v')
		}
		dst = appendVarint(dst, 0)
	}
	return finishBatch(dst, start)
}

// plural is "1 record", "2 records" (internal/english).
func plural(n int, what string) string { return english.Plural(int64(n), what) }
