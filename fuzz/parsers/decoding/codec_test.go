package decoding

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"kidx/codec"
	"kidx/fuzz/internal/parsecheck"
	"kidx/segment"
)

// The decompression fuzz targets bound output by a limit, not by the input (a bomb is small
// by design), so their allocation budget is the limit's: the output buffer doubling to
// limit+1, zstd's decoder bound of max(limit, 8 MiB) (codec/zstd.go), deflate's 1032:1 for
// FirstOffset's default-limit path, plus the usual per-input-byte allowance.
const (
	fuzzCodecLimit = 256 << 10
	zstdBound      = 8 << 20
)

func codecBudget(n int) uint64 {
	return uint64(3*zstdBound + 4*fuzzCodecLimit + 3*1032*n + parsecheck.AllocFactor*n + parsecheck.AllocFixed)
}

// kafka3160Frame is a magic-0 LZ4 frame as Kafka 0.8/0.9 wrote it: FLG 0x60, BD 0x40, the
// header checksum over the magic number too (0x1a, KAFKA-3160), one stored block.
func kafka3160Frame(payload []byte) []byte {
	f := []byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x1a}
	f = binary.LittleEndian.AppendUint32(f, uint32(len(payload))|0x80000000)
	return append(append(f, payload...), 0, 0, 0, 0)
}

// realSeeds returns real Kafka 0.8 batches (the first entries of the kafkalite fixtures in
// /work/shared/realdata, read in place, not copied), when present.
func realSeeds() [][]byte {
	var out [][]byte
	for _, dir := range []string{"hamlet-gzip-0", "hamlet-snappy-0", "hamlet-none-0"} {
		d, err := os.ReadFile(filepath.Join(parsecheck.RealData(), "kafkalite", dir, "00000000000000000000.log"))
		if err != nil || len(d) < 12 {
			continue
		}
		n := min(len(d), 12+int(binary.BigEndian.Uint32(d[8:])))
		out = append(out, d[:n])
	}
	return out
}

// FuzzDecompress: arbitrary bytes through every codec id (0-7: Kafka's five and unknown
// ones) and both lz4 framings (magic 0: KAFKA-3160's checksum ignored; 1, 2: checked).
// Checked: no panic; an error is *codec.Error or *codec.LimitError; output never over the
// limit; allocation bounded by the limit, not by what the input declares; a prefix decode
// is a prefix of the full output. The comparison with franz-go's consumer decompressor
// (pierrec's lz4 frame reader, s2 for snappy) runs in package fuzz over this target's
// committed corpus (fuzz.TestDecompressAgreesWithFranz): this package does not link franz-go.
func FuzzDecompress(f *testing.F) {
	// The bytes franz-go's producer compresses (every codec, whole and cut, two gzip members,
	// a zstd skippable frame) are committed in testdata/fuzz/FuzzDecompress/franz-*: this
	// package does not link franz-go (fuzz.TestFranzSeedsCommitted writes and checks them).
	section := parsecheck.SeedRecords()
	f.Add(uint8(codec.LZ4), uint8(0), kafka3160Frame(section))
	f.Add(uint8(codec.LZ4), uint8(1), kafka3160Frame(section))
	f.Add(uint8(codec.Snappy), uint8(0), []byte{6, 1 << 2, 'a', 'b', 0x01, 0x00})         // raw snappy, offset-0 copy
	f.Add(uint8(codec.Snappy), uint8(0), []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x00, 'a'}) // raw snappy claiming 4 GiB
	f.Add(uint8(codec.Zstd), uint8(2), []byte{0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0, 0, 1, 0, 0, 0x03, 0x00, 0x10, 0})
	f.Add(uint8(5), uint8(2), section)
	for _, b := range realSeeds() {
		if len(b) > 26 && b[17]&7 != 0 {
			f.Add(b[17]&7, uint8(0), b[26:]) // a magic-0 wrapper's value: after crc, magic, attrs, key -1, value length
		}
	}
	f.Fuzz(func(t *testing.T, id, m uint8, src []byte) {
		c, magic := codec.Codec(id%8), int8(m%3)
		var out []byte
		var err error
		parsecheck.CheckAllocBudget(t, parsecheck.SampleOf(src, int64(id)<<8|int64(m)).Alloc, "Decompress", codecBudget(len(src)), func() { out, err = codec.Decompress(c, magic, src, fuzzCodecLimit) })
		if err != nil {
			var ce *codec.Error
			var le *codec.LimitError
			if !errors.As(err, &ce) && !errors.As(err, &le) {
				t.Fatalf("%s: error of type %T: %v", c, err, err)
			}
			return
		}
		if len(out) > fuzzCodecLimit {
			t.Fatalf("%s: %d bytes over the %d limit", c, len(out), fuzzCodecLimit)
		}
		n := len(out)/2 + 1
		p, perr := codec.DecompressPrefix(c, magic, src, n)
		if perr != nil || !bytes.Equal(p, out[:min(n, len(out))]) {
			t.Fatalf("%s: prefix of %d: %d bytes, %v", c, n, len(p), perr)
		}
	})
}

// FuzzRecordsAnyBatch: arbitrary bytes as a one-batch .log file, legacy or v2, compressed
// or not (seeds: every codec as franz-go compresses it, committed, magic-1 and magic-0 wrappers, a
// KAFKA-3160 lz4 wrapper, control batches, real Kafka 0.8 wrappers when present). Checked:
// Records, FirstOffset and RecordTimestamps never panic; errors are *segment.FormatError
// inside the file; allocation is bounded by the decompression limit; keys and values fit
// the limit; FirstOffset is the header's base offset for v2 and agrees with the first
// record Records gives for legacy batches; RecordTimestamps gives the records' timestamps.
func FuzzRecordsAnyBatch(f *testing.F) {
	parsecheck.AddGoldenSeeds(f, segment.LogSuffix)
	// The batches whose payload franz-go's producer compresses (v2 with every codec, legacy
	// wrappers of magic 0 and 1) are committed in testdata/fuzz/FuzzRecordsAnyBatch/franz-*
	// (fuzz.TestFranzSeedsCommitted writes and checks them): this package does not link franz-go.
	section := parsecheck.SeedRecords()
	f.Add(parsecheck.SeedV2Batch(10, 0, 3, section))
	f.Add(parsecheck.SeedV2Batch(10, 0x08, 3, section)) // LogAppendTime
	inner0 := append(parsecheck.SeedLegacy(7, 0, 0, []byte("x")), parsecheck.SeedLegacy(8, 0, 0, []byte("y"))...)
	f.Add(parsecheck.SeedLegacy(8, 0, byte(codec.LZ4), kafka3160Frame(inner0)))
	f.Add(parsecheck.SeedLegacy(5, 1, 0, []byte("plain v1")))
	commit := []byte{0, 0, 0, 8, 0, 0, 0, 1, 12, 0, 0, 0, 0, 0, 5, 0} // key COMMIT, marker epoch 5
	f.Add(parsecheck.SeedV2Batch(3, 0x30, 1, append(binary.AppendVarint(nil, int64(len(commit))), commit...)))
	header := []byte{0, 0, 0, 8, 0, 0, 0, 3, 22, // key SNAPSHOT_HEADER, then its 11-byte value
		0, 0, 0, 0, 1, 0x9b, 0x4a, 0xa9, 0xcb, 0x5d, 0, 0}
	f.Add(parsecheck.SeedV2Batch(0, 0x20, 1, append(binary.AppendVarint(nil, int64(len(header))), header...)))
	for _, b := range realSeeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := parsecheck.SampleOf(data, 0)
		measure := s.Alloc
		// A real file for every input under go test and one in parsecheck.FileEvery under -fuzz; the
		// others are read from memory (LogFileFromBytes: the same reader, no system call).
		lf := segment.LogFileFromBytes("00000000000000000000.log", data)
		if s.File {
			var err error
			if lf, err = segment.OpenLog(parsecheck.WriteScratch(t, "records", "00000000000000000000.log", data)); err != nil {
				t.Fatal(err)
			}
		}
		defer lf.Close()
		var bs []segment.BatchInfo
		lf.Walk(0, 0, func(b segment.BatchInfo) bool { bs = append(bs, b); return len(bs) < 4 })
		lim := segment.RecordLimits{MaxDecompressedBytes: fuzzCodecLimit}
		for _, b := range bs {
			var recs []segment.DecodedRecord
			var rerr, ferr, terr error
			var first int64
			var ts []int64
			parsecheck.CheckAllocBudget(t, measure, "Records", codecBudget(len(data)), func() {
				recs = recs[:0]
				rerr = lf.Records(b, lim, func(r segment.DecodedRecord) bool {
					if len(r.Key) > fuzzCodecLimit || len(r.Value) > fuzzCodecLimit {
						t.Fatalf("%v: key %d value %d bytes over the limit", b, len(r.Key), len(r.Value))
					}
					r.Key, r.Value = nil, nil
					recs = append(recs, r)
					return true
				})
				first, ferr = lf.FirstOffset(b)
			})
			for _, err := range []error{rerr, ferr} {
				var fe *segment.FormatError
				if err != nil && (!errors.As(err, &fe) || fe.Pos < b.Position || fe.Pos > b.End()) {
					t.Fatalf("%v: error %T %v outside the batch", b, err, err)
				}
			}
			if !b.IsLegacy() {
				if ferr != nil || first != b.Header.BaseOffset {
					t.Fatalf("v2 FirstOffset %d %v, header base %d", first, ferr, b.Header.BaseOffset)
				}
				if int64(len(recs)) > max(int64(b.Header.RecordCount), 0) {
					t.Fatalf("%d records from a count of %d", len(recs), b.Header.RecordCount)
				}
				if b.Header.Compression() == 0 && len(recs) > int(b.Size-61)/7 {
					t.Fatalf("%d records in %d uncompressed bytes", len(recs), b.Size-61)
				}
			} else if rerr == nil && len(recs) > 0 && ferr == nil && first != recs[0].Offset {
				t.Fatalf("legacy FirstOffset %d, first record %d", first, recs[0].Offset)
			}
			if b.IsLegacy() && b.Legacy.Attributes&7 == 0 && (rerr == nil) != (len(recs) == 1) {
				t.Fatalf("uncompressed legacy message: %d records, %v", len(recs), rerr)
			}
			// RecordTimestamps is Records with the default limit: where Records succeeded
			// within the fuzz limit it gives the same timestamps.
			if rerr == nil {
				terr = lf.RecordTimestamps(b, func(_, t int64) bool { ts = append(ts, t); return true })
				if terr != nil || len(ts) != len(recs) {
					t.Fatalf("RecordTimestamps: %d timestamps, %v; Records %d", len(ts), terr, len(recs))
				}
				for i, r := range recs {
					if ts[i] != r.Timestamp {
						t.Fatalf("timestamp %d: %d, Records %d", i, ts[i], r.Timestamp)
					}
				}
			}
		}
	})
}
