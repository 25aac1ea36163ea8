// Package reports turns exact model runs and real log directories into what-if and analysis
// reports: text (aligned tables), Markdown, JSON (docs/contract.md §10) and self-contained HTML whose SVG
// charts come from package reports/chart (the only package that imports plotting code).
//
// Files, one idea each:
//
//   - dist.go: Dist, exact quantiles of a cost metric from runs, in bounded memory (one pass,
//     plus refinement passes over the replayable source when a bucket holds several values).
//   - sweep.go: Sweep, ParseSweep (lists and geometric ranges), Grid.
//   - whatif.go: RunWhatIf: one pass over the workload for every point of the grid, the points
//     split across goroutines; sim.Run for workloads that are not single-batch appends.
//   - point.go: Point and its derived figures (regime, ScanBound slack, warm section, maps,
//     Kafka-version validity).
//   - phase1.go: phase-1 cost of Kafka's warm-section search for an index of n entries.
//   - recommend.go: recommendations derived from the figures, each an Advice (kind, the
//     setting and value it names, the figure it quotes, its sentence).
//   - verdict.go, verdict_margin.go: the what-if verdict and its margin; verdict_detail.go: its
//     decision for machines (JSON "verdictDetail").
//   - broker.go: a broker's verdict (its reasons, each with a Reason for machines) and the
//     topic roll-up.
//   - segstats.go: costWalk, the exact per-offset statistics of a real segment in one pass over
//     its batch headers and index entries (docs/contract.md §5), riding along verify's walk; OffsetCosts.
//   - analyze.go: AnalyzeDirs, per-partition figures of a broker's log directories, read-only:
//     eras, live segments, restarts and their cost, findings, recommendations.
//   - fleet.go: MergeFleet, brokers' analyze JSON reports merged into one fleet report.
//   - table.go, whatif_text.go, json.go, html.go, analyze_render.go: the formats.
//
// The JSON documents name their schema (WhatIfSchema, AnalyzeSchema, FleetSchema;
// docs/schema/README.md). docs/reports.md defines the JSON keys, the regimes, the quantiles and the recommendation rules.
package reports
