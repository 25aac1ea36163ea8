// Package props holds the named properties of docs/contract.md §6 and the checkers that search for
// their counterexamples: rapid (random cases, shrunk to a minimal one) and an exhaustive
// walk over a bounded space. Invariants must hold for Kafka's rules; questions are claims
// that can be false, and a counterexample is a finding.
//
// Files:
//
//   - property.go: Kind, Property, Case, Violation, All, ByName.
//   - run.go: Run, a case's model run with counter resets and append positions traced.
//   - invariants.go: FirstBatchNeverIndexed, ScanBound, Plateau, EmptyAboveSegment,
//     EntriesAtBatchBoundaries, StrictlyIncreasing, DensityMonotone, LookupHitsTarget,
//     WarmSearchAgrees.
//   - questions.go: RecoveryRebuildsSameIndex, NoIndexOverflowMidAppend,
//     MaxScanMonotoneInInterval.
//   - gen.go: CaseGen, rapid's generator of cases at the edges.
//   - check.go: Check, rapid run programmatically with kidx's own rapid.TB.
//   - exhaustive.go: Exhaustive, every workload of a bounded space.
//   - cleaned.go: CleanCase, CleanCaseGen and the properties of the segments a clean step
//     writes (CleanedFirstBatchNeverIndexed, CleanedScanBound, CleanedIndexIgnoresChunks, and
//     the question CleanedIndexNeverOverflows, false: testdata/cleaned-index-overflow.json).
//   - replicas.go: ReplicaCase, ReplicaProperty, FollowerAppendNeverOverflows,
//     LeaderAppendNeverOverflows, ReplicaRecoverNeverOverflows (replicated workloads).
//   - replicas_gen.go: ReplicaCaseGen and CheckReplicas (rapid, kidx check --replicas).
//   - replicas_search.go: SearchReplicas, the BFS over the replicated log's abstract states
//     (kidx prove --replicas).
package props
