package fuzz

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"kidx/codec"
	"kidx/fuzz/internal/parsecheck"
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

// franzSeeds are the seeds of FuzzDecompress and FuzzRecordsAnyBatch that were f.Add calls
// before the targets moved, by corpus file name: the same inputs.
func franzSeeds() map[string]string {
	out := map[string]string{}
	section := parsecheck.SeedRecords()
	for _, c := range []codec.Codec{codec.Gzip, codec.Snappy, codec.LZ4, codec.Zstd} {
		comp := franzCompress(c, section)
		out["FuzzDecompress/franz-"+c.String()] = corpusFile(byte(c), byte(2), comp)
		out["FuzzDecompress/franz-"+c.String()+"-cut"] = corpusFile(byte(c), byte(1), comp[:len(comp)*2/3])
	}
	out["FuzzDecompress/franz-gzip-two-members"] = corpusFile(byte(codec.Gzip), byte(0), append(franzCompress(codec.Gzip, []byte("a")), franzCompress(codec.Gzip, []byte("b"))...))
	out["FuzzDecompress/franz-zstd-skippable"] = corpusFile(byte(codec.Zstd), byte(2), append([]byte{0x50, 0x2a, 0x4d, 0x18, 1, 0, 0, 0, 'x'}, franzCompress(codec.Zstd, section)...))

	for _, c := range []codec.Codec{codec.Gzip, codec.Snappy, codec.LZ4, codec.Zstd} {
		payload := franzCompress(c, section)
		out["FuzzRecordsAnyBatch/franz-v2-"+c.String()] = corpusFile(parsecheck.SeedV2Batch(10, int16(c), 3, payload))
		out["FuzzRecordsAnyBatch/franz-v2-"+c.String()+"-logappendtime"] = corpusFile(parsecheck.SeedV2Batch(10, int16(c)|0x08, 3, payload))
	}
	inner := append(append(parsecheck.SeedLegacy(0, 1, 0, []byte("a")), parsecheck.SeedLegacy(1, 1, 0, []byte("b"))...), parsecheck.SeedLegacy(2, 1, 0, nil)...)
	inner0 := append(parsecheck.SeedLegacy(7, 0, 0, []byte("x")), parsecheck.SeedLegacy(8, 0, 0, []byte("y"))...)
	for _, c := range []codec.Codec{codec.Gzip, codec.Snappy, codec.LZ4} {
		out["FuzzRecordsAnyBatch/franz-v1-"+c.String()] = corpusFile(parsecheck.SeedLegacy(12, 1, byte(c), franzCompress(c, inner)))
		out["FuzzRecordsAnyBatch/franz-v1-"+c.String()+"-logappendtime"] = corpusFile(parsecheck.SeedLegacy(0, 1, byte(c)|0x08, franzCompress(c, inner)))
		out["FuzzRecordsAnyBatch/franz-v0-"+c.String()] = corpusFile(parsecheck.SeedLegacy(8, 0, byte(c), franzCompress(c, inner0)))
	}
	out["FuzzRecordsAnyBatch/franz-v1-zstd"] = corpusFile(parsecheck.SeedLegacy(2, 1, byte(codec.Zstd), franzCompress(codec.Zstd, inner)))
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
