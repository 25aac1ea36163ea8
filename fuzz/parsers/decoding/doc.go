// Package decoding holds the native fuzz targets of the parsers that reach the decompressors
// (package codec) or encoding/json: .log files walked through both readers, one-batch .log
// files of any format and codec, decompression itself, and the text and JSON files of a log
// directory (checkpoints, partition.metadata, meta.properties, quorum-state). It has no code of
// its own, only tests.
//
// They are apart from fuzz/parsers so that the fixed-layout parsers' test binary does not link
// the codecs and encoding/json (fewer coverage counters, a faster engine: see that package), and
// apart from package fuzz so that this one links neither rapid, gofuzz nor franz-go. The checks
// that need franz-go (its compressions as seeds, its decompressor as an oracle) run in package
// fuzz over this package's committed corpus (TestFranzSeedsCommitted,
// TestDecompressAgreesWithFranz).
package decoding
