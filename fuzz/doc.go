// Package fuzz checks kidx's pure model (package model) against its file-backed twin (package
// segment) and fuzzes every parser of the project.
//
// The differential harness (Check) runs one docs/contract.md §3 workload through model.Simulate and,
// independently, through segment.CreateLog/Apply/Close on real files in a temporary directory,
// then reopens the directory (logdir.ScanDir, segment.OpenSegment) and compares segment
// boundaries and sizes, every batch, the .index and .timeindex bytes, the lookup of every
// offset, a sample of timestamp lookups and the events. A Divergence carries the workload and
// what differed; Shrink reduces it and WriteReproduction writes it as a workload file that
// `kidx sim`, `kidx write` and Replay take back.
//
// Workloads come from three generators that share one set of edge-heavy choices: Generate
// (math/rand, used by `kidx diff`), FromGoFuzz (the only file that imports gofuzz) and
// WorkloadGen (rapid); gen_clean.go adds clean steps, drawn against the model's log.
// Crash exploration (crash.go) crashes every step, clean steps included (crash_clean.go: the
// load completes or discards each swap). docs/fuzz.md describes the design and the measured
// numbers.
package fuzz
