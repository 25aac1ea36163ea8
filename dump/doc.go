// Package dump prints the files of a log directory as kafka-dump-log.sh --files does
// (DumpLogSegments), with its flags' meanings: a .log's batches and, deep, its records (every
// codec, legacy wrappers, control records), an .index or .timeindex with DumpLogSegments' own
// checks against the .log, producer snapshots, .txnindex and KRaft snapshots in Kafka's words,
// and the other files of a log directory in kidx's; --format json gives one Result per file. It
// reads through package segment and imports nothing else of kidx (docs/architecture.md).
//
//   - dump.go: File, Options, Result and the per-batch and per-record JSON.
//   - log.go: a .log, its batches and (deep) its records.
//   - index.go: an .index or .timeindex and DumpLogSegments' checks of it.
//   - files.go: producer snapshots, .txnindex, KRaft snapshots, checkpoints and the other files
//     (docs/logdir-files.md).
package dump
