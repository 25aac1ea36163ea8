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
//   - spec.go: the generator spec syntax (kidx help workloads, docs/workloads.md).
//   - generator.go: NewGenerator and Generator, a replayable Source built from a spec.
//   - rng.go: one PCG stream per random part of a generator.
//   - sizes.go: batch-size distributions (fixed, uniform, lognormal, mixture, bursty, tiny)
//     and the v2 record encoding sizes.
//   - batches.go: limits and the BatchStream adapter (no per-batch allocation).
//   - producer.go: the producer batching model (Poisson arrivals, batch.size, linger.ms).
//   - wrappers.go: follower catch-up and restarts/recoveries.
//   - logdir.go: NewLogDirSource, replay of a real partition's .log files.
//   - logdir_replay.go: ReplayLogDir, a real partition replayed as kidx explain infers it.
//   - logdir_replay_cleaned.go: its cleaned segments (their stale sources left out, their
//     figures per interval).
package sim
