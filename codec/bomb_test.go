package codec_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"kidx/codec"
)

// bombs are small inputs that expand far past a 1 MiB limit: 64 MiB of zeros for gzip
// (~65 KB), lz4 (~260 KB) and zstd (~2 KB); 4 MiB for xerial snappy (~200 KB: snappy
// expands at most 64/3 times); plus a raw snappy block and a zstd frame whose headers
// declare 2 MiB / 1 TiB, which must be refused before anything is allocated.
func bombs(t *testing.T) map[string]struct {
	c   codec.Codec
	src []byte
} {
	zeros := make([]byte, 64<<20)
	var g bytes.Buffer
	gw, _ := kgzip.NewWriterLevel(&g, kgzip.BestCompression)
	gw.Write(zeros)
	gw.Close()
	x := []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}
	blk := snappy.Encode(nil, zeros[:32<<10])
	for i := 0; i < 128; i++ { // 4 MiB: snappy expands at most 64/3 times
		x = binary.BigEndian.AppendUint32(x, uint32(len(blk)))
		x = append(x, blk...)
	}
	var l bytes.Buffer
	lw := lz4.NewWriter(&l)
	lw.Write(zeros)
	lw.Close()
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	z := enc.EncodeAll(zeros, nil)
	raw := snappy.Encode(nil, zeros[:2<<20]) // one raw block (about 100 KB) declaring 2 MiB
	// zstd frame header (RFC 8878 3.1.1): magic, descriptor 0xe0 (8-byte content size,
	// single segment), content size 1 TiB, then an RLE block (type 1) of the max size.
	zfcs := []byte{0x28, 0xb5, 0x2f, 0xfd, 0xe0}
	zfcs = binary.LittleEndian.AppendUint64(zfcs, 1<<40)
	// Block header (3 bytes little-endian): last block, type 1 (RLE), size 128 KiB; then the byte.
	zfcs = append(zfcs, 0x03, 0x00, 0x10, 0)
	return map[string]struct {
		c   codec.Codec
		src []byte
	}{
		"gzip": {codec.Gzip, g.Bytes()}, "snappy-xerial": {codec.Snappy, x}, "snappy-raw": {codec.Snappy, raw},
		"lz4": {codec.LZ4, l.Bytes()}, "zstd": {codec.Zstd, z}, "zstd-declared-size": {codec.Zstd, zfcs},
	}
}

// A decompression bomb is a *LimitError ("decompression bomb?"), and decoding it costs memory
// near the limit, never the bomb's size.
func TestBombsStopAtTheLimitWithBoundedMemory(t *testing.T) {
	const limit = 1 << 20
	for name, b := range bombs(t) {
		if len(b.src) > 300<<10 {
			t.Fatalf("%s: %d bytes is no bomb", name, len(b.src))
		}
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		_, err := codec.Decompress(b.c, 1, b.src, limit)
		runtime.ReadMemStats(&m1)
		var le *codec.LimitError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), "decompression bomb?") || le.Limit != limit {
			t.Fatalf("%s: %v, want a LimitError", name, err)
		}
		// zstd's decoder may use up to its 8 MiB minimum window (see zstd.go); the others
		// stay within a few times the limit (buffer doubling, one lz4 block of slack).
		budget := uint64(4*limit + 4<<20)
		if b.c == codec.Zstd {
			budget = 3 * 8 << 20
		}
		if got := m1.TotalAlloc - m0.TotalAlloc; got > budget {
			t.Fatalf("%s: allocated %d bytes for a %d-byte limit (budget %d)", name, got, limit, budget)
		}
	}
}

// A raw snappy block declaring more than snappy can encode in its bytes (a 7-byte block
// declaring 4 GiB: a copy element turns 3 bytes into at most 64) is corrupt, refused before
// the decoder allocates what it declares.
func TestSnappyImpossibleDeclaredLengthIsRefusedBeforeAllocating(t *testing.T) {
	raw := []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x00, 'a'}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err := codec.Decompress(codec.Snappy, 0, raw, 0)
	runtime.ReadMemStats(&m1)
	var ce *codec.Error
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "declares 4294967295 decoded bytes") {
		t.Fatalf("%v", err)
	}
	if got := m1.TotalAlloc - m0.TotalAlloc; got > 1<<20 {
		t.Fatalf("allocated %d bytes", got)
	}
}
