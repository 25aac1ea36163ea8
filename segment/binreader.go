package segment

import (
	"encoding/binary"
	"fmt"
)

// FormatError is a problem found at a byte position of a file. Every parse
// error of this package is one, so a report can always say where.
type FormatError struct {
	File string // path as given to the reader
	Pos  int64  // byte position in the file
	Msg  string
	// Class is the Java exception Kafka throws here, where kidx answers as Kafka's reader
	// (LookupAs); "" elsewhere.
	Class string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: byte %d: %s", e.File, e.Pos, e.Msg)
}

func formatErr(file string, pos int64, format string, args ...any) *FormatError {
	return &FormatError{File: file, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// binReader reads big-endian integers and Kafka varints from a byte slice in
// the style of franz-go's kbin.Reader: the first failure is sticky, later
// reads return zero values, and the caller checks Err once at the end. It
// never panics and never allocates beyond what it returns.
type binReader struct {
	src  []byte
	off  int    // next byte of src
	base int64  // file position of src[0]
	file string // for error messages
	err  error
}

func newBinReader(src []byte, file string, base int64) *binReader {
	return &binReader{src: src, file: file, base: base}
}

// pos is the file position of the next byte.
func (r *binReader) pos() int64 { return r.base + int64(r.off) }

func (r *binReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = formatErr(r.file, r.pos(), format, args...)
	}
	r.off = len(r.src)
}

func (r *binReader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || len(r.src)-r.off < n {
		r.fail("need %d bytes, only %d left", n, len(r.src)-r.off)
		return false
	}
	return true
}

func (r *binReader) remaining() int { return len(r.src) - r.off }

func (r *binReader) Int8() int8 {
	if !r.need(1) {
		return 0
	}
	v := int8(r.src[r.off])
	r.off++
	return v
}

func (r *binReader) Int16() int16 {
	if !r.need(2) {
		return 0
	}
	v := int16(binary.BigEndian.Uint16(r.src[r.off:]))
	r.off += 2
	return v
}

func (r *binReader) Uint32() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.BigEndian.Uint32(r.src[r.off:])
	r.off += 4
	return v
}

func (r *binReader) Int32() int32 { return int32(r.Uint32()) }

func (r *binReader) Int64() int64 {
	if !r.need(8) {
		return 0
	}
	v := int64(binary.BigEndian.Uint64(r.src[r.off:]))
	r.off += 8
	return v
}

// uvarint reads an unsigned LEB128 value of at most maxBytes bytes, as
// Kafka's ByteUtils.readVarint/readVarlong do before zig-zag decoding.
func (r *binReader) uvarint(maxBytes int) uint64 {
	var v uint64
	for i := 0; i < maxBytes; i++ {
		if !r.need(1) {
			return 0
		}
		b := r.src[r.off]
		r.off++
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return v
		}
	}
	r.fail("varint longer than %d bytes", maxBytes)
	return 0
}

// Varint reads a zig-zag int32 (ByteUtils.readVarint: at most 5 bytes).
func (r *binReader) Varint() int32 {
	u := uint32(r.uvarint(5))
	return int32(u>>1) ^ -int32(u&1)
}

// Varlong reads a zig-zag int64 (ByteUtils.readVarlong: at most 10 bytes).
func (r *binReader) Varlong() int64 {
	u := r.uvarint(10)
	return int64(u>>1) ^ -int64(u&1)
}

// Span returns the next n bytes without copying.
func (r *binReader) Span(n int) []byte {
	if !r.need(n) {
		return nil
	}
	v := r.src[r.off : r.off+n : r.off+n]
	r.off += n
	return v
}

// Err is the first error, or nil.
func (r *binReader) Err() error { return r.err }

// appendVarint appends a zig-zag varint as ByteUtils.writeVarint does.
func appendVarint(dst []byte, v int32) []byte {
	return appendUvarint(dst, uint64(uint32((v<<1)^(v>>31))))
}

// appendVarlong appends a zig-zag varlong as ByteUtils.writeVarlong does.
func appendVarlong(dst []byte, v int64) []byte {
	return appendUvarint(dst, uint64((v<<1)^(v>>63)))
}

func appendUvarint(dst []byte, u uint64) []byte {
	for u >= 0x80 {
		dst = append(dst, byte(u)|0x80)
		u >>= 7
	}
	return append(dst, byte(u))
}

// varintSize is ByteUtils.sizeOfVarint.
func varintSize(v int32) int { return uvarintSize(uint64(uint32((v << 1) ^ (v >> 31)))) }

// varlongSize is ByteUtils.sizeOfVarlong.
func varlongSize(v int64) int { return uvarintSize(uint64((v << 1) ^ (v >> 63))) }

func uvarintSize(u uint64) int {
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

// kafkaErr keeps Kafka's exception messages verbatim (capitalized), so
// reports can be compared with Kafka's own.
func kafkaErr(format string, args ...any) error {
	return &kafkaError{fmt.Sprintf(format, args...)}
}

type kafkaError struct{ msg string }

func (e *kafkaError) Error() string { return e.msg }
