package reports

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// table is a grid of cells that renders as an aligned terminal table or a Markdown table, so
// both formats show the same figures.
type table struct {
	header []string
	rows   [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) writeText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(t.header, "\t")+"\t")
	for _, r := range t.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	tw.Flush()
}

func (t *table) writeMarkdown(w io.Writer) {
	fmt.Fprintln(w, "| "+strings.Join(t.header, " | ")+" |")
	seps := make([]string, len(t.header))
	for i := range seps {
		seps[i] = "---:"
	}
	fmt.Fprintln(w, "|"+strings.Join(seps, "|")+"|")
	for _, r := range t.rows {
		esc := make([]string, len(r))
		for i, c := range r {
			esc[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		fmt.Fprintln(w, "| "+strings.Join(esc, " | ")+" |")
	}
}
