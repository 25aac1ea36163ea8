package codec

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/pierrec/lz4/v4"
)

// Kafka's LZ4 frame (KafkaLZ4BlockOutputStream, "a partial implementation of
// the v1.5.1 LZ4 Frame format"): magic 0x184D2204 (little-endian), FLG, BD,
// an optional 8-byte content size, the header checksum byte HC, then blocks
// of a little-endian int32 length (high bit: stored uncompressed), the block,
// and an XXH32 block checksum when FLG says so; a zero length ends the frame,
// followed by a 4-byte content checksum when FLG says so.
const (
	lz4Magic             = 0x184D2204
	lz4Incompressible    = 0x80000000
	maxLZ4Block          = 4 << 20                                    // BD block size 7 (BLOCKSIZE_4MB)
	lz4PrematureEOS      = "Stream ended prematurely"                 // KafkaLZ4BlockInputStream.PREMATURE_EOS
	lz4NotSupported      = "Stream unsupported (invalid magic bytes)" // NOT_SUPPORTED
	lz4BlockHashBad      = "Block checksum mismatch"                  // BLOCK_HASH_MISMATCH
	lz4DescriptorHashBad = "Stream frame descriptor corrupted"        // DESCRIPTOR_HASH_MISMATCH
)

// lz4Scratch holds blocks decoded out of place (up to 4 MiB each).
var lz4Scratch = sync.Pool{New: func() any { return new([]byte) }}

// unlz4 reads src as KafkaLZ4BlockInputStream does, with
// ignoreFlagDescriptorChecksum = (magic == 0) (Lz4Compression.wrapForInput).
//
// KAFKA-3160: Kafka's magic-0 writers (and the 0.8/0.9 clients) computed HC
// over the magic number too: XXH32(bytes [0, 6)) instead of XXH32 of the
// descriptor alone (bytes [4, 6)). KafkaLZ4BlockOutputStream keeps that with
// useBrokenFlagDescriptorChecksum for magic 0, and the reader skips HC for
// magic 0. For magic >= 1 HC must be right.
//
// pierrec/lz4's frame Reader is not used: it checks HC (rejecting magic-0
// frames), accepts legacy, skippable and concatenated frames that Kafka
// rejects or never reads, and checks the content checksum Kafka skips. The
// framing is parsed here as Kafka parses it, and each block is decoded by
// pierrec/lz4's block decoder.
func unlz4(src []byte, magic int8, s *sink) ([]byte, error) {
	if len(src) < 6 {
		return nil, corrupt(LZ4, int64(len(src)), "%s (frame header needs 6 bytes, %d given)", lz4PrematureEOS, len(src))
	}
	if m := binary.LittleEndian.Uint32(src); m != lz4Magic {
		return nil, corrupt(LZ4, 0, "%s: %#08x, want %#08x", lz4NotSupported, m, lz4Magic)
	}
	flg, bd := src[4], src[5]
	// KafkaLZ4BlockOutputStream.FLG.validate and BD.validate.
	if flg&3 != 0 {
		return nil, corrupt(LZ4, 4, "FLG %#02x: Reserved bits must be 0", flg)
	}
	if flg>>5&1 != 1 {
		return nil, corrupt(LZ4, 4, "FLG %#02x: Dependent block stream is unsupported", flg)
	}
	if v := flg >> 6; v != 1 {
		return nil, corrupt(LZ4, 4, "FLG %#02x: Version %d is unsupported", flg, v)
	}
	blockChecksum, contentSize, contentChecksum := flg>>4&1 == 1, flg>>3&1 == 1, flg>>2&1 == 1
	if bd&0x0f != 0 {
		return nil, corrupt(LZ4, 5, "BD %#02x: Reserved2 field must be 0", bd)
	}
	if bd>>7 != 0 {
		return nil, corrupt(LZ4, 5, "BD %#02x: Reserved3 field must be 0", bd)
	}
	sizeID := int(bd >> 4 & 7)
	if sizeID < 4 {
		return nil, corrupt(LZ4, 5, "BD %#02x: Block size value must be between 4 and 7", bd)
	}
	maxBlock := 1 << (2*sizeID + 8) // BD.getBlockMaximumSize: 64 KiB .. 4 MiB
	p := 6
	if contentSize {
		if len(src)-p < 8 {
			return nil, corrupt(LZ4, int64(p), "%s (content size field)", lz4PrematureEOS)
		}
		p += 8 // read and ignored, as Kafka does
	}
	if p >= len(src) {
		return nil, corrupt(LZ4, int64(p), "%s (header checksum byte)", lz4PrematureEOS)
	}
	if magic != 0 {
		want := byte(xxh32(src[4:p]) >> 8)
		if src[p] != want {
			return nil, corrupt(LZ4, int64(p), "%s: header checksum %#02x, computed %#02x (a magic-0 frame with the checksum of KAFKA-3160 is only accepted in magic-0 messages)", lz4DescriptorHashBad, src[p], want)
		}
	}
	p++
	for {
		if len(src)-p < 4 {
			return nil, corrupt(LZ4, int64(p), "%s (block length)", lz4PrematureEOS)
		}
		raw := binary.LittleEndian.Uint32(src[p:])
		start := p
		p += 4
		stored := raw&lz4Incompressible != 0
		size := int(raw &^ lz4Incompressible)
		if size == 0 {
			// EndMark. Kafka reads the content checksum without verifying it
			// ("TODO: verify this content checksum") and reads nothing after it.
			if contentChecksum && len(src)-p < 4 {
				return nil, corrupt(LZ4, int64(p), "%s (content checksum)", lz4PrematureEOS)
			}
			return s.buf, nil
		}
		if size > maxBlock {
			return nil, corrupt(LZ4, int64(start), "Block size %d exceeded max: %d", size, maxBlock)
		}
		if len(src)-p < size {
			return nil, corrupt(LZ4, int64(start), "%s (block of %d bytes, %d left)", lz4PrematureEOS, size, len(src)-p)
		}
		block := src[p : p+size]
		p += size
		if blockChecksum {
			if len(src)-p < 4 {
				return nil, corrupt(LZ4, int64(p), "%s (block checksum)", lz4PrematureEOS)
			}
			if got, want := binary.LittleEndian.Uint32(src[p:]), xxh32(block); got != want {
				return nil, corrupt(LZ4, int64(p), "%s: stored %#08x, computed %#08x", lz4BlockHashBad, got, want)
			}
			p += 4
		}
		// Room for the block: a stored block is itself; an LZ4 sequence turns
		// one input byte into at most 255 output bytes (a match-length byte),
		// and Kafka's decompressor writes at most maxBlock bytes. When the
		// output has that room the block decodes in place, else into a pooled
		// scratch block and is copied, so the output grows only by what the
		// block really holds.
		if stored {
			if err := s.reserve(size); err != nil {
				return nil, err
			}
			s.buf = append(s.buf, block...)
		} else {
			room := min(maxBlock, 255*size+32)
			dst, scratch := s.buf[len(s.buf):cap(s.buf)], (*[]byte)(nil)
			if len(dst) < room {
				scratch = lz4Scratch.Get().(*[]byte)
				if cap(*scratch) < room {
					*scratch = make([]byte, max(room, 64<<10))
				}
				dst = (*scratch)[:room]
			}
			n, err := lz4.UncompressBlock(block, dst[:room])
			if err != nil {
				if scratch != nil {
					lz4Scratch.Put(scratch)
				}
				return nil, &Error{Codec: LZ4, Offset: int64(start), Msg: fmt.Sprintf("block of %d bytes", size), Err: err}
			}
			if scratch == nil {
				s.buf = s.buf[:len(s.buf)+n]
			} else {
				err := s.overLimit(int64(len(s.buf)) + int64(n))
				if int64(len(s.buf)+n) <= s.limit {
					err = s.reserve(n)
				}
				if err == nil {
					s.buf = append(s.buf, dst[:n]...)
				}
				lz4Scratch.Put(scratch)
				if err != nil {
					return nil, err
				}
			}
		}
		if err := s.check(); err != nil {
			return nil, err
		}
		if s.done() {
			return s.buf, nil
		}
	}
}
