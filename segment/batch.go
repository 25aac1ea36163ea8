package segment

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Framing and v2 header layout (Records, DefaultRecordBatch).
const (
	LogOverhead          = 12 // Records.LOG_OVERHEAD: offset(8) + size(4)
	HeaderSizeUpToMagic  = 17 // Records.HEADER_SIZE_UP_TO_MAGIC
	RecordBatchOverhead  = 61 // DefaultRecordBatch.RECORD_BATCH_OVERHEAD
	MinRecordOverhead    = 14 // LegacyRecord.RECORD_OVERHEAD_V0: the smallest size field the file reader accepts
	crcOffset            = 17
	attributesOffset     = 21 // CRC-32C covers [21, end)
	MagicOffset          = 16
	legacyHeaderSizeV0   = 6  // LegacyRecord.HEADER_SIZE_V0 (crc, magic, attributes)
	legacyHeaderSizeV1   = 14 // LegacyRecord.HEADER_SIZE_V1 (+ timestamp)
	legacyRecordOverhead = 14 // RECORD_OVERHEAD_V0; V1 is 22
)

// NoTimestamp is RecordBatch.NO_TIMESTAMP.
const NoTimestamp int64 = -1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// BatchHeader is every field of a v2 record batch header (DefaultRecordBatch,
// docs/kafka.md §1.3), in file order.
type BatchHeader struct {
	BaseOffset           int64
	Length               int32 // bytes after this field; SizeInBytes = 12 + Length
	PartitionLeaderEpoch int32
	Magic                int8
	CRC                  uint32 // CRC-32C of bytes [21, end)
	Attributes           int16
	LastOffsetDelta      int32
	BaseTimestamp        int64
	MaxTimestamp         int64
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	RecordCount          int32
}

// SizeInBytes is the batch's length on disk (LOG_OVERHEAD + Length).
func (h BatchHeader) SizeInBytes() int64 { return LogOverhead + int64(h.Length) }

// LastOffset is baseOffset + lastOffsetDelta (DefaultRecordBatch.lastOffset).
func (h BatchHeader) LastOffset() int64 { return h.BaseOffset + int64(h.LastOffsetDelta) }

// Compression is the codec in attribute bits 0-2.
func (h BatchHeader) Compression() Compression { return Compression(h.Attributes & 7) }

// TimestampType is "CreateTime" or "LogAppendTime" (attribute bit 3).
func (h BatchHeader) TimestampType() string {
	if h.Attributes&0x08 != 0 {
		return "LogAppendTime"
	}
	return "CreateTime"
}

// IsTransactional is attribute bit 4.
func (h BatchHeader) IsTransactional() bool { return h.Attributes&0x10 != 0 }

// IsControl is attribute bit 5.
func (h BatchHeader) IsControl() bool { return h.Attributes&0x20 != 0 }

// HasDeleteHorizon is attribute bit 6 (BaseTimestamp is then the horizon).
func (h BatchHeader) HasDeleteHorizon() bool { return h.Attributes&0x40 != 0 }

// LastSequence is DefaultRecordBatch.lastSequence: NO_SEQUENCE stays -1,
// otherwise base + delta wrapping at Integer.MAX_VALUE.
func (h BatchHeader) LastSequence() int32 {
	if h.BaseSequence == -1 {
		return -1
	}
	s := int64(h.BaseSequence) + int64(h.LastOffsetDelta)
	if s > 2147483647 {
		s -= 2147483648
	}
	return int32(s)
}

// Compression is a batch compression codec (CompressionType ids).
type Compression int8

// Codec names as CompressionType.name prints them.
func (c Compression) String() string {
	switch c {
	case 0:
		return "none"
	case 1:
		return "gzip"
	case 2:
		return "snappy"
	case 3:
		return "lz4"
	case 4:
		return "zstd"
	}
	return fmt.Sprintf("unknown(%d)", int8(c))
}

// ParseBatchHeader decodes the first 61 bytes of b as a v2 batch header.
// pos is b's file position, used in errors.
func ParseBatchHeader(b []byte, file string, pos int64) (BatchHeader, error) {
	r := newBinReader(b, file, pos)
	var h BatchHeader
	h.BaseOffset = r.Int64()
	h.Length = r.Int32()
	h.PartitionLeaderEpoch = r.Int32()
	h.Magic = r.Int8()
	h.CRC = r.Uint32()
	h.Attributes = r.Int16()
	h.LastOffsetDelta = r.Int32()
	h.BaseTimestamp = r.Int64()
	h.MaxTimestamp = r.Int64()
	h.ProducerID = r.Int64()
	h.ProducerEpoch = r.Int16()
	h.BaseSequence = r.Int32()
	h.RecordCount = r.Int32()
	if err := r.Err(); err != nil {
		return h, formatErr(file, pos, "record batch header truncated: %d of %d bytes", len(b), RecordBatchOverhead)
	}
	return h, nil
}

// appendBatchHeader writes h (CRC as given) in file order.
func appendBatchHeader(dst []byte, h BatchHeader) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(h.BaseOffset))
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.Length))
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.PartitionLeaderEpoch))
	dst = append(dst, byte(h.Magic))
	dst = binary.BigEndian.AppendUint32(dst, h.CRC)
	dst = binary.BigEndian.AppendUint16(dst, uint16(h.Attributes))
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.LastOffsetDelta))
	dst = binary.BigEndian.AppendUint64(dst, uint64(h.BaseTimestamp))
	dst = binary.BigEndian.AppendUint64(dst, uint64(h.MaxTimestamp))
	dst = binary.BigEndian.AppendUint64(dst, uint64(h.ProducerID))
	dst = binary.BigEndian.AppendUint16(dst, uint16(h.ProducerEpoch))
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.BaseSequence))
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.RecordCount))
	return dst
}

// ComputeBatchCRC is CRC-32C over bytes [21, len(batch)) of a v2 batch
// (DefaultRecordBatch.computeChecksum).
func ComputeBatchCRC(batch []byte) uint32 {
	if len(batch) <= attributesOffset {
		return 0
	}
	return crc32.Checksum(batch[attributesOffset:], castagnoli)
}

// CheckBatch is DefaultRecordBatch.ensureValid on a whole in-memory batch:
// size >= 61 and stored CRC == computed CRC. It does not parse records.
func CheckBatch(batch []byte, file string, pos int64) error {
	if len(batch) < RecordBatchOverhead {
		return formatErr(file, pos, "Record batch is corrupt (the size %d is smaller than the minimum allowed overhead %d)", len(batch), RecordBatchOverhead)
	}
	stored := binary.BigEndian.Uint32(batch[crcOffset:])
	if c := ComputeBatchCRC(batch); c != stored {
		return formatErr(file, pos+crcOffset, "Record is corrupt (stored crc = %d, computed crc = %d)", stored, c)
	}
	return nil
}

// Record is one DefaultRecord inside an uncompressed v2 batch.
type Record struct {
	Attributes     int8
	TimestampDelta int64
	OffsetDelta    int32
	Key            []byte // nil = null key
	Value          []byte // nil = null value
	Headers        []RecordHeader
	Position       int64 // file position of the record's length varint
	SizeInBytes    int   // varint length prefix + body
}

// RecordHeader is one record header.
type RecordHeader struct {
	Key   string
	Value []byte
}

// DecodeRecords parses the records of an uncompressed v2 batch held whole
// in batch (file position pos), as DefaultRecord.readFrom does. The result
// aliases batch. Compressed batches are refused with an error: the package
// only needs record-level detail for batches it can read without codecs.
func DecodeRecords(batch []byte, file string, pos int64) (BatchHeader, []Record, error) {
	h, err := ParseBatchHeader(batch, file, pos)
	if err != nil {
		return h, nil, err
	}
	if h.Compression() != 0 {
		return h, nil, formatErr(file, pos+attributesOffset, "batch is compressed (%s): records not decoded", h.Compression())
	}
	if h.RecordCount < 0 {
		return h, nil, formatErr(file, pos+57, "negative record count %d", h.RecordCount)
	}
	end := int(h.SizeInBytes())
	if end > len(batch) || end < RecordBatchOverhead {
		return h, nil, formatErr(file, pos+8, "batch length %d does not match the %d bytes available", h.Length, len(batch))
	}
	r := newBinReader(batch[:end], file, pos)
	r.off = RecordBatchOverhead
	// Never preallocate from an untrusted count: each record is >= 7 bytes.
	capHint := int(h.RecordCount)
	if m := (end - RecordBatchOverhead) / 7; capHint > m {
		capHint = m
	}
	recs := make([]Record, 0, capHint)
	for i := int32(0); i < h.RecordCount; i++ {
		start := r.off
		recPos := r.pos()
		n := r.Varint()
		if r.Err() != nil {
			break
		}
		if n < 0 || int(n) > r.remaining() {
			r.fail("record %d length %d runs past the batch end", i, n)
			break
		}
		body := newBinReader(r.Span(int(n)), file, recPos+int64(r.off-start)-int64(n))
		var rec Record
		rec.Position = recPos
		rec.Attributes = body.Int8()
		rec.TimestampDelta = body.Varlong()
		rec.OffsetDelta = body.Varint()
		if kl := body.Varint(); kl >= 0 {
			rec.Key = body.Span(int(kl))
		} else if kl < -1 {
			body.fail("invalid key length %d", kl)
		}
		if vl := body.Varint(); vl >= 0 {
			rec.Value = body.Span(int(vl))
		} else if vl < -1 {
			body.fail("invalid value length %d", vl)
		}
		hc := body.Varint()
		if hc < 0 {
			body.fail("invalid header count %d", hc)
		}
		for j := int32(0); j < hc && body.Err() == nil; j++ {
			kl := body.Varint()
			if kl < 0 {
				body.fail("invalid header key length %d", kl)
				break
			}
			k := string(body.Span(int(kl)))
			var v []byte
			if vl := body.Varint(); vl >= 0 {
				v = body.Span(int(vl))
			}
			rec.Headers = append(rec.Headers, RecordHeader{Key: k, Value: v})
		}
		if body.Err() == nil && body.remaining() != 0 {
			body.fail("record %d has %d unread bytes", i, body.remaining())
		}
		if body.Err() != nil {
			return h, recs, body.Err()
		}
		rec.SizeInBytes = r.off - start
		recs = append(recs, rec)
	}
	if err := r.Err(); err != nil {
		return h, recs, err
	}
	if r.remaining() != 0 {
		return h, recs, formatErr(file, r.pos(), "%d bytes after the last of %d records", r.remaining(), h.RecordCount)
	}
	return h, recs, nil
}

// LegacyHeader is the part of a v0/v1 message (LegacyRecord) needed to
// walk past it and report it.
type LegacyHeader struct {
	Offset     int64 // the (wrapper) message offset = its last offset
	Size       int32
	CRC        uint32 // CRC-32 (IEEE) over magic..end
	Magic      int8
	Attributes int8
	Timestamp  int64 // v1 only; -1 for v0
}

// ParseLegacyHeader decodes 12 + HEADER_SIZE_V0/V1 bytes of a legacy entry.
func ParseLegacyHeader(b []byte, file string, pos int64) (LegacyHeader, error) {
	r := newBinReader(b, file, pos)
	var h LegacyHeader
	h.Offset = r.Int64()
	h.Size = r.Int32()
	h.CRC = r.Uint32()
	h.Magic = r.Int8()
	h.Attributes = r.Int8()
	h.Timestamp = NoTimestamp
	if h.Magic == 1 {
		h.Timestamp = r.Int64()
	}
	return h, r.Err()
}
