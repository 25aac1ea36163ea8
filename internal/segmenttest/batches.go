package segmenttest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"path/filepath"
	"testing"

	"kidx/codec"
	"kidx/internal/testfiles"
	"kidx/segment"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Batch78 is docs/kafka.md §1.3's example: one record, key "key1", value
// "value1", deltas 0: 78 bytes.
func Batch78(ts int64) []byte {
	return segment.AppendBatch(nil, 0, []segment.RecordSpec{{Key: []byte("key1"), Value: []byte("value1"), Timestamp: ts}}, segment.BatchDefaults)
}

func ThreeBatches() []byte {
	var b []byte
	for i := 0; i < 3; i++ {
		x := Batch78(int64(i))
		binary.BigEndian.PutUint64(x, uint64(i))
		b = append(b, x...)
	}
	return b
}

func WalkAll(t testing.TB, lf *segment.LogFile) []segment.BatchInfo {
	t.Helper()
	var bs []segment.BatchInfo
	res := lf.Walk(0, 0, func(b segment.BatchInfo) bool { bs = append(bs, b); return true })
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	return bs
}

type Rec struct {
	TsDelta, OffDelta int64
	Key, Value        []byte // nil = null (length -1)
	Headers           []string
}

// V2Records encodes DefaultRecords: zig-zag varints (binary.AppendVarint is Kafka's
// ByteUtils.writeVarint encoding), attributes 0, key, value, headers with 1-byte values.
func V2Records(rs []Rec) []byte {
	var out []byte
	for _, r := range rs {
		b := []byte{0}
		b = binary.AppendVarint(b, r.TsDelta)
		b = binary.AppendVarint(b, r.OffDelta)
		for _, kv := range [][]byte{r.Key, r.Value} {
			if kv == nil {
				b = binary.AppendVarint(b, -1)
			} else {
				b = binary.AppendVarint(b, int64(len(kv)))
				b = append(b, kv...)
			}
		}
		b = binary.AppendVarint(b, int64(len(r.Headers)))
		for _, h := range r.Headers {
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

type V2Hdr struct {
	Base                 int64
	Attrs                int16
	LastDelta            int32
	BaseTs, MaxTs        int64
	BaseSeq, Count       int32
	ProducerID           int64
	PartitionLeaderEpoch int32
}

// V2Batch lays out a DefaultRecordBatch header (§1.3 offsets) around the records section and
// fills in Length and the CRC-32C over [21, end).
func V2Batch(h V2Hdr, section []byte) []byte {
	b := make([]byte, 61, 61+len(section))
	be := binary.BigEndian
	be.PutUint64(b[0:], uint64(h.Base))
	be.PutUint32(b[8:], uint32(49+len(section)))
	be.PutUint32(b[12:], uint32(h.PartitionLeaderEpoch))
	b[16] = 2
	be.PutUint16(b[21:], uint16(h.Attrs))
	be.PutUint32(b[23:], uint32(h.LastDelta))
	be.PutUint64(b[27:], uint64(h.BaseTs))
	be.PutUint64(b[35:], uint64(h.MaxTs))
	be.PutUint64(b[43:], uint64(h.ProducerID))
	be.PutUint16(b[51:], 0xffff)
	be.PutUint32(b[53:], uint32(h.BaseSeq))
	be.PutUint32(b[57:], uint32(h.Count))
	b = append(b, section...)
	be.PutUint32(b[17:], crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// LegacyMsg lays out offset(8) size(4) crc(4) magic attributes [timestamp] key value
// (LegacyRecord), with the CRC-32 (IEEE) over magic..end.
func LegacyMsg(offset int64, magic, attrs byte, ts int64, key, value []byte) []byte {
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

// Franz compresses with franz-go's producer compressor (what a real client writes).
func Franz(t testing.TB, c codec.Codec, src []byte) []byte {
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

// OpenBytes writes the batches as a .log in a temp dir and opens it.
func OpenBytes(t testing.TB, batches ...[]byte) (*segment.LogFile, []segment.BatchInfo) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	testfiles.MustWrite(t, path, bytes.Join(batches, nil))
	lf, err := segment.OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lf.Close() })
	return lf, WalkAll(t, lf)
}

var SampleRecs = []Rec{
	{0, 0, []byte("k0"), []byte("v0"), nil},
	{5, 1, nil, []byte("value one"), []string{"a", "b"}},
	{9, 2, []byte("k2"), nil, []string{"trace"}},
}

// LegacyLen is the length of the first legacy entry of b (offset, size, message).
func LegacyLen(b []byte) int { return 12 + int(binary.BigEndian.Uint32(b[8:])) }
