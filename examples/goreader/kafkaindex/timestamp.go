package kafkaindex

import (
	"fmt"
)

// TimestampAnswer is one timestamp lookup's result (LogSegment.findOffsetByTimestamp): Start
// is the offset index position phase 2 starts from, as the index holds it; Offset and
// Timestamp are the first record at or past the timestamp, -1 and -1 when there is none.
type TimestampAnswer struct {
	Start, Offset, Timestamp int64
	Err                      *ReadError
}

// v2 batch header fields (DefaultRecordBatch).
const (
	v2AttributesAt    = 21
	v2BaseTimestampAt = 27
	v2MaxTimestampAt  = 35
	v2RecordsCountAt  = 57
	v2LogAppendTime   = 0x08
)

// LookupTimestamp answers the first record whose timestamp is at or past ts, as
// LogSegment.findOffsetByTimestamp(ts, base offset) does: the time index's largest lower bound
// on ts gives an offset (the base offset when none), the offset index's lookup of the larger of
// that and the base offset gives the start position (a negative one is an error there, in the
// .index), and FileRecords.searchForTimestamp walks from there: the first batch whose maxTimestamp() reaches ts, then its first record with a
// timestamp at or past ts and an offset at or past the base offset. Phase 1 follows rules
// (release line and view) on both indexes; the walk is 0.11's FileLogInputStream.nextBatch
// in every line (Kafka's time index came with 0.10.1).
func (s *Segment) LookupTimestamp(ts int64, rules Rules) TimestampAnswer {
	offset := s.base
	n := s.entries(s.timeRaw, s.timeValid, timeSlotSize, rules.View)
	slot := largestLowerBound(n, s.warmEntries(timeSlotSize, rules.Release), ts, func(i int) int64 { return int64At(s.timeRaw, i*timeSlotSize) })
	if slot >= 0 {
		offset = s.base + int64(int32At(s.timeRaw, slot*timeSlotSize+8))
	}
	start, startSlot := s.offsetStart(max(offset, s.base), rules)
	if s.logErr != nil {
		return TimestampAnswer{Err: s.logErr}
	}
	if start < 0 {
		// findOffsetByTimestamp passes the index's position on as it is (translateOffset takes
		// max(position, 0)): the walk's first read throws. Blamed on the index slot's position.
		return TimestampAnswer{Err: &ReadError{File: s.stem + ".index", Byte: int64(startSlot*offsetSlotSize + 4),
			Message: fmt.Sprintf("IllegalArgumentException: Negative position (the offset index's position %d)", start)}}
	}
	for pos := start; ; {
		b, ok, err := s.nextBatch(pos)
		if err != nil {
			return TimestampAnswer{Err: err}
		}
		if !ok {
			return TimestampAnswer{Start: start, Offset: -1, Timestamp: -1}
		}
		maxTS, err := s.maxTimestamp(b)
		if err != nil {
			return TimestampAnswer{Err: err}
		}
		if maxTS >= ts {
			records, err := s.records(b)
			if err != nil {
				return TimestampAnswer{Err: err}
			}
			for _, r := range records {
				if r.err != "" {
					return TimestampAnswer{Err: s.corrupt(b.pos, r.err)}
				}
				if r.timestamp >= ts && r.offset >= s.base {
					return TimestampAnswer{Start: start, Offset: r.offset, Timestamp: r.timestamp}
				}
			}
		}
		pos += b.total
	}
}

// maxTimestamp is FileChannelRecordBatch.maxTimestamp: loadBatchHeader, 61 bytes for v2 (the
// field at byte 35), 12 + 6 or 12 + 14 for a legacy entry (LegacyRecord.headerSize throws for a
// magic other than 0 and 1), whose max timestamp is its own timestamp, none for magic 0.
func (s *Segment) maxTimestamp(b batchHead) (int64, *ReadError) {
	if b.magic >= 2 {
		header, err := s.loadBatchHeader(b)
		if err != nil {
			return 0, err
		}
		return int64At(header, v2MaxTimestampAt), nil
	}
	switch b.magic {
	case 0:
		return noTimestamp, nil
	case 1:
		var field [8]byte
		if err := s.readAt(field[:], b.pos+logOverhead+legacyTimestampAt); err != nil {
			return 0, err
		}
		return int64At(field[:], 0), nil
	}
	return 0, s.corrupt(b.pos, fmt.Sprintf("IllegalArgumentException: Invalid magic used in LegacyRecord: %d", b.magic))
}

// records is loadFullBatch().iterator(): the batch's records in order, for a timestamp lookup.
func (s *Segment) records(b batchHead) ([]record, *ReadError) {
	full := make([]byte, b.total)
	if err := s.readAt(full, b.pos); err != nil {
		return nil, err
	}
	var records []record
	var fail, unsupported string
	if b.magic < 2 {
		records, fail, unsupported = legacyRecords(full)
	} else {
		records, fail, unsupported = v2Records(full)
	}
	switch {
	case fail != "":
		return nil, s.corrupt(b.pos, fail)
	case unsupported != "":
		return nil, s.corrupt(b.pos, "unsupported by this reader: "+unsupported)
	}
	return records, nil
}

// v2Records is DefaultRecordBatch.iterator over a whole batch: none when the count is 0; an
// uncompressed batch gives its records one by one (an error at a record comes when the
// iteration reaches it, and the last record also checks that no byte follows); a gzip batch is
// inflated and every record read before the first is given. snappy, lz4 and zstd are not in
// Go's standard library: unsupported.
func v2Records(batch []byte) (records []record, fail, unsupported string) {
	if len(batch) < v2BatchOverhead {
		// count() and the records offset read past a batch shorter than its header.
		return nil, "IndexOutOfBoundsException: the batch is shorter than its 61-byte header", ""
	}
	count := int32At(batch, v2RecordsCountAt)
	if count == 0 {
		return nil, "", ""
	}
	attributes := uint16(batch[v2AttributesAt])<<8 | uint16(batch[v2AttributesAt+1])
	codec := attributes & 0x07
	switch {
	case codec > codecZstd:
		return nil, fmt.Sprintf("IllegalArgumentException: Unknown compression type id: %d", codec), ""
	case count < 0:
		return nil, fmt.Sprintf("InvalidRecordException: Found invalid record count %d in magic v2 batch", count), ""
	case codec != 0 && codec != codecGzip:
		return nil, "", fmt.Sprintf("compression codec %d (snappy, lz4 or zstd) in a v2 batch is not in the standard library", codec)
	}
	baseOffset, baseTime := int64At(batch, 0), int64At(batch, v2BaseTimestampAt)
	var logAppendTime *int64
	if attributes&v2LogAppendTime != 0 {
		t := int64At(batch, v2MaxTimestampAt)
		logAppendTime = &t
	}
	body := batch[v2BatchOverhead:]
	if codec == codecGzip {
		plain, err := gunzipAsJava(body)
		if err != nil {
			return nil, "KafkaException: java.io.IOException: " + err.Error(), ""
		}
		body = plain
	}
	buf := &varintReader{b: body}
	for i := int32(0); i < count; i++ {
		r, err := readRecord(buf, baseOffset, baseTime, logAppendTime)
		if err == "" && i == count-1 && buf.at != len(buf.b) {
			err = "InvalidRecordException: Incorrect declared batch size, records still remaining in file"
		}
		if err != "" {
			if codec == codecGzip {
				// The compressed iterator reads every record before giving the first.
				return nil, err, ""
			}
			return append(records, record{err: err}), "", ""
		}
		records = append(records, r)
	}
	return records, "", ""
}

// readRecord is DefaultRecord.readFrom: a varint body size, then attributes, timestamp delta
// (varlong), offset delta, key, value and headers, exactly the body size in all.
func readRecord(buf *varintReader, baseOffset, baseTime int64, logAppendTime *int64) (record, string) {
	const structure = "InvalidRecordException: Found invalid record structure"
	size, ok := buf.varint()
	if !ok {
		return record{}, "InvalidRecordException: Incorrect declared batch size, premature EOF reached"
	}
	if int64(len(buf.b)-buf.at) < int64(size) {
		return record{}, fmt.Sprintf("InvalidRecordException: Invalid record size: expected %d bytes in record payload, but instead the buffer has only %d remaining bytes.", size, len(buf.b)-buf.at)
	}
	start := buf.at
	if _, ok := buf.byte(); !ok {
		return record{}, structure
	}
	timeDelta, ok := buf.varlong()
	if !ok {
		return record{}, structure
	}
	offsetDelta, ok := buf.varint()
	if !ok {
		return record{}, structure
	}
	for range 2 { // key, value: a negative length is null
		if n, ok := buf.varint(); !ok || !buf.skip(n) {
			return record{}, structure
		}
	}
	headers, ok := buf.varint()
	switch {
	case !ok:
		return record{}, structure
	case headers < 0:
		return record{}, fmt.Sprintf("InvalidRecordException: Found invalid number of record headers %d", headers)
	case int64(headers) > int64(len(buf.b)-buf.at):
		return record{}, fmt.Sprintf("InvalidRecordException: Found invalid number of record headers. %d is larger than the remaining size of the buffer", headers)
	}
	for range headers {
		keySize, ok := buf.varint()
		if !ok {
			return record{}, structure
		}
		if keySize < 0 {
			return record{}, fmt.Sprintf("InvalidRecordException: Invalid negative header key size %d", keySize)
		}
		if !buf.skip(keySize) {
			return record{}, structure
		}
		if n, ok := buf.varint(); !ok || !buf.skip(n) {
			return record{}, structure
		}
	}
	if buf.at-start != int(size) {
		return record{}, fmt.Sprintf("InvalidRecordException: Invalid record size: expected to read %d bytes in record payload, but instead read %d", size, buf.at-start)
	}
	r := record{offset: baseOffset + int64(offsetDelta), timestamp: baseTime + timeDelta}
	if logAppendTime != nil {
		r.timestamp = *logAppendTime
	}
	return r, ""
}

// varintReader reads Kafka's zigzag varints (ByteUtils.readVarint, readVarlong) from b at at.
type varintReader struct {
	b  []byte
	at int
}

func (v *varintReader) byte() (byte, bool) {
	if v.at >= len(v.b) {
		return 0, false
	}
	v.at++
	return v.b[v.at-1], true
}

// skip is Utils.readBytes: a negative length reads nothing (a null), a length past the end fails.
func (v *varintReader) skip(n int32) bool {
	if n < 0 {
		return true
	}
	if int64(n) > int64(len(v.b)-v.at) {
		return false
	}
	v.at += int(n)
	return true
}

// varint is ByteUtils.readVarint: at most 5 bytes (a sixth continuation is "Varint is too
// long"), int arithmetic, zigzag.
func (v *varintReader) varint() (int32, bool) {
	var value uint32
	for shift := 0; ; shift += 7 {
		b, ok := v.byte()
		if !ok {
			return 0, false
		}
		if b&0x80 == 0 {
			value |= uint32(b) << shift
			return int32(value>>1) ^ -int32(value&1), true
		}
		value |= uint32(b&0x7f) << shift
		if shift+7 > 28 {
			return 0, false
		}
	}
}

// varlong is ByteUtils.readVarlong: at most 10 bytes, long arithmetic, zigzag.
func (v *varintReader) varlong() (int64, bool) {
	var value uint64
	for shift := 0; ; shift += 7 {
		b, ok := v.byte()
		if !ok {
			return 0, false
		}
		if b&0x80 == 0 {
			value |= uint64(b) << shift
			return int64(value>>1) ^ -int64(value&1), true
		}
		value |= uint64(b&0x7f) << shift
		if shift+7 > 63 {
			return 0, false
		}
	}
}
