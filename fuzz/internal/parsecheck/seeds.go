package parsecheck

import (
	"encoding/binary"
	"hash/crc32"
)

// Seed builders for the codec targets (fuzz/parsers/decoding) and the franz-go checks of
// their corpus (fuzz/).

// SeedRecords is a small v2 records section (DefaultRecord: zig-zag varints): three records
// with keys, values and a header.
func SeedRecords() []byte {
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

// SeedV2Batch lays out a v2 batch header (docs/kafka.md §1.3) around a records section, with
// Length and the CRC-32C filled in.
func SeedV2Batch(base int64, attrs int16, count int32, section []byte) []byte {
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

// SeedLegacy lays out a v0/v1 message (LegacyRecord) with its offset and size.
func SeedLegacy(offset int64, magic, attrs byte, value []byte) []byte {
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
