// Package chart draws the SVG charts of kidx's HTML reports with gonum/plot. It is the only
// package that imports plotting code: reports renders text, Markdown, JSON and the HTML
// around the charts, and takes the charts as reports.Figure values from here.
//
// Output is deterministic (no embedded fonts, no timestamps), so the SVG of a given report is
// byte-stable and testable against a golden file.
//
// Files:
//
//   - svg.go: plot → SVG text, shared styling.
//   - whatif.go: the what-if charts (scan vs interval with regimes shaded, entries per
//     segment, CDF of scan bytes, maps vs partitions).
//   - analyze.go: the analyze charts (scan per partition, maps).
package chart
