package segment

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Compression codecs a batch's attributes name (CompressionType ids).
const (
	CompressionNone   Compression = 0
	CompressionGzip   Compression = 1
	CompressionSnappy Compression = 2
	CompressionLZ4    Compression = 3
	CompressionZstd   Compression = 4
)

// Compressions lists the four codecs the writer compresses with, by id.
var Compressions = []Compression{CompressionGzip, CompressionSnappy, CompressionLZ4, CompressionZstd}

// ParseCompression is the inverse of Compression.String for the five names of
// CompressionType ("none", "gzip", "snappy", "lz4", "zstd").
func ParseCompression(name string) (Compression, error) {
	for c := CompressionNone; c <= CompressionZstd; c++ {
		if c.String() == name {
			return c, nil
		}
	}
	return 0, fmt.Errorf("compression %q: want none, gzip, snappy, lz4 or zstd", name)
}

// A compressed batch of a workload (BatchSpec.Compression) must be exactly the workload's
// size, as an uncompressed one is (planSizedBatch), although a codec's output size is no
// simple function of its input. The writer holds the records fixed and varies filler: record
// i's value is the text "record-i" (what a compressor shrinks), and the last record's value
// ends with r pseudo-random bytes (which no codec shrinks, so each one adds about one byte
// to the payload). buildCompressedBatch searches r, and then a salt that changes the filler,
// until the payload plus a padding the codec's framing allows is exactly the size:
//
//   - gzip: a header comment (FCOMMENT, RFC 1952 section 2.3.1) of 1 to 64 bytes, which
//     java.util.zip.GZIPInputStream.readHeader skips;
//   - zstd: a skippable frame (8 to 256 bytes, RFC 8878 section 3.1.2) after the data frame,
//     which zstd-jni's ZstdInputStreamNoFinalizer (ZstdCompression.wrapForInput) skips;
//   - snappy and lz4: none (Kafka's xerial SnappyInputStream and KafkaLZ4BlockInputStream
//     read no padding), so r alone must hit the size.
//
// The search is deterministic: the same records, size and codec give the same bytes.
const (
	compressedSearchSteps = 24 // values of r tried per salt
	compressedSalts       = 8  // fillers tried before giving up
	zstdSkippableMin      = 8  // magic + frame size
	// The paddings stay small, the filler doing the bulk. A gzip comment is read by Go's gzip
	// reader only up to 511 bytes (compress/gzip readString's 512-byte buffer), where
	// GZIPInputStream reads any length. zstd's output jumps by up to about a hundred bytes
	// where its encoder changes how it codes the literals, which its padding must span.
	maxGzipPadding  = 64
	maxZstdPadding  = 256
	gzipHeaderLen   = 10 // ID1 ID2 CM FLG MTIME(4) XFL OS, no optional field
	gzipFlagComment = 0x10
	xerialChunk     = 32 << 10 // SnappyOutputStream's default block size
	lz4BlockMax     = 64 << 10 // KafkaLZ4BlockOutputStream's default BD (BLOCKSIZE_64KB)
)

// MinCompressedBatchSize is the smallest batch the writer builds of n records compressed
// with c (no filler, no padding): the 61-byte header plus the codec's output for the n
// records' text values.
func MinCompressedBatchSize(n int, c Compression) (int, error) {
	if err := checkCompressed(n, c); err != nil {
		return 0, err
	}
	payload, err := compressedPayloads.get(n, c, -1)
	if err != nil {
		return 0, err
	}
	return RecordBatchOverhead + len(payload), nil
}

// payloadCache keeps recent payloads: a payload depends only on the record count, the codec
// and the size (the base offset and timestamps are in the header), and the same batch is
// built several times (kidx corpus: its minimum, the differential check's files, the case's
// files). Bounded by payloadCacheBytes; when full it is emptied.
type payloadCache struct {
	mu    sync.Mutex
	m     map[payloadKey][]byte
	bytes int
}

type payloadKey struct {
	n, avail int // avail -1: the minimum (no filler, no padding)
	c        Compression
}

const payloadCacheBytes = 16 << 20

var compressedPayloads = &payloadCache{}

// get returns the payload of exactly avail bytes (fit), or the minimum for avail -1. The
// returned slice is shared: callers copy it.
func (pc *payloadCache) get(n int, c Compression, avail int) ([]byte, error) {
	k := payloadKey{n, avail, c}
	pc.mu.Lock()
	p, ok := pc.m[k]
	pc.mu.Unlock()
	if ok {
		return p, nil
	}
	var enc compressedEncoder
	var err error
	if avail < 0 {
		p, err = enc.payload(n, c, 0, 0)
	} else {
		p, err = enc.fit(n, c, avail)
	}
	if err != nil {
		return nil, err
	}
	p = bytes.Clone(p)
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.m == nil || pc.bytes+len(p) > payloadCacheBytes {
		pc.m, pc.bytes = map[payloadKey][]byte{}, 0
	}
	if len(p) <= payloadCacheBytes/4 {
		pc.m[k] = p
		pc.bytes += len(p)
	}
	return p, nil
}

// BuildCompressedBatch returns a valid v2 batch of exactly sizeInBytes bytes whose records
// section is compressed with c: records at offsets baseOffset.., every record stamped
// maxTimestamp, keys null, values as described above. It fails, saying "needs at least",
// when the size is below MinCompressedBatchSize, and "no record layout" when the search
// finds no exact size (rare: a few sizes just above the minimum).
func BuildCompressedBatch(baseOffset int64, records, sizeInBytes int, maxTimestamp int64, c Compression) ([]byte, error) {
	return appendCompressedBatch(nil, baseOffset, records, sizeInBytes, maxTimestamp, c)
}

func checkCompressed(n int, c Compression) error {
	if c < CompressionGzip || c > CompressionZstd {
		return fmt.Errorf("compression %s: the writer compresses with gzip, snappy, lz4 or zstd", c)
	}
	if n < 1 || n > 1<<30 {
		return fmt.Errorf("record count %d out of range for a compressed batch (1 to 2^30)", n)
	}
	return nil
}

func appendCompressedBatch(dst []byte, baseOffset int64, n, size int, ts int64, c Compression) ([]byte, error) {
	if err := checkCompressed(n, c); err != nil {
		return dst, err
	}
	if size > 1<<31-1 {
		return dst, fmt.Errorf("batch size %d exceeds Integer.MAX_VALUE", size)
	}
	payload, err := compressedPayloads.get(n, c, size-RecordBatchOverhead)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	// The header MemoryRecordsBuilder writes for a non-idempotent producer, with the codec in
	// the attributes' low three bits (DefaultRecordBatch.COMPRESSION_CODEC_MASK).
	dst = appendBatchHeader(dst, BatchHeader{
		BaseOffset: baseOffset, Magic: 2, Attributes: int16(c), LastOffsetDelta: int32(n - 1),
		BaseTimestamp: ts, MaxTimestamp: ts, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		RecordCount: int32(n),
	})
	dst = append(dst, payload...)
	return finishBatch(dst, start), nil
}

// compressedEncoder builds the uncompressed records section and compresses it.
type compressedEncoder struct {
	records []byte
	out     bytes.Buffer
}

// fit returns a payload of exactly avail bytes (see the comment on the constants).
func (e *compressedEncoder) fit(n int, c Compression, avail int) ([]byte, error) {
	base, err := compressedPayloads.get(n, c, -1) // the minimum, often cached already
	if err != nil {
		return nil, err
	}
	if avail < len(base) {
		return nil, fmt.Errorf("a %s batch of %s needs at least %d bytes with the writer's records; %d requested", c, plural(n, "record"), RecordBatchOverhead+len(base), RecordBatchOverhead+avail)
	}
	if p, ok := e.pad(c, base, avail); ok {
		return p, nil
	}
	aim := 0
	switch c {
	case CompressionGzip:
		aim = maxGzipPadding / 2
	case CompressionZstd:
		aim = 32
	}
	for salt := range compressedSalts {
		r := avail - aim - len(base)
		for range compressedSearchSteps {
			if r < 0 {
				break
			}
			p, err := e.payload(n, c, r, salt)
			if err != nil {
				return nil, err
			}
			if out, ok := e.pad(c, p, avail); ok {
				return out, nil
			}
			// Each filler byte adds about one byte: step by the distance to the aim, at least
			// one. Where the codec can pad, the aim leaves room for a padding in the middle of
			// its range, so that the codec's noise (an entropy coder's table) stays inside it.
			d := avail - aim - len(p)
			if d == 0 {
				d = -1
			}
			r += d
		}
	}
	return nil, fmt.Errorf("no record layout gives a %s batch of %s and %d bytes", c, plural(n, "record"), RecordBatchOverhead+avail)
}

// pad returns p padded to avail bytes as c's framing allows, or false.
func (e *compressedEncoder) pad(c Compression, p []byte, avail int) ([]byte, bool) {
	d := avail - len(p)
	switch {
	case d == 0:
		return p, true
	case d < 0:
		return nil, false
	case c == CompressionGzip && d <= maxGzipPadding:
		// FCOMMENT: d-1 bytes of text and the terminating zero, after the fixed header.
		out := make([]byte, 0, avail)
		out = append(out, p[:gzipHeaderLen]...)
		out[3] |= gzipFlagComment
		out = appendFill(out, d-1, 'c')
		out = append(out, 0)
		return append(out, p[gzipHeaderLen:]...), true
	case c == CompressionZstd && d >= zstdSkippableMin && d <= maxZstdPadding:
		out := append(make([]byte, 0, avail), p...)
		out = binary.LittleEndian.AppendUint32(out, 0x184D2A50)
		out = binary.LittleEndian.AppendUint32(out, uint32(d-zstdSkippableMin))
		return appendFill(out, d-zstdSkippableMin, 0), true
	}
	return nil, false
}

// payload compresses the records section of n records with r filler bytes of salt's stream.
func (e *compressedEncoder) payload(n int, c Compression, r, salt int) ([]byte, error) {
	e.records = appendTextRecords(e.records[:0], n, r, salt)
	e.out.Reset()
	var err error
	switch c {
	case CompressionGzip:
		err = gzipRecords(&e.out, e.records)
	case CompressionSnappy:
		xerialRecords(&e.out, e.records)
	case CompressionLZ4:
		err = lz4Records(&e.out, e.records)
	case CompressionZstd:
		var enc *zstd.Encoder
		if enc, err = zstdEncoder(); err == nil {
			e.out.Write(enc.EncodeAll(e.records, nil))
		}
	}
	return e.out.Bytes(), err
}

// appendTextRecords appends n records (offset deltas 0..n-1, timestamp delta 0, null keys,
// no headers) whose values are "record-i"; the last one's is followed by r filler bytes of
// salt's stream. From salt 1 on, the filler is split in two by the value's text once more (a
// match for the codecs): an LZ4 or snappy literal run's length field grows by a byte at some
// lengths (LZ4 at 15 + 255k, snappy at 61 and 257), so one run skips a payload size, which
// two runs of other lengths reach.
func appendTextRecords(dst []byte, n, r, salt int) []byte {
	var text [32]byte
	for i := range n {
		v := strconv.AppendInt(append(text[:0], "record-"...), int64(i), 10)
		if i < n-1 {
			dst = appendRecord(dst, int32(i), 0, nil, v)
			continue
		}
		first := r * salt / compressedSalts
		val := make([]byte, 0, 2*len(v)+r)
		val = append(val, v...)
		var seed [32]byte
		binary.LittleEndian.PutUint64(seed[:], uint64(salt)+0x6b696478) // "kidx"
		filler := rand.NewChaCha8(seed)
		val = val[:len(val)+first]
		filler.Read(val[len(v):])
		if first > 0 {
			val = append(val, v...)
		}
		k := len(val)
		val = val[:k+r-first]
		filler.Read(val[k:])
		dst = appendRecord(dst, int32(i), 0, nil, val)
	}
	return dst
}

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	return w
}}

// gzipRecords writes one gzip member as GzipOutputStream does (Deflater.DEFAULT_COMPRESSION,
// header with no name, comment or time).
func gzipRecords(out *bytes.Buffer, records []byte) error {
	w := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(w)
	w.Reset(out)
	// MTIME 0, as GZIPOutputStream writes it (klauspost's writer would write the zero
	// time.Time's Unix seconds, truncated).
	w.ModTime = time.Unix(0, 0)
	if _, err := w.Write(records); err != nil {
		return err
	}
	return w.Close()
}

// xerialRecords writes xerial's SnappyOutputStream framing (SnappyCompression.wrapForOutput):
// the 16-byte header ("\x82SNAPPY\x00", version 1, minimum compatible version 1), then for
// every 32 KiB of input a big-endian int32 length and one raw snappy block.
func xerialRecords(out *bytes.Buffer, records []byte) {
	out.Write([]byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1})
	var lenBuf [4]byte
	for len(records) > 0 {
		k := min(len(records), xerialChunk)
		block := snappy.Encode(nil, records[:k])
		binary.BigEndian.PutUint32(lenBuf[:], uint32(len(block)))
		out.Write(lenBuf[:])
		out.Write(block)
		records = records[k:]
	}
}

// lz4FrameHeader is KafkaLZ4BlockOutputStream's frame header for magic 2: magic 0x184D2204
// (little-endian), FLG 0x60 (version 01, independent blocks, no block or content checksum,
// no content size), BD 0x40 (64 KiB blocks), HC = (XXH32(FLG, BD) >> 8) & 0xFF (the correct
// checksum; KAFKA-3160's broken one is magic 0's).
var lz4FrameHeader = []byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82}

// lz4Records writes Kafka's LZ4 frame (KafkaLZ4BlockOutputStream.writeBlock): each 64 KiB
// of input one block, compressed, or stored with the length's high bit when compression
// does not shrink it; a zero length ends the frame.
func lz4Records(out *bytes.Buffer, records []byte) error {
	out.Write(lz4FrameHeader)
	block := make([]byte, lz4.CompressBlockBound(lz4BlockMax))
	var lenBuf [4]byte
	for len(records) > 0 {
		k := min(len(records), lz4BlockMax)
		m, err := lz4.CompressBlock(records[:k], block, nil)
		if err != nil {
			return err
		}
		if m == 0 || m >= k {
			binary.LittleEndian.PutUint32(lenBuf[:], uint32(k)|0x80000000)
			out.Write(lenBuf[:])
			out.Write(records[:k])
		} else {
			binary.LittleEndian.PutUint32(lenBuf[:], uint32(m))
			out.Write(lenBuf[:])
			out.Write(block[:m])
		}
		records = records[k:]
	}
	out.Write([]byte{0, 0, 0, 0})
	return nil
}

// zstdEncoder is one shared encoder (EncodeAll is safe for concurrent use) at zstd's default
// level 3 (ZstdCompression's default) and without the content checksum, which zstd-jni's
// ZstdOutputStream does not write unless asked.
var zstdEncoder = sync.OnceValues(func() (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(false),
		zstd.WithEncoderConcurrency(1))
})
