package codec_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"kidx/codec"
)

// realdata returns the path of a file of /work/shared/realdata (real Kafka files, read in
// place: ../../shared/realdata from this package). Without it the test is skipped loudly,
// and fails when CI is set.
func realdata(t testing.TB, rel string) string {
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

// legacyMessage is one v0/v1 entry of a .log, split by hand per LegacyRecord's layout:
// offset(8) size(4) crc(4) magic(1) attributes(1) [timestamp(8) if magic 1] keyLen(4) key
// valueLen(4) value.
type legacyMessage struct {
	Offset      int64
	Entry       []byte // offset, size and message
	Magic, Attr byte
	Value       []byte
}

func legacyEntries(t testing.TB, path string) []legacyMessage {
	t.Helper()
	d, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []legacyMessage
	for p := 0; p+12 <= len(d); {
		size := int(binary.BigEndian.Uint32(d[p+8:]))
		msg := d[p+12 : p+12+size]
		m := legacyMessage{Offset: int64(binary.BigEndian.Uint64(d[p:])), Entry: d[p : p+12+size], Magic: msg[4], Attr: msg[5]}
		k := 6
		if m.Magic == 1 {
			k = 14
		}
		kl := int32(binary.BigEndian.Uint32(msg[k:]))
		v := k + 4 + max(int(kl), 0)
		if vl := int32(binary.BigEndian.Uint32(msg[v:])); vl >= 0 {
			m.Value = msg[v+4 : v+4+int(vl)]
		}
		out = append(out, m)
		p += 12 + size
	}
	return out
}

// recordData is n bytes shaped like a v2 records section of JSON events: a varint length,
// attributes, deltas, a short key and a JSON value per record (compresses about 4-6x, like
// real event data).
func recordData(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	events := []string{"click", "view", "purchase", "signup", "logout"}
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		v := fmt.Sprintf(`{"id":%d,"user":"user-%d","event":"%s","ts":%d,"path":"/products/%d","amount":%d.%02d,"session":"%016x"}`,
			i, r.IntN(5000), events[r.IntN(len(events))], 1700000000000+int64(i)*7, r.IntN(900), r.IntN(500), r.IntN(100), r.Uint64())
		k := fmt.Sprintf("user-%d", r.IntN(5000))
		body := binary.AppendVarint(nil, 0)
		body = binary.AppendVarint(body, int64(i*7))
		body = binary.AppendVarint(body, int64(i))
		body = binary.AppendVarint(body, int64(len(k)))
		body = append(body, k...)
		body = binary.AppendVarint(body, int64(len(v)))
		body = append(body, v...)
		body = binary.AppendVarint(body, 0)
		b.Write(binary.AppendVarint(nil, int64(len(body))))
		b.Write(body)
	}
	return b.Bytes()[:n]
}

// franzCompress compresses src with franz-go's producer compressor (kgo.DefaultCompressor):
// the bytes a real Go Kafka client writes (gzip: klauspost's writer, snappy: xerial framing,
// lz4: pierrec's frame writer, zstd: klauspost's encoder).
func franzCompress(t testing.TB, c codec.Codec, src []byte) []byte {
	t.Helper()
	var cc kgo.CompressionCodec
	switch c {
	case codec.Gzip:
		cc = kgo.GzipCompression()
	case codec.Snappy:
		cc = kgo.SnappyCompression()
	case codec.LZ4:
		cc = kgo.Lz4Compression()
	case codec.Zstd:
		cc = kgo.ZstdCompression()
	}
	comp, err := kgo.DefaultCompressor(cc)
	if err != nil {
		t.Fatal(err)
	}
	out, used := comp.Compress(new(bytes.Buffer), src)
	if used != kgo.CompressionCodecType(c) {
		t.Fatalf("franz-go compressed with codec %d, want %d", used, c)
	}
	return bytes.Clone(out)
}

var compressed = []codec.Codec{codec.Gzip, codec.Snappy, codec.LZ4, codec.Zstd}
