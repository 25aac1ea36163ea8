package segment

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"unicode/utf8"

	"kidx/codec"
)

// DecodedRecord is one record as DumpLogSegments' deep iteration shows it
// (DumpLogSegments.dumpLog: "for (record <- batch.asScala)").
type DecodedRecord struct {
	Offset, Timestamp int64
	// TimestampType is the batch's (for a legacy inner message, the wrapper's)
	// type, the one DumpLogSegments prints before the timestamp: CreateTime,
	// LogAppendTime or NoTimestampType (magic 0).
	TimestampType string
	// Key and Value (nil = null) alias kidx's buffers: they are valid only
	// during the callback.
	Key, Value []byte
	// Sequence is v2's baseSequence+offsetDelta (DefaultRecordBatch
	// .incrementSequence, wrapping at Integer.MAX_VALUE), or -1; legacy -1.
	Sequence   int32
	HeaderKeys []string
	// Legacy marks a v0/v1 message: an inner message of a compressed wrapper
	// or an uncompressed message (its own batch). LegacyValid is its isValid
	// (size >= 14 and stored CRC-32 == computed) and LegacyCRC the stored CRC.
	Legacy      bool
	LegacyValid bool
	LegacyCRC   uint32
	// Control is what DumpLogSegments prints after a control record, e.g.
	// "endTxnMarker: COMMIT coordinatorEpoch: 0" or
	// "controlType: LEADER_CHANGE(2)"; empty outside control batches.
	Control string
}

// RecordLimits bound record decoding.
type RecordLimits struct {
	// MaxDecompressedBytes bounds the decompressed records section of one
	// batch (or value of one legacy wrapper); 0 means
	// DefaultMaxDecompressedBytes.
	MaxDecompressedBytes int64
}

// DefaultMaxDecompressedBytes is 256 MiB (codec.DefaultLimit): 256 times
// Kafka's default max.message.bytes. Real record data compresses 2-20x, so a
// batch over this is a bomb or corrupt, and kidx's memory stays bounded.
const DefaultMaxDecompressedBytes = codec.DefaultLimit

func (lim RecordLimits) max() int64 {
	if lim.MaxDecompressedBytes <= 0 {
		return DefaultMaxDecompressedBytes
	}
	return lim.MaxDecompressedBytes
}

// Records calls fn for every record of batch b, whatever its kind, in order,
// until fn returns false: uncompressed and compressed v2 batches (the records
// section decompressed), a legacy uncompressed message (the message itself), a
// legacy compressed wrapper (its value decompressed and the inner messages
// walked: magic-0 inner offsets are absolute, magic-1 inner offsets relative,
// AbstractLegacyRecordBatch.DeepRecordsIterator), control batches (the control
// key and value decoded into Control). It checks no batch CRC (as deep
// iteration does not: CheckBatch does that). fn must not use l.
//
// Errors are *FormatError with the file and the byte position of the batch
// part that failed (inside a compressed payload: the position of the codec's
// failure when known, else of the payload, with the offset in the
// decompressed bytes in the message). Lengths and counts read from the file
// are never trusted for allocation.
func (l *LogFile) Records(b BatchInfo, lim RecordLimits, fn func(DecodedRecord) bool) error {
	data, err := l.batchBytes(b)
	if err != nil {
		return err
	}
	if b.IsLegacy() {
		return l.legacyRecords(b, data, lim, fn)
	}
	return l.v2Records(b, data, lim, fn)
}

// FirstOffset is the first offset batch b holds: for v2 the header's base
// offset (no I/O), for a legacy uncompressed message its offset, for a legacy
// compressed wrapper its first inner offset (AbstractLegacyRecordBatch
// .baseOffset: "iterator().next().offset()"). For a magic-0 wrapper (inner
// offsets absolute) and a magic-1 wrapper with offset 0 (absolute base 0),
// only the first 12 decompressed bytes are decoded; a magic-1 wrapper needs
// its last inner offset, so its whole value. The cheap path does not look past
// the first inner entry header, where Kafka's deep iterator parses every entry
// before returning the first.
func (l *LogFile) FirstOffset(b BatchInfo) (int64, error) {
	if !b.IsLegacy() {
		return b.Header.BaseOffset, nil
	}
	if b.Legacy.Attributes&7 == 0 {
		return b.Legacy.Offset, nil
	}
	if b.Magic == 0 || b.Legacy.Offset == 0 {
		data, err := l.batchBytes(b)
		if err != nil {
			return 0, err
		}
		outer, perr := parseLegacyMessage(data[LogOverhead:])
		if perr != "" {
			return 0, formatErr(l.Path, b.Position+LogOverhead, "legacy wrapper: %s", perr)
		}
		c, err := l.wrapperCodec(b, outer)
		if err != nil {
			return 0, err
		}
		p, err := codec.DecompressPrefix(c, outer.magic, outer.value, LogOverhead)
		if err != nil {
			return 0, l.codecErr(b.Position+LogOverhead+int64(outer.valuePos), err)
		}
		if len(p) < LogOverhead {
			return 0, formatErr(l.Path, b.Position+LogOverhead+int64(outer.valuePos), "Found invalid compressed record set with no inner records (%d decompressed bytes)", len(p))
		}
		if size := int32(binary.BigEndian.Uint32(p[8:])); size < legacyRecordOverhead {
			return 0, formatErr(l.Path, b.Position+LogOverhead+int64(outer.valuePos), "inner message at decompressed byte 8: Record size is less than the minimum record overhead (14): %d", size)
		}
		return int64(binary.BigEndian.Uint64(p)), nil
	}
	first, found := int64(0), false
	if err := l.Records(b, RecordLimits{}, func(r DecodedRecord) bool { first, found = r.Offset, true; return false }); err != nil {
		return 0, err
	}
	if !found {
		return 0, formatErr(l.Path, b.Position, "legacy wrapper holds no record")
	}
	return first, nil
}

// batchBytes reads batch b whole, refusing a BatchInfo that does not fit
// the file.
func (l *LogFile) batchBytes(b BatchInfo) ([]byte, error) {
	min := int64(RecordBatchOverhead)
	if b.IsLegacy() {
		min = LogOverhead + legacyRecordOverhead
	}
	if b.Position < 0 || b.Size < min || b.End() > l.size {
		return nil, formatErr(l.Path, b.Position, "batch of %d bytes at %d does not fit the file (size %d)", b.Size, b.Position, l.size)
	}
	data, err := l.ReadBatch(b)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != b.Size {
		return nil, formatErr(l.Path, b.Position, "read %d of the batch's %d bytes", len(data), b.Size)
	}
	return data, nil
}

// codecErr places a decompression error: pos is the file position of the
// compressed payload, moved to the codec's byte when it says where.
func (l *LogFile) codecErr(pos int64, err error) error {
	var ce *codec.Error
	if errors.As(err, &ce) && ce.Offset >= 0 {
		pos += ce.Offset
	}
	return formatErr(l.Path, pos, "decompressing: %v", err)
}

// v2Records decodes a v2 batch's records (DefaultRecordBatch.iterator,
// DefaultRecord.readFrom).
func (l *LogFile) v2Records(b BatchInfo, data []byte, lim RecordLimits, fn func(DecodedRecord) bool) error {
	h, err := ParseBatchHeader(data, l.Path, b.Position)
	if err != nil {
		return err
	}
	if h.RecordCount < 0 {
		// DefaultRecordBatch.count(): InvalidRecordException.
		return formatErr(l.Path, b.Position+57, "Found invalid record count %d in magic v%d batch", h.RecordCount, h.Magic)
	}
	if h.RecordCount == 0 {
		return nil // DefaultRecordBatch.iterator: an empty batch is not decompressed
	}
	c := codec.Codec(h.Attributes & 7)
	recPos := b.Position + RecordBatchOverhead
	payload := data[RecordBatchOverhead:]
	if c != codec.None {
		if !c.Known() {
			return formatErr(l.Path, b.Position+attributesOffset, "Unknown compression type id: %d", int8(c))
		}
		// DefaultRecordBatch.compressedIterator: wrapForInput(..., CURRENT_MAGIC_VALUE).
		if payload, err = codec.Decompress(c, h.Magic, payload, lim.max()); err != nil {
			return l.codecErr(recPos, err)
		}
	}
	tsType := h.TimestampType()
	var rerr error
	r := newBinReader(payload, l.Path, 0)
	for i := int32(0); i < h.RecordCount; i++ {
		start := r.off
		rec, perr := readV2Record(r, h, tsType)
		if perr == nil && h.IsControl() {
			if rec.Control, perr = controlText(rec.Key, rec.Value); perr != nil {
				perr = fmt.Errorf("control record: %w", perr)
			}
		}
		if perr != nil {
			rerr = l.v2Err(c, recPos, int64(start), len(payload), fmt.Sprintf("record %d of %d: %v", i, h.RecordCount, perr))
			break
		}
		if !fn(rec) {
			return nil
		}
	}
	if rerr != nil {
		return rerr
	}
	if r.remaining() != 0 {
		return l.v2Err(c, recPos, int64(r.off), len(payload), fmt.Sprintf("%d bytes after the last of %d records (Incorrect declared batch size)", r.remaining(), h.RecordCount))
	}
	return nil
}

// v2Skim reads the offsets and timestamps of a v2 batch's records as v2Records and
// readV2Record would (DefaultRecordBatch.iterator, DefaultRecord.readFrom), without building
// the records: each record is read with the same checks in the same order, and the skim stops
// at the first that would fail. It reads the batch's bytes only in newV2Skim and next (a
// mapped batch is read under guardFault there).
type v2Skim struct {
	h             BatchHeader
	logAppendTime bool
	r             binReader
	i             int32
}

// Results of v2Skim.next.
const (
	skimRecord  = iota // a record: its offset and timestamp
	skimEnd            // every record read, and nothing after them: the batch is done
	skimRefused        // Records must decide: it would fail here, or decode differently
)

// newV2Skim starts a skim of batch, the whole bytes of a v2 batch. Compressed and control
// batches, and a negative record count, are refused: Records decodes them.
func newV2Skim(batch []byte, file string) (v2Skim, bool) {
	if len(batch) < RecordBatchOverhead {
		return v2Skim{}, false
	}
	h := parseWholeBatchHeader(batch)
	if h.RecordCount < 0 || h.Attributes&7 != 0 || h.IsControl() {
		return v2Skim{}, false
	}
	return v2Skim{h: h, logAppendTime: h.TimestampType() == "LogAppendTime", r: binReader{src: batch[RecordBatchOverhead:], file: file}}, true
}

// next reads the next record.
func (s *v2Skim) next() (offset, ts int64, result int) {
	if s.i >= s.h.RecordCount {
		if s.h.RecordCount == 0 || s.r.remaining() == 0 {
			return 0, 0, skimEnd
		}
		return 0, 0, skimRefused
	}
	tsDelta, offDelta, ok := skimV2Record(&s.r)
	if !ok {
		return 0, 0, skimRefused
	}
	s.i++
	ts = s.h.BaseTimestamp + tsDelta
	if s.logAppendTime {
		ts = s.h.MaxTimestamp
	}
	return s.h.BaseOffset + int64(offDelta), ts, skimRecord
}

// skimV2Record reads one record from r as readV2Record does, keeping only its timestamp and
// offset deltas; ok is false wherever readV2Record returns an error.
func skimV2Record(r *binReader) (tsDelta int64, offDelta int32, ok bool) {
	n := r.Varint()
	if r.Err() != nil || n < 0 || int(n) > r.remaining() {
		return 0, 0, false
	}
	body := binReader{src: r.Span(int(n)), file: r.file}
	_ = body.Int8()
	tsDelta = body.Varlong()
	offDelta = body.Varint()
	if kl := body.Varint(); kl >= 0 {
		body.Span(int(kl))
	}
	if vl := body.Varint(); vl >= 0 {
		body.Span(int(vl))
	}
	hc := body.Varint()
	if body.Err() == nil && hc < 0 {
		return 0, 0, false
	}
	for j := int32(0); j < hc && body.Err() == nil; j++ {
		kl := body.Varint()
		if body.Err() == nil && kl < 0 {
			return 0, 0, false
		}
		body.Span(int(kl))
		if vl := body.Varint(); vl > 0 {
			body.Span(int(vl))
		}
	}
	return tsDelta, offDelta, body.Err() == nil && body.remaining() == 0
}

// v2Err places an error at byte at of the records section: a file position
// when the batch is uncompressed, else the section's position with the byte of
// the decompressed payload in the message.
func (l *LogFile) v2Err(c codec.Codec, recPos, at int64, n int, msg string) error {
	if c == codec.None {
		return formatErr(l.Path, recPos+at, "%s", msg)
	}
	return formatErr(l.Path, recPos, "%s records section, decompressed byte %d of %d: %s", c, at, n, msg)
}

// readV2Record reads one DefaultRecord from r (DefaultRecord.readFrom): a
// varint body length, then attributes, timestamp delta, offset delta, key,
// value, headers, which must use exactly the body's bytes.
func readV2Record(r *binReader, h BatchHeader, tsType string) (DecodedRecord, error) {
	n := r.Varint()
	if err := r.Err(); err != nil {
		return DecodedRecord{}, errors.New("record length: truncated or over-long varint")
	}
	if n < 0 || int(n) > r.remaining() {
		return DecodedRecord{}, fmt.Errorf("record length %d runs past the end (%d bytes left)", n, r.remaining())
	}
	body := newBinReader(r.Span(int(n)), r.file, 0)
	_ = body.Int8() // attributes: unused
	tsDelta := body.Varlong()
	offDelta := body.Varint()
	rec := DecodedRecord{Offset: h.BaseOffset + int64(offDelta), TimestampType: tsType, Sequence: -1}
	rec.Timestamp = h.BaseTimestamp + tsDelta
	if tsType == "LogAppendTime" {
		rec.Timestamp = h.MaxTimestamp // DefaultRecordBatch: logAppendTime = maxTimestamp()
	}
	if h.BaseSequence != -1 {
		rec.Sequence = incrementSequence(h.BaseSequence, offDelta)
	}
	// A negative key or value length is a null key or value (DefaultRecord.readFrom).
	if kl := body.Varint(); kl >= 0 {
		rec.Key = body.Span(int(kl))
	}
	if vl := body.Varint(); vl >= 0 {
		rec.Value = body.Span(int(vl))
	}
	hc := body.Varint()
	if body.Err() == nil && hc < 0 {
		return rec, kafkaErr("Found invalid number of record headers %d", hc)
	}
	// A header is at least 2 bytes (two varints): never preallocate beyond that.
	if hc > 0 && body.Err() == nil {
		rec.HeaderKeys = make([]string, 0, min(int(hc), body.remaining()/2))
	}
	for j := int32(0); j < hc && body.Err() == nil; j++ {
		kl := body.Varint()
		if body.Err() == nil && kl < 0 {
			return rec, kafkaErr("Invalid negative header key size %d", kl)
		}
		k := body.Span(int(kl))
		if vl := body.Varint(); vl > 0 {
			body.Span(int(vl))
		}
		rec.HeaderKeys = append(rec.HeaderKeys, string(k))
	}
	if err := body.Err(); err != nil {
		return rec, kafkaErr("Found invalid record structure (record body of %d bytes)", n)
	}
	if body.remaining() != 0 {
		return rec, kafkaErr("Invalid record size: expected to read %d bytes in record payload, but instead read %d", n, int(n)-body.remaining())
	}
	return rec, nil
}

// incrementSequence is DefaultRecordBatch.incrementSequence, int arithmetic
// included: past Integer.MAX_VALUE the sequence wraps to 0.
func incrementSequence(seq, inc int32) int32 {
	if seq > 2147483647-inc {
		return inc - (2147483647 - seq) - 1
	}
	return seq + inc
}

// legacyMessage is one LegacyRecord: crc, magic, attributes, [timestamp],
// key, value; valuePos is the value's position in the message (after its
// length field).
type legacyMessage struct {
	crc        uint32
	valid      bool
	magic      int8
	attributes int8
	timestamp  int64
	key, value []byte
	valuePos   int
}

// parseLegacyMessage splits a LegacyRecord (its size bytes, after offset and
// size) and computes isValid. It returns a reason instead of an error so that
// callers place it.
func parseLegacyMessage(m []byte) (legacyMessage, string) {
	var lm legacyMessage
	if len(m) < legacyRecordOverhead {
		return lm, fmt.Sprintf("message of %d bytes, less than the minimum record overhead (14)", len(m))
	}
	lm.crc = binary.BigEndian.Uint32(m)
	lm.magic, lm.attributes = int8(m[4]), int8(m[5])
	lm.valid = crc32.ChecksumIEEE(m[4:]) == lm.crc // LegacyRecord.isValid: CRC-32 of magic..end
	lm.timestamp = NoTimestamp
	p := 6 // KEY_SIZE_OFFSET_V0
	switch lm.magic {
	case 0:
	case 1:
		if len(m) < 6+8+8 {
			return lm, fmt.Sprintf("magic 1 message of %d bytes, less than RECORD_OVERHEAD_V1 (22)", len(m))
		}
		lm.timestamp = int64(binary.BigEndian.Uint64(m[6:]))
		p = 14 // KEY_SIZE_OFFSET_V1
	default:
		return lm, fmt.Sprintf("message magic %d is neither 0 nor 1", lm.magic)
	}
	// Utils.sizeDelimited: a negative size is null.
	kl := int32(binary.BigEndian.Uint32(m[p:]))
	p += 4
	if kl >= 0 {
		if int64(kl) > int64(len(m)-p-4) {
			return lm, fmt.Sprintf("key length %d runs past the message end (%d bytes)", kl, len(m))
		}
		lm.key = m[p : p+int(kl) : p+int(kl)]
		p += int(kl)
	}
	vl := int32(binary.BigEndian.Uint32(m[p:]))
	p += 4
	lm.valuePos = p
	if vl >= 0 {
		if int64(vl) > int64(len(m)-p) {
			return lm, fmt.Sprintf("value length %d runs past the message end (%d bytes)", vl, len(m))
		}
		lm.value = m[p : p+int(vl) : p+int(vl)]
	}
	return lm, ""
}

// LegacyTimestampType is LegacyRecord.timestampType of an outer message (no wrapper).
func LegacyTimestampType(magic, attributes int8) string {
	switch {
	case magic == 0:
		return "NoTimestampType"
	case attributes&0x08 != 0:
		return "LogAppendTime"
	}
	return "CreateTime"
}

// wrapperCodec is the codec of a compressed wrapper, refused as
// AbstractLegacyRecordBatch.DeepRecordsIterator refuses it.
func (l *LogFile) wrapperCodec(b BatchInfo, outer legacyMessage) (codec.Codec, error) {
	c := codec.Codec(outer.attributes & 7)
	at := b.Position + LogOverhead + 5
	switch {
	case c == codec.Zstd:
		return c, formatErr(l.Path, at, "Invalid wrapper compressionType found in legacy deep record iterator: zstd in a magic %d message", outer.magic)
	case !c.Known():
		return c, formatErr(l.Path, at, "Unknown compression type id: %d", int8(c))
	case outer.value == nil:
		return c, formatErr(l.Path, b.Position+LogOverhead+int64(outer.valuePos)-4, "Found invalid compressed record set with null value (magic = %d)", outer.magic)
	}
	return c, nil
}

// legacyRecords yields a legacy message, or the inner messages of a
// compressed wrapper (AbstractLegacyRecordBatch.iterator and its
// DeepRecordsIterator).
func (l *LogFile) legacyRecords(b BatchInfo, data []byte, lim RecordLimits, fn func(DecodedRecord) bool) error {
	msgPos := b.Position + LogOverhead
	outer, perr := parseLegacyMessage(data[LogOverhead:])
	if perr != "" {
		return formatErr(l.Path, msgPos, "legacy message: %s", perr)
	}
	tsType := LegacyTimestampType(outer.magic, outer.attributes)
	if outer.attributes&7 == 0 {
		fn(DecodedRecord{Offset: int64(binary.BigEndian.Uint64(data)), Timestamp: outer.timestamp, TimestampType: tsType,
			Key: outer.key, Value: outer.value, Sequence: -1, Legacy: true, LegacyValid: outer.valid, LegacyCRC: outer.crc})
		return nil
	}
	c, err := l.wrapperCodec(b, outer)
	if err != nil {
		return err
	}
	valPos := msgPos + int64(outer.valuePos)
	payload, err := codec.Decompress(c, outer.magic, outer.value, lim.max())
	if err != nil {
		return l.codecErr(valPos, err)
	}
	innerErr := func(at int, format string, args ...any) error {
		return formatErr(l.Path, valPos, "%s wrapper value, decompressed byte %d of %d: %s", c, at, len(payload), fmt.Sprintf(format, args...))
	}
	// Pass 1, DeepRecordsIterator's constructor over DataLogInputStream: each
	// entry is offset(8) size(4) message; a size under 14 is corrupt; fewer
	// than 12 bytes, or fewer than size, end the entries quietly.
	entries, lastInner := 0, int64(0)
	for p := 0; len(payload)-p >= LogOverhead; {
		size := int32(binary.BigEndian.Uint32(payload[p+8:]))
		if size < legacyRecordOverhead {
			return innerErr(p+8, "Record size is less than the minimum record overhead (14): %d", size)
		}
		if int64(size) > int64(len(payload)-p-LogOverhead) {
			break
		}
		entries++
		lastInner = int64(binary.BigEndian.Uint64(payload[p:]))
		p += LogOverhead + int(size)
	}
	if entries == 0 {
		return innerErr(0, "Found invalid compressed record set with no inner records")
	}
	wrapperOffset := int64(binary.BigEndian.Uint64(data))
	absBase := int64(0)
	if outer.magic == 1 && wrapperOffset != 0 {
		// Magic-1 inner offsets are relative; the wrapper's offset is the
		// last inner offset's absolute value. (Offset 0: "produce data from
		// certain versions of librdkafka", absolute base 0.)
		if wrapperOffset < lastInner {
			return innerErr(0, "Found invalid wrapper offset in compressed v1 message set, wrapper offset '%d' is less than the last inner message offset '%d' and it is not zero.", wrapperOffset, lastInner)
		}
		absBase = wrapperOffset - lastInner
	}
	// Pass 2: the records (makeNext).
	for i, p := 0, 0; i < entries; i++ {
		size := int(binary.BigEndian.Uint32(payload[p+8:]))
		off := int64(binary.BigEndian.Uint64(payload[p:]))
		inner, perr := parseLegacyMessage(payload[p+LogOverhead : p+LogOverhead+size])
		if perr != "" {
			return innerErr(p+LogOverhead, "inner message %d: %s", i, perr)
		}
		if inner.attributes&7 != 0 {
			return innerErr(p+LogOverhead+5, "Inner messages must not be compressed (inner message %d, %s)", i, codec.Codec(inner.attributes&7))
		}
		if outer.magic == 1 {
			off += absBase
		}
		ts := inner.timestamp // magic 0: NO_TIMESTAMP
		if inner.magic == 1 && tsType == "LogAppendTime" {
			ts = outer.timestamp // LegacyRecord.timestamp with the wrapper's LOG_APPEND_TIME
		}
		if !fn(DecodedRecord{Offset: off, Timestamp: ts, TimestampType: tsType, Key: inner.key, Value: inner.value, Sequence: -1,
			Legacy: true, LegacyValid: inner.valid, LegacyCRC: inner.crc}) {
			return nil
		}
		p += LogOverhead + size
	}
	return nil
}

// Control record types (ControlRecordType.fromTypeId).
var controlTypeNames = map[int16]string{0: "ABORT", 1: "COMMIT", 2: "LEADER_CHANGE", 3: "SNAPSHOT_HEADER", 4: "SNAPSHOT_FOOTER", 5: "KRAFT_VERSION", 6: "KRAFT_VOTERS"}

// controlText is what DumpLogSegments.dumpLog prints for a control record:
// the key is ControlRecordTypeSchema (int16 version >= 0, int16 type,
// ControlRecordType.parseTypeId); COMMIT/ABORT values are EndTxnMarker
// (int16 version >= 0, int32 coordinatorEpoch); SNAPSHOT_HEADER, SNAPSHOT_FOOTER,
// KRAFT_VERSION and KRAFT_VOTERS values are the flexible messages
// SnapshotHeaderRecord, SnapshotFooterRecord, KRaftVersionRecord and VotersRecord
// (read at version 0, as ControlRecordUtils does), printed as their generated
// JsonConverter writes them (kidx's rendering of Jackson's compact JSON, field
// names from the message schemas); any other type is "controlType: NAME(id)".
func controlText(key, value []byte) (string, error) {
	if key == nil {
		return "", errors.New("control record with a null key")
	}
	if len(key) < 4 {
		return "", kafkaErr("Invalid value size found for control record key. Must have at least 4 bytes, but found only %d", len(key))
	}
	if v := int16(binary.BigEndian.Uint16(key)); v < 0 {
		return "", kafkaErr("Invalid version found for control record: %d. May indicate data corruption", v)
	}
	typ := int16(binary.BigEndian.Uint16(key[2:]))
	name, ok := controlTypeNames[typ]
	if !ok {
		name = "UNKNOWN"
	}
	m := &msgReader{b: value}
	var j strings.Builder
	switch typ {
	case 0, 1:
		if value == nil {
			return "", errors.New("end transaction marker with a null value")
		}
		if len(value) < 6 {
			return "", kafkaErr("Invalid value size found for end transaction marker. Must have at least 6 bytes, but found only %d", len(value))
		}
		if v := int16(binary.BigEndian.Uint16(value)); v < 0 {
			return "", kafkaErr("Invalid version found for end transaction marker: %d. May indicate data corruption", v)
		}
		return fmt.Sprintf("endTxnMarker: %s coordinatorEpoch: %d", name, int32(binary.BigEndian.Uint32(value[2:]))), nil
	case 3:
		fmt.Fprintf(&j, `{"version":%d,"lastContainedLogTimestamp":%d}`, m.int16(), m.int64())
		m.tags()
		name = "SnapshotHeader"
	case 4:
		fmt.Fprintf(&j, `{"version":%d}`, m.int16())
		m.tags()
		name = "SnapshotFooter"
	case 5:
		fmt.Fprintf(&j, `{"version":%d,"kRaftVersion":%d}`, m.int16(), m.int16())
		m.tags()
		name = "KRaftVersion"
	case 6:
		fmt.Fprintf(&j, `{"version":%d,"voters":[`, m.int16())
		n := m.arrayLen("voters")
		for i := 0; i < n && m.err == nil; i++ {
			if i > 0 {
				j.WriteByte(',')
			}
			fmt.Fprintf(&j, `{"voterId":%d,"voterDirectoryId":"%s","endpoints":[`, m.int32(), m.uuid())
			ne := m.arrayLen("endpoints")
			for k := 0; k < ne && m.err == nil; k++ {
				if k > 0 {
					j.WriteByte(',')
				}
				fmt.Fprintf(&j, `{"name":%s,"host":%s,"port":%d}`, jsonString(m.str("name")), jsonString(m.str("host")), m.uint16())
				m.tags()
			}
			fmt.Fprintf(&j, `],"kRaftVersionFeature":{"minSupportedVersion":%d,"maxSupportedVersion":%d}}`, m.int16(), m.int16())
			m.tags() // KRaftVersionFeature's
			m.tags() // Voter's
		}
		j.WriteString("]}")
		m.tags()
		name = "KRaftVoters"
	default:
		return fmt.Sprintf("controlType: %s(%d)", name, typ), nil
	}
	if m.err != nil {
		return "", fmt.Errorf("%s value of %d bytes: %v", name, len(value), m.err)
	}
	return name + " " + j.String(), nil
}

// msgReader reads Kafka's generated-message encoding for flexible versions
// (compact strings and arrays: unsigned varint length+1; tagged fields: a
// count, then tag, size, bytes). The first failure sticks.
type msgReader struct {
	b   []byte
	err error
}

func (m *msgReader) take(n int) []byte {
	if m.err != nil {
		return nil
	}
	if n < 0 || n > len(m.b) {
		m.err = fmt.Errorf("need %d bytes, %d left", n, len(m.b))
		return nil
	}
	v := m.b[:n]
	m.b = m.b[n:]
	return v
}

func (m *msgReader) int16() int16 {
	if v := m.take(2); v != nil {
		return int16(binary.BigEndian.Uint16(v))
	}
	return 0
}

func (m *msgReader) uint16() uint16 { return uint16(m.int16()) }

func (m *msgReader) int32() int32 {
	if v := m.take(4); v != nil {
		return int32(binary.BigEndian.Uint32(v))
	}
	return 0
}

func (m *msgReader) int64() int64 {
	if v := m.take(8); v != nil {
		return int64(binary.BigEndian.Uint64(v))
	}
	return 0
}

func (m *msgReader) uvarint() uint64 {
	if m.err != nil {
		return 0
	}
	v, n := binary.Uvarint(m.b)
	if n <= 0 || v > 1<<31 {
		m.err = errors.New("invalid unsigned varint")
		return 0
	}
	m.b = m.b[n:]
	return v
}

// uuid is Uuid.toString: URL-safe base64 of the 16 bytes, no padding.
func (m *msgReader) uuid() string {
	if v := m.take(16); v != nil {
		return base64.RawURLEncoding.EncodeToString(v)
	}
	return ""
}

// str reads a non-nullable compact string.
func (m *msgReader) str(field string) string {
	n := m.uvarint()
	if m.err == nil && n == 0 {
		m.err = fmt.Errorf("non-nullable field %s was serialized as null", field)
	}
	return string(m.take(int(n) - 1))
}

// arrayLen reads a non-nullable compact array's length; the elements are at
// least a byte each, so a length past the bytes left is an error, not an
// allocation.
func (m *msgReader) arrayLen(field string) int {
	n := m.uvarint()
	if m.err == nil && n == 0 {
		m.err = fmt.Errorf("non-nullable field %s was serialized as null", field)
	}
	if m.err == nil && int(n-1) > len(m.b) {
		m.err = fmt.Errorf("%s: %d elements in %d bytes", field, n-1, len(m.b))
	}
	return int(n) - 1
}

// tags skips a tagged-field section (unknown tags are kept raw by Kafka and
// not printed by the JSON converters).
func (m *msgReader) tags() {
	n := m.uvarint()
	for i := uint64(0); i < n && m.err == nil; i++ {
		m.uvarint()
		m.take(int(m.uvarint()))
	}
}

// jsonString quotes s as Jackson's TextNode does: '"' and '\\' escaped, control
// characters as \n, \t, \r, \b, \f or \u00XX, everything else (non-ASCII
// included) as is; invalid UTF-8 becomes U+FFFD (Java decoded it so).
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
