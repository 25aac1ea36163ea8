// Package against runs another program's index reader over kidx's cases and compares every
// answer with kidx's: `kidx diff --against CMD` (docs/against.md).
//
// The protocol (protocol.go): the reader gets a partition directory and a JSON list of offset
// lookups on stdin, and prints one JSON answer per lookup: phase 1's start position and phase
// 2's hit position (LogSegment.translateOffset, docs/kafka.md §7.1), or an error at a file and
// byte.
//
//   - protocol.go: Query, Request, Answer, and the strict reading of a reader's output.
//   - command.go: Command, a Reader that runs an external program with a time limit; a crash,
//     a hang or a broken answer is a Failure, a finding about the reader.
//   - compare.go: Compare, a reader's answers against a corpus case's expected.json, on the
//     Fields asked (--compare).
//   - campaign.go: Run, generated cases (package corpus) through a Reader on workers; the
//     divergences grouped by kind, damage kind and kidx's reason (Divergence.Key).
//   - shrink.go: Shrink, a divergent case reduced to a small workload and one query, written
//     as a directory a reader can be rerun on.
//   - corpusrun.go, dir.go: RunCorpus over a corpus on disk, RunDir over a real broker's
//     partition or every partition of a log directory, one run each (DirQuestions: kidx's
//     readers give the answers).
//   - copy.go: CopyingReader (--copy), any Reader given a private copy of each partition,
//     removed after the run.
//   - kidxreader.go: KidxReader, kidx's own reader in process (the benchmark's fast reader).
package against
