package reports

import (
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"kidx/logdir"
)

// WriteHTML writes one self-contained HTML file with the given charts inline: the verdict and
// the problems first, the charts, the roll-up by topic, then every partition in a table per
// topic, folded unless the topic has a partition that needs attention (docs/reports.md, "A
// broker's verdict"). Every table sorts by the column clicked.
func (a *Analysis) WriteHTML(w io.Writer, figs []Figure) error {
	writeHTMLHead(w, "kidx analyze", len(figs))
	class := map[string]string{logdir.VerdictHealthy: "verdict", logdir.VerdictAttention: "verdict attention", logdir.VerdictDamaged: "verdict damaged"}[a.Verdict.State]
	fmt.Fprintf(w, "<p class=\"%s\">%s</p>\n", class, html.EscapeString(a.Verdict.Text))
	fmt.Fprintf(w, "<pre>%s</pre>\n", html.EscapeString(a.headline()))
	if fs := a.allFindings(true); len(fs) > 0 {
		fmt.Fprintf(w, "<h2>Problems (%d)</h2>\n<ul class=\"problems\">\n", weightOf(fs))
		for _, f := range fs {
			fmt.Fprintf(w, "<li><code>%s</code></li>\n", html.EscapeString(f.String()))
		}
		fmt.Fprintln(w, "</ul>")
	}
	writeFigures(w, figs)
	topics := append([]TopicRollup(nil), a.Topics...)
	if len(topics) > 1 {
		fmt.Fprintf(w, "<h2>Topics (%d)</h2>\n", len(topics))
		topicTable(topics).writeHTML(w, nil)
	}
	byTopic := map[string][]*PartitionReport{}
	for _, p := range a.Partitions {
		name := p.Topic
		if name == "" {
			name = noTopic
		}
		byTopic[name] = append(byTopic[name], p)
	}
	title := "Partitions"
	if len(a.Partitions) < a.Analyzed {
		title = fmt.Sprintf("Partitions (%d of %d: the worst by --top, and every one with a problem)", len(a.Partitions), a.Analyzed)
	}
	fmt.Fprintf(w, "<h2>%s</h2>\n", html.EscapeString(title))
	sort.SliceStable(topics, func(i, j int) bool { return topics[i].Topic < topics[j].Topic })
	for _, t := range topics {
		ps := byTopic[t.Topic]
		if len(ps) == 0 {
			continue
		}
		sortNatural(ps)
		open := ""
		if t.Attention > 0 || len(topics) == 1 {
			open = ` open="open"`
		}
		fmt.Fprintf(w, "<details class=\"topic\"%s><summary><b>%s</b>: %s, %s, lookups walk up to %s%s</summary>\n", open, html.EscapeString(t.Topic),
			plural(int64(t.Partitions), "partition"), plural(int64(t.Segments), "segment"), Bytes(t.MaxScanBytes), attentionSummary(t))
		a.table(ps).writeHTML(w, func(i int) string {
			if len(ps[i].Attention) > 0 {
				return "thinning"
			}
			return ""
		})
		for _, p := range ps {
			if b := p.bullets(true); len(b) > 0 {
				fmt.Fprintf(w, "<h3>%s</h3>\n<ul>\n", html.EscapeString(p.name()))
				for _, r := range b {
					fmt.Fprintf(w, "<li>%s</li>\n", html.EscapeString(r))
				}
				fmt.Fprintln(w, "</ul>")
			}
		}
		fmt.Fprintln(w, "</details>")
	}
	var notes []string
	for _, f := range a.Findings {
		if f.Severity == logdir.SeverityInfo {
			notes = append(notes, f.String())
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "<details><summary>Log directories</summary>\n<ul>")
		for _, n := range notes {
			fmt.Fprintf(w, "<li>%s</li>\n", html.EscapeString(n))
		}
		fmt.Fprintln(w, "</ul>\n</details>")
	}
	if n := a.noteCounts(); n != "" {
		fmt.Fprintf(w, "<p>Notes (info, not problems): %s.</p>\n", html.EscapeString(n))
	}
	fmt.Fprintf(w, "<p>%s</p>\n", html.EscapeString(a.readsNote()))
	fmt.Fprintln(w, "</body>\n</html>")
	return nil
}

// attentionSummary is ", 2 need attention, 1 problem" for a topic's folded line.
func attentionSummary(t TopicRollup) string {
	var parts []string
	if t.Attention > 0 {
		parts = append(parts, fmt.Sprintf("%d need attention", t.Attention))
	}
	if n := t.Errors + t.Warnings; n > 0 {
		parts = append(parts, plural(int64(n), "problem"))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, ", ")
}
