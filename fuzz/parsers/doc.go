// Package parsers holds the native fuzz targets of segment's fixed-layout binary parsers:
// .index and .timeindex images, v2 and legacy batch headers, uncompressed records, segment file
// names, producer snapshots and .txnindex files. It has no code of its own, only tests.
//
// The targets live here, not in package fuzz, so that their test binary links as little as
// possible: Go's fuzzing engine copies and compares every coverage counter of the binary after
// every execution, so its cost per execution grows with the counters of everything the binary
// links. Package fuzz's test binary (rapid, gofuzz, franz-go, the model, the harness) has about
// 46 000; this one, importing segment and the standard library, about 10 000. The targets
// that reach the decompressors or encoding/json (.log walks, records of any batch,
// decompression, the text checkpoints) are in fuzz/parsers/decoding, whose binary has about
// 15 000. docs/fuzz.md, "Parser fuzz targets", gives the measured rates.
package parsers
