// Package parsers holds the native fuzz targets of segment's and codec's parsers: index files,
// batch headers and records, .log walks, segment file names, the other files of a log
// directory, and decompression. It has no code of its own, only tests.
//
// The targets live here, not in package fuzz, so that their test binary links as little as
// possible: Go's fuzzing engine snapshots and compares every coverage counter of the binary
// after every execution, and package fuzz's binary (rapid, gofuzz, franz-go, the model and the
// differential harness) has about 46 000 of them. This package imports segment, codec and the
// standard library only. The checks that need franz-go as an oracle run in package fuzz over
// this package's committed corpus (docs/fuzz.md, "Parser fuzz targets").
package parsers
