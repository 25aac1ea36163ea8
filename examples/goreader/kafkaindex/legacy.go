package kafkaindex

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// record is one record as a batch's iterator gives it: its offset and timestamp, or err, the
// exception Kafka's iterator throws when it reaches this record (the records before it are
// still given).
type record struct {
	offset, timestamp int64
	err               string
}

// Legacy record layout (LegacyRecord), within the record that follows an entry's offset and
// size fields: crc(4) magic(1) attributes(1) [timestamp(8) in v1] keySize(4) key valueSize(4) value.
const (
	legacyMagicAt      = 4
	legacyAttributesAt = 5
	legacyTimestampAt  = 6
	legacyCodecMask    = 0x07 // LegacyRecord.COMPRESSION_CODEC_MASK
	legacyLogAppend    = 0x08 // LegacyRecord.TIMESTAMP_TYPE_MASK
	noTimestamp        = -1   // RecordBatch.NO_TIMESTAMP
	codecGzip          = 1    // CompressionType.GZIP.id
	codecZstd          = 4    // CompressionType.ZSTD.id
	// maxDecompressed caps what this reader inflates (a hostile wrapper can claim gigabytes):
	// past it the answer is an error line saying so, where Kafka would go on.
	maxDecompressed = 64 << 20
)

// legacyRecords is loadFullBatch().iterator() of an entry read as legacy (magic byte below 2):
// entry is the whole entry, 12 + size bytes. An uncompressed record is its own single record
// (AbstractLegacyRecordBatch.iterator); a compressed wrapper goes through
// AbstractLegacyRecordBatch.DeepRecordsIterator, whose constructor reads every inner message
// first. fail is the exception thrown before any record is given; unsupported is set, with no
// records, for a snappy or lz4 wrapper, whose codec is not in Go's standard library.
func legacyRecords(entry []byte) (records []record, fail, unsupported string) {
	offsetField := int64At(entry, 0)
	rec := entry[logOverhead:]
	magic := int8(rec[legacyMagicAt])
	attributes := rec[legacyAttributesAt]
	// isCompressed(): CompressionType.forId throws on an id it does not know.
	codec := attributes & legacyCodecMask
	if codec > codecZstd {
		return nil, fmt.Sprintf("IllegalArgumentException: Unknown compression type id: %d", codec), ""
	}
	if codec == 0 {
		return []record{{offset: offsetField, timestamp: legacyTimestamp(rec, nil)}}, "", ""
	}
	if magic != 0 && magic != 1 {
		return nil, fmt.Sprintf("InvalidRecordException: Invalid wrapper magic found in legacy deep record iterator %d", magic), ""
	}
	if codec == codecZstd {
		return nil, fmt.Sprintf("InvalidRecordException: Invalid wrapper compressionType found in legacy deep record iterator %d", magic), ""
	}
	value, isNull, fail := legacyValue(rec, magic)
	switch {
	case fail != "":
		return nil, fail, ""
	case isNull:
		return nil, fmt.Sprintf("InvalidRecordException: Found invalid compressed record set with null value (magic = %d)", magic), ""
	case codec != codecGzip:
		return nil, "", fmt.Sprintf("compression codec %d (snappy or lz4) is not in the standard library", codec)
	}
	plain, err := gunzipAsJava(value)
	if err != nil {
		return nil, "KafkaException: java.io.IOException: " + err.Error(), ""
	}
	// DataLogInputStream.nextBatch over the inflated bytes: a short read ends the inner
	// messages; a size under 14 throws.
	type inner struct {
		offset int64
		rec    []byte
	}
	var inners []inner
	for rest := plain; len(rest) >= logOverhead; {
		offset, size := int64At(rest, 0), int64(int32At(rest, 8))
		if size < minRecordOverhead {
			return nil, fmt.Sprintf("CorruptRecordException: Record size is less than the minimum record overhead (%d)", minRecordOverhead), ""
		}
		if int64(len(rest)-logOverhead) < size {
			break
		}
		inners = append(inners, inner{offset, rest[logOverhead : logOverhead+size]})
		rest = rest[logOverhead+size:]
	}
	if len(inners) == 0 {
		return nil, "InvalidRecordException: Found invalid compressed record set with no inner records", ""
	}
	absoluteBase := int64(-1)
	if magic == 1 {
		// Inner offsets of a v1 wrapper are relative to a base that makes the last one the
		// wrapper's offset field, unless that field is 0 (certain librdkafka producers).
		if offsetField != 0 {
			lastInner := inners[len(inners)-1].offset
			if offsetField < lastInner {
				return nil, fmt.Sprintf("InvalidRecordException: Found invalid wrapper offset in compressed v1 message set, wrapper offset '%d' is less than the last inner message offset '%d' and it is not zero.", offsetField, lastInner), ""
			}
			absoluteBase = offsetField - lastInner
		} else {
			absoluteBase = 0
		}
	}
	// The wrapper's timestamp, given to v1 inner messages when the wrapper says log-append time.
	var wrapperTime *int64
	if magic == 1 && attributes&legacyLogAppend != 0 {
		t := int64At(rec, legacyTimestampAt)
		wrapperTime = &t
	}
	for _, in := range inners {
		r := record{offset: in.offset}
		if magic == 1 {
			r.offset = absoluteBase + in.offset
		}
		// DeepRecordsIterator.makeNext refuses a compressed inner message (and forId an
		// unknown codec) when it reaches it.
		switch innerCodec := in.rec[legacyAttributesAt] & legacyCodecMask; {
		case innerCodec > codecZstd:
			r.err = fmt.Sprintf("IllegalArgumentException: Unknown compression type id: %d", innerCodec)
		case innerCodec != 0:
			r.err = "InvalidRecordException: Inner messages must not be compressed"
		}
		var wt *int64
		if int8(in.rec[legacyMagicAt]) == 1 {
			wt = wrapperTime
		}
		r.timestamp = legacyTimestamp(in.rec, wt)
		records = append(records, r)
		if r.err != "" {
			break
		}
	}
	return records, "", ""
}

// legacyTimestamp is LegacyRecord.timestamp: none for magic 0, the wrapper's log-append time
// when given, else the record's own field (read for any magic but 0).
func legacyTimestamp(rec []byte, wrapperTime *int64) int64 {
	switch {
	case int8(rec[legacyMagicAt]) == 0:
		return noTimestamp
	case wrapperTime != nil:
		return *wrapperTime
	}
	return int64At(rec, legacyTimestampAt)
}

// legacyValue is LegacyRecord.value(): the key size at byte 6 (magic 0) or 14 (any other magic),
// the value size after the key; a negative value size is a null value. Reading past the record
// throws (IndexOutOfBoundsException, IllegalArgumentException from Utils.sizeDelimited).
func legacyValue(rec []byte, magic int8) (value []byte, isNull bool, fail string) {
	keySizeAt := int64(6)
	if magic != 0 {
		keySizeAt = 14
	}
	n := int64(len(rec))
	if keySizeAt+4 > n {
		return nil, false, "IndexOutOfBoundsException: the key size is past the record"
	}
	valueSizeAt := keySizeAt + 4 + max(0, int64(int32At(rec, int(keySizeAt))))
	if valueSizeAt+4 > n {
		return nil, false, "IndexOutOfBoundsException: the value size is past the record"
	}
	size := int64(int32At(rec, int(valueSizeAt)))
	if size < 0 {
		return nil, true, ""
	}
	if valueSizeAt+4+size > n {
		return nil, false, "IllegalArgumentException: the value runs past the record"
	}
	return rec[valueSizeAt+4 : valueSizeAt+4+size], false, ""
}

// gunzipAsJava inflates as java.util.zip.GZIPInputStream reads: member after member, each
// header read as GZIPInputStream.readHeader reads it (magic, deflate, the optional fields its
// flags name, a header CRC when flagged; reserved flags and long names are no error), each
// trailer checked (CRC-32 and length); after a member, bytes that do not start a readable
// header are ignored (GZIPInputStream.readTrailer stops quietly there).
func gunzipAsJava(data []byte) ([]byte, error) {
	var out []byte
	for first := true; ; first = false {
		header, ok := javaGzipHeader(data)
		if !ok {
			if first {
				return nil, errors.New("corrupt gzip data")
			}
			return out, nil
		}
		in := bytes.NewReader(data[header:]) // an io.ByteReader: flate reads no byte past its stream
		inflated, err := io.ReadAll(io.LimitReader(flate.NewReader(in), maxDecompressed+1-int64(len(out))))
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, errors.New("unexpected end of ZLIB input stream")
		case err != nil:
			return nil, errors.New("corrupt gzip data")
		case len(out)+len(inflated) > maxDecompressed:
			return nil, fmt.Errorf("inflates past %d bytes, this reader's cap", maxDecompressed)
		}
		rest := data[len(data)-in.Len():]
		if len(rest) < 8 {
			return nil, errors.New("unexpected end of ZLIB input stream")
		}
		if binary.LittleEndian.Uint32(rest) != crc32.ChecksumIEEE(inflated) || binary.LittleEndian.Uint32(rest[4:]) != uint32(len(inflated)) {
			return nil, errors.New("corrupt gzip data")
		}
		out = append(out, inflated...)
		if data = rest[8:]; len(data) == 0 {
			return out, nil
		}
	}
}

// javaGzipHeader is the length of the gzip header data starts with, as
// GZIPInputStream.readHeader reads it; false when it would throw.
func javaGzipHeader(data []byte) (int, bool) {
	const fhcrc, fextra, fname, fcomment = 2, 4, 8, 16
	if len(data) < 10 || data[0] != 0x1f || data[1] != 0x8b || data[2] != 8 {
		return 0, false
	}
	flags, at := data[3], 10
	if flags&fextra != 0 {
		if len(data) < at+2 {
			return 0, false
		}
		at += 2 + int(binary.LittleEndian.Uint16(data[at:]))
	}
	for _, f := range []byte{fname, fcomment} { // zero-terminated
		if flags&f != 0 {
			if at > len(data) {
				return 0, false
			}
			end := bytes.IndexByte(data[at:], 0)
			if end < 0 {
				return 0, false
			}
			at += end + 1
		}
	}
	if flags&fhcrc != 0 {
		if len(data) < at+2 || uint16(crc32.ChecksumIEEE(data[:at])) != binary.LittleEndian.Uint16(data[at:]) {
			return 0, false
		}
		at += 2
	}
	return at, at <= len(data)
}
