// Package segmenttest builds what the tests of the packages above kidx/segment (logdir,
// explain, dump) and segment's own external tests (package segment_test) share: batches laid
// out byte by byte per Kafka's formats, logs written through segment's writer with a known
// history (a restart at a known batch), producer snapshots encoded independently of the
// parser, the benchmark segment, and an assertion on segment's *FormatError. It imports
// kidx/segment, so segment's in-package tests cannot use it (they would import their own
// package): what those need lives in internal/testfiles or in their own files.
//
// It is test support: nothing outside _test.go files imports it.
//
//   - batches.go: Batch78 (docs/kafka.md §1.3's example), ThreeBatches, V2Records, V2Batch,
//     LegacyMsg, Franz (franz-go's compressor), OpenBytes, WalkAll.
//   - logs.go: SeedWorkload, WriteWithRestart, WriteRestartedSegment, IndexPairs.
//   - snapshots.go: SnapshotBytes, MyTopicEntries, EmptyProducerSnapshot.
//   - errors.go: FormatErrAt.
//   - bench.go: BenchSegment (268 MB of 16 KiB batches), RemoveBenchSegment.
//   - bigsegment.go: WriteUniformSegment (one segment of n equal batches: the 1 GiB and
//     268,435,456-byte segments of the whole-process benchmarks).
//   - broker.go: BuildBroker (a broker's log directory of 4,000 partitions and 20,000
//     segments from copies of ../shared/realdata's partitions and written ones).
//   - realdata.go: RealdataPath (a file of ../shared/realdata, skipped loudly without it).
package segmenttest
