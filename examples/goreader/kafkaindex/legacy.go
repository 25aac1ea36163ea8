package kafkaindex

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
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
// checked against its trailer; after a member, bytes that do not start a readable gzip header
// are ignored (GZIPInputStream.readTrailer stops quietly there).
func gunzipAsJava(data []byte) ([]byte, error) {
	in := bytes.NewReader(data) // an io.ByteReader: the gzip reader reads no byte past a member
	z, err := gzip.NewReader(in)
	if err != nil {
		return nil, gzipError(err)
	}
	var out bytes.Buffer
	for {
		z.Multistream(false)
		_, err := io.Copy(&out, io.LimitReader(z, maxDecompressed+1-int64(out.Len())))
		if err != nil {
			return nil, gzipError(err)
		}
		if out.Len() > maxDecompressed {
			return nil, fmt.Errorf("inflates past %d bytes, this reader's cap", maxDecompressed)
		}
		if in.Len() == 0 || z.Reset(in) != nil {
			return out.Bytes(), nil
		}
	}
}

// gzipError words a failure as both reference readers do (the Python one gets zlib's words).
func gzipError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("unexpected end of ZLIB input stream")
	}
	return errors.New("corrupt gzip data")
}
