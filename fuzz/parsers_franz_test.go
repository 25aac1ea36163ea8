package fuzz

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"kidx/codec"
)

// The parser fuzz targets live in fuzz/parsers and fuzz/parsers/decoding, whose test binaries do not link
// franz-go (docs/fuzz.md, "Parser fuzz targets"). What needs franz-go stays here: the seeds
// only franz-go's producer compressor makes (written once into that package's committed
// corpus and checked to be there), and FuzzDecompress's comparison with franz-go's consumer
// decompressor, run over that corpus.

var writeFranzSeeds = flag.Bool("write-franz-seeds", false, "write the franz-go seeds of fuzz/parsers/decoding's corpus (TestFranzSeedsCommitted)")

const parsersCorpus = "parsers/decoding/testdata/fuzz"

// franzCompress is franz-go's producer compressor: the bytes a real Go client writes.
func franzCompress(c codec.Codec, src []byte) []byte {
	cc := map[codec.Codec]kgo.CompressionCodec{codec.Gzip: kgo.GzipCompression(), codec.Snappy: kgo.SnappyCompression(),
		codec.LZ4: kgo.Lz4Compression(), codec.Zstd: kgo.ZstdCompression()}[c]
	comp, err := kgo.DefaultCompressor(cc)
	if err != nil {
		panic(err)
	}
	out, _ := comp.Compress(new(bytes.Buffer), src)
	return bytes.Clone(out)
}

// The three builders below are fuzz/parsers/decoding's seedRecords, seedV2Batch and seedLegacy (that
// package's tests cannot be imported): a records section of three DefaultRecords, a v2 batch
// around a section (docs/kafka.md §1.3), a v0/v1 message (§1.4).
func franzSeedRecords() []byte {
	var out []byte
	for i, v := range []string{"first value", "second", "third value, longer than the others"} {
		b := []byte{0}
		b = binary.AppendVarint(b, int64(i*3))
		b = binary.AppendVarint(b, int64(i))
		b = binary.AppendVarint(b, 3)
		b = append(b, "key"...)
		b = binary.AppendVarint(b, int64(len(v)))
		b = append(b, v...)
		b = binary.AppendVarint(b, 1)
		b = binary.AppendVarint(b, 1)
		b = append(b, 'h')
		b = binary.AppendVarint(b, -1)
		out = binary.AppendVarint(out, int64(len(b)))
		out = append(out, b...)
	}
	return out
}

func franzSeedV2Batch(base int64, attrs int16, count int32, section []byte) []byte {
	b := make([]byte, 61, 61+len(section))
	be := binary.BigEndian
	be.PutUint64(b, uint64(base))
	be.PutUint32(b[8:], uint32(49+len(section)))
	b[16] = 2
	be.PutUint16(b[21:], uint16(attrs))
	be.PutUint32(b[23:], uint32(count-1))
	be.PutUint64(b[27:], 1700000000000)
	be.PutUint64(b[35:], 1700000000006)
	be.PutUint64(b[43:], 0xffffffffffffffff)
	be.PutUint16(b[51:], 0xffff)
	be.PutUint32(b[53:], 0xffffffff)
	be.PutUint32(b[57:], uint32(count))
	b = append(b, section...)
	be.PutUint32(b[17:], crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

func franzSeedLegacy(offset int64, magic, attrs byte, value []byte) []byte {
	m := []byte{0, 0, 0, 0, magic, attrs}
	if magic == 1 {
		m = binary.BigEndian.AppendUint64(m, 1700000000000)
	}
	m = binary.BigEndian.AppendUint32(m, 0xffffffff) // null key
	if value == nil {
		m = binary.BigEndian.AppendUint32(m, 0xffffffff)
	} else {
		m = binary.BigEndian.AppendUint32(m, uint32(len(value)))
		m = append(m, value...)
	}
	binary.BigEndian.PutUint32(m, crc32.ChecksumIEEE(m[4:]))
	e := binary.BigEndian.AppendUint64(nil, uint64(offset))
	return append(binary.BigEndian.AppendUint32(e, uint32(len(m))), m...)
}

// franzSeeds are the seeds of FuzzDecompress and FuzzRecordsAnyBatch that were f.Add calls
// before the targets moved, by corpus file name: the same inputs.
func franzSeeds() map[string]string {
	out := map[string]string{}
	section := franzSeedRecords()
	for _, c := range []codec.Codec{codec.Gzip, codec.Snappy, codec.LZ4, codec.Zstd} {
		comp := franzCompress(c, section)
		out["FuzzDecompress/franz-"+c.String()] = corpusFile(byte(c), byte(2), comp)
		out["FuzzDecompress/franz-"+c.String()+"-cut"] = corpusFile(byte(c), byte(1), comp[:len(comp)*2/3])
	}
	out["FuzzDecompress/franz-gzip-two-members"] = corpusFile(byte(codec.Gzip), byte(0), append(franzCompress(codec.Gzip, []byte("a")), franzCompress(codec.Gzip, []byte("b"))...))
	out["FuzzDecompress/franz-zstd-skippable"] = corpusFile(byte(codec.Zstd), byte(2), append([]byte{0x50, 0x2a, 0x4d, 0x18, 1, 0, 0, 0, 'x'}, franzCompress(codec.Zstd, section)...))

	for _, c := range []codec.Codec{codec.Gzip, codec.Snappy, codec.LZ4, codec.Zstd} {
		payload := franzCompress(c, section)
		out["FuzzRecordsAnyBatch/franz-v2-"+c.String()] = corpusFile(franzSeedV2Batch(10, int16(c), 3, payload))
		out["FuzzRecordsAnyBatch/franz-v2-"+c.String()+"-logappendtime"] = corpusFile(franzSeedV2Batch(10, int16(c)|0x08, 3, payload))
	}
	inner := append(append(franzSeedLegacy(0, 1, 0, []byte("a")), franzSeedLegacy(1, 1, 0, []byte("b"))...), franzSeedLegacy(2, 1, 0, nil)...)
	inner0 := append(franzSeedLegacy(7, 0, 0, []byte("x")), franzSeedLegacy(8, 0, 0, []byte("y"))...)
	for _, c := range []codec.Codec{codec.Gzip, codec.Snappy, codec.LZ4} {
		out["FuzzRecordsAnyBatch/franz-v1-"+c.String()] = corpusFile(franzSeedLegacy(12, 1, byte(c), franzCompress(c, inner)))
		out["FuzzRecordsAnyBatch/franz-v1-"+c.String()+"-logappendtime"] = corpusFile(franzSeedLegacy(0, 1, byte(c)|0x08, franzCompress(c, inner)))
		out["FuzzRecordsAnyBatch/franz-v0-"+c.String()] = corpusFile(franzSeedLegacy(8, 0, byte(c), franzCompress(c, inner0)))
	}
	out["FuzzRecordsAnyBatch/franz-v1-zstd"] = corpusFile(franzSeedLegacy(2, 1, byte(codec.Zstd), franzCompress(codec.Zstd, inner)))
	return out
}

// corpusFile encodes values in Go's corpus format ("go test fuzz v1", one value a line, as
// internal/fuzz writes byte and []byte values).
func corpusFile(vals ...any) string {
	var b strings.Builder
	b.WriteString("go test fuzz v1\n")
	for _, v := range vals {
		switch v := v.(type) {
		case byte:
			fmt.Fprintf(&b, "byte(%q)\n", v)
		case []byte:
			fmt.Fprintf(&b, "[]byte(%q)\n", v)
		default:
			panic(fmt.Sprintf("corpusFile: %T", v))
		}
	}
	return b.String()
}

// parseCorpusFile decodes the values of a corpus file of FuzzDecompress (byte or uint8, byte
// or uint8, []byte), the forms internal/fuzz writes and reads.
func parseCorpusFile(text string) ([]any, error) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) == 0 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("not a corpus file")
	}
	var out []any
	for _, l := range lines[1:] {
		open, end := strings.IndexByte(l, '('), strings.LastIndexByte(l, ')')
		if open < 0 || end < open {
			return nil, fmt.Errorf("line %q", l)
		}
		typ, lit := l[:open], l[open+1:end]
		switch typ {
		case "[]byte":
			s, err := strconv.Unquote(lit)
			if err != nil {
				return nil, fmt.Errorf("line %q: %v", l, err)
			}
			out = append(out, []byte(s))
		case "byte", "uint8":
			if strings.HasPrefix(lit, "'") {
				r, _, tail, err := strconv.UnquoteChar(lit[1:len(lit)-1], '\'')
				if err != nil || tail != "" || r > 255 {
					return nil, fmt.Errorf("line %q: %v", l, err)
				}
				out = append(out, byte(r))
			} else {
				n, err := strconv.ParseUint(lit, 0, 8)
				if err != nil {
					return nil, fmt.Errorf("line %q: %v", l, err)
				}
				out = append(out, byte(n))
			}
		default:
			return nil, fmt.Errorf("line %q: type %s", l, typ)
		}
	}
	return out, nil
}

// TestFranzSeedsCommitted: the seeds that franz-go's producer makes are in fuzz/parsers/decoding's
// corpus, byte for byte, so that moving the targets out of this package kept every seed they
// had (issue 13, item 5: "keep their seed corpora"). -write-franz-seeds writes them.
func TestFranzSeedsCommitted(t *testing.T) {
	for name, want := range franzSeeds() {
		path := filepath.Join(parsersCorpus, name)
		if *writeFranzSeeds {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("%s: not the franz-go seed (%v); go test ./fuzz/ -run TestFranzSeedsCommitted -write-franz-seeds writes it", path, err)
		}
	}
}

// TestDecompressAgreesWithFranz is FuzzDecompress's oracle check, run over its committed
// corpus (fuzz/parsers/decoding/testdata/fuzz/FuzzDecompress): where franz-go's consumer decompressor
// (pierrec's lz4 frame reader, s2 for snappy) accepts an input that codec.Decompress also
// accepts within the limit, both give the same bytes (docs/codec.md). Magic-0 lz4 is left
// out: franz-go does not implement KAFKA-3160's broken checksum.
func TestDecompressAgreesWithFranz(t *testing.T) {
	const limit = 256 << 10 // fuzz/parsers/decoding's fuzzCodecLimit
	files, err := filepath.Glob(filepath.Join(parsersCorpus, "FuzzDecompress", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	dec := kgo.DefaultDecompressor()
	compared := 0
	for _, path := range files {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		vals, err := parseCorpusFile(string(text))
		if err != nil || len(vals) != 3 {
			t.Fatalf("%s: %v (%d values)", path, err, len(vals))
		}
		id, m, src := vals[0].(byte), vals[1].(byte), vals[2].([]byte)
		c, magic := codec.Codec(id%8), int8(m%3)
		out, err := codec.Decompress(c, magic, src, limit)
		if err != nil || c == codec.None || c > codec.Zstd || (c == codec.LZ4 && magic == 0) {
			continue
		}
		if other, oerr := dec.Decompress(src, kgo.CompressionCodecType(c)); oerr == nil {
			compared++
			if !bytes.Equal(other, out) {
				t.Errorf("%s: %s: %d bytes, franz-go's decompressor %d different bytes", path, c, len(out), len(other))
			}
		}
	}
	if compared < 4 {
		t.Fatalf("only %d inputs compared with franz-go (the corpus holds one per codec)", compared)
	}
}
