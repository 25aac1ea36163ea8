package segment

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"kidx/codec"
)

// ---- real Kafka files (read in place from /work/shared/realdata) ----

// realdataPath is a file of /work/shared/realdata (../../shared/realdata from this package).
// Without it the test is skipped loudly, and fails when CI is set.
func realdataPath(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "shared", "realdata", rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("real Kafka data %s is missing (CI is set, so this fails): %v", p, err)
		}
		t.Skipf("SKIPPED, NOT RUN: real Kafka data %s is missing (%v); the golden tests against Kafka's own files did not run", p, err)
	}
	return p
}

func walkAll(t testing.TB, lf *LogFile) []BatchInfo {
	t.Helper()
	var bs []BatchInfo
	res := lf.Walk(0, 0, func(b BatchInfo) bool { bs = append(bs, b); return true })
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	return bs
}

func allRecords(t testing.TB, lf *LogFile, b BatchInfo) []DecodedRecord {
	t.Helper()
	var out []DecodedRecord
	err := lf.Records(b, RecordLimits{}, func(r DecodedRecord) bool {
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
	none, err := OpenLog(realdataPath(t, "kafkalite/hamlet-none-0/00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer none.Close()
	var want []DecodedRecord
	for _, b := range walkAll(t, none) {
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
		lf, err := OpenLog(realdataPath(t, "kafkalite/"+dir+"/00000000000000000000.log"))
		if err != nil {
			t.Fatal(err)
		}
		var got []DecodedRecord
		prev := int64(-1)
		for _, b := range walkAll(t, lf) {
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
	lf, err := OpenLog(realdataPath(t, "ronem/__cluster_metadata-0/00000000000000852953-0000000001.checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	bs := walkAll(t, lf)
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

	lc, err := OpenLog(realdataPath(t, "ldi-poc/__cluster_metadata-0/00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	first := walkAll(t, lc)[0]
	if recs := allRecords(t, lc, first); len(recs) != 1 || recs[0].Control != "controlType: LEADER_CHANGE(2)" {
		t.Fatalf("ldi-poc offset 0: %+v", recs)
	}
}

// ---- batches built here, byte by byte, per the formats (docs/kafka.md §1.3, §1.4) ----

type rec struct {
	tsDelta, offDelta int64
	key, value        []byte // nil = null (length -1)
	headers           []string
}

// v2Records encodes DefaultRecords: zig-zag varints (binary.AppendVarint is Kafka's
// ByteUtils.writeVarint encoding), attributes 0, key, value, headers with 1-byte values.
func v2Records(rs []rec) []byte {
	var out []byte
	for _, r := range rs {
		b := []byte{0}
		b = binary.AppendVarint(b, r.tsDelta)
		b = binary.AppendVarint(b, r.offDelta)
		for _, kv := range [][]byte{r.key, r.value} {
			if kv == nil {
				b = binary.AppendVarint(b, -1)
			} else {
				b = binary.AppendVarint(b, int64(len(kv)))
				b = append(b, kv...)
			}
		}
		b = binary.AppendVarint(b, int64(len(r.headers)))
		for _, h := range r.headers {
			b = binary.AppendVarint(b, int64(len(h)))
			b = append(b, h...)
			b = binary.AppendVarint(b, 1)
			b = append(b, 'v')
		}
		out = binary.AppendVarint(out, int64(len(b)))
		out = append(out, b...)
	}
	return out
}

type v2hdr struct {
	base                int64
	attrs               int16
	lastDelta           int32
	baseTs, maxTs       int64
	baseSeq, count      int32
	producerID          int64
	partitionLeaderEpoc int32
}

// v2Batch lays out a DefaultRecordBatch header (§1.3 offsets) around the records section and
// fills in Length and the CRC-32C over [21, end).
func v2Batch(h v2hdr, section []byte) []byte {
	b := make([]byte, 61, 61+len(section))
	be := binary.BigEndian
	be.PutUint64(b[0:], uint64(h.base))
	be.PutUint32(b[8:], uint32(49+len(section)))
	be.PutUint32(b[12:], uint32(h.partitionLeaderEpoc))
	b[16] = 2
	be.PutUint16(b[21:], uint16(h.attrs))
	be.PutUint32(b[23:], uint32(h.lastDelta))
	be.PutUint64(b[27:], uint64(h.baseTs))
	be.PutUint64(b[35:], uint64(h.maxTs))
	be.PutUint64(b[43:], uint64(h.producerID))
	be.PutUint16(b[51:], 0xffff)
	be.PutUint32(b[53:], uint32(h.baseSeq))
	be.PutUint32(b[57:], uint32(h.count))
	b = append(b, section...)
	be.PutUint32(b[17:], crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// legacyMsg lays out offset(8) size(4) crc(4) magic attributes [timestamp] key value
// (LegacyRecord), with the CRC-32 (IEEE) over magic..end.
func legacyMsg(offset int64, magic, attrs byte, ts int64, key, value []byte) []byte {
	m := []byte{0, 0, 0, 0, magic, attrs}
	if magic == 1 {
		m = binary.BigEndian.AppendUint64(m, uint64(ts))
	}
	for _, kv := range [][]byte{key, value} {
		if kv == nil {
			m = binary.BigEndian.AppendUint32(m, 0xffffffff)
		} else {
			m = binary.BigEndian.AppendUint32(m, uint32(len(kv)))
			m = append(m, kv...)
		}
	}
	binary.BigEndian.PutUint32(m, crc32.ChecksumIEEE(m[4:]))
	e := binary.BigEndian.AppendUint64(nil, uint64(offset))
	e = binary.BigEndian.AppendUint32(e, uint32(len(m)))
	return append(e, m...)
}

// franz compresses with franz-go's producer compressor (what a real client writes).
func franz(t testing.TB, c codec.Codec, src []byte) []byte {
	t.Helper()
	cc := map[codec.Codec]kgo.CompressionCodec{codec.Gzip: kgo.GzipCompression(), codec.Snappy: kgo.SnappyCompression(),
		codec.LZ4: kgo.Lz4Compression(), codec.Zstd: kgo.ZstdCompression()}[c]
	comp, err := kgo.DefaultCompressor(cc)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := comp.Compress(new(bytes.Buffer), src)
	return bytes.Clone(out)
}

// openBytes writes the batches as a .log in a temp dir and opens it.
func openBytes(t testing.TB, batches ...[]byte) (*LogFile, []BatchInfo) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	mustWrite(t, path, bytes.Join(batches, nil))
	lf, err := OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lf.Close() })
	return lf, walkAll(t, lf)
}

var sampleRecs = []rec{
	{0, 0, []byte("k0"), []byte("v0"), nil},
	{5, 1, nil, []byte("value one"), []string{"a", "b"}},
	{9, 2, []byte("k2"), nil, []string{"trace"}},
}

// A v2 batch decodes the same whatever its codec (DefaultRecordBatch: compressed batches
// iterate the decompressed records section): offset base+delta, timestamp base+delta
// (CreateTime), sequence baseSequence+delta, keys, values, header keys.
func TestRecordsV2EveryCodec(t *testing.T) {
	section := v2Records(sampleRecs)
	for _, c := range []codec.Codec{codec.None, codec.Gzip, codec.Snappy, codec.LZ4, codec.Zstd} {
		payload := section
		if c != codec.None {
			payload = franz(t, c, section)
		}
		lf, bs := openBytes(t, v2Batch(v2hdr{base: 100, attrs: int16(c), lastDelta: 2, baseTs: 1000, maxTs: 1009, baseSeq: 7, count: 3}, payload))
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
	section := v2Records(sampleRecs)
	lf, bs := openBytes(t,
		v2Batch(v2hdr{base: 0, attrs: 0x08 | int16(codec.Gzip), lastDelta: 2, baseTs: 1000, maxTs: 5555, baseSeq: 2147483646, count: 3}, franz(t, codec.Gzip, section)),
		v2Batch(v2hdr{base: 3, attrs: int16(codec.Zstd), count: 0, baseSeq: -1}, []byte("not zstd at all")))
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
		legacyMsg(0, 1, 0, 111, nil, []byte("a")),
		legacyMsg(1, 1, 0, 222, []byte("k"), []byte("bb")),
		legacyMsg(2, 1, 0, 333, nil, nil),
	}, nil)
	for _, c := range []codec.Codec{codec.Gzip, codec.Snappy, codec.LZ4} {
		value := franz(t, c, inner)
		lf, bs := openBytes(t,
			legacyMsg(102, 1, byte(c), 999, nil, value),      // CreateTime
			legacyMsg(105, 1, byte(c)|0x08, 999, nil, value), // LogAppendTime
			legacyMsg(0, 1, byte(c), 999, nil, value),        // librdkafka: base 0
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
		lf2, bs2 := openBytes(t, legacyMsg(1, 1, byte(c), 999, nil, value))
		err := lf2.Records(bs2[0], RecordLimits{}, func(DecodedRecord) bool { return true })
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
	inner := bytes.Join([][]byte{legacyMsg(40, 0, 0, 0, nil, []byte("x")), legacyMsg(41, 0, 0, 0, nil, []byte("y"))}, nil)
	frame := []byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x1a}
	frame = binary.LittleEndian.AppendUint32(frame, uint32(len(inner))|0x80000000)
	frame = append(append(frame, inner...), 0, 0, 0, 0)
	lf, bs := openBytes(t, legacyMsg(41, 0, byte(codec.LZ4), 0, nil, frame))
	recs := allRecords(t, lf, bs[0])
	if len(recs) != 2 || recs[0].Offset != 40 || string(recs[1].Value) != "y" || recs[0].TimestampType != "NoTimestampType" || recs[0].Timestamp != -1 {
		t.Fatalf("%+v", recs)
	}
	if first, err := lf.FirstOffset(bs[0]); err != nil || first != 40 {
		t.Fatalf("FirstOffset %d %v", first, err)
	}
	// The same frame in a magic-1 wrapper must have the right checksum.
	lf1, bs1 := openBytes(t, legacyMsg(1, 1, byte(codec.LZ4), 0, nil, frame))
	if err := lf1.Records(bs1[0], RecordLimits{}, func(DecodedRecord) bool { return true }); err == nil || !strings.Contains(err.Error(), "Stream frame descriptor corrupted") {
		t.Fatalf("magic 1: %v", err)
	}
}

// DeepRecordsIterator's refusals: zstd in a legacy wrapper; a null wrapper value; no inner
// records; an inner size under 14 (DataLogInputStream); a compressed inner message ("Inner
// messages must not be compressed", raised at that record, after the ones before it). A
// truncated last inner entry ends the entries quietly (DataLogInputStream returns null).
func TestRecordsLegacyWrapperRefusals(t *testing.T) {
	ok := legacyMsg(0, 0, 0, 0, nil, []byte("ok"))
	inner2 := legacyMsg(1, 0, byte(codec.Gzip), 0, nil, []byte("zz"))
	tiny := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, 0), 13)
	for _, c := range []struct {
		name  string
		entry []byte
		want  string
		recs  int
	}{
		{"zstd", legacyMsg(0, 1, byte(codec.Zstd), 0, nil, franz(t, codec.Zstd, ok)), "Invalid wrapper compressionType", 0},
		{"null value", legacyMsg(0, 0, byte(codec.Gzip), 0, nil, nil), "null value (magic = 0)", 0},
		{"no inner", legacyMsg(0, 0, byte(codec.Gzip), 0, nil, franz(t, codec.Gzip, []byte("0123456789a"))), "no inner records", 0},
		{"size 13", legacyMsg(0, 0, byte(codec.Gzip), 0, nil, franz(t, codec.Gzip, append(tiny, make([]byte, 13)...))), "minimum record overhead (14): 13", 0},
		{"inner compressed", legacyMsg(1, 0, byte(codec.Gzip), 0, nil, franz(t, codec.Gzip, append(bytes.Clone(ok), inner2...))), "Inner messages must not be compressed", 1},
		{"unknown codec", legacyMsg(0, 0, 6, 0, nil, []byte("x")), "Unknown compression type id: 6", 0},
		{"truncated tail", legacyMsg(0, 0, byte(codec.Gzip), 0, nil, franz(t, codec.Gzip, append(bytes.Clone(ok), inner2[:20]...))), "", 1},
	} {
		lf, bs := openBytes(t, c.entry)
		n := 0
		err := lf.Records(bs[0], RecordLimits{}, func(DecodedRecord) bool { n++; return true })
		var fe *FormatError
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
	section := v2Records([]rec{{0, 0, key(1), marker, nil}, {0, 1, key(0), []byte{0, 0, 0, 0, 1, 0}, nil}, {0, 2, key(9), nil, nil}})
	lf, bs := openBytes(t, v2Batch(v2hdr{base: 7, attrs: 0x30, lastDelta: 2, baseTs: 1, maxTs: 1, baseSeq: -1, count: 3, producerID: 9}, section))
	var got []string
	for _, r := range allRecords(t, lf, bs[0]) {
		got = append(got, r.Control)
	}
	if want := "[endTxnMarker: COMMIT coordinatorEpoch: 5 endTxnMarker: ABORT coordinatorEpoch: 256 controlType: UNKNOWN(9)]"; fmt.Sprint(got) != want {
		t.Fatalf("%v, want %s", got, want)
	}
	for _, bad := range [][]rec{{{0, 0, []byte{0, 0, 1}, marker, nil}}, {{0, 0, key(1), marker[:5], nil}}, {{0, 0, nil, marker, nil}}} {
		lf, bs := openBytes(t, v2Batch(v2hdr{attrs: 0x20, baseSeq: -1, count: 1}, v2Records(bad)))
		if err := lf.Records(bs[0], RecordLimits{}, func(DecodedRecord) bool { return true }); err == nil || !strings.Contains(err.Error(), "control record") {
			t.Fatalf("%v: %v", bad, err)
		}
	}
}

// A decompression bomb (64 MiB of zero bytes as a gzip records section, about 65 KB) is a
// *FormatError naming the file and the records section's byte (61 after the batch start),
// saying "decompression bomb?", with memory near the limit.
func TestRecordsBombIsAFormatErrorWithBoundedMemory(t *testing.T) {
	bomb := franz(t, codec.Gzip, make([]byte, 64<<20))
	lf2, bs2 := openBytes(t, v2Batch(v2hdr{attrs: int16(codec.Gzip), baseSeq: -1, count: 1000}, bomb))
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	err := lf2.Records(bs2[0], RecordLimits{MaxDecompressedBytes: 1 << 20}, func(DecodedRecord) bool { return true })
	runtime.ReadMemStats(&m1)
	var fe *FormatError
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
	payload := franz(t, codec.LZ4, v2Records(sampleRecs))
	payload[6] ^= 0xff
	lf, bs := openBytes(t, v2Records(nil), v2Batch(v2hdr{attrs: int16(codec.LZ4), baseSeq: -1, count: 3}, payload))
	err := lf.Records(bs[0], RecordLimits{}, func(DecodedRecord) bool { return true })
	var fe *FormatError
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
		v2Records(sampleRecs),
		append(binary.AppendVarint(nil, int64(len(hugeHeaders))), hugeHeaders...),
		append(binary.AppendVarint(nil, int64(len(hugeKey))), hugeKey...),
	} {
		for _, c := range []codec.Codec{codec.None, codec.Snappy} {
			payload := section
			if c != codec.None {
				payload = franz(t, c, section)
			}
			lf, bs := openBytes(t, v2Batch(v2hdr{attrs: int16(c), baseSeq: -1, count: 2147483647}, payload))
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			err := lf.Records(bs[0], RecordLimits{}, func(DecodedRecord) bool { return true })
			runtime.ReadMemStats(&m1)
			var fe *FormatError
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
	bad := legacyMsg(5, 1, 0, 1, nil, []byte("v"))
	bad[len(bad)-1] ^= 1
	v2 := v2Batch(v2hdr{baseSeq: -1, count: 1}, v2Records(sampleRecs[:1]))
	v2[len(v2)-1] ^= 1
	lf, bs := openBytes(t, legacyMsg(0, 1, 0, 1, nil, []byte("v")), bad, v2)
	if err := lf.CheckBatch(bs[0]); err != nil {
		t.Fatal(err)
	}
	var fe *FormatError
	if err := lf.CheckBatch(bs[1]); !errors.As(err, &fe) || fe.Pos != bs[1].Position+12 {
		t.Fatalf("legacy: %v, want byte %d", err, bs[1].Position+12)
	}
	if err := lf.CheckBatch(bs[2]); !errors.As(err, &fe) || fe.Pos != bs[2].Position+17 {
		t.Fatalf("v2: %v, want byte %d", err, bs[2].Position+17)
	}
}

// ---- kafka-dump-log --deep-iteration, every kind ----

// The record lines of DumpLogSegments.dumpLog: "| offset: O <batch timestampType>: T keySize:
// K valueSize: V", " sequence: S headerKeys: [a,b]" for magic >= 2, " isValid: B crc: C}" for
// legacy records (Kafka's Scala prints the stray brace), then the control text. Expected
// lines for the real file are read off its bytes: the first message of hamlet-none-0 is
// size 0x36, CRC 0x7a5c91c4 = 2052886980, magic 0, null key, a 40-byte value; the gzip
// wrapper holding it is at position 0: offset 253, size field 6278 (6290 bytes on disk),
// CRC 0xde28f1ac = 3727225260.
func TestDumpDeepIterationRealKafka08(t *testing.T) {
	var out strings.Builder
	path := realdataPath(t, "kafkalite/hamlet-gzip-0/00000000000000000000.log")
	if err := Dump(&out, path, DumpOptions{Deep: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if lines[2] != "offset: 253 position: 0 NoTimestampType: -1 size: 6290 magic: 0 compresscodec: gzip crc: 3727225260 isvalid: true" ||
		lines[3] != "| offset: 0 NoTimestampType: -1 keySize: -1 valueSize: 40 isValid: true crc: 2052886980}" {
		t.Fatalf("gzip wrapper dump:\n%s\n%s", lines[2], lines[3])
	}
	if n := strings.Count(out.String(), "\n| offset: "); n != 5382 {
		t.Fatalf("%d record lines, want 5382", n)
	}
}

// The same record lines for batches built here (expected lines written from the record
// fields, per DumpLogSegments.dumpLog's format), a corrupt batch the dump goes past, and the
// JSON form.
func TestDumpDeepIterationBuiltBatches(t *testing.T) {
	var out strings.Builder
	section := v2Records(sampleRecs)
	marker := v2Records([]rec{{0, 0, []byte{0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 3}, nil}})
	inner := bytes.Join([][]byte{legacyMsg(0, 1, 0, 50, nil, []byte("a")), legacyMsg(1, 1, 0, 60, nil, []byte("b"))}, nil)
	lf, _ := openBytes(t,
		v2Batch(v2hdr{base: 0, attrs: int16(codec.Zstd), lastDelta: 2, baseTs: 1000, maxTs: 1009, baseSeq: 7, count: 3}, franz(t, codec.Zstd, section)),
		v2Batch(v2hdr{base: 3, attrs: 0x30, baseTs: 2000, maxTs: 2000, baseSeq: -1, count: 1, producerID: 4}, marker),
		legacyMsg(6, 1, byte(codec.Snappy), 77, nil, franz(t, codec.Snappy, inner)), // inner 5, 6: a gap after 3
		v2Batch(v2hdr{base: 7, attrs: int16(codec.Gzip), baseSeq: -1, count: 5}, []byte("corrupt gzip")),
		v2Batch(v2hdr{base: 12, lastDelta: 0, baseTs: 3, maxTs: 3, baseSeq: -1, count: 1}, v2Records(sampleRecs[:1])),
	)
	lf.Close()
	out.Reset()
	var stderr strings.Builder
	err := Dump(&out, lf.Path, DumpOptions{Deep: true, Stderr: &stderr})
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Pos != 61+int64(len(v2Batch(v2hdr{}, franz(t, codec.Zstd, section))))+int64(len(v2Batch(v2hdr{}, marker)))+int64(len(legacyMsg(6, 1, 2, 77, nil, franz(t, codec.Snappy, inner)))) {
		t.Fatalf("dump error %v", err)
	}
	want := []string{
		"| offset: 0 CreateTime: 1000 keySize: 2 valueSize: 2 sequence: 7 headerKeys: []",
		"| offset: 1 CreateTime: 1005 keySize: -1 valueSize: 9 sequence: 8 headerKeys: [a,b]",
		"| offset: 2 CreateTime: 1009 keySize: 2 valueSize: -1 sequence: 9 headerKeys: [trace]",
		"| offset: 3 CreateTime: 2000 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 3",
		"| offset: 5 CreateTime: 50 keySize: -1 valueSize: 1 isValid: true crc: " + fmt.Sprint(crc32.ChecksumIEEE(inner[16:legacyLen(inner)])) + "}",
		"| offset: 6 CreateTime: 60 keySize: -1 valueSize: 1 isValid: true crc: " + fmt.Sprint(crc32.ChecksumIEEE(inner[legacyLen(inner)+16:])) + "}",
		"| offset: 12 CreateTime: 3 keySize: 2 valueSize: 2 sequence: -1 headerKeys: []",
	}
	var got []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "| ") {
			got = append(got, l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("record lines:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Non-consecutive offsets, inner legacy offsets included (printed newest first).
	if want := "  6 is followed by 12\n  3 is followed by 5\n"; !strings.HasSuffix(stderr.String(), want) {
		t.Fatalf("stderr:\n%s", stderr.String())
	}

	// JSON: legacy batches have count null and -1 for the v2-only fields
	// (AbstractLegacyRecordBatch); legacy records carry isValid and crc; control records
	// their text; the failing batch its error.
	out.Reset()
	_ = Dump(&out, lf.Path, DumpOptions{Deep: true, JSON: true})
	var res struct {
		Batches []map[string]any `json:"batches"`
	}
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
		t.Fatal(err)
	}
	leg := res.Batches[2]
	for _, k := range []string{"baseSequence", "lastSequence", "producerId", "producerEpoch", "partitionLeaderEpoch"} {
		if leg[k] != float64(-1) {
			t.Fatalf("legacy %s = %v", k, leg[k])
		}
	}
	if leg["count"] != nil || leg["timestampType"] != "CreateTime" {
		t.Fatalf("legacy batch %v", leg)
	}
	r0 := leg["records"].([]any)[0].(map[string]any)
	if r0["isValid"] != true || r0["offset"] != float64(5) || r0["crc"] == nil {
		t.Fatalf("legacy record %v", r0)
	}
	if c := res.Batches[1]["records"].([]any)[0].(map[string]any)["control"]; c != "endTxnMarker: COMMIT coordinatorEpoch: 3" {
		t.Fatalf("control %v", c)
	}
	if e, _ := res.Batches[3]["recordsError"].(string); !strings.Contains(e, "gzip") {
		t.Fatalf("recordsError %q", e)
	}
	if _, ok := res.Batches[0]["records"].([]any)[0].(map[string]any)["isValid"]; ok {
		t.Fatal("v2 record with isValid")
	}
}

// legacyLen is the length of the first legacy entry of b (offset, size, message).
func legacyLen(b []byte) int { return 12 + int(binary.BigEndian.Uint32(b[8:])) }
