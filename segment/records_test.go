package segment_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"kidx/codec"
	"kidx/internal/segmenttest"
	"kidx/segment"
)

// ---- real Kafka files (read in place from /work/shared/realdata) ----

func allRecords(t testing.TB, lf *segment.LogFile, b segment.BatchInfo) []segment.DecodedRecord {
	t.Helper()
	var out []segment.DecodedRecord
	err := lf.Records(b, segment.RecordLimits{}, func(r segment.DecodedRecord) bool {
		r.Key, r.Value = bytes.Clone(r.Key), bytes.Clone(r.Value)
		out = append(out, r)
		return true
	})
	if err != nil {
		t.Fatalf("%v: %v", b, err)
	}
	return out
}

// Kafka 0.8 wrote the same 5382 v0 messages of Hamlet uncompressed (hamlet-none-0), in 22
// gzip wrappers and in 22 snappy wrappers (kafkalite fixtures). The deep iteration of a
// magic-0 wrapper yields its inner messages with their stored, absolute offsets
// (AbstractLegacyRecordBatch.DeepRecordsIterator: absoluteBaseOffset -1 for magic 0), so
// every inner record must be the uncompressed log's message at the same offset: same value,
// same stored CRC (the messages are byte-identical), valid, no key, NoTimestampType and -1
// (LegacyRecord.timestamp for magic 0). The wrapper's offset field is its last inner offset
// (docs/kafka.md §1.4), so FirstOffset of a wrapper is the previous wrapper's offset + 1.
func TestRecordsRealKafka08WrappersMatchTheUncompressedLog(t *testing.T) {
	none, err := segment.OpenLog(segmenttest.RealdataPath(t, "kafkalite/hamlet-none-0/00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer none.Close()
	var want []segment.DecodedRecord
	for _, b := range segmenttest.WalkAll(t, none) {
		recs := allRecords(t, none, b)
		if len(recs) != 1 || recs[0].Offset != b.Legacy.Offset || recs[0].LegacyCRC != b.Legacy.CRC {
			t.Fatalf("uncompressed message %v: %+v", b, recs)
		}
		if first, err := none.FirstOffset(b); err != nil || first != b.Legacy.Offset {
			t.Fatalf("FirstOffset of an uncompressed message: %d %v", first, err)
		}
		want = append(want, recs[0])
	}
	if len(want) != 5382 {
		t.Fatalf("hamlet-none-0 has %d messages, the fixture 5382", len(want))
	}
	for _, dir := range []string{"hamlet-gzip-0", "hamlet-snappy-0"} {
		lf, err := segment.OpenLog(segmenttest.RealdataPath(t, "kafkalite/"+dir+"/00000000000000000000.log"))
		if err != nil {
			t.Fatal(err)
		}
		var got []segment.DecodedRecord
		prev := int64(-1)
		for _, b := range segmenttest.WalkAll(t, lf) {
			first, err := lf.FirstOffset(b)
			if err != nil || first != prev+1 {
				t.Fatalf("%s %v: FirstOffset %d %v, want %d", dir, b, first, err, prev+1)
			}
			prev = b.Legacy.Offset
			got = append(got, allRecords(t, lf, b)...)
		}
		lf.Close()
		if len(got) != len(want) {
			t.Fatalf("%s: %d inner records, want %d", dir, len(got), len(want))
		}
		for i, r := range got {
			w := want[i]
			if r.Offset != int64(i) || r.Offset != w.Offset || !bytes.Equal(r.Value, w.Value) || r.Key != nil || r.LegacyCRC != w.LegacyCRC ||
				!r.LegacyValid || !r.Legacy || r.Timestamp != -1 || r.TimestampType != "NoTimestampType" || r.Sequence != -1 {
				t.Fatalf("%s record %d: %+v, the uncompressed log has %+v", dir, i, r, w)
			}
		}
	}
}

// KRaft control records written by Kafka >= 3.7 (ronem's __cluster_metadata snapshot, a
// .checkpoint file in the .log format). The expected texts are read by hand from the file's
// bytes (xxd), per DumpLogSegments.dumpLog's control branch and the message schemas:
//
//	record 0, key 0000 0003 (version 0, SNAPSHOT_HEADER), value 0000 0000019b4aa9cb5d 00:
//	  Version 0, LastContainedLogTimestamp 0x19b4aa9cb5d = 1766484200285, no tagged fields
//	record 1, key 0000 0005 (KRAFT_VERSION), value 0000 0001 00: Version 0, KRaftVersion 1
//	record 2, key 0000 0006 (KRAFT_VOTERS), value 0000 02 00000001 c98b8cac54554154 97d155503dc312ac
//	  02 0b "CONTROLLER" 0a "localhost" 2385 00 0000 0001 00 00 00: Version 0, 1 voter (compact
//	  array length 2), id 1, directory id (16 bytes, Uuid.toString = URL-safe base64
//	  "yYuMrFRVQVSX0VVQPcMSrA"), 1 endpoint CONTROLLER localhost:9093 (0x2385), feature 0..1
//	record 67, key 0000 0004 (SNAPSHOT_FOOTER), value 0000 00: Version 0
//
// and ldi-poc's __cluster_metadata-0 offset 0, key 0000 0002: LEADER_CHANGE, which
// DumpLogSegments prints as "controlType: LEADER_CHANGE(2)".
func TestRecordsRealKRaftControlRecords(t *testing.T) {
	lf, err := segment.OpenLog(segmenttest.RealdataPath(t, "ronem/__cluster_metadata-0/00000000000000852953-0000000001.checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	bs := segmenttest.WalkAll(t, lf)
	want := map[int64]string{
		0:  `SnapshotHeader {"version":0,"lastContainedLogTimestamp":1766484200285}`,
		1:  `KRaftVersion {"version":0,"kRaftVersion":1}`,
		2:  `KRaftVoters {"version":0,"voters":[{"voterId":1,"voterDirectoryId":"yYuMrFRVQVSX0VVQPcMSrA","endpoints":[{"name":"CONTROLLER","host":"localhost","port":9093}],"kRaftVersionFeature":{"minSupportedVersion":0,"maxSupportedVersion":1}}]}`,
		67: `SnapshotFooter {"version":0}`,
	}
	got := map[int64]string{}
	for _, b := range bs {
		for _, r := range allRecords(t, lf, b) {
			if b.Header.IsControl() != (r.Control != "") {
				t.Fatalf("offset %d: control %q in a batch with isControl %v", r.Offset, r.Control, b.Header.IsControl())
			}
			if r.Control != "" {
				got[r.Offset] = r.Control
			}
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("control records:\n%v\nwant\n%v", got, want)
	}

	lc, err := segment.OpenLog(segmenttest.RealdataPath(t, "ldi-poc/__cluster_metadata-0/00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	first := segmenttest.WalkAll(t, lc)[0]
	if recs := allRecords(t, lc, first); len(recs) != 1 || recs[0].Control != "controlType: LEADER_CHANGE(2)" {
		t.Fatalf("ldi-poc offset 0: %+v", recs)
	}
}

// ---- batches built here, byte by byte, per the formats (docs/kafka.md §1.3, §1.4) ----

// A v2 batch decodes the same whatever its codec (DefaultRecordBatch: compressed batches
// iterate the decompressed records section): offset base+delta, timestamp base+delta
// (CreateTime), sequence baseSequence+delta, keys, values, header keys.
func TestRecordsV2EveryCodec(t *testing.T) {
	section := segmenttest.V2Records(segmenttest.SampleRecs)
	for _, c := range []codec.Codec{codec.None, codec.Gzip, codec.Snappy, codec.LZ4, codec.Zstd} {
		payload := section
		if c != codec.None {
			payload = segmenttest.Franz(t, c, section)
		}
		lf, bs := segmenttest.OpenBytes(t, segmenttest.V2Batch(segmenttest.V2Hdr{Base: 100, Attrs: int16(c), LastDelta: 2, BaseTs: 1000, MaxTs: 1009, BaseSeq: 7, Count: 3}, payload))
		recs := allRecords(t, lf, bs[0])
		want := []string{
			"100 1000 CreateTime k0 v0 7 []",
			"101 1005 CreateTime <nil> value one 8 [a b]",
			"102 1009 CreateTime k2 <nil> 9 [trace]",
		}
		for i, r := range recs {
			k, v := "<nil>", "<nil>"
			if r.Key != nil {
				k = string(r.Key)
			}
			if r.Value != nil {
				v = string(r.Value)
			}
			if got := fmt.Sprintf("%d %d %s %s %s %d %v", r.Offset, r.Timestamp, r.TimestampType, k, v, r.Sequence, r.HeaderKeys); got != want[i] || r.Legacy || r.Control != "" {
				t.Fatalf("%s record %d: %q, want %q", c, i, got, want[i])
			}
		}
		if len(recs) != 3 {
			t.Fatalf("%s: %d records", c, len(recs))
		}
		var ts []int64
		if err := lf.RecordTimestamps(bs[0], func(_, t int64) bool { ts = append(ts, t); return true }); err != nil || fmt.Sprint(ts) != "[1000 1005 1009]" {
			t.Fatalf("%s RecordTimestamps: %v %v", c, ts, err)
		}
		if first, err := lf.FirstOffset(bs[0]); err != nil || first != 100 {
			t.Fatalf("%s FirstOffset %d %v", c, first, err)
		}
	}
}

// LogAppendTime (attribute bit 3): every record reports the batch's max timestamp
// (DefaultRecordBatch: logAppendTime = maxTimestamp()). Sequences wrap past
// Integer.MAX_VALUE to 0 (DefaultRecordBatch.incrementSequence). An empty batch is not
// decompressed (DefaultRecordBatch.iterator: count() == 0), even when its payload is junk.
func TestRecordsV2LogAppendTimeSequenceWrapEmpty(t *testing.T) {
	section := segmenttest.V2Records(segmenttest.SampleRecs)
	lf, bs := segmenttest.OpenBytes(t,
		segmenttest.V2Batch(segmenttest.V2Hdr{Base: 0, Attrs: 0x08 | int16(codec.Gzip), LastDelta: 2, BaseTs: 1000, MaxTs: 5555, BaseSeq: 2147483646, Count: 3}, segmenttest.Franz(t, codec.Gzip, section)),
		segmenttest.V2Batch(segmenttest.V2Hdr{Base: 3, Attrs: int16(codec.Zstd), Count: 0, BaseSeq: -1}, []byte("not zstd at all")))
	recs := allRecords(t, lf, bs[0])
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%s:%d seq %d", r.TimestampType, r.Timestamp, r.Sequence))
	}
	if want := "[LogAppendTime:5555 seq 2147483646 LogAppendTime:5555 seq 2147483647 LogAppendTime:5555 seq 0]"; fmt.Sprint(got) != want {
		t.Fatalf("%v, want %s", got, want)
	}
	if recs := allRecords(t, lf, bs[1]); len(recs) != 0 {
		t.Fatalf("empty batch: %v", recs)
	}
}

// Magic-1 wrappers (AbstractLegacyRecordBatch.DeepRecordsIterator): inner offsets are
// relative, absolute = wrapper offset - last inner offset + inner offset (a wrapper offset 0,
// "produce data from certain versions of librdkafka", means base 0); with LogAppendTime the
// inner records take the wrapper's timestamp, with CreateTime their own
// (LegacyRecord.timestamp); a wrapper offset below the last inner offset is an error.
func TestRecordsLegacyMagic1Wrappers(t *testing.T) {
	inner := bytes.Join([][]byte{
		segmenttest.LegacyMsg(0, 1, 0, 111, nil, []byte("a")),
		segmenttest.LegacyMsg(1, 1, 0, 222, []byte("k"), []byte("bb")),
		segmenttest.LegacyMsg(2, 1, 0, 333, nil, nil),
	}, nil)
	for _, c := range []codec.Codec{codec.Gzip, codec.Snappy, codec.LZ4} {
		value := segmenttest.Franz(t, c, inner)
		lf, bs := segmenttest.OpenBytes(t,
			segmenttest.LegacyMsg(102, 1, byte(c), 999, nil, value),      // CreateTime
			segmenttest.LegacyMsg(105, 1, byte(c)|0x08, 999, nil, value), // LogAppendTime
			segmenttest.LegacyMsg(0, 1, byte(c), 999, nil, value),        // librdkafka: base 0
		)
		for i, want := range []string{
			"[100:CreateTime:111 101:CreateTime:222 102:CreateTime:333]",
			"[103:LogAppendTime:999 104:LogAppendTime:999 105:LogAppendTime:999]",
			"[0:CreateTime:111 1:CreateTime:222 2:CreateTime:333]",
		} {
			var got []string
			for _, r := range allRecords(t, lf, bs[i]) {
				if !r.Legacy || !r.LegacyValid || r.Sequence != -1 {
					t.Fatalf("%s wrapper %d: %+v", c, i, r)
				}
				got = append(got, fmt.Sprintf("%d:%s:%d", r.Offset, r.TimestampType, r.Timestamp))
			}
			if fmt.Sprint(got) != want {
				t.Fatalf("%s wrapper %d: %v, want %s", c, i, got, want)
			}
			wantFirst := []int64{100, 103, 0}[i]
			if first, err := lf.FirstOffset(bs[i]); err != nil || first != wantFirst {
				t.Fatalf("%s wrapper %d FirstOffset %d %v, want %d", c, i, first, err, wantFirst)
			}
		}
		lf2, bs2 := segmenttest.OpenBytes(t, segmenttest.LegacyMsg(1, 1, byte(c), 999, nil, value))
		err := lf2.Records(bs2[0], segment.RecordLimits{}, func(segment.DecodedRecord) bool { return true })
		if err == nil || !strings.Contains(err.Error(), "wrapper offset '1' is less than the last inner message offset '2'") {
			t.Fatalf("%s: %v", c, err)
		}
	}
}

// KAFKA-3160: a magic-0 lz4 wrapper framed as Kafka 0.8/0.9 framed it, header checksum over
// the magic number included, is read (Lz4Compression.wrapForInput ignores the checksum for
// magic 0). The frame is built here: magic 04 22 4d 18, FLG 0x60, BD 0x40, the broken
// checksum byte XXH32(04 22 4d 18 60 40) >> 8 = 0x1a, one stored block, the end mark. The
// XXH32 values come from the reference lz4 CLI (v1.9.4, "lz4 -BX -B4 --no-frame-crc" of
// those bytes: block checksum 0xc8581a3a; of 60 40 alone: 0x301a8268, so the right
// checksum byte would be 0x82).
func TestRecordsLegacyMagic0LZ4KAFKA3160(t *testing.T) {
	inner := bytes.Join([][]byte{segmenttest.LegacyMsg(40, 0, 0, 0, nil, []byte("x")), segmenttest.LegacyMsg(41, 0, 0, 0, nil, []byte("y"))}, nil)
	frame := []byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x1a}
	frame = binary.LittleEndian.AppendUint32(frame, uint32(len(inner))|0x80000000)
	frame = append(append(frame, inner...), 0, 0, 0, 0)
	lf, bs := segmenttest.OpenBytes(t, segmenttest.LegacyMsg(41, 0, byte(codec.LZ4), 0, nil, frame))
	recs := allRecords(t, lf, bs[0])
	if len(recs) != 2 || recs[0].Offset != 40 || string(recs[1].Value) != "y" || recs[0].TimestampType != "NoTimestampType" || recs[0].Timestamp != -1 {
		t.Fatalf("%+v", recs)
	}
	if first, err := lf.FirstOffset(bs[0]); err != nil || first != 40 {
		t.Fatalf("FirstOffset %d %v", first, err)
	}
	// The same frame in a magic-1 wrapper must have the right checksum.
	lf1, bs1 := segmenttest.OpenBytes(t, segmenttest.LegacyMsg(1, 1, byte(codec.LZ4), 0, nil, frame))
	if err := lf1.Records(bs1[0], segment.RecordLimits{}, func(segment.DecodedRecord) bool { return true }); err == nil || !strings.Contains(err.Error(), "Stream frame descriptor corrupted") {
		t.Fatalf("magic 1: %v", err)
	}
}

// DeepRecordsIterator's refusals: zstd in a legacy wrapper; a null wrapper value; no inner
// records; an inner size under 14 (DataLogInputStream); a compressed inner message ("Inner
// messages must not be compressed", raised at that record, after the ones before it). A
// truncated last inner entry ends the entries quietly (DataLogInputStream returns null).
func TestRecordsLegacyWrapperRefusals(t *testing.T) {
	ok := segmenttest.LegacyMsg(0, 0, 0, 0, nil, []byte("ok"))
	inner2 := segmenttest.LegacyMsg(1, 0, byte(codec.Gzip), 0, nil, []byte("zz"))
	tiny := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, 0), 13)
	for _, c := range []struct {
		name  string
		entry []byte
		want  string
		recs  int
	}{
		{"zstd", segmenttest.LegacyMsg(0, 1, byte(codec.Zstd), 0, nil, segmenttest.Franz(t, codec.Zstd, ok)), "Invalid wrapper compressionType", 0},
		{"null value", segmenttest.LegacyMsg(0, 0, byte(codec.Gzip), 0, nil, nil), "null value (magic = 0)", 0},
		{"no inner", segmenttest.LegacyMsg(0, 0, byte(codec.Gzip), 0, nil, segmenttest.Franz(t, codec.Gzip, []byte("0123456789a"))), "no inner records", 0},
		{"size 13", segmenttest.LegacyMsg(0, 0, byte(codec.Gzip), 0, nil, segmenttest.Franz(t, codec.Gzip, append(tiny, make([]byte, 13)...))), "minimum record overhead (14): 13", 0},
		{"inner compressed", segmenttest.LegacyMsg(1, 0, byte(codec.Gzip), 0, nil, segmenttest.Franz(t, codec.Gzip, append(bytes.Clone(ok), inner2...))), "Inner messages must not be compressed", 1},
		{"unknown codec", segmenttest.LegacyMsg(0, 0, 6, 0, nil, []byte("x")), "Unknown compression type id: 6", 0},
		{"truncated tail", segmenttest.LegacyMsg(0, 0, byte(codec.Gzip), 0, nil, segmenttest.Franz(t, codec.Gzip, append(bytes.Clone(ok), inner2[:20]...))), "", 1},
	} {
		lf, bs := segmenttest.OpenBytes(t, c.entry)
		n := 0
		err := lf.Records(bs[0], segment.RecordLimits{}, func(segment.DecodedRecord) bool { n++; return true })
		var fe *segment.FormatError
		if c.want == "" && err != nil || c.want != "" && (!errors.As(err, &fe) || !strings.Contains(err.Error(), c.want)) || n != c.recs {
			t.Fatalf("%s: %d records, %v; want %d records and %q", c.name, n, err, c.recs, c.want)
		}
	}
}

// Control batches (attribute bit 5): COMMIT (type 1) and ABORT (type 0) markers print
// "endTxnMarker: TYPE coordinatorEpoch: N" (EndTransactionMarker: value int16 version,
// int32 coordinatorEpoch), a type Kafka does not know "controlType: UNKNOWN(9)"; a key under
// 4 bytes or a marker value under 6 is an error (ControlRecordType.parseTypeId,
// EndTransactionMarker.deserializeValue).
func TestRecordsControlMarkers(t *testing.T) {
	key := func(typ uint16) []byte { return binary.BigEndian.AppendUint16([]byte{0, 0}, typ) }
	marker := []byte{0, 0, 0, 0, 0, 5}
	section := segmenttest.V2Records([]segmenttest.Rec{{Key: key(1), Value: marker}, {OffDelta: 1, Key: key(0), Value: []byte{0, 0, 0, 0, 1, 0}}, {OffDelta: 2, Key: key(9)}})
	lf, bs := segmenttest.OpenBytes(t, segmenttest.V2Batch(segmenttest.V2Hdr{Base: 7, Attrs: 0x30, LastDelta: 2, BaseTs: 1, MaxTs: 1, BaseSeq: -1, Count: 3, ProducerID: 9}, section))
	var got []string
	for _, r := range allRecords(t, lf, bs[0]) {
		got = append(got, r.Control)
	}
	if want := "[endTxnMarker: COMMIT coordinatorEpoch: 5 endTxnMarker: ABORT coordinatorEpoch: 256 controlType: UNKNOWN(9)]"; fmt.Sprint(got) != want {
		t.Fatalf("%v, want %s", got, want)
	}
	for _, bad := range [][]segmenttest.Rec{{{Key: []byte{0, 0, 1}, Value: marker}}, {{Key: key(1), Value: marker[:5]}}, {{Value: marker}}} {
		lf, bs := segmenttest.OpenBytes(t, segmenttest.V2Batch(segmenttest.V2Hdr{Attrs: 0x20, BaseSeq: -1, Count: 1}, segmenttest.V2Records(bad)))
		if err := lf.Records(bs[0], segment.RecordLimits{}, func(segment.DecodedRecord) bool { return true }); err == nil || !strings.Contains(err.Error(), "control record") {
			t.Fatalf("%v: %v", bad, err)
		}
	}
}

// A decompression bomb (64 MiB of zero bytes as a gzip records section, about 65 KB) is a
// *FormatError naming the file and the records section's byte (61 after the batch start),
// saying "decompression bomb?", with memory near the limit.
func TestRecordsBombIsAFormatErrorWithBoundedMemory(t *testing.T) {
	bomb := segmenttest.Franz(t, codec.Gzip, make([]byte, 64<<20))
	lf2, bs2 := segmenttest.OpenBytes(t, segmenttest.V2Batch(segmenttest.V2Hdr{Attrs: int16(codec.Gzip), BaseSeq: -1, Count: 1000}, bomb))
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	err := lf2.Records(bs2[0], segment.RecordLimits{MaxDecompressedBytes: 1 << 20}, func(segment.DecodedRecord) bool { return true })
	runtime.ReadMemStats(&m1)
	var fe *segment.FormatError
	if !errors.As(err, &fe) || fe.Pos != 61 || fe.File != lf2.Path || !strings.Contains(err.Error(), "decompression bomb?") {
		t.Fatalf("%v", err)
	}
	if got := m1.TotalAlloc - m0.TotalAlloc; got > 8<<20+uint64(len(bomb)) {
		t.Fatalf("allocated %d bytes", got)
	}
}

// A corrupt compressed payload is a *FormatError at the file byte where the codec failed:
// here lz4's header checksum byte, 61 + 6 into the batch.
func TestRecordsCorruptPayloadPointsAtTheByte(t *testing.T) {
	payload := segmenttest.Franz(t, codec.LZ4, segmenttest.V2Records(segmenttest.SampleRecs))
	payload[6] ^= 0xff
	lf, bs := segmenttest.OpenBytes(t, segmenttest.V2Records(nil), segmenttest.V2Batch(segmenttest.V2Hdr{Attrs: int16(codec.LZ4), BaseSeq: -1, Count: 3}, payload))
	err := lf.Records(bs[0], segment.RecordLimits{}, func(segment.DecodedRecord) bool { return true })
	var fe *segment.FormatError
	if !errors.As(err, &fe) || fe.Pos != 61+6 || !strings.Contains(fe.Msg, "Stream frame descriptor corrupted") {
		t.Fatalf("%v", err)
	}
}

// Hostile counts and lengths never size an allocation: a record count of 2^31-1 over three
// records, a header count of 2^31-1, a key length of 2^31-1.
func TestRecordsHostileCountsAreErrors(t *testing.T) {
	hugeHeaders := []byte{0, 0, 0, 1, 'k', 1, 'v', 0xfe, 0xff, 0xff, 0xff, 0x0f}
	hugeKey := []byte{0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0x0f}
	for _, section := range [][]byte{
		segmenttest.V2Records(segmenttest.SampleRecs),
		append(binary.AppendVarint(nil, int64(len(hugeHeaders))), hugeHeaders...),
		append(binary.AppendVarint(nil, int64(len(hugeKey))), hugeKey...),
	} {
		for _, c := range []codec.Codec{codec.None, codec.Snappy} {
			payload := section
			if c != codec.None {
				payload = segmenttest.Franz(t, c, section)
			}
			lf, bs := segmenttest.OpenBytes(t, segmenttest.V2Batch(segmenttest.V2Hdr{Attrs: int16(c), BaseSeq: -1, Count: 2147483647}, payload))
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			err := lf.Records(bs[0], segment.RecordLimits{}, func(segment.DecodedRecord) bool { return true })
			runtime.ReadMemStats(&m1)
			var fe *segment.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%s: %v", c, err)
			}
			if got := m1.TotalAlloc - m0.TotalAlloc; got > 1<<20 {
				t.Fatalf("%s: allocated %d bytes", c, got)
			}
		}
	}
}

// CheckBatch: a legacy message's CRC field is at position + 12 (offset 8, size 4, then the
// CRC, LegacyRecord.CRC_OFFSET 0); a v2 batch's at position + 17.
func TestCheckBatchCRCPositions(t *testing.T) {
	bad := segmenttest.LegacyMsg(5, 1, 0, 1, nil, []byte("v"))
	bad[len(bad)-1] ^= 1
	v2 := segmenttest.V2Batch(segmenttest.V2Hdr{BaseSeq: -1, Count: 1}, segmenttest.V2Records(segmenttest.SampleRecs[:1]))
	v2[len(v2)-1] ^= 1
	lf, bs := segmenttest.OpenBytes(t, segmenttest.LegacyMsg(0, 1, 0, 1, nil, []byte("v")), bad, v2)
	if err := lf.CheckBatch(bs[0]); err != nil {
		t.Fatal(err)
	}
	var fe *segment.FormatError
	if err := lf.CheckBatch(bs[1]); !errors.As(err, &fe) || fe.Pos != bs[1].Position+12 {
		t.Fatalf("legacy: %v, want byte %d", err, bs[1].Position+12)
	}
	if err := lf.CheckBatch(bs[2]); !errors.As(err, &fe) || fe.Pos != bs[2].Position+17 {
		t.Fatalf("v2: %v, want byte %d", err, bs[2].Position+17)
	}
}

// ---- kafka-dump-log --deep-iteration, every kind ----
