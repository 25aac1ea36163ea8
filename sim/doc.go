// Package sim produces workloads and runs them through the model: replayable sources of
// batches (distributions, a producer batching model, follower catch-up, restarts, replay of
// a workload file or a real log directory) and Run, which reduces a source to exact
// statistics with the fast StatStream when it can and the reference Log otherwise.
//
// Files:
//
//   - source.go: Source, Stream and BatchStream, the interfaces every workload implements;
//     WorkloadSource (a model.Workload) and FixedSource.
//   - run.go: Run, a source through the model, with exact per-run hooks.
package sim
