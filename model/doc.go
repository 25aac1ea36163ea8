// Package model is a pure, exact reference model of Apache Kafka's per-segment offset index
// and time index: the append rule (both the per-batch rule of KAFKA-806 and the older
// per-append rule), segment rolling, the offset and time indexes with Kafka's capacity rules,
// recovery, and the two-phase lookup, with exact cost figures for every offset.
//
// The model does no I/O and imports only the standard library. Every behaviour that looks
// odd (strict >, check before increment, an entry naming the batch's last offset, the time
// index reserving a slot) is Kafka's, and the comment next to it names the Kafka method.
// docs/kafka.md is the source; §N below
// refers to it.
//
// Files, one idea each:
//
//   - config.go: Config, with Kafka's topic-config names and defaults.
//   - rule.go: AppendRule (PerBatch, PerAppend) and the Kafka-version mapping.
//   - workload.go: Batch, Step, Workload and the docs/contract.md §3 JSON format.
//   - search.go: Kafka's warm-section binary search (AbstractIndex.indexSlotRangeFor) and
//     its cost in slots compared and 4 KiB pages touched.
//   - indexslots.go: the bookkeeping both indexes share (AbstractIndex: capacity, resize,
//     trim, truncate).
//   - offsetindex.go, timeindex.go: OffsetIndex and TimeIndex, in-memory twins of Kafka's
//     classes with the same preconditions, capacity and lookup.
//   - segment.go: Segment, the LogSegment.append loop under both rules, and recover(); with
//     LogOptions.ForgetBatches it keeps only the last append's batches (issue 27).
//   - log.go: Log, the UnifiedLog role: roll conditions, oversize rejection, restart and
//     recover steps, events.
//   - lookup.go: phase 1 + phase 2 lookups by offset and by timestamp.
//   - stats.go: ScanStats, computed exactly in one pass over batches (O(batches)).
//   - replicas.go: ReplicaSet, a partition's replicas: produces to the leader, a follower's
//     fetches (one appendAsFollower of whole batches within one leader segment), restarts and
//     elections per replica, where the follower overflow of docs/kafka-hazards.md lives.
//   - replicas_workload.go: the replicated workload form (docs/contract.md §3.1).
//   - eraspec.go: candidate eras (a proposed patch) from a JSON era spec.
//   - exposure.go: whether an index can fill before segment.bytes (the follower overflow of
//     docs/kafka-hazards.md), and the segment.index.bytes that never fills.
//   - cleanergroups.go: GroupSegmentsBySize, which segments the log cleaner cleans into one
//     (Cleaner.groupSegmentsBySize per release, docs/kafka.md §14.1): the first piece of the
//     cleaner as a step of the model (issue 25).
//   - clean.go: Log.Clean, one pass of the log cleaner (Cleaner.cleanSegments and cleanInto per
//     era: the read buffer's chunks, one LogSegment.append per chunk, trunk's overflow split,
//     the swap), docs/kafka.md §14.2; crash.go's RecoverFrom is a recover step from a recovery
//     point.
//   - stream.go: StatStream, the same figures for single-batch appends with no per-batch
//     memory, at a few nanoseconds a batch.
//   - bruteforce.go: the same statistics by looking up every offset, for tests.
//   - simulate.go: Simulate, which runs a whole Workload.
//   - mutant.go: deliberately broken rules, so that property tests can show their teeth.
package model
