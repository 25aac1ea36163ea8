// Package logdir is a broker's log directory as a whole, judged as a Kafka engineer would:
// every file's role, the findings (DumpLogSegments' checks in its words, Kafka's sanity
// checks, the policy invariants), Kafka's eras release by release, live (preallocated)
// segments and what an unclean start does with them, the byte counter's restarts inside a
// segment, and Verify. It reads files through package segment and imports nothing above it
// (docs/architecture.md). One file per idea:
//
//   - scan.go: ScanDir, every file's and directory's Role, PartitionDir, DirScan.
//   - findings.go: Severity, Finding and the names of the checks.
//   - era.go, eraset.go: Kafka's eras (which offset an entry names, which timestamp the time
//     index keeps, how a log loads, release by release), ParseRelease, EraSet.
//   - verify.go: Verify and VerifyPartition: the partitions, their segments in order, the
//     report and its verdicts; VerifyDocument, the report as kidx.verify/1 (its verdict for
//     machines).
//   - verify_segment.go: one streaming pass over a segment's batches, judged by the eras that
//     could have written it (segmentWalk, its observations and the verdict).
//   - verify_index.go: the offset index against the walk (entries at batch boundaries, the
//     interval rule, zero tails, DumpLogSegments' reads).
//   - verify_time.go: the time index against the batches' timestamps.
//   - verify_bounds.go, verify_time_bounds.go: what Kafka cannot hold (a .log past an int32
//     position, an index with more entries than its .log has batches), found before it is read.
//   - verify_state.go: the checkpoint, snapshot and metadata files of a log directory.
//   - verify_report.go: the text report and DumpLogSegments' summary lines.
//   - crc_parallel.go: --deep's CRCs on every core.
//   - live.go: live (preallocated) segments and what an unclean start does with them.
//   - lifetime.go: byte-counter restarts inside a segment (Restart).
//   - cleaned.go: CleanerEvidence, what a segment's files say of the log cleaner having
//     written it (offset gaps, delete horizons, the cleaner checkpoint), shared by explain
//     and analyze (issue 25).
//
// See docs/logdirs.md for how real log directories are judged.
package logdir
