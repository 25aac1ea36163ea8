// Package segment is kidx's file-backed implementation of Kafka's on-disk
// segment format. It re-implements Kafka's append rule, rolling, recovery
// and lookups on real files, and reads and judges real brokers' log
// directories, importing only the standard library and kidx/codec (record
// decompression); never package model: the independence is what makes
// differential tests mean something. Behaviour follows
// docs/kafka.md; comments cite the Kafka method mirrored. One file
// per idea:
//
//   - binreader.go: kbin-style sticky-error reader, varints, FormatError.
//   - names.go: 20-digit file names, suffixes (.deleted/.cleaned/.swap ...).
//   - batch.go: v2 batch header, CRC-32C, DefaultRecord decoding, legacy v0/v1 headers.
//   - records.go: Records and FirstOffset for every batch kind (compressed v2,
//     legacy wrappers, control batches).
//   - builder.go: MemoryRecordsBuilder-exact batches; size-targeting batches.
//   - index.go: .index/.timeindex readers (three views: Kafka's reopened one,
//     DumpLogSegments', the valid entries), warm-section search, sanity checks.
//   - logfile.go: .log walk (FileLogInputStream.nextBatch), CRC streaming.
//   - walk_split.go: the same walk read on two cores from a known batch start.
//   - crc_parallel.go: --deep's CRCs on every core.
//   - lookup.go: Segment, offset lookup (phase 1 + 2), timestamp lookup.
//   - config.go: Config, Rule, workload (docs/contract.md §3) and recipe (kafka-input.json) parsing.
//   - writer.go: Log (UnifiedLog.append + LogSegment.append, roll, close, restart).
//   - recover.go: Log.Recover (LogSegment.recover).
//   - scan.go: log-directory scanning, every file's Role, Finding.
//   - era.go, eraset.go: Kafka's eras (which offset an entry names, release by
//     release), ParseRelease, EraSet.
//   - verify.go, verify_segment.go: Verify, one streaming pass per segment
//     judged by the era that wrote it.
//   - live.go: live (preallocated) segments and what an unclean start does
//     with them.
//   - lifetime.go: byte-counter restarts inside a segment.
//   - explain.go: Explain, what reproduces a segment's indexes byte for byte (the
//     eras, the interval set, the append shape, the restarts); explain_segment.go
//     its candidates and choice, explain_lifetime.go the interval as a function of
//     the restarts, explain_time.go the time index the offset index implies,
//     explain_regen.go the replay that checks an answer, explain_interval.go
//     IntervalSet (docs/explain.md).
//   - snapshot.go, txnindex.go, checkpoint.go, kraft.go: the other files of a
//     log directory.
//   - dump.go, dump_index.go, dump_log.go, dump_files.go: kafka-dump-log style
//     text and JSON dumps.
//   - mmap.go: read-only mapping, prefetch, sparse index reads, O_RDONLY opens.
//
// Readers open every file O_RDONLY and never create, write, truncate or
// lock anything. See docs/segment.md for the API tour and decisions, and
// docs/logdirs.md for how real log directories are judged.
package segment
