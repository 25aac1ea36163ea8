package reports

import (
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TextWidth is the width the default text table fits: a terminal of 120 columns shows it
// without wrapping. RenderOptions.Wide lifts it and shows every column.
const TextWidth = 120

// RenderOptions choose the layout of a text or Markdown report.
type RenderOptions struct {
	// Wide shows every column of the tables; by default the text and Markdown tables keep
	// the essential ones, and the text table fits TextWidth columns (the HTML table always
	// has every column and scrolls sideways).
	Wide bool
	// All lists every row: every partition and topic of a broker's report, and the notes;
	// by default only what needs attention (docs/reports.md, "A broker's verdict").
	All bool
	// Quiet writes the verdict and the problems only.
	Quiet bool
}

// column is one column of a report table: its header, what it means (the legend under the
// table, the HTML tooltip), and whether the default layout keeps it: keep 0 shows it only
// with --wide; above 0 it is essential, and the higher, the longer it stays when the default
// table must drop columns to fit.
type column struct {
	name, means string
	keep        int
}

// table is a grid of cells that renders as an aligned terminal table, a Markdown table or an
// HTML table, so every format shows the same figures. The first `names` columns name the row
// (left-aligned); the others are figures (right-aligned).
type table struct {
	cols  []column
	names int
	rows  [][]string
	// brief leaves the column legend out of the text and Markdown tables (a line says
	// where it is).
	brief bool
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// layout is the columns one rendering shows, and what it left out.
type layout struct {
	show    []int // column indexes, in order
	dropped []string
	// shortened is how many name cells were cut to fit.
	shortened int
	nameWidth int // the width name cells were cut to (0: not cut)
}

// choose picks the columns: every one when wide, else the essential ones; fit > 0 then drops
// essential figures, least kept first, until a text line fits in fit columns (the name
// columns and one figure stay), and as a last resort shortens the name cells.
func (t *table) choose(wide bool, fit int) layout {
	var l layout
	for i, c := range t.cols {
		if wide || c.keep > 0 || i < t.names {
			l.show = append(l.show, i)
		} else {
			l.dropped = append(l.dropped, c.name)
		}
	}
	if wide || fit <= 0 {
		return l
	}
	// First names longer than nameFloor are cut (their ends kept), then essential figures
	// dropped, then names cut further.
	l.nameWidth = t.nameWidthFor(l.show, fit, nameFloor)
	for t.lineWidth(l.show, l.nameWidth) > fit && len(l.show) > t.names+1 {
		least := -1 // index into l.show of the least kept figure (the rightmost of equals)
		for i, c := range l.show {
			if c >= t.names && (least < 0 || t.cols[c].keep <= t.cols[l.show[least]].keep) {
				least = i
			}
		}
		l.dropped = append(l.dropped, t.cols[l.show[least]].name)
		l.show = append(l.show[:least:least], l.show[least+1:]...)
	}
	l.nameWidth = t.nameWidthFor(l.show, fit, 8)
	for _, r := range t.rows {
		if l.nameWidth > 0 && utf8.RuneCountInString(r[0]) > l.nameWidth {
			l.shortened++
		}
	}
	return l
}

// nameFloor is the width names are cut to before any essential column is dropped.
const nameFloor = 24

// nameWidthFor is the width to cut the first column's cells to so that a line fits, but not
// below floor; 0 when they need no cut.
func (t *table) nameWidthFor(show []int, fit, floor int) int {
	if t.names == 0 {
		return 0
	}
	over := t.lineWidth(show, 0) - fit
	if over <= 0 {
		return 0
	}
	full := t.width(0, 0)
	w := max(full-over, floor, utf8.RuneCountInString(t.cols[0].name))
	if w >= full {
		return 0
	}
	return w
}

// leftAligned: names are, unless every cell of the column is a number (a swept value).
func (t *table) leftAligned(c int) bool {
	if c >= t.names {
		return false
	}
	for _, r := range t.rows {
		if _, err := strconv.ParseInt(r[c], 10, 64); err != nil {
			return true
		}
	}
	return len(t.rows) == 0
}

// width is the widest cell of column c (name cells cut to nameWidth when set).
func (t *table) width(c, nameWidth int) int {
	w := utf8.RuneCountInString(t.cols[c].name)
	for _, r := range t.rows {
		w = max(w, utf8.RuneCountInString(t.cell(r, c, nameWidth)))
	}
	return w
}

// colGap separates the columns of the text table.
const colGap = 2

func (t *table) lineWidth(show []int, nameWidth int) int {
	n := 0
	for i, c := range show {
		if i > 0 {
			n += colGap
		}
		n += t.width(c, nameWidth)
	}
	return n
}

// cell is row r's cell of column c; a name cut to nameWidth keeps its end (a partition's
// number, a swept value), after an ellipsis.
func (t *table) cell(r []string, c, nameWidth int) string {
	s := ""
	if c < len(r) {
		s = r[c]
	}
	if c == 0 && nameWidth > 0 && utf8.RuneCountInString(s) > nameWidth {
		rs := []rune(s)
		s = "…" + string(rs[len(rs)-nameWidth+1:])
	}
	return s
}

func pad(s string, w int, left bool) string {
	n := w - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	if left {
		return s + strings.Repeat(" ", n)
	}
	return strings.Repeat(" ", n) + s
}

// writeText writes the aligned table, then what was left out and the legend of the columns
// shown, each line within TextWidth unless wide.
func (t *table) writeText(w io.Writer, wide bool) {
	l := t.choose(wide, TextWidth)
	widths := make([]int, len(l.show))
	for i, c := range l.show {
		widths[i] = t.width(c, l.nameWidth)
	}
	line := func(cells func(c int) string) {
		parts := make([]string, len(l.show))
		for i, c := range l.show {
			parts[i] = pad(cells(c), widths[i], t.leftAligned(c))
		}
		fmt.Fprintln(w, strings.TrimRight(strings.Join(parts, strings.Repeat(" ", colGap)), " "))
	}
	line(func(c int) string { return t.cols[c].name })
	for _, r := range t.rows {
		line(func(c int) string { return t.cell(r, c, l.nameWidth) })
	}
	fmt.Fprintln(w)
	limit := TextWidth
	if wide {
		limit = 0
	}
	for _, s := range t.notes(l) {
		writeWrapped(w, "", "  ", s, limit)
	}
	if t.brief {
		return
	}
	fmt.Fprintln(w, "Columns:")
	nameW := 0
	for _, c := range l.show {
		nameW = max(nameW, utf8.RuneCountInString(t.cols[c].name))
	}
	for _, c := range l.show {
		col := t.cols[c]
		writeWrapped(w, "  "+pad(col.name, nameW, true)+"  ", strings.Repeat(" ", nameW+4), col.means, limit)
	}
}

// notes say what the layout left out or shortened.
func (t *table) notes(l layout) []string {
	var out []string
	if len(l.dropped) > 0 {
		out = append(out, fmt.Sprintf("%s more with --wide: %s.", plural(int64(len(l.dropped)), "column"), strings.Join(l.dropped, ", ")))
	}
	if l.shortened > 0 {
		out = append(out, fmt.Sprintf("%s shortened to fit (…; --wide shows whole names).", plural(int64(l.shortened), t.cols[0].name+" name")))
	}
	return out
}

// writeWrapped writes text after first, wrapped at limit columns (0: no limit), continuation
// lines after indent.
func writeWrapped(w io.Writer, first, indent, text string, limit int) {
	line := first
	lineHasWord := false
	for _, word := range strings.Fields(text) {
		if lineHasWord && limit > 0 && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > limit {
			fmt.Fprintln(w, line)
			line, lineHasWord = indent, false
		}
		if lineHasWord {
			line += " "
		}
		line += word
		lineHasWord = true
	}
	fmt.Fprintln(w, line)
}

// writeMarkdown writes the table with the same columns as the text table (no width limit:
// Markdown is read rendered), then the legend as a list.
func (t *table) writeMarkdown(w io.Writer, wide bool) {
	l := t.choose(wide, 0)
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var head, seps []string
	for _, c := range l.show {
		head = append(head, esc(t.cols[c].name))
		if t.leftAligned(c) {
			seps = append(seps, ":---")
		} else {
			seps = append(seps, "---:")
		}
	}
	fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
	fmt.Fprintln(w, "|"+strings.Join(seps, "|")+"|")
	for _, r := range t.rows {
		cells := make([]string, len(l.show))
		for i, c := range l.show {
			cells[i] = esc(t.cell(r, c, 0))
		}
		fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
	}
	fmt.Fprintln(w)
	for _, s := range t.notes(l) {
		fmt.Fprintln(w, s)
		fmt.Fprintln(w)
	}
	if t.brief {
		return
	}
	fmt.Fprintln(w, "Columns:")
	fmt.Fprintln(w)
	for _, c := range l.show {
		fmt.Fprintf(w, "- `%s`: %s\n", t.cols[c].name, t.cols[c].means)
	}
}

// writeHTML writes every column, each header with its meaning as a tooltip, inside a box that
// scrolls sideways rather than cutting the table off; the legend follows, folded. rowClass,
// if set, gives each row a CSS class (the regime).
func (t *table) writeHTML(w io.Writer, rowClass func(i int) string) {
	fmt.Fprintln(w, "<div class=\"table-scroll\">\n<table class=\"sortable\">\n<thead><tr>")
	for i, c := range t.cols {
		class := ""
		if t.leftAligned(i) {
			class = ` class="name"`
		}
		fmt.Fprintf(w, "<th%s title=\"%s\"><abbr title=\"%s\">%s</abbr></th>", class, html.EscapeString(c.means), html.EscapeString(c.means), html.EscapeString(c.name))
	}
	fmt.Fprintln(w, "</tr></thead>\n<tbody>")
	for i, r := range t.rows {
		class := ""
		if rowClass != nil {
			class = fmt.Sprintf(" class=\"%s\"", html.EscapeString(rowClass(i)))
		}
		fmt.Fprintf(w, "<tr%s>", class)
		for c := range t.cols {
			nameClass := ""
			if t.leftAligned(c) {
				nameClass = ` class="name"`
			}
			fmt.Fprintf(w, "<td%s>%s</td>", nameClass, html.EscapeString(t.cell(r, c, 0)))
		}
		fmt.Fprintln(w, "</tr>")
	}
	fmt.Fprintln(w, "</tbody>\n</table>\n</div>")
	fmt.Fprintln(w, "<details class=\"legend\"><summary>Columns</summary>\n<dl>")
	for _, c := range t.cols {
		fmt.Fprintf(w, "<dt>%s</dt><dd>%s</dd>\n", html.EscapeString(c.name), html.EscapeString(c.means))
	}
	fmt.Fprintln(w, "</dl>\n</details>")
}
