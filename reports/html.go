package reports

import (
	"fmt"
	"html"
	"io"
	"strings"
)

// Figure is one chart for the HTML report: a title and an SVG document. Charts are drawn by
// package reports/chart, so that plotting stays out of this package's imports.
type Figure struct {
	Title string
	SVG   string
}

const htmlStyle = `body{font-family:system-ui,sans-serif;margin:2em;max-width:80em;color:#222}
table{border-collapse:collapse;font-size:0.85em}th,td{border:1px solid #ccc;padding:0.2em 0.5em;text-align:right}
th{background:#f0f0f0}td:first-child{text-align:left}.plateau{background:#e8f5e9}.thinning{background:#fff8e1}.cliff{background:#ffebee}.empty{background:#f5f5f5}
figure{margin:1.5em 0}figcaption{font-weight:bold;margin-bottom:0.3em}pre{background:#f6f6f6;padding:0.5em}`

func writeHTMLHead(w io.Writer, title string) {
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n<h1>%s</h1>\n",
		html.EscapeString(title), htmlStyle, html.EscapeString(title))
}

// writeHTMLTable writes t; rowClass, if set, gives each row a CSS class (the regime).
func writeHTMLTable(w io.Writer, t *table, rowClass func(i int) string) {
	fmt.Fprintln(w, "<table>\n<tr>")
	for _, h := range t.header {
		fmt.Fprintf(w, "<th>%s</th>", html.EscapeString(h))
	}
	fmt.Fprintln(w, "</tr>")
	for i, r := range t.rows {
		class := ""
		if rowClass != nil {
			class = fmt.Sprintf(" class=\"%s\"", html.EscapeString(rowClass(i)))
		}
		fmt.Fprintf(w, "<tr%s>", class)
		for _, c := range r {
			fmt.Fprintf(w, "<td>%s</td>", html.EscapeString(c))
		}
		fmt.Fprintln(w, "</tr>")
	}
	fmt.Fprintln(w, "</table>")
}

// inlineSVG drops the XML declaration so the SVG can sit inside HTML.
func inlineSVG(svg string) string {
	if strings.HasPrefix(svg, "<?xml") {
		if i := strings.Index(svg, "?>"); i >= 0 {
			svg = svg[i+2:]
		}
	}
	return strings.TrimSpace(svg)
}

func writeFigures(w io.Writer, figs []Figure) {
	for _, f := range figs {
		fmt.Fprintf(w, "<figure>\n<figcaption>%s</figcaption>\n%s\n</figure>\n", html.EscapeString(f.Title), inlineSVG(f.SVG))
	}
}

// WriteHTML writes one self-contained HTML file: the table, the charts (inline SVG) and the
// recommendations. Nothing is loaded from elsewhere.
func (r *WhatIf) WriteHTML(w io.Writer, figs []Figure) error {
	writeHTMLHead(w, "kidx whatif")
	fmt.Fprintf(w, "<pre>%s</pre>\n", html.EscapeString(r.headline()))
	writeHTMLTable(w, r.table(), func(i int) string { return string(r.Points[i].Regime) })
	fmt.Fprintln(w, "<p>Scan figures are exact over every offset (bytes walked in phase 2, header hops); reads = the batch headers Kafka's own phase-2 loop reads in the era (the hops before 4.1); bound = min(I + largest batch, segment.bytes).</p>")
	writeFigures(w, figs)
	fmt.Fprintln(w, "<h2>Recommendations</h2>")
	for _, p := range r.Points {
		fmt.Fprintf(w, "<h3>%s (%s)</h3>\n<ul>\n", html.EscapeString(r.label(p)), html.EscapeString(string(p.Regime)))
		for _, rec := range p.Recommendations {
			fmt.Fprintf(w, "<li>%s</li>\n", html.EscapeString(rec))
		}
		fmt.Fprintln(w, "</ul>")
	}
	fmt.Fprintln(w, "</body>\n</html>")
	return nil
}
