package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/klauspost/compress/snappy"
)

// xerial framing (org.xerial.snappy.SnappyOutputStream, which Kafka's
// SnappyCompression.wrapForOutput uses): a 16-byte header, the magic
// "\x82SNAPPY\x00" then a big-endian int32 version and an int32 minimum
// compatible version (both 1), then chunks of a big-endian int32 length and
// one raw snappy block (32 KiB of input each by default).
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

const (
	xerialHeaderLen = 16
	// SnappyCodec.MAGIC_HEADER_HEAD: the magic's first 4 bytes read as an
	// int, which SnappyInputStream.hasNextChunk takes, in place of a chunk
	// length, as the start of a concatenated stream's header.
	xerialMagicHead = 0x82534E41
	// A snappy element turns at most 3 input bytes into 64 output bytes (a
	// copy with a 2-byte offset), so no block decodes to more than 64/3 of
	// its length: a larger declared length is corrupt and is refused before
	// the decoder allocates it.
	snappyMaxRatio = 22
)

// unsnappy reads src as Kafka's reader does (SnappyCompression.wrapForInput:
// xerial's SnappyInputStream): xerial framing when src starts with the full
// 16-byte header and the magic, otherwise the whole of src as one raw snappy
// block (SnappyInputStream.readHeader: "(probably) compressed by
// Snappy.compress(byte[])"). Blocks are decoded by klauspost/compress/snappy's
// DecodeStrict, which rejects what the reference C++ decoder (the one xerial
// wraps) rejects, such as s2's repeat-offset extension.
func unsnappy(src []byte, s *sink) ([]byte, error) {
	if len(src) < xerialHeaderLen || !bytes.Equal(src[:8], xerialMagic) {
		if err := snappyBlock(src, 0, s); err != nil {
			return nil, err
		}
		return s.buf, nil
	}
	if err := xerialHeader(src, 0); err != nil {
		return nil, err
	}
	for p := xerialHeaderLen; ; {
		// hasNextChunk: fewer than 4 bytes left ends the stream quietly.
		if len(src)-p < 4 {
			return s.buf, nil
		}
		size := int32(binary.BigEndian.Uint32(src[p:]))
		if uint32(size) == xerialMagicHead {
			// A concatenated stream: the rest of a header must follow, and
			// an invalid one ends the stream ("isValidHeader ... else false").
			if len(src)-p < xerialHeaderLen {
				return nil, corrupt(Snappy, int64(p), "Insufficient header size in a concatenated block")
			}
			if !bytes.Equal(src[p:p+8], xerialMagic) {
				return s.buf, nil
			}
			if err := xerialHeader(src, p); err != nil {
				return nil, err
			}
			p += xerialHeaderLen
			continue
		}
		if size < 0 {
			return nil, corrupt(Snappy, int64(p), "chunkSize is too big or negative : %d", size)
		}
		if int(size) > len(src)-p-4 {
			return nil, corrupt(Snappy, int64(p), "failed to read chunk: length %d, %d bytes left", size, len(src)-p-4)
		}
		if err := snappyBlock(src[p+4:p+4+int(size)], int64(p+4), s); err != nil {
			return nil, err
		}
		if s.done() {
			return s.buf, nil
		}
		p += 4 + int(size)
	}
}

// xerialHeader checks the version of the header at src[p:] (SnappyInputStream
// .isValidHeader: "compressed with incompatible codec version").
func xerialHeader(src []byte, p int) error {
	if v := int32(binary.BigEndian.Uint32(src[p+8:])); v < 1 {
		return corrupt(Snappy, int64(p+8), "compressed with incompatible codec version %d. At least version 1 is required", v)
	}
	return nil
}

// snappyBlock appends the decoded raw snappy block b (at offset off of the
// input) to the sink.
func snappyBlock(b []byte, off int64, s *sink) error {
	n, err := snappy.DecodedLen(b)
	if err != nil {
		return &Error{Codec: Snappy, Offset: off, Msg: "block length header", Err: err}
	}
	if int64(n) > snappyMaxRatio*int64(len(b)) {
		return corrupt(Snappy, off, "block of %d bytes declares %d decoded bytes, more than snappy can encode in it", len(b), n)
	}
	if total := int64(len(s.buf)) + int64(n); total > s.limit {
		return &LimitError{Codec: Snappy, What: fmt.Sprintf("decompressed output (%d bytes with a block that declares %d)", total, n), Limit: s.limit}
	}
	if err := s.reserve(n); err != nil {
		return err
	}
	out, err := snappy.DecodeStrict(s.buf[len(s.buf):len(s.buf)+n], b)
	if err != nil {
		return &Error{Codec: Snappy, Offset: off, Msg: fmt.Sprintf("block of %d bytes", len(b)), Err: err}
	}
	s.buf = s.buf[:len(s.buf)+len(out)]
	return nil
}
