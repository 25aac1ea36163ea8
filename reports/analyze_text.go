package reports

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"kidx/logdir"
)

// attentionShown is how many partitions that need attention the default layout lists
// (--all lists every partition), and topicsShown how many topics its roll-up shows: a broker
// of thousands of partitions fits a screen (issue 22: 60 lines).
const (
	attentionShown = 20
	topicsShown    = 10
)

// analysisView is what a layout lists of an analysis: the same in text, Markdown and HTML.
type analysisView struct {
	parts      []*PartitionReport
	partsTitle string // what the partition table holds
	partsMore  string // what --all adds, "" when nothing
	topics     []TopicRollup
	topicsMore string
	notes      bool // each partition's notes (live segments, restarts) besides its advice
}

// view chooses the rows: by default the topics to look at first and the partitions that need
// attention; with --top the worst partitions and every one with a problem; with --all every
// topic and partition in natural order (topic, then partition number).
func (a *Analysis) view(o RenderOptions) analysisView {
	v := analysisView{notes: o.All || a.Analyzed == 1}
	v.topics = append([]TopicRollup(nil), a.Topics...)
	switch {
	case o.All:
		sort.SliceStable(v.topics, func(i, j int) bool { return v.topics[i].Topic < v.topics[j].Topic })
	case len(v.topics) > topicsShown:
		v.topicsMore = fmt.Sprintf("%d more topics with --all", len(v.topics)-topicsShown)
		v.topics = v.topics[:topicsShown]
	}
	trimmed := len(a.Partitions) < a.Analyzed
	switch {
	case o.All || a.Analyzed == 1:
		v.parts = append(v.parts, a.Partitions...)
		sortNatural(v.parts)
		v.partsTitle = "Partitions"
		if trimmed {
			v.partsTitle = fmt.Sprintf("Partitions (the %d kept by --top, and every one with a problem)", len(a.Partitions))
		}
	case trimmed:
		v.parts = a.Partitions // worst first, then the others with a problem
		v.partsTitle = fmt.Sprintf("The worst partitions by lookup cost (--top), and every one with a problem: %d of %d", len(v.parts), a.Analyzed)
	default:
		for _, p := range a.Partitions {
			if len(p.Attention) > 0 {
				v.parts = append(v.parts, p)
			}
		}
		sort.SliceStable(v.parts, func(i, j int) bool {
			x, y := v.parts[i], v.parts[j]
			if x.Errors != y.Errors {
				return x.Errors > y.Errors
			}
			if x.Problems != y.Problems {
				return x.Problems > y.Problems
			}
			return partitionLess(x, y)
		})
		n := len(v.parts)
		v.partsTitle = fmt.Sprintf("Partitions that need attention: %d of %d", n, a.Analyzed)
		if n > attentionShown {
			v.partsTitle += fmt.Sprintf(" (the first %d)", attentionShown)
			v.parts = v.parts[:attentionShown]
		}
		if n < a.Analyzed {
			v.partsMore = fmt.Sprintf("--all lists all %d partitions", a.Analyzed)
		}
	}
	return v
}

// sortNatural orders partitions by directory, topic, then partition number.
func sortNatural(ps []*PartitionReport) {
	sort.SliceStable(ps, func(i, j int) bool { return partitionLess(ps[i], ps[j]) })
}

func partitionLess(a, b *PartitionReport) bool { return logdir.PartitionNameLess(a.Path, b.Path) }

// topicTable is the roll-up by topic.
func topicTable(ts []TopicRollup) *table {
	t := &table{names: 1, brief: true, cols: []column{
		{"topic", "the topic", 0},
		{"parts", "partitions", 9},
		{"segs", "segments", 8},
		{"live", "live segments", 0},
		{"log B", ".log bytes", 5},
		{"entries", "offset-index entries", 4},
		{"max scan B", "the longest phase-2 walk of any partition", 7},
		{"p99 B", "the largest partition p99 of phase-2 bytes walked", 6},
		{"maps", "memory maps (2 per segment)", 3},
		{"errors", "findings of severity error", 10},
		{"warnings", "findings of severity warning", 10},
		{"attention", "partitions that need attention", 10},
	}}
	for _, r := range ts {
		t.add(r.Topic, fmt.Sprint(r.Partitions), fmt.Sprint(r.Segments), fmt.Sprint(r.LiveSegments), itoa(r.LogBytes), itoa(r.Entries),
			itoa(r.MaxScanBytes), itoa(r.P99ScanBytes), itoa(r.Maps), fmt.Sprint(r.Errors), fmt.Sprint(r.Warnings), fmt.Sprint(r.Attention))
	}
	return t
}

// bullets are what the report says under a partition: why it needs attention and the advice;
// with notes, its facts too.
func (p *PartitionReport) bullets(notes bool) []string {
	var out []string
	if len(p.Attention) > 0 {
		out = append(out, "needs attention: "+strings.Join(p.Attention, "; "))
	}
	if notes {
		out = append(out, p.notes()...)
	}
	return append(out, p.Recommendations...)
}

// noteCounts is "98 live-segment, 12 restart" over every info finding, by check.
func (a *Analysis) noteCounts() string { return logdir.NoteSummary(a.NoteCounts) }

// WriteText writes the aligned terminal report.
func (a *Analysis) WriteText(w io.Writer) error { return a.WriteTextWith(w, RenderOptions{}) }

// WriteTextWith is WriteText with a layout: the headline and the verdict, the problems (all of
// them, always), the roll-up by topic, the partitions the layout lists with their advice, and
// what the notes count (docs/reports.md, "A broker's verdict").
func (a *Analysis) WriteTextWith(w io.Writer, o RenderOptions) error {
	return a.writeLayout(w, o, false)
}

// WriteMarkdown writes the report as Markdown.
func (a *Analysis) WriteMarkdown(w io.Writer) error { return a.WriteMarkdownWith(w, RenderOptions{}) }

// WriteMarkdownWith is WriteMarkdown with a layout: the same sections as the text.
func (a *Analysis) WriteMarkdownWith(w io.Writer, o RenderOptions) error {
	return a.writeLayout(w, o, true)
}

// prose writes the parts of a report that differ between text and Markdown; the sections and
// their order are writeLayout's, the same for both.
type prose struct {
	w        io.Writer
	markdown bool
	wide     bool
}

func (p prose) heading(s string) {
	if p.markdown {
		fmt.Fprintf(p.w, "\n## %s\n\n", s)
		return
	}
	fmt.Fprintf(p.w, "\n%s:\n", s)
}

func (p prose) paragraph(s string) {
	if p.markdown {
		fmt.Fprintf(p.w, "%s\n\n", s)
		return
	}
	writeWrapped(p.w, "", "  ", s, TextWidth)
}

func (p prose) table(t *table) {
	if p.markdown {
		t.writeMarkdown(p.w, p.wide)
		return
	}
	t.writeText(p.w, p.wide)
}

func (a *Analysis) writeLayout(w io.Writer, o RenderOptions, markdown bool) error {
	p := prose{w: w, markdown: markdown, wide: o.Wide}
	if markdown {
		fmt.Fprintf(w, "# kidx analyze\n\n")
		for _, l := range strings.Split(a.headline(), "\n") {
			fmt.Fprintf(w, "- %s\n", l)
		}
		fmt.Fprintf(w, "\n**%s**\n", a.Verdict.Text)
	} else {
		fmt.Fprintf(w, "kidx analyze\n%s\n\n", a.headline())
		writeWrapped(w, "", "", a.Verdict.Text, TextWidth)
	}
	if fs := a.allFindings(true); len(fs) > 0 {
		p.heading(fmt.Sprintf("Problems (%d)", weightOf(fs)))
		for _, f := range fs {
			if markdown {
				fmt.Fprintf(w, "- `%s`\n", f)
			} else {
				fmt.Fprintf(w, "  %s\n", f)
			}
		}
	}
	if o.Quiet {
		return nil
	}
	v := a.view(o)
	if len(a.Topics) > 1 || o.All {
		p.heading(fmt.Sprintf("Topics (%d)", len(a.Topics)))
		t := topicTable(v.topics)
		t.brief = !o.All
		p.table(t)
		if v.topicsMore != "" {
			p.paragraph(v.topicsMore + ".")
		}
	}
	p.heading(v.partsTitle)
	if len(v.parts) > 0 {
		t := a.table(v.parts)
		t.brief = !o.All && a.Analyzed > 1
		p.table(t)
		for _, part := range v.parts {
			if b := part.bullets(v.notes); len(b) > 0 {
				writeBullets(w, markdown, part.name(), b)
			}
		}
	} else {
		p.paragraph("None.")
	}
	fmt.Fprintln(w)
	if v.partsMore != "" {
		p.paragraph(capitalize(v.partsMore) + ".")
	}
	if n := a.noteCounts(); n != "" && !v.notes {
		p.paragraph("Notes (info, not problems): " + n + "; --all or --format json gives each.")
	}
	if o.All {
		a.writeRootNotes(w, markdown)
	}
	if !markdown {
		fmt.Fprintln(w, "Scan figures are exact over every offset, from the real .log headers and .index entries.")
	}
	fmt.Fprintln(w, a.readsNote())
	return nil
}

// writeRootNotes lists the log directories' own info findings (--all).
func (a *Analysis) writeRootNotes(w io.Writer, markdown bool) {
	var notes []string
	for _, f := range a.Findings {
		if f.Severity == logdir.SeverityInfo {
			notes = append(notes, f.String())
		}
	}
	if len(notes) > 0 {
		writeBullets(w, markdown, "Log directories", notes)
		fmt.Fprintln(w)
	}
}
