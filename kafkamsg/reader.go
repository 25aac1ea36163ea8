package kafkamsg

import (
	"encoding/binary"
	"fmt"
	"math"
)

// reader reads a message's bytes as Kafka's ByteBufferAccessor reads a ByteBuffer: big-endian
// fixed-width integers, unsigned varints (ByteUtils.readUnsignedVarint). It never panics: the
// first failure is kept (sticky) and every later read returns zero, so callers check err once.
type reader struct {
	buf []byte
	pos int
	err error
}

func (r *reader) remaining() int { return len(r.buf) - r.pos }

// fail keeps the first error.
func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// take is the next n bytes, or nil and a BufferUnderflowException (whose getMessage() is
// null) when fewer remain: ByteBuffer.get leaves the position where it was.
func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > r.remaining() {
		r.fail(&ReadError{Kafka: "null", Detail: fmt.Sprintf("buffer underflow: %d byte(s) needed at byte %d, %d left", n, r.pos, r.remaining())})
		return nil
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b
}

func (r *reader) readByte() int8 {
	b := r.take(1)
	if b == nil {
		return 0
	}
	return int8(b[0])
}

func (r *reader) readShort() int16 {
	b := r.take(2)
	if b == nil {
		return 0
	}
	return int16(binary.BigEndian.Uint16(b))
}

func (r *reader) readInt() int32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

func (r *reader) readLong() int64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

func (r *reader) readDouble() float64 { return math.Float64frombits(uint64(r.readLong())) }

func (r *reader) readUUID() [16]byte {
	var u [16]byte
	if b := r.take(16); b != nil {
		copy(u[:], b)
	}
	return u
}

// readUnsignedVarint is ByteUtils.readUnsignedVarint: at most five bytes, the fifth's bits
// shifted into a Java int (so values from 2^31 read as negative ints), and a fifth byte with
// its top bit set is an IllegalArgumentException.
func (r *reader) readUnsignedVarint() int32 {
	var result int32
	for i := 0; i < 5; i++ {
		b := r.take(1)
		if b == nil {
			return 0
		}
		c := int32(int8(b[0]))
		if i == 4 {
			result |= c << 28
			if c < 0 {
				r.fail(&ReadError{Kafka: fmt.Sprintf("Varint is too long, the most significant bit in the 5th byte is set, converted value: %x", uint32(result))})
				return 0
			}
			return result
		}
		if c >= 0 {
			return result | c<<(7*i)
		}
		result |= (c & 127) << (7 * i)
	}
	return result
}

// readArray is ByteBufferAccessor.readArray: a size beyond the remaining bytes is refused in
// Kafka's words; a negative size is Java's NegativeArraySizeException (its message is the size).
func (r *reader) readArray(size int32) []byte {
	if r.err != nil {
		return nil
	}
	if int(size) > r.remaining() {
		r.fail(&ReadError{Kafka: fmt.Sprintf("Error reading byte array of %d byte(s): only %d byte(s) available", size, r.remaining())})
		return nil
	}
	if size < 0 {
		r.fail(&ReadError{Kafka: fmt.Sprint(size), Detail: fmt.Sprintf("negative array size %d", size)})
		return nil
	}
	return append([]byte{}, r.take(int(size))...)
}

// readByteBuffer is ByteBufferAccessor.readByteBuffer (zero-copy bytes, records): a slice
// whose limit is set to length, which Java's Buffer.limit refuses beyond the capacity. The
// callers have handled a negative length (null).
func (r *reader) readByteBuffer(length int32) []byte {
	if r.err != nil {
		return nil
	}
	if int(length) > r.remaining() {
		r.fail(&ReadError{Kafka: fmt.Sprintf("newLimit > capacity: (%d > %d)", length, r.remaining())})
		return nil
	}
	return append([]byte{}, r.take(int(length))...)
}
