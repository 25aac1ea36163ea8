package handmade

import (
	"encoding/binary"
	"hash/crc32"
)

// GzipCase is a gzip stream built by hand and what java.util.zip.GZIPInputStream reads from
// it (Kafka inflates gzip wrappers and batches with it): Want the bytes, or, when Fails,
// an exception.
type GzipCase struct {
	Name  string
	Data  []byte
	Want  string
	Fails bool
}

// storedMember is one gzip member of data in a stored deflate block: flags, then the optional
// header bytes (FEXTRA, FNAME, FCOMMENT, FHCRC as the flags name them, given by the caller).
func storedMember(flags byte, optional []byte, data string) []byte {
	b := append([]byte{0x1f, 0x8b, 8, flags, 0, 0, 0, 0, 0, 0xff}, optional...)
	b = append(b, 1) // BFINAL, stored
	b = binary.LittleEndian.AppendUint16(b, uint16(len(data)))
	b = binary.LittleEndian.AppendUint16(b, ^uint16(len(data)))
	b = append(b, data...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE([]byte(data)))
	return binary.LittleEndian.AppendUint32(b, uint32(len(data)))
}

func joined(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// GzipCases are GZIPInputStream's rules (readHeader, readTrailer) on hand-built streams.
func GzipCases() []GzipCase {
	plain := storedMember(0, nil, "abc")
	long := make([]byte, 600) // a 600-byte file name (no limit in readHeader)
	for i := range long {
		long[i] = 'n'
	}
	hcrc := []byte{0x1f, 0x8b, 8, 2, 0, 0, 0, 0, 0, 0xff}
	crc := crc32.ChecksumIEEE(hcrc)
	badTrailer := storedMember(0, nil, "abc")
	badTrailer[len(badTrailer)-8] ^= 1
	badHCRC := storedMember(2, []byte{byte(crc), byte(crc>>8) ^ 1}, "x")
	return []GzipCase{
		{Name: "one member", Data: plain, Want: "abc"},
		{Name: "two members", Data: joined(plain, storedMember(0, nil, "de")), Want: "abcde"},
		{Name: "garbage after a member is ignored", Data: joined(plain, []byte("garbage!")), Want: "abc"},
		{Name: "zeros after a member are ignored", Data: joined(plain, make([]byte, 30)), Want: "abc"},
		{Name: "a cut header after a member is ignored", Data: joined(plain, []byte{0x1f, 0x8b, 8}), Want: "abc"},
		{Name: "a bad header CRC after a member ends the stream", Data: joined(plain, badHCRC), Want: "abc"},
		{Name: "reserved flag bits are no error", Data: storedMember(0xe0, nil, "r"), Want: "r"},
		{Name: "FEXTRA, FNAME of 600 bytes, FCOMMENT", Data: storedMember(4|8|16, joined([]byte{2, 0, 'x', 'y'}, long, []byte{0}, []byte("c"), []byte{0}), "ok"), Want: "ok"},
		{Name: "FHCRC that matches", Data: storedMember(2, []byte{byte(crc), byte(crc >> 8)}, "h"), Want: "h"},
		{Name: "FHCRC that does not match", Data: badHCRC, Fails: true},
		{Name: "not gzip", Data: []byte("not gzip at all"), Fails: true},
		{Name: "empty", Data: nil, Fails: true},
		{Name: "a corrupt trailer CRC", Data: badTrailer, Fails: true},
		{Name: "no trailer", Data: plain[:len(plain)-8], Fails: true},
		{Name: "a cut deflate stream", Data: plain[:12], Fails: true},
		{Name: "a bad deflate block type", Data: joined(plain[:10], []byte{7, 0, 0, 0}), Fails: true},
		{Name: "a corrupt second member", Data: joined(plain, storedMember(0, nil, "de")[:14]), Fails: true},
	}
}
