// Package decoders holds the native fuzz target of kidx dump's record decoders
// (--offsets-decoder, --transaction-log-decoder, --cluster-metadata-decoder, each release's
// printed form; docs/dump-decoders.md). It has no code of its own, only tests.
//
// It is apart from fuzz/parsers/decoding so that those targets' test binaries do not link
// franz-go's kmsg and kafkamsg's tables (package dump does), and apart from package fuzz so
// that this one links neither rapid, gofuzz nor franz-go's client.
package decoders
