//go:build ignore

// generate writes the hand-built partitions of this directory, one directory per case, from
// byte layouts spelled out below (answers.json describes each case and holds the answers,
// worked out by hand from the rules). Run it from this directory: go run generate.go
//
// It imports no kidx package: the bytes come from Kafka's layouts (docs/kafka.md §1.2-§1.4,
// §4), not from kidx's writer, so that the readers under test and kidx are checked against
// something neither of them wrote.
package main

import (
	"encoding/binary"
	"hash/crc32"
	"log"
	"os"
	"path/filepath"
)

// v2Batch is a record batch of total bytes (12 + its Length field) holding offsets
// base..base+delta, with a valid CRC-32C (docs/kafka.md §1.3) and zero record bytes: the
// readers under test read headers only.
func v2Batch(base int64, delta int32, total int) []byte {
	b := make([]byte, total)
	binary.BigEndian.PutUint64(b[0:], uint64(base))
	binary.BigEndian.PutUint32(b[8:], uint32(total-12))
	b[16] = 2 // magic
	binary.BigEndian.PutUint32(b[23:], uint32(delta))
	binary.BigEndian.PutUint64(b[27:], 1700000000000)                // base timestamp
	binary.BigEndian.PutUint64(b[35:], 1700000000000)                // max timestamp
	binary.BigEndian.PutUint64(b[43:], ^uint64(0))                   // producer id -1
	binary.BigEndian.PutUint16(b[51:], 0xffff)                       // producer epoch -1
	binary.BigEndian.PutUint32(b[53:], 0xffffffff)                   // base sequence -1
	binary.BigEndian.PutUint32(b[57:], uint32(delta+1))              // records count
	crc := crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)) // attributes to the end
	binary.BigEndian.PutUint32(b[17:], crc)
	return b
}

// legacy is a v0 or v1 message (docs/kafka.md §1.4): offset, size, CRC-32 over magic to the
// end, magic, attributes, (v1) timestamp, a null key and the value.
func legacy(magic byte, offset int64, attributes byte, value []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint64(b, uint64(offset))
	b = append(b, 0, 0, 0, 0) // size, below
	b = append(b, 0, 0, 0, 0) // crc, below
	b = append(b, magic, attributes)
	if magic == 1 {
		b = binary.BigEndian.AppendUint64(b, 1700000000000)
	}
	b = binary.BigEndian.AppendUint32(b, 0xffffffff) // key length -1: null key
	b = binary.BigEndian.AppendUint32(b, uint32(len(value)))
	b = append(b, value...)
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
	binary.BigEndian.PutUint32(b[12:], crc32.ChecksumIEEE(b[16:]))
	return b
}

// legacyNullValue is a v1 message whose value is null (value size -1), with attributes.
func legacyNullValue(offset int64, attributes byte) []byte {
	b := legacy(1, offset, attributes, nil)
	binary.BigEndian.PutUint32(b[len(b)-4:], 0xffffffff)
	binary.BigEndian.PutUint32(b[12:], crc32.ChecksumIEEE(b[16:]))
	return b
}

// storedGzip is a gzip member holding data in one stored (uncompressed) deflate block, so its
// length is hand-computable: 10 header bytes, 5 block-header bytes, the data, 8 trailer bytes.
func storedGzip(data []byte) []byte {
	b := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff} // magic, deflate, no flags, mtime 0, xfl, os unknown
	b = append(b, 1)                                   // BFINAL 1, BTYPE 00 (stored)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(data)))
	b = binary.LittleEndian.AppendUint16(b, ^uint16(len(data)))
	b = append(b, data...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(data))
	return binary.LittleEndian.AppendUint32(b, uint32(len(data)))
}

// v2Record is one record of a v2 batch (docs/kafka.md §1.3), 8 bytes: body length 7 (zigzag
// 14), attributes 0, a one-byte timestamp delta and offset delta (zigzag: 0 <= delta < 64), a
// null key (-1: 0x01), a one-byte value "v" and no header.
func v2Record(timestampDelta, offsetDelta byte) []byte {
	return []byte{14, 0, timestampDelta << 1, offsetDelta << 1, 1, 2, 'v', 0}
}

// v2BatchWithRecords is a v2 batch of the given records (offset deltas 0..n-1), base timestamp
// and max timestamp, gzip'd (stored) when gzipped, with a valid CRC-32C.
func v2BatchWithRecords(base int64, baseTime, maxTime int64, gzipped bool, records ...[]byte) []byte {
	body := join(records...)
	var attributes uint16
	if gzipped {
		body, attributes = storedGzip(body), 1
	}
	b := make([]byte, 61, 61+len(body))
	b = append(b, body...)
	binary.BigEndian.PutUint64(b[0:], uint64(base))
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
	b[16] = 2
	binary.BigEndian.PutUint16(b[21:], attributes)
	binary.BigEndian.PutUint32(b[23:], uint32(len(records)-1))
	binary.BigEndian.PutUint64(b[27:], uint64(baseTime))
	binary.BigEndian.PutUint64(b[35:], uint64(maxTime))
	binary.BigEndian.PutUint64(b[43:], ^uint64(0))
	binary.BigEndian.PutUint16(b[51:], 0xffff)
	binary.BigEndian.PutUint32(b[53:], 0xffffffff)
	binary.BigEndian.PutUint32(b[57:], uint32(len(records)))
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// timeIndex is a .timeindex file: each pair is (timestamp, relative offset).
func timeIndex(pairs ...int64) []byte {
	var b []byte
	for i := 0; i+1 < len(pairs); i += 2 {
		b = binary.BigEndian.AppendUint64(b, uint64(pairs[i]))
		b = binary.BigEndian.AppendUint32(b, uint32(pairs[i+1]))
	}
	return b
}

// index is a .index file: each pair is (relative offset, position), then zeroSlots zero slots.
func index(zeroSlots int, pairs ...int32) []byte {
	var b []byte
	for _, v := range pairs {
		b = binary.BigEndian.AppendUint32(b, uint32(v))
	}
	return append(b, make([]byte, 8*zeroSlots)...)
}

func join(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func main() {
	const seg0 = "00000000000000000000"
	// Three v2 batches: 0-4 at 0 (100 bytes), 5-9 at 100 (150), 10-14 at 250 (80); 330 bytes.
	three := join(v2Batch(0, 4, 100), v2Batch(5, 4, 150), v2Batch(10, 4, 80))
	// The same and a fourth: 15-19 at 330 (70); 400 bytes.
	four := join(three, v2Batch(15, 4, 70))

	warm := index(0, 5000, 100) // slot 0 out of order, then 1025 sorted slots
	for rel := int32(1); rel <= 1025; rel++ {
		warm = append(warm, index(0, rel, 250)...)
	}
	smallBatch := make([]byte, 52) // a v2 header claiming Length 40: offsets 5..9
	binary.BigEndian.PutUint64(smallBatch[0:], 5)
	binary.BigEndian.PutUint32(smallBatch[8:], 40)
	smallBatch[16] = 2
	binary.BigEndian.PutUint32(smallBatch[23:], 4)
	minus12 := make([]byte, 61) // a v2 header claiming Length -12: offsets 5..5
	binary.BigEndian.PutUint64(minus12[0:], 5)
	binary.BigEndian.PutUint32(minus12[8:], 0xfffffff4)
	minus12[16] = 2
	stand := make([]byte, 20) // stand-in compressed bytes of a gzip wrapper (never decompressed here)
	for i := range stand {
		stand[i] = byte(0xa0 + i)
	}
	wrapper := legacy(1, 107, 1, stand) // its offset field is its last inner offset

	// Issue 24's per-release cases.
	// offset-before-size: 0-4 at 0 (100 bytes), then at 100 an entry with offset 5 and size 3
	// followed by 18 bytes; 130 bytes.
	smallSize := make([]byte, 30)
	binary.BigEndian.PutUint64(smallSize[0:], 5)
	binary.BigEndian.PutUint32(smallSize[8:], 3)
	// v2-size-30: a 30-byte v2 batch (size field 18; base 5, lastOffsetDelta 4 at its byte 23).
	short30 := make([]byte, 30)
	binary.BigEndian.PutUint64(short30[0:], 5)
	binary.BigEndian.PutUint32(short30[8:], 18)
	short30[16] = 2
	binary.BigEndian.PutUint32(short30[23:], 4)
	// v2-load-past-end: a 40-byte v2 batch (size 28; base 5, delta 4) ending the file at 140.
	short40 := make([]byte, 40)
	binary.BigEndian.PutUint64(short40[0:], 5)
	binary.BigEndian.PutUint32(short40[8:], 28)
	short40[16] = 2
	binary.BigEndian.PutUint32(short40[23:], 4)
	// legacy-magic: 5-9 at 100 with its magic byte flipped to 0xff (-1) and byte 17 (the CRC's
	// first byte, a legacy record's attributes) set to 1: "gzip".
	flipped := v2Batch(5, 4, 150)
	flipped[16], flipped[17] = 0xff, 0x01
	// size-minus-one-after-hit: a 61-byte header with size field -1 after 5-9.
	minus1 := make([]byte, 61)
	binary.BigEndian.PutUint64(minus1[0:], 10)
	binary.BigEndian.PutUint32(minus1[8:], 0xffffffff)
	minus1[16] = 2
	// base-offset-3: 5-9 at 100 whose base offset field reads 3 (last 3 + 4 = 7).
	based3 := v2Batch(5, 4, 150)
	binary.BigEndian.PutUint64(based3[0:], 3)
	// legacy-gzip (base 100): v1 offset 100 at 0 (39 bytes); a v1 gzip wrapper at 39 holding
	// three v1 messages of relative offsets 0, 1, 2 (35 bytes each), wrapper offset 103: 12 +
	// 22 + (105 + 23) = 162 bytes; a snappy wrapper of 10 garbage bytes, offset 105, at 201 (44
	// bytes); a gzip wrapper with a null value, offset 106, at 245 (34 bytes); 279 bytes.
	inner := join(legacy(1, 0, 0, []byte("a")), legacy(1, 1, 0, []byte("a")), legacy(1, 2, 0, []byte("a")))
	garbage := []byte{0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 4, 5}
	legacyGzip := join(legacy(1, 100, 0, []byte("hello")), legacy(1, 103, 1, storedGzip(inner)),
		legacy(1, 105, 2, garbage), legacyNullValue(106, 1))
	// timestamps: 0-2 at 0 (timestamps 1000, 1001, 1005; 85 bytes), 3-4 at 85 (1003, 1010; 77
	// bytes), 5-6 gzip'd at 162 (1020, 1030; 61 + 16 + 23 = 100 bytes); 262 bytes.
	stamped := join(
		v2BatchWithRecords(0, 1000, 1005, false, v2Record(0, 0), v2Record(1, 1), v2Record(5, 2)),
		v2BatchWithRecords(3, 1003, 1010, false, v2Record(0, 0), v2Record(7, 1)),
		v2BatchWithRecords(5, 1020, 1030, true, v2Record(0, 0), v2Record(10, 1)))
	seg100 := "00000000000000000100"

	type file struct {
		name string
		data []byte
	}
	cases := map[string][]file{
		"three-v2":   {{seg0 + ".log", three}, {seg0 + ".index", index(0, 9, 100)}},
		"zero-tail":  {{seg0 + ".log", four}, {seg0 + ".index", index(6, 9, 100, 14, 250)}},
		"torn-last":  {{seg0 + ".log", join(v2Batch(0, 4, 100), v2Batch(5, 4, 150))[:220]}, {seg0 + ".index", nil}},
		"size-zero":  {{seg0 + ".log", join(v2Batch(0, 4, 100), make([]byte, 80))}, {seg0 + ".index", nil}},
		"v2-size-40": {{seg0 + ".log", join(v2Batch(0, 4, 100), smallBatch, v2Batch(10, 4, 80))}, {seg0 + ".index", nil}},
		"legacy": {
			{"00000000000000000100.log", join(legacy(0, 100, 0, []byte("hello")), legacy(0, 101, 0, []byte("hello")),
				legacy(1, 102, 0, []byte("hello")), wrapper)},
			{"00000000000000000100.index", index(0, 2, 62)},
		},
		"out-of-order":             {{seg0 + ".log", four}, {seg0 + ".index", index(0, 14, 250, 9, 100)}},
		"missing-index":            {{seg0 + ".log", three}},
		"missing-log":              {{seg0 + ".index", index(0, 9, 100)}},
		"negative-position":        {{seg0 + ".log", three}, {seg0 + ".index", index(0, 9, -5)}},
		"warm-section":             {{seg0 + ".log", three}, {seg0 + ".index", warm}},
		"size-minus-12":            {{seg0 + ".log", join(v2Batch(0, 4, 100), minus12)}, {seg0 + ".index", nil}},
		"zero-position":            {{seg0 + ".log", four}, {seg0 + ".index", index(0, 4, 0, 9, 100, 14, 250)}},
		"stale-after-zero":         {{seg0 + ".log", four}, {seg0 + ".index", index(0, 9, 100, 0, 250, 14, 250)}},
		"offset-before-size":       {{seg0 + ".log", join(v2Batch(0, 4, 100), smallSize)}, {seg0 + ".index", nil}},
		"tail-15-zeros":            {{seg0 + ".log", join(v2Batch(0, 4, 100), make([]byte, 15))}, {seg0 + ".index", nil}},
		"v2-size-30":               {{seg0 + ".log", join(v2Batch(0, 4, 100), short30, v2Batch(10, 4, 80))}, {seg0 + ".index", nil}},
		"v2-load-past-end":         {{seg0 + ".log", join(v2Batch(0, 4, 100), short40)}, {seg0 + ".index", nil}},
		"legacy-magic":             {{seg0 + ".log", join(v2Batch(0, 4, 100), flipped, v2Batch(10, 4, 80))}, {seg0 + ".index", nil}},
		"size-minus-one-after-hit": {{seg0 + ".log", join(v2Batch(0, 4, 100), v2Batch(5, 4, 150), minus1)}, {seg0 + ".index", nil}},
		"base-offset-3":            {{seg0 + ".log", join(v2Batch(0, 4, 100), based3, v2Batch(10, 4, 80))}, {seg0 + ".index", nil}},
		"legacy-gzip":              {{seg100 + ".log", legacyGzip}, {seg100 + ".index", nil}},
		"timestamp-negative-position": {
			{seg0 + ".log", stamped}, {seg0 + ".index", index(0, 4, -5)}, {seg0 + ".timeindex", timeIndex(1010, 4)},
		},
		"timestamps": {
			{seg0 + ".log", stamped}, {seg0 + ".index", index(0, 4, 85)}, {seg0 + ".timeindex", timeIndex(1005, 2, 1010, 4)},
			{seg100 + ".log", nil}, {"00000000000000000050.log.deleted", nil}, {"00000000000000000070.index", nil},
		},
	}
	for dir, files := range cases {
		if err := os.RemoveAll(dir); err != nil {
			log.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			log.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
				log.Fatal(err)
			}
		}
	}
}
