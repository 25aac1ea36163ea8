package codec

import "fmt"

// Codec is a Kafka compression codec: the CompressionType id stored in the
// low three bits of a batch's (v2) or message's (v0/v1) attributes.
type Codec int8

// Kafka's CompressionType ids (CompressionType.forId).
const (
	None   Codec = 0
	Gzip   Codec = 1
	Snappy Codec = 2
	LZ4    Codec = 3
	Zstd   Codec = 4
)

// DefaultLimit is the output bound used when Decompress is given a limit <= 0:
// 256 MiB, 256 times Kafka's default max.message.bytes (1 MiB). Real batches
// of record data compress 2-20x; a batch that claims more than this is far
// more likely a bomb than data.
const DefaultLimit int64 = 256 << 20

// String is CompressionType.name: "none", "gzip", "snappy", "lz4", "zstd";
// "unknown(N)" for an id Kafka does not have.
func (c Codec) String() string {
	switch c {
	case None:
		return "none"
	case Gzip:
		return "gzip"
	case Snappy:
		return "snappy"
	case LZ4:
		return "lz4"
	case Zstd:
		return "zstd"
	}
	return fmt.Sprintf("unknown(%d)", int8(c))
}

// Known reports whether c is one of Kafka's five ids.
func (c Codec) Known() bool { return c >= None && c <= Zstd }

// Decompress returns the decompressed payload of a batch: for v2 the records
// section after the 61-byte header, for legacy v0/v1 the wrapper message's
// value. magic is the batch's (or wrapper's) magic; it matters for lz4 only,
// where Kafka's magic-0 framing carries the wrong header checksum of
// KAFKA-3160 and readers ignore it (Lz4Compression.wrapForInput).
//
// limit bounds the output: more than limit bytes is a *LimitError, found
// while decoding (or from a length the input declares, before allocating), so
// memory stays near limit whatever the input; limit <= 0 means DefaultLimit.
// Any other failure is an *Error naming the codec, what failed and, where
// known, the byte offset in src. For None the result is src itself.
func Decompress(c Codec, magic int8, src []byte, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return decompress(c, magic, src, newSink(c, limit, 0, len(src)))
}

// DecompressPrefix returns the first n bytes of the decompressed payload
// (fewer when the payload is shorter), decoding no more of src than it needs
// for gzip, snappy's xerial framing and lz4. A raw snappy block and zstd are
// decoded whole, bounded by DefaultLimit. It exists for cheap peeks, such as
// the first inner offset of a legacy wrapper.
func DecompressPrefix(c Codec, magic int8, src []byte, n int) ([]byte, error) {
	if n <= 0 {
		return nil, nil
	}
	s := newSink(c, DefaultLimit, n, len(src))
	out, err := decompress(c, magic, src, s)
	if err != nil {
		return nil, err
	}
	return out[:min(n, len(out))], nil
}

func decompress(c Codec, magic int8, src []byte, s *sink) ([]byte, error) {
	switch c {
	case None:
		if int64(len(src)) > s.limit {
			return nil, &LimitError{Codec: c, What: fmt.Sprintf("payload of %d bytes", len(src)), Limit: s.limit}
		}
		return src, nil
	case Gzip:
		return gunzip(src, s)
	case Snappy:
		return unsnappy(src, s)
	case LZ4:
		return unlz4(src, magic, s)
	case Zstd:
		return unzstd(src, s)
	}
	// CompressionType.forId: IllegalArgumentException("Unknown compression type id: " + id).
	return nil, &Error{Codec: c, Offset: -1, Msg: fmt.Sprintf("Unknown compression type id: %d", int8(c))}
}
