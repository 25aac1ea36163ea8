// Package segment is kidx's file-backed implementation of Kafka's on-disk
// segment format. It re-implements Kafka's append rule, rolling, recovery
// and lookups on real files, importing only the standard library (never
// package model: the independence is what makes differential tests mean
// something). Behaviour follows KAFKA-INDEX-SEMANTICS.md; comments cite the
// Kafka method mirrored. One file per idea:
//
//   - binreader.go: kbin-style sticky-error reader, varints, FormatError.
//   - names.go: 20-digit file names, suffixes (.deleted/.cleaned/.swap ...).
//   - batch.go: v2 batch header, CRC-32C, DefaultRecord decoding, legacy v0/v1 headers.
//   - builder.go: MemoryRecordsBuilder-exact batches; size-targeting batches.
//   - index.go: .index/.timeindex readers, warm-section search, sanity checks.
//   - logfile.go: .log walk (FileLogInputStream.nextBatch), CRC streaming.
//   - lookup.go: Segment, offset lookup (phase 1 + 2), timestamp lookup.
//   - config.go: Config, Rule, workload (SPEC §3) and recipe (kafka-input.json) parsing.
//   - writer.go: Log (UnifiedLog.append + LogSegment.append, roll, close, restart).
//   - recover.go: Log.Recover (LogSegment.recover).
//   - scan.go: log-directory scanning, Finding.
//   - verify.go: DumpLogSegments checks, sanityCheck, CRC, policy invariants.
//   - dump.go: kafka-dump-log style text and JSON dumps.
//   - mmap.go: read-only mapping and O_RDONLY opens.
//
// Readers open every file O_RDONLY and never create, write, truncate or
// lock anything. See docs/segment.md for the API tour and decisions.
package segment
