package reports

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"kidx/model"
	"kidx/sim"
)

// seedWhatIf is the default `kidx whatif`: the seed workload (5000 records, 79 per batch,
// 16350-byte batches, segment.bytes=65536), the exact interval sweep plus the four seed values.
func seedWhatIf(t *testing.T, opts WhatIfOptions) *WhatIf {
	t.Helper()
	var batches []model.Batch
	for off := int64(0); off < 5000; off += 79 {
		n := min(79, 5000-off)
		size := int64(16350)
		if n < 79 {
			size = 16350 * n / 79
		}
		batches = append(batches, model.Batch{Records: n, Bytes: size, MaxTimestamp: 1_700_000_000_000 + off})
	}
	opts.Source = &sim.WorkloadSource{Name: "seed", Workload: model.BatchesWorkload(batches)}
	opts.Base = model.DefaultConfig()
	opts.Base.SegmentBytes = 65536
	if opts.Sweeps == nil {
		opts.Sweeps = []Sweep{{Key: "index.interval.bytes", Values: []int64{1, 4096, 20000, 1048576}}}
	}
	opts.Scale = Scale{Partitions: 1000, MaxMapCount: DefaultMaxMapCount}
	rep, err := RunWhatIf(opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// tableBlock is the text table and its legend: from the line starting with header up to the
// end of the "Columns:" list (the first line that is neither indented nor the list's head
// after it).
func tableBlock(t *testing.T, out, header string) (table, legend []string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, header) {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatalf("no table starting with %q in:\n%s", header, out)
	}
	i := start
	for ; i < len(lines) && lines[i] != ""; i++ {
		table = append(table, lines[i])
	}
	for ; i < len(lines) && lines[i] != "Columns:"; i++ {
	}
	for i++; i < len(lines) && strings.HasPrefix(lines[i], "  "); i++ {
		legend = append(legend, lines[i])
	}
	return table, legend
}

// headerCells splits a text table's header line into its column names, given the names the
// table may hold (a name may contain single spaces, "max scan B").
func headerCells(header string, known []string) []string {
	var out []string
	rest := header
	for strings.TrimSpace(rest) != "" {
		rest = strings.TrimLeft(rest, " ")
		best := ""
		for _, k := range known {
			if strings.HasPrefix(rest, k) && len(k) > len(best) {
				best = k
			}
		}
		if best == "" {
			return append(out, "?"+rest)
		}
		out = append(out, best)
		rest = rest[len(best):]
	}
	return out
}

func allColumnNames(tb *table) []string {
	var out []string
	for _, c := range tb.cols {
		out = append(out, c.name)
	}
	return out
}

// Issue 11, tables: the default text table (and its legend) fits 120 columns, every column it
// shows is explained in the legend under it, and --wide shows the columns the default leaves
// out. Before, the what-if table was 293 columns wide with no legend.
func TestWhatIfTextTableFits120(t *testing.T) {
	for _, c := range []struct {
		name string
		opts WhatIfOptions
	}{
		{"exact seed sweep", WhatIfOptions{ExactIntervals: true}},
		{"compare rules", WhatIfOptions{Eras: []model.Era{model.EraForRule(model.PerBatch), model.EraForRule(model.PerAppend)}}},
		{"grid", WhatIfOptions{Sweeps: []Sweep{{Key: "index.interval.bytes", Values: []int64{1, 20000}}, {Key: "segment.bytes", Values: []int64{65536, 1048576}}}}},
	} {
		rep := seedWhatIf(t, c.opts)
		known := allColumnNames(rep.table())
		var out bytes.Buffer
		if err := rep.WriteText(&out); err != nil {
			t.Fatal(err)
		}
		head := rep.table().cols[0].name
		tbl, legend := tableBlock(t, out.String(), head)
		if len(tbl) != len(rep.Points)+1 {
			t.Errorf("%s: %d table lines for %d points", c.name, len(tbl), len(rep.Points))
		}
		for _, l := range append(append([]string{}, tbl...), legend...) {
			if n := utf8.RuneCountInString(l); n > TextWidth {
				t.Errorf("%s: line of %d columns (> %d): %q", c.name, n, TextWidth, l)
			}
		}
		shown := headerCells(tbl[0], known)
		legendText := strings.Join(legend, "\n")
		for _, h := range shown {
			if !strings.Contains(legendText, "  "+h+"  ") {
				t.Errorf("%s: column %q is not explained under the table:\n%s", c.name, h, legendText)
			}
		}
		for _, essential := range []string{"regime", "max scan B", "p99 B", "reads max/mean"} {
			if !contains(shown, essential) {
				t.Errorf("%s: the default table lacks %q: %v", c.name, essential, shown)
			}
		}
		if contains(shown, "ph1 pages tail/cold") || !strings.Contains(out.String(), "more with --wide: ") {
			t.Errorf("%s: the default table shows a --wide column, or does not say what --wide adds", c.name)
		}

		out.Reset()
		if err := rep.WriteTextWith(&out, RenderOptions{Wide: true}); err != nil {
			t.Fatal(err)
		}
		tbl, legend = tableBlock(t, out.String(), head)
		shown = headerCells(tbl[0], known)
		if len(shown) != len(known) {
			t.Errorf("%s: --wide shows %v, want every column %v", c.name, shown, known)
		}
		legendText = strings.Join(legend, "\n")
		for _, h := range known {
			if !strings.Contains(legendText, "  "+h+"  ") {
				t.Errorf("%s --wide: column %q is not explained under the table", c.name, h)
			}
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Issue 11, tables: the analyze table fits 120 columns even for a partition directory with a
// long path: the name is cut (its end kept, the figures stay) and the text says so.
func TestAnalyzeTextTableFits120(t *testing.T) {
	root := t.TempDir()
	long := filepath.Join(root, "a-rather-long-topic-name-as-real-clusters-have-them.events.v2-17")
	copyCase(t, filepath.Join(goldenDir, "blog-i4096"), long)
	a, err := AnalyzeDir(long, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := a.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	tbl, legend := tableBlock(t, out.String(), "partition")
	for _, l := range append(append([]string{}, tbl...), legend...) {
		if n := utf8.RuneCountInString(l); n > TextWidth {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	known := allColumnNames(a.table(a.Partitions))
	shown := headerCells(tbl[0], known)
	for _, essential := range []string{"max scan B", "p99 B", "4.1+ reads max/mean", "maps", "problems"} {
		if !contains(shown, essential) {
			t.Errorf("the default table lacks %q: %v", essential, shown)
		}
	}
	if !strings.Contains(tbl[1], "…") || !strings.Contains(tbl[1], "events.v2-17") || !strings.Contains(out.String(), "shortened to fit") {
		t.Errorf("the long name is not cut with its end kept, or the text does not say so:\n%s", out.String())
	}
	out.Reset()
	if err := a.WriteTextWith(&out, RenderOptions{Wide: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), long) || !strings.Contains(out.String(), "batches/entry") {
		t.Errorf("--wide lacks the whole name or the batches/entry column:\n%s", out.String())
	}
}

// Issue 11, tables: Markdown carries the legend too, and HTML explains every column in a
// tooltip and scrolls sideways instead of cutting the table off.
func TestTableLegendMarkdownAndHTML(t *testing.T) {
	rep := seedWhatIf(t, WhatIfOptions{})
	var md, page bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteHTML(&page, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.table().cols {
		if c.keep > 0 && !strings.Contains(md.String(), "- `"+c.name+"`: "+c.means) {
			t.Errorf("markdown legend lacks %q", c.name)
		}
		if !strings.Contains(page.String(), `title="`+htmlEscape(c.means)+`"><abbr`) {
			t.Errorf("HTML header %q has no tooltip", c.name)
		}
	}
	if !strings.Contains(page.String(), `<div class="table-scroll">`) || !strings.Contains(page.String(), ".table-scroll{overflow-x:auto") {
		t.Error("the HTML table does not scroll sideways")
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// Issue 11, build: the verdict opens every what-if report, text, Markdown and HTML.
func TestVerdictOnTop(t *testing.T) {
	rep := seedWhatIf(t, WhatIfOptions{ExactIntervals: true})
	v := rep.Verdict()
	if v == "" {
		t.Fatal("no verdict")
	}
	first := strings.Fields(v)[:6]
	var text, md, page bytes.Buffer
	_ = rep.WriteText(&text)
	_ = rep.WriteMarkdown(&md)
	_ = rep.WriteHTML(&page, nil)
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "html": page.String()} {
		i := strings.Index(out, strings.Join(first, " "))
		if i < 0 || i > strings.Index(out, "source:") {
			t.Errorf("%s: the verdict is missing or not above the headline:\n%s", name, out[:min(len(out), 600)])
		}
	}
}

// With the exact sweep, each row says which interval values give the same run (its piece): by
// hand for the seed workload, 0..16349 (plateau), 16350..32699 and 32700..49049 (one entry per
// segment, on the 3rd then the 4th batch), 49050 and up (none).
func TestExactSweepTableShowsPieces(t *testing.T) {
	rep := seedWhatIf(t, WhatIfOptions{ExactIntervals: true})
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	tbl, _ := tableBlock(t, out.String(), "index.interval.bytes")
	want := map[string]string{"1": "0..16349", "4096": "0..16349", "20000": "16350..32699", "32700": "32700..49049", "1048576": "49050 and up"}
	for _, line := range tbl[1:] {
		f := strings.Fields(line)
		if want[f[0]] == "" || strings.Join(f[1:len(strings.Fields(want[f[0]]))+1], " ") != want[f[0]] {
			t.Errorf("row %q: want %s", line, want[f[0]])
		}
		delete(want, f[0])
	}
	if len(want) > 0 {
		t.Errorf("rows missing: %v", want)
	}
}
