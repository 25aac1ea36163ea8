package codec_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"kidx/codec"
)

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := kgzip.NewWriter(&b)
	w.Write([]byte(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func mustDecompress(t *testing.T, c codec.Codec, magic int8, src []byte) []byte {
	t.Helper()
	out, err := codec.Decompress(c, magic, src, 0)
	if err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	return out
}

func wantErr(t *testing.T, c codec.Codec, magic int8, src []byte, substr string) {
	t.Helper()
	_, err := codec.Decompress(c, magic, src, 0)
	if err == nil || !strings.Contains(err.Error(), substr) {
		t.Fatalf("%s: error %v, want one containing %q", c, err, substr)
	}
}

// java.util.zip.GZIPInputStream (GzipCompression.wrapForInput): concatenated members are one
// stream; after a member, bytes that are not a valid member header are ignored
// (readTrailer: "ignore any malformed, do nothing"); a wrong CRC-32 or ISIZE is "Corrupt
// GZIP trailer"; input that is not gzip is "Not in GZIP format".
func TestGzipAsGZIPInputStreamReadsIt(t *testing.T) {
	two := append(gz(t, "hello "), gz(t, "world")...)
	if got := mustDecompress(t, codec.Gzip, 1, two); string(got) != "hello world" {
		t.Fatalf("two members: %q", got)
	}
	for _, tail := range [][]byte{{0}, []byte("garbage after the member"), {0x1f}, {0x1f, 0x8b, 8}} {
		if got := mustDecompress(t, codec.Gzip, 1, append(gz(t, "hello"), tail...)); string(got) != "hello" {
			t.Fatalf("trailing %q: %q", tail, got)
		}
	}
	bad := gz(t, "hello")
	bad[len(bad)-8] ^= 1 // CRC-32 of the trailer
	wantErr(t, codec.Gzip, 1, bad, "Corrupt GZIP trailer")
	bad = gz(t, "hello")
	bad[len(bad)-1] ^= 1 // ISIZE
	wantErr(t, codec.Gzip, 1, bad, "Corrupt GZIP trailer")
	wantErr(t, codec.Gzip, 1, []byte("plain text"), "gzip: byte")
	wantErr(t, codec.Gzip, 1, nil, "empty input")
	wantErr(t, codec.Gzip, 1, gz(t, "hello")[:15], "gzip: byte")
}

// xerial's SnappyInputStream (SnappyCompression.wrapForInput): the 16-byte header
// "\x82SNAPPY\x00" + version 1 + compatible version 1, then chunks of a big-endian int32
// length and a raw snappy block; input without the header is one raw snappy block
// (readHeader); fewer than 4 bytes after a chunk end the stream; a chunk length equal to
// MAGIC_HEADER_HEAD starts a concatenated stream; a negative length is "chunkSize is too
// big or negative"; a version below 1 is "incompatible codec version".
func TestSnappyXerialAndRawAsSnappyInputStreamReadsThem(t *testing.T) {
	header := []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}
	chunk := func(s string) []byte {
		b := snappy.Encode(nil, []byte(s))
		return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

	if got := mustDecompress(t, codec.Snappy, 0, cat(header, chunk("hello "), chunk("world"))); string(got) != "hello world" {
		t.Fatalf("two chunks: %q", got)
	}
	if got := mustDecompress(t, codec.Snappy, 0, snappy.Encode(nil, []byte("raw block"))); string(got) != "raw block" {
		t.Fatalf("raw: %q", got)
	}
	if got := mustDecompress(t, codec.Snappy, 0, cat(header, chunk("a"), []byte{0, 0, 1})); string(got) != "a" {
		t.Fatalf("3 trailing bytes: %q", got)
	}
	if got := mustDecompress(t, codec.Snappy, 0, cat(header, chunk("a"), header, chunk("b"))); string(got) != "ab" {
		t.Fatalf("concatenated streams: %q", got)
	}
	if got := mustDecompress(t, codec.Snappy, 0, header); len(got) != 0 {
		t.Fatalf("header only: %q", got)
	}
	wantErr(t, codec.Snappy, 0, cat(header, []byte{0xff, 0xff, 0xff, 0xfe}), "chunkSize is too big or negative : -2")
	wantErr(t, codec.Snappy, 0, cat(header, []byte{0, 0, 0, 9, 1, 2}), "snappy: byte 16: failed to read chunk")
	old := bytes.Clone(header)
	old[11] = 0
	wantErr(t, codec.Snappy, 0, cat(old, chunk("a")), "incompatible codec version 0")
	wantErr(t, codec.Snappy, 0, cat(header, []byte{0x82, 'S', 'N', 'A', 'P'}), "Insufficient header size in a concatenated block")

	// The snappy format (format_description.txt) has no copy at offset 0; s2's decoder takes
	// it as "repeat the last offset", the reference decoder that xerial wraps rejects it.
	// Literal "ab" (tag 1<<2), then a 1-byte-offset copy of length 4 at offset 0.
	wantErr(t, codec.Snappy, 0, []byte{6, 1 << 2, 'a', 'b', 0x01, 0x00}, "snappy: byte 0")
}

// lz4Frame builds a frame by hand as KafkaLZ4BlockOutputStream writes it: magic 0x184D2204
// (little-endian), FLG 0x60 (version 1, independent blocks), BD 0x40 (64 KiB blocks), the
// header checksum byte hc, blocks, and the 4-byte zero end mark.
func lz4Frame(hc byte, blocks ...[]byte) []byte {
	f := []byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, hc}
	for _, b := range blocks {
		f = append(f, b...)
	}
	return append(f, 0, 0, 0, 0)
}

// storedBlock is a block kept uncompressed: its length with the high bit set, then the bytes.
func storedBlock(b []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(b))|0x80000000), b...)
}

// pierrecXXH32 is XXH32(b) as pierrec/lz4 computes it: the block checksum of a frame written
// with BlockChecksumOption(true), where a block of <= 6 bytes (incompressible) is stored as is.
func pierrecXXH32(t *testing.T, b []byte) uint32 {
	t.Helper()
	var out bytes.Buffer
	w := lz4.NewWriter(&out)
	if err := w.Apply(lz4.BlockChecksumOption(true), lz4.ChecksumOption(false), lz4.BlockSizeOption(lz4.Block64Kb)); err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	f := out.Bytes() // magic(4) FLG BD HC, size(4), block, checksum(4), end mark
	size := binary.LittleEndian.Uint32(f[7:])
	if size&0x80000000 == 0 || int(size&0x7fffffff) != len(b) {
		t.Fatalf("pierrec compressed the %d-byte block (size field %#x)", len(b), size)
	}
	return binary.LittleEndian.Uint32(f[11+len(b):])
}

// KAFKA-3160: Kafka's magic-0 LZ4 framing computes the header checksum over the magic number
// too, XXH32(frame[0:6]) >> 8, instead of XXH32(frame[4:6]) >> 8 (KafkaLZ4BlockOutputStream
// useBrokenFlagDescriptorChecksum); KafkaLZ4BlockInputStream ignores the checksum when the
// message magic is 0 and checks it otherwise ("Stream frame descriptor corrupted"). The
// checksums here are pierrec/lz4's XXH32 of those exact bytes, not this package's.
func TestLZ4MagicZeroBrokenHeaderChecksumKAFKA3160(t *testing.T) {
	// The reference lz4 CLI (v1.9.4, "lz4 -BX -B4 --no-frame-crc" of these bytes, which it
	// stores with an XXH32 block checksum) gives 0xc8581a3a and 0x301a8268: pierrec agrees.
	sixSum, twoSum := pierrecXXH32(t, []byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x40}), pierrecXXH32(t, []byte{0x60, 0x40})
	if sixSum != 0xc8581a3a || twoSum != 0x301a8268 {
		t.Fatalf("pierrec XXH32 %#08x %#08x, the reference lz4 CLI 0xc8581a3a 0x301a8268", sixSum, twoSum)
	}
	broken, right := byte(sixSum>>8), byte(twoSum>>8) // 0x1a, 0x82
	frame := lz4Frame(broken, storedBlock([]byte("kafka 0.8 lz4")))
	if got := mustDecompress(t, codec.LZ4, 0, frame); string(got) != "kafka 0.8 lz4" {
		t.Fatalf("magic 0: %q", got)
	}
	for _, magic := range []int8{1, 2} {
		wantErr(t, codec.LZ4, magic, frame, "Stream frame descriptor corrupted")
	}
	good := lz4Frame(right, storedBlock([]byte("right")))
	for _, magic := range []int8{0, 1, 2} {
		if got := mustDecompress(t, codec.LZ4, magic, good); string(got) != "right" {
			t.Fatalf("magic %d, right checksum: %q", magic, got)
		}
	}
}

// KafkaLZ4BlockInputStream's other rules: only magic 0x184D2204 ("Stream unsupported
// (invalid magic bytes)": no legacy or skippable frames); FLG reserved bits, dependent
// blocks, version != 1 and BD reserved bits or a block size id outside 4-7 are refused;
// a block longer than the BD maximum is "Block size N exceeded max: M"; running out of input
// is "Stream ended prematurely"; a bad block checksum is "Block checksum mismatch"; nothing
// after the end mark is read, and the content checksum is skipped unverified.
func TestLZ4FrameRulesOfKafkaLZ4BlockInputStream(t *testing.T) {
	hc := byte(pierrecXXH32(t, []byte{0x60, 0x40}) >> 8)
	ok := lz4Frame(hc, storedBlock([]byte("abc")))
	wantErr(t, codec.LZ4, 2, append([]byte{0x02, 0x21, 0x4c, 0x18}, ok[4:]...), "Stream unsupported (invalid magic bytes)")
	wantErr(t, codec.LZ4, 2, append([]byte{0x50, 0x2a, 0x4d, 0x18}, ok[4:]...), "Stream unsupported (invalid magic bytes)")
	for _, c := range []struct {
		at   int
		b    byte
		want string
	}{{4, 0x61, "Reserved bits must be 0"}, {4, 0x40, "Dependent block stream is unsupported"}, {4, 0xa0, "Version 2 is unsupported"},
		{5, 0x41, "Reserved2 field must be 0"}, {5, 0xc0, "Reserved3 field must be 0"}, {5, 0x30, "Block size value must be between 4 and 7"}} {
		bad := bytes.Clone(ok)
		bad[c.at] = c.b
		wantErr(t, codec.LZ4, 0, bad, c.want)
	}
	wantErr(t, codec.LZ4, 0, lz4Frame(hc, binary.LittleEndian.AppendUint32(nil, 64<<10+1)), "Block size 65537 exceeded max: 65536")
	for cut := 0; cut < len(ok)-4; cut++ {
		wantErr(t, codec.LZ4, 0, ok[:cut], "Stream ended prematurely")
	}
	if got := mustDecompress(t, codec.LZ4, 0, append(bytes.Clone(ok), "ignored after the end mark"...)); string(got) != "abc" {
		t.Fatalf("trailing bytes: %q", got)
	}

	// Block checksums (FLG bit 4) and a content checksum (FLG bit 2) from pierrec's writer.
	var b bytes.Buffer
	w := lz4.NewWriter(&b)
	w.Apply(lz4.BlockChecksumOption(true), lz4.ChecksumOption(true), lz4.BlockSizeOption(lz4.Block64Kb))
	src := recordData(200 << 10)
	w.Write(src)
	w.Close()
	f := b.Bytes()
	if got := mustDecompress(t, codec.LZ4, 1, f); !bytes.Equal(got, src) {
		t.Fatal("block-checksummed frame")
	}
	bad := bytes.Clone(f)
	bad[len(bad)-1] ^= 1 // the content checksum: Kafka reads it and does not verify it
	if got := mustDecompress(t, codec.LZ4, 1, bad); !bytes.Equal(got, src) {
		t.Fatal("content checksum must not be verified")
	}
	bad = bytes.Clone(f)
	first := int(binary.LittleEndian.Uint32(f[7:]) &^ 0x80000000)
	bad[11+first] ^= 1 // the first block's checksum
	wantErr(t, codec.LZ4, 1, bad, "Block checksum mismatch")
}

// zstd-jni's ZstdInputStream (ZstdCompression.wrapForInput) reads concatenated frames and
// skips skippable frames (RFC 8878 3.1.2: magic 0x184D2A5?, a length, data); other trailing
// bytes are an error.
func TestZstdFrames(t *testing.T) {
	enc, _ := zstd.NewWriter(nil)
	two := enc.EncodeAll([]byte("world"), enc.EncodeAll([]byte("hello "), nil))
	if got := mustDecompress(t, codec.Zstd, 2, two); string(got) != "hello world" {
		t.Fatalf("two frames: %q", got)
	}
	skip := append([]byte{0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'x', 'y', 'z'}, enc.EncodeAll([]byte("after"), nil)...)
	if got := mustDecompress(t, codec.Zstd, 2, skip); string(got) != "after" {
		t.Fatalf("skippable frame: %q", got)
	}
	_, err := codec.Decompress(codec.Zstd, 2, append(enc.EncodeAll([]byte("a"), nil), "junk"...), 0)
	var ce *codec.Error
	if !errors.As(err, &ce) {
		t.Fatalf("trailing junk: %v", err)
	}
}
