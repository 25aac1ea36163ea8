// Package explain finds, for every segment of a real partition, what reproduces its .index
// and .timeindex byte for byte from its .log: the Kafka eras whose rules do, the exact set of
// index.interval.bytes values (from the distances between batch starts, not by trying values),
// one or several batches per append, who appended, where the byte counter restarted, and
// which history wrote the segment (appends, the log cleaner, or recovery at a restart); every
// answer is replayed and compared byte for byte, and where nothing reproduces the files the
// first disagreeing entry is named with file, slot and byte (docs/explain.md). It reads the
// files through package segment and the directory through package logdir. One file per idea:
//
//   - explain.go: Dirs and Partition, Options, the explanations and their JSON.
//   - segment.go: a segment's batches and entries as explain reads them (exSegment).
//   - batches.go: batchTable, the batches in compact columns (17 bytes a batch), and GOGC
//     lowered while a huge table is live (issue 27).
//   - capacity.go: a .timeindex with more entries than its .log has batches, refused unread.
//   - exact.go: the offset of the record holding a batch's max timestamp (0.11-3.6 leaders).
//   - candidates.go: one way of writing the segment (an era, an append shape, an origin): the
//     entries mapped onto batches, the stretches between entries, the interval they allow.
//   - choice.go: explainSegment, the best reproducing candidate and the restarts it needs,
//     among the histories in their order.
//   - history.go: the three histories (appends, cleaned, recovered) and the candidates of the
//     last two (their restarts given, no other admitted).
//   - cleaned.go: the cleaned history (one pass of the log cleaner, no restart inside) and when
//     it is the answer; its evidence is logdir.CleanerEvidence.
//   - recovered.go: the recovered history (recover() at a restart the files show, then the
//     later appends and close()).
//   - lifetime.go: the interval as a function of the restarts (stretches, lifetimes).
//   - time.go: the time index the offset index implies (and the restarts it marks).
//   - regen.go: the replay that checks an answer byte for byte.
//   - interval.go: IntervalSet, exact sets of index.interval.bytes values.
package explain
