// Package segment is Kafka's on-disk format and the file-backed log, for real: it reads and
// writes every file a partition directory holds, and re-implements Kafka's append rule,
// rolling, recovery and lookups on real files. It imports only the standard library,
// golang.org/x/sys/unix (posix_fadvise), kidx/codec (record decompression), kidx/segment/vfs
// (the filesystem under the writer) and two small internal packages of words; never package
// model: the independence is what makes the differential tests mean something
// (docs/architecture.md). Behaviour follows docs/kafka.md; comments cite the Kafka method
// mirrored. One file per idea:
//
// The format:
//   - binreader.go: kbin-style sticky-error reader, varints, FormatError.
//   - names.go: 20-digit file names, suffixes (.deleted/.cleaned/.swap ...), a segment's
//     files (SegmentFiles, SegmentFileOf), partition directory names, KafkaPath.
//   - batch.go: v2 batch header, CRC-32C, DefaultRecord decoding, legacy v0/v1 headers.
//   - records.go: Records and FirstOffset for every batch kind (compressed v2,
//     legacy wrappers, control batches).
//   - builder.go: MemoryRecordsBuilder-exact batches; size-targeting batches.
//   - compressed.go: size-targeting batches compressed with gzip, snappy, lz4 or zstd in
//     Kafka's framings (issue 24).
//   - transactional.go: transactional producers' batches and COMMIT markers (issue 24).
//   - index.go: .index/.timeindex readers (three views: Kafka's reopened one,
//     DumpLogSegments', the valid entries), warm-section search, sanity checks.
//   - snapshot.go, txnindex.go, checkpoint.go, kraft.go: the other files of a
//     log directory (producer snapshots, .txnindex, checkpoints, KRaft snapshots).
//
// Reading:
//   - logsize.go: a .log past the 2^31-1 bytes Kafka opens (FileRecords), refused from its size.
//   - logfile.go: .log walk (FileLogInputStream.nextBatch), CRC streaming, the LogFile's
//     views for other goroutines.
//   - walk_split.go: the same walk read by concurrent chains from known batch starts (the
//     offset index's entries): two while the file is in memory, up to 32 while it is not.
//   - pagecache_linux.go, pagecache_other.go: whether a file's pages are in memory (mincore),
//     and the kernel asked to read a cold walk's header pages ahead (posix_fadvise).
//   - lookup.go: Segment, offset lookup (phase 1 + 2), timestamp lookup, OpenError.
//   - mmap.go: read-only mapping, prefetch, sparse index reads, O_RDONLY opens, a .log's
//     zero tail (ZerosFrom).
//   - fsread.go: the same readers over bytes and over a vfs.FS.
//
// Writing (the file-backed twin of the model):
//   - config.go: Config, Rule, workload (docs/contract.md §3) and recipe (kafka-input.json) parsing.
//   - writer.go: Log (UnifiedLog.append + LogSegment.append, roll, close, restart).
//   - candidate.go: Candidate, the two proposed fixes of the follower index overflow as knobs.
//   - recover.go: Log.Recover (LogSegment.recover).
//   - crash.go: the crash step and LoadAfterCrash (LogLoader after an unclean shutdown).
//   - clean.go, clean_pass.go, clean_rebuild.go: the clean step (Cleaner.doClean: groups,
//     cleanInto's chunks, rebuilt batches); swap.go: its swap (LocalLog.replaceSegments);
//     swap_load.go: what a load does with a swap a crash interrupted (LogLoader.load).
//   - recoverypoint.go: the recovery point and its checkpoint file.
//   - writedir.go: a workload or recipe written as a whole directory, all or nothing.
//   - replicas.go: a partition's replicas (ReplicaSet): the leader's produces, a follower's
//     fetch read from the leader's files and appended as one appendAsFollower, restarts,
//     elections; a replicated workload written as one directory per replica.
//
// Readers open every file O_RDONLY and never create, write, truncate or lock anything. The log
// directory as a whole (scanning, Verify, eras) is package logdir; what reproduces a segment's
// indexes is package explain; kafka-dump-log's output is package dump. See docs/segment.md for
// the API tour and decisions.
package segment
