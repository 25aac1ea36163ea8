// Package chart draws the SVG charts of kidx's HTML reports with gonum/plot. It is the only
// package that imports plotting code: reports renders text, Markdown, JSON and the HTML
// around the charts, and takes the charts as reports.Figure values from here.
//
// Output is deterministic (no embedded fonts, no timestamps), so the SVG of a given report is
// byte-stable and testable against a golden file.
//
// Files:
//
//   - svg.go: plot → SVG text with the legend outside the data area, shared styling, ticks.
//   - whatif.go: the what-if charts: with the exact interval pieces, the step functions of scan
//     bytes and entries per segment against index.interval.bytes with regime bands at the
//     pieces' edges; otherwise markers at the swept values; a heatmap for two-key grids; the
//     CDF of the points that differ most; maps against partitions (docs/reports.md "Charts").
//   - analyze.go: the analyze chart (scan per partition).
package chart
