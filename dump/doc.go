// Package dump prints the files of a log directory as kafka-dump-log.sh --files does
// (DumpLogSegments), with its flags' meanings: a .log's batches and, deep, its records (every
// codec, legacy wrappers, control records), an .index or .timeindex with DumpLogSegments' own
// checks against the .log, producer snapshots, .txnindex and KRaft snapshots in Kafka's words,
// and the other files of a log directory in kidx's; --format json gives one Result per file,
// "schema": "kidx.dump/1" first. Its record decoders are DumpLogSegments' MessageParsers
// (docs/dump-decoders.md). It reads through package segment, decodes records with franz-go's
// kmsg and package kafkamsg, and imports nothing else of kidx (docs/architecture.md).
//
//   - dump.go: File, Options, Result and the per-batch and per-record JSON.
//   - log.go: a .log, its batches and (deep) its records, each through the chosen decoder.
//   - decoder.go: Decoder and DecoderEra, the parser chosen per record, the cluster-metadata
//     decoder (ClusterMetadataLogMessageParser), the notes on records not decoded.
//   - decoder_coordinator.go: the JSON eras of the offsets and transaction-log decoders (Kafka
//     4.0's OffsetsMessageParser, 4.1+'s CoordinatorRecordMessageParser).
//   - decoder_text.go: the text eras (GroupMetadataManager.formatRecordKeyAndValue,
//     TransactionLog.formatRecordKeyAndValue) and Scala's hash-table order they print in.
//   - index.go: an .index or .timeindex and DumpLogSegments' checks of it.
//   - files.go: producer snapshots, .txnindex, KRaft snapshots, checkpoints and the other files
//     (docs/logdir-files.md).
package dump
