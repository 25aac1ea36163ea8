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
.table-scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:0.85em}th,td{border:1px solid #ccc;padding:0.2em 0.5em;text-align:right;white-space:nowrap}
th{background:#f0f0f0}th abbr{text-decoration:underline dotted;cursor:help}.name{text-align:left}
.plateau{background:#e8f5e9}.thinning{background:#fff8e1}.cliff{background:#ffebee}.empty{background:#f5f5f5}
.verdict{font-size:1.05em;border-left:4px solid #1f77b4;padding:0.4em 0.8em;background:#f4f8fc;max-width:60em}
.verdict.damaged{border-color:#d62728;background:#fdf0f0}.verdict.attention{border-color:#ff9f0e;background:#fff8ec}
details.topic{margin:0.3em 0}details.topic summary{cursor:pointer}.problems code{white-space:pre-wrap}
.legend{font-size:0.85em;margin:0.5em 0}.legend dt{font-weight:bold;float:left;clear:left;margin-right:0.5em}.legend dd{margin-left:0}
figure{margin:1.5em 0}figure svg{max-width:100%;height:auto}figcaption{font-weight:bold;margin-bottom:0.3em}pre{background:#f6f6f6;padding:0.5em;white-space:pre-wrap;overflow-wrap:anywhere}`

// selfCheck marks the page once it has loaded, for kidx's rendered-page check (make
// check-html): data-kidx-check on <body> says "ok" and the charts' count when every <svg>
// is drawn with a non-zero size, else "broken: " and why; a script error sets
// data-kidx-error. Nothing is loaded and nothing is sent: it only reads the page. It uses no
// '<' nor '&', so the page minus its charts stays well-formed XML.
const selfCheck = `<script>
window.addEventListener("error", function (e) { document.body.setAttribute("data-kidx-error", String(e.message)); });
window.addEventListener("load", function () {
  var svgs = document.querySelectorAll("svg"), bad = [];
  svgs.forEach(function (s, i) {
    var r = s.getBoundingClientRect();
    if (!(r.width > 0) || !(r.height > 0)) { bad.push("chart " + (i + 1) + " has no size"); }
  });
  var want = Number(document.body.getAttribute("data-kidx-charts"));
  if (svgs.length !== want) { bad.push(svgs.length + " charts, the report drew " + want); }
  document.body.setAttribute("data-kidx-check", bad.length ? "broken: " + bad.join("; ") : "ok " + svgs.length + " charts");
});
</script>`

// sortTables makes every table of class "sortable" sort by the column whose header is clicked
// (again: the other way): numbers as numbers, names in natural order (t-2 before t-10). Like
// selfCheck it uses no '<' nor '&'.
const sortTables = `<script>
window.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("table.sortable").forEach(function (t) {
    t.querySelectorAll("thead th").forEach(function (th, col) {
      th.style.cursor = "pointer";
      th.addEventListener("click", function () {
        var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        var dir = th.getAttribute("data-dir") === "desc" ? 1 : -1;
        th.setAttribute("data-dir", dir === 1 ? "asc" : "desc");
        rows.sort(function (a, b) {
          var x = a.cells[col].textContent, y = b.cells[col].textContent;
          var nx = parseFloat(x), ny = parseFloat(y);
          if (!isNaN(nx)) { if (!isNaN(ny)) { if (nx !== ny) { return dir * (nx - ny); } } }
          return dir * x.localeCompare(y, undefined, {numeric: true});
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
});
</script>`

func writeHTMLHead(w io.Writer, title string, charts int) {
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>%s</style>\n%s\n%s\n</head>\n<body data-kidx-charts=\"%d\">\n<h1>%s</h1>\n",
		html.EscapeString(title), htmlStyle, selfCheck, sortTables, charts, html.EscapeString(title))
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

// WriteHTML writes one self-contained HTML file: the verdict, the table (every column, each
// explained in a tooltip), the charts (inline SVG) and the recommendations. Nothing is loaded
// from elsewhere.
func (r *WhatIf) WriteHTML(w io.Writer, figs []Figure) error {
	writeHTMLHead(w, "kidx whatif", len(figs))
	if v := r.Verdict(); v != "" {
		fmt.Fprintf(w, "<p class=\"verdict\"><strong>Verdict.</strong> %s</p>\n", html.EscapeString(v))
	}
	fmt.Fprintf(w, "<pre>%s</pre>\n", html.EscapeString(r.headline()))
	r.table().writeHTML(w, func(i int) string { return string(r.Points[i].Regime) })
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
