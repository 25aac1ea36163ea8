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
		"out-of-order":      {{seg0 + ".log", four}, {seg0 + ".index", index(0, 14, 250, 9, 100)}},
		"missing-index":     {{seg0 + ".log", three}},
		"missing-log":       {{seg0 + ".index", index(0, 9, 100)}},
		"negative-position": {{seg0 + ".log", three}, {seg0 + ".index", index(0, 9, -5)}},
		"warm-section":      {{seg0 + ".log", three}, {seg0 + ".index", warm}},
		"size-minus-12":     {{seg0 + ".log", join(v2Batch(0, 4, 100), minus12)}, {seg0 + ".index", nil}},
		"zero-position":     {{seg0 + ".log", four}, {seg0 + ".index", index(0, 4, 0, 9, 100, 14, 250)}},
		"stale-after-zero":  {{seg0 + ".log", four}, {seg0 + ".index", index(0, 9, 100, 0, 250, 14, 250)}},
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
