// Package codec decompresses Kafka record payloads for every codec Kafka has
// (CompressionType ids 0-4: none, gzip, snappy, lz4, zstd), as Kafka's readers
// accept them, with the output bounded by a limit. See docs/codec.md.
//
// One file per idea:
//   - codec.go: the Codec type (CompressionType ids and names), Decompress and
//     DecompressPrefix, the default limit.
//   - errors.go: *Error (codec, what failed, byte offset) and *LimitError (the
//     limit that was exceeded: "decompression bomb?").
//   - output.go: the bounded output buffer every codec writes into.
//   - gzip.go: gzip members as java.util.zip.GZIPInputStream reads them
//     (concatenated members, trailing garbage after a member ignored).
//   - snappy.go: xerial framing (SnappyOutputStream / SnappyInputStream) and
//     plain raw snappy, decoded by klauspost/compress/snappy's strict decoder.
//   - lz4.go: the frame format of KafkaLZ4BlockOutputStream, read as
//     KafkaLZ4BlockInputStream reads it (including the magic-0 header checksum
//     of KAFKA-3160); blocks decoded by pierrec/lz4.
//   - xxh32.go: XXH32, the checksum of LZ4 frame descriptors and blocks.
//   - zstd.go: zstd frames, decoded by klauspost/compress/zstd.
//
// The codecs themselves are the libraries'; this package only does Kafka's
// framing and the bounds.
package codec
