package segment_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"kidx/internal/realdata"
	"kidx/segment"
)

// Issue 24, "realistic corpus content": the smallest gzip batch of one record, worked by hand.
// Header (DefaultRecordBatch): attributes 1 (gzip), lastOffsetDelta 0, base and max timestamp
// the record's, producer id -1, epoch -1, base sequence -1, record count 1; CRC-32C (Castagnoli)
// of bytes 21.. (DefaultRecordBatch.computeChecksum). The records section decompresses to one
// DefaultRecord: length 14 (zig-zag 0x1c), attributes 0, timestamp delta 0, offset delta 0,
// key length -1 (0x01), value length 8 (0x10), "record-0", header count 0.
func TestCompressedBatchLayoutByHand(t *testing.T) {
	const base, ts = 42, 1_700_000_000_000
	least, err := segment.MinCompressedBatchSize(1, segment.CompressionGzip)
	if err != nil {
		t.Fatal(err)
	}
	b, err := segment.BuildCompressedBatch(base, 1, least, ts, segment.CompressionGzip)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != least {
		t.Fatalf("%d bytes, want %d", len(b), least)
	}
	be := binary.BigEndian
	for _, f := range []struct {
		name      string
		got, want int64
	}{
		{"baseOffset", int64(be.Uint64(b[0:])), base},
		{"length", int64(be.Uint32(b[8:])), int64(least - 12)},
		{"partitionLeaderEpoch", int64(int32(be.Uint32(b[12:]))), 0},
		{"magic", int64(b[16]), 2},
		{"crc", int64(be.Uint32(b[17:])), int64(crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))},
		{"attributes", int64(be.Uint16(b[21:])), 1},
		{"lastOffsetDelta", int64(be.Uint32(b[23:])), 0},
		{"baseTimestamp", int64(be.Uint64(b[27:])), ts},
		{"maxTimestamp", int64(be.Uint64(b[35:])), ts},
		{"producerId", int64(be.Uint64(b[43:])), -1},
		{"producerEpoch", int64(int16(be.Uint16(b[51:]))), -1},
		{"baseSequence", int64(int32(be.Uint32(b[53:]))), -1},
		{"recordCount", int64(be.Uint32(b[57:])), 1},
	} {
		if f.got != f.want {
			t.Errorf("%s = %d, want %d", f.name, f.got, f.want)
		}
	}
	// JDK 16+'s GZIPOutputStream header (JDK-8244706: OS 255) with no optional field.
	if want := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}; !bytes.Equal(b[61:71], want) {
		t.Errorf("gzip header % x, want % x", b[61:71], want)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b[61:])) // the standard library's, not the writer's codec
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte{0x1c, 0, 0, 0, 0x01, 0x10}, "record-0\x00"...)
	if !bytes.Equal(got, want) {
		t.Fatalf("records % x, want % x", got, want)
	}
}

// Kafka's own LZ4 framing for magic 2 (KafkaLZ4BlockOutputStream: FLG 0x60, BD 0x40, HC 0x82),
// taken from a batch a Kafka producer wrote (realdata zk11-hermag-lz4, test-0, the first
// batch's records section): the writer's frame starts with the same 7 bytes, and pierrec/lz4's
// standard frame reader (which checks HC) reads it.
func TestCompressedLZ4FrameIsKafkas(t *testing.T) {
	dir, err := realdata.SharedDir()
	if err != nil {
		t.Skip(err)
	}
	kafka, err := os.ReadFile(filepath.Join(dir, "zk11-hermag-lz4", "test-0", "00000000000000000000.log"))
	if err != nil {
		t.Skipf("real data: %v", err)
	}
	if kafka[16] != 2 || binary.BigEndian.Uint16(kafka[21:])&7 != 3 {
		t.Fatalf("the fixture's first batch is magic %d attributes %d, want an lz4 v2 batch", kafka[16], binary.BigEndian.Uint16(kafka[21:]))
	}
	b, err := segment.BuildCompressedBatch(0, 3, 400, 1, segment.CompressionLZ4)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b[61:68], kafka[61:68]) {
		t.Fatalf("frame header % x, Kafka's % x", b[61:68], kafka[61:68])
	}
	if _, err := io.ReadAll(lz4.NewReader(bytes.NewReader(b[61:]))); err != nil {
		t.Fatalf("pierrec/lz4 reads the frame: %v", err)
	}
}

// decodeIndependently decompresses a records section with a decoder that is not the writer's
// and not kidx's codec package where one exists (gzip: the standard library; snappy: the xerial
// framing parsed here, blocks by klauspost's decoder; lz4: pierrec's frame reader; zstd:
// klauspost's decoder).
func decodeIndependently(t *testing.T, c segment.Compression, p []byte) []byte {
	t.Helper()
	var out []byte
	var err error
	switch c {
	case segment.CompressionGzip:
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bytes.NewReader(p)); err == nil {
			out, err = io.ReadAll(zr)
		}
	case segment.CompressionSnappy:
		if !bytes.Equal(p[:16], []byte("\x82SNAPPY\x00\x00\x00\x00\x01\x00\x00\x00\x01")) {
			t.Fatalf("xerial header % x", p[:16])
		}
		for q := p[16:]; len(q) > 0 && err == nil; {
			n := int(binary.BigEndian.Uint32(q))
			var blk []byte
			blk, err = snappy.Decode(nil, q[4:4+n])
			out, q = append(out, blk...), q[4+n:]
		}
	case segment.CompressionLZ4:
		out, err = io.ReadAll(lz4.NewReader(bytes.NewReader(p)))
	case segment.CompressionZstd:
		var d *zstd.Decoder
		if d, err = zstd.NewReader(nil); err == nil {
			out, err = d.DecodeAll(p, nil)
			d.Close()
		}
	}
	if err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	return out
}

// Every compressed batch is exactly the size asked, over a range of sizes from a little
// above the builder's minimum, and holds the records asked: decoded independently, the
// records section starts with record 0 ("record-0" at offset delta 0) and kidx's reader
// (kidx dump's) finds n records at the right offsets and timestamps.
func TestCompressedBatchExactSizes(t *testing.T) {
	for _, c := range segment.Compressions {
		for _, n := range []int{1, 2, 40} {
			least, err := segment.MinCompressedBatchSize(n, c)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := segment.BuildCompressedBatch(0, n, least-1, 1, c); err == nil || !strings.Contains(err.Error(), "needs at least") {
				t.Errorf("%s n=%d: one byte below the minimum: %v, want a refusal", c, n, err)
			}
			for size := least + 16; size < least+16+900; size += 13 {
				name := fmt.Sprintf("%s n=%d size=%d", c, n, size)
				b, err := segment.BuildCompressedBatch(1000, n, size, 7, c)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if len(b) != size || segment.CheckBatch(b, name, 0) != nil {
					t.Fatalf("%s: %d bytes, check %v", name, len(b), segment.CheckBatch(b, name, 0))
				}
				if v := firstRecordValue(t, name, decodeIndependently(t, c, b[61:])); !bytes.HasPrefix(v, []byte("record-0")) {
					t.Fatalf("%s: first record's value %.12q", name, v)
				}
				checkRecordsRead(t, name, b, n, 1000, 7)
			}
		}
	}
}

// firstRecordValue parses the first DefaultRecord of a records section by hand: zig-zag
// varint length, attributes byte, timestamp delta, offset delta (0), key length (-1: null),
// value length, value.
func firstRecordValue(t *testing.T, name string, recs []byte) []byte {
	t.Helper()
	r := bytes.NewReader(recs)
	next := func() int64 {
		v, err := binary.ReadVarint(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	next() // length
	if a, _ := r.ReadByte(); a != 0 {
		t.Fatalf("%s: record attributes %d", name, a)
	}
	if ts, off, key := next(), next(), next(); ts != 0 || off != 0 || key != -1 {
		t.Fatalf("%s: timestamp delta %d, offset delta %d, key length %d", name, ts, off, key)
	}
	v := make([]byte, next())
	if _, err := io.ReadFull(r, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// checkRecordsRead writes batch b alone into a file and reads its records with kidx's reader.
func checkRecordsRead(t *testing.T, name string, b []byte, n int, base, ts int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "00000000000000001000.log")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := segment.OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var infos []segment.BatchInfo
	if res := l.Walk(0, -1, func(bi segment.BatchInfo) bool { infos = append(infos, bi); return true }); res.Err != nil || len(infos) != 1 {
		t.Fatalf("%s: walk %+v, %d batches", name, res, len(infos))
	}
	next := base
	err = l.Records(infos[0], segment.RecordLimits{}, func(r segment.DecodedRecord) bool {
		if r.Offset != next || r.Timestamp != ts || !strings.HasPrefix(string(r.Value), fmt.Sprintf("record-%d", r.Offset-base)) {
			t.Errorf("%s: record %d at offset %d timestamp %d value %.12q", name, next-base, r.Offset, r.Timestamp, r.Value)
		}
		next++
		return true
	})
	if err != nil || next != base+int64(n) {
		t.Fatalf("%s: read %d records, %v", name, next-base, err)
	}
}

// The same inputs give the same bytes (a corpus seed replays), and the codecs' paddings are
// what the package documents: a gzip comment (FLG bit 4) or a zstd skippable frame
// (magic 0x184D2A50) where the filler alone misses the size.
func TestCompressedBatchDeterministicAndPadded(t *testing.T) {
	sawComment, sawSkippable := false, false
	for size := 300; size < 700; size++ {
		for _, c := range []segment.Compression{segment.CompressionGzip, segment.CompressionZstd} {
			a, err1 := segment.BuildCompressedBatch(5, 3, size, 9, c)
			b, err2 := segment.BuildCompressedBatch(5, 3, size, 9, c)
			if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
				t.Fatalf("%s size %d: %v %v, equal %v", c, size, err1, err2, bytes.Equal(a, b))
			}
			if c == segment.CompressionGzip && a[61+3]&0x10 != 0 {
				sawComment = true
			}
			if c == segment.CompressionZstd && bytes.Contains(a[61:], []byte{0x50, 0x2a, 0x4d, 0x18}) {
				sawSkippable = true
			}
		}
	}
	if !sawComment || !sawSkippable {
		t.Fatalf("gzip comment seen %v, zstd skippable frame seen %v", sawComment, sawSkippable)
	}
}

func TestCompressedBatchRefusals(t *testing.T) {
	for _, tc := range []struct {
		n    int
		c    segment.Compression
		want string
	}{
		{0, segment.CompressionGzip, "record count 0 out of range"},
		{1, segment.CompressionNone, "compression none: the writer compresses with"},
		{1, segment.Compression(5), "compression unknown(5)"},
	} {
		if _, err := segment.BuildCompressedBatch(0, tc.n, 500, 1, tc.c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d records %s: %v, want %q", tc.n, tc.c, err, tc.want)
		}
	}
	if _, err := segment.ParseCompression("brotli"); err == nil {
		t.Error("brotli parsed")
	}
	for _, c := range append([]segment.Compression{segment.CompressionNone}, segment.Compressions...) {
		if got, err := segment.ParseCompression(c.String()); err != nil || got != c {
			t.Errorf("ParseCompression(%q) = %v, %v", c, got, err)
		}
	}
}
