package reports

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"

	"kidx/segment"
)

func (pr *PartitionReport) name() string {
	if pr.Topic != "" {
		return fmt.Sprintf("%s-%d", pr.Topic, pr.Partition)
	}
	return pr.Path
}

func (a *Analysis) table() *table {
	t := &table{header: []string{"partition", "segs", "batches", "log B", "entries", "B/entry", "batches/entry",
		"max scan B", "mean scan B", "p50 B", "p99 B", "p99.9 B", "max hops", "mean hops", "warm covers B", "maps", "problems"}}
	for _, p := range a.Partitions {
		t.add(p.name(), fmt.Sprint(p.Segments), itoa(p.Batches), itoa(p.LogBytes), itoa(p.OffsetIndexEntries),
			fmt.Sprintf("%.0f", p.BytesPerEntry), fmt.Sprintf("%.2f", p.BatchesPerEntry), itoa(p.Scan.MaxScanBytes),
			fmt.Sprintf("%.1f", p.Scan.MeanScanBytes()), itoa(p.ScanQ[P50]), itoa(p.ScanQ[P99]), itoa(p.ScanQ[P999]),
			itoa(p.Scan.MaxHops), fmt.Sprintf("%.2f", p.Scan.MeanHops()), itoa(p.WarmCoveredBytes), itoa(p.Maps), fmt.Sprint(p.Problems))
	}
	return t
}

func (a *Analysis) headline() string {
	shown := ""
	if len(a.Partitions) < a.Analyzed {
		shown = fmt.Sprintf(" (worst %d shown)", len(a.Partitions))
	}
	return fmt.Sprintf("directory: %s\n%d partitions%s, %d segments, %d log bytes; %d maps against vm.max_map_count %d (headroom %d); %d problems",
		a.Root, a.Analyzed, shown, a.Segments, a.LogBytes, a.Maps, a.MaxMapCount, a.MaxMapCount-a.Maps, a.Problems)
}

func (a *Analysis) allFindings() []segment.Finding {
	out := append([]segment.Finding(nil), a.Findings...)
	for _, p := range a.Partitions {
		out = append(out, p.Findings...)
	}
	return out
}

// WriteText writes the aligned terminal report.
func (a *Analysis) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "kidx analyze\n%s\n\n", a.headline())
	a.table().writeText(w)
	fmt.Fprintln(w, "\nScan figures are exact over every offset, from the real .log headers and .index entries.")
	for _, p := range a.Partitions {
		writeBullets(w, false, p.name(), p.Recommendations)
	}
	if fs := a.allFindings(); len(fs) > 0 {
		fmt.Fprintln(w, "\nfindings:")
		for _, f := range fs {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	return nil
}

// WriteMarkdown writes the report as Markdown.
func (a *Analysis) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "# kidx analyze\n\n")
	for _, l := range strings.Split(a.headline(), "\n") {
		fmt.Fprintf(w, "- %s\n", l)
	}
	fmt.Fprintln(w)
	a.table().writeMarkdown(w)
	for _, p := range a.Partitions {
		writeBullets(w, true, p.name(), p.Recommendations)
	}
	if fs := a.allFindings(); len(fs) > 0 {
		fmt.Fprintf(w, "\n## Findings\n\n")
		for _, f := range fs {
			fmt.Fprintf(w, "- `%s`\n", f)
		}
	}
	return nil
}

type analysisJSON struct {
	Root        string              `json:"root"`
	Analyzed    int                 `json:"analyzedPartitions"`
	Segments    int                 `json:"segments"`
	LogBytes    int64               `json:"logBytes"`
	Maps        int64               `json:"maps"`
	MaxMapCount int64               `json:"maxMapCount"`
	Headroom    int64               `json:"headroom"`
	Problems    int                 `json:"problems"`
	Findings    []segment.Finding   `json:"findings"`
	Partitions  []partitionJSONItem `json:"partitions"`
}

type partitionJSONItem struct {
	Path               string            `json:"path"`
	Topic              string            `json:"topic"`
	Partition          int               `json:"partition"`
	Segments           int               `json:"segments"`
	Batches            int64             `json:"batches"`
	LogBytes           int64             `json:"logBytes"`
	MaxBatchBytes      int64             `json:"maxBatchBytes"`
	OffsetIndexEntries int64             `json:"offsetIndexEntries"`
	TimeIndexEntries   int64             `json:"timeIndexEntries"`
	IndexFileBytes     int64             `json:"indexFileBytes"`
	TimeIndexFileBytes int64             `json:"timeIndexFileBytes"`
	BytesPerEntry      float64           `json:"bytesPerEntry"`
	BatchesPerEntry    float64           `json:"batchesPerEntry"`
	Scan               ScanJSON          `json:"scan"`
	WarmCoveredBytes   int64             `json:"warmCoveredBytes"`
	Phase1             phase1JSON        `json:"phase1"`
	Maps               int64             `json:"maps"`
	Problems           int               `json:"problems"`
	Findings           []segment.Finding `json:"findings"`
	Recommendations    []string          `json:"recommendations"`
}

// WriteJSON writes the analysis; every partition carries the SPEC §10 `scan` object.
func (a *Analysis) WriteJSON(w io.Writer) error {
	doc := analysisJSON{Root: a.Root, Analyzed: a.Analyzed, Segments: a.Segments, LogBytes: a.LogBytes, Maps: a.Maps,
		MaxMapCount: a.MaxMapCount, Headroom: a.MaxMapCount - a.Maps, Problems: a.Problems, Findings: a.Findings,
		Partitions: []partitionJSONItem{}}
	for _, p := range a.Partitions {
		item := partitionJSONItem{Path: p.Path, Topic: p.Topic, Partition: p.Partition, Segments: p.Segments, Batches: p.Batches,
			LogBytes: p.LogBytes, MaxBatchBytes: p.MaxBatchBytes, OffsetIndexEntries: p.OffsetIndexEntries,
			TimeIndexEntries: p.TimeIndexEntries, IndexFileBytes: p.IndexFileBytes, TimeIndexFileBytes: p.TimeIndexFileBytes,
			BytesPerEntry: round1(p.BytesPerEntry), BatchesPerEntry: round2(p.BatchesPerEntry),
			Scan: scanJSON(p.Scan, p.ScanQ, p.HopsQ), WarmCoveredBytes: p.WarmCoveredBytes, Phase1: phase1JSON(p.Phase1),
			Maps: p.Maps, Problems: p.Problems, Findings: p.Findings, Recommendations: p.Recommendations}
		if item.Findings == nil {
			item.Findings = []segment.Finding{}
		}
		if item.Recommendations == nil {
			item.Recommendations = []string{}
		}
		doc.Partitions = append(doc.Partitions, item)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// WriteHTML writes one self-contained HTML file with the given charts inline.
func (a *Analysis) WriteHTML(w io.Writer, figs []Figure) error {
	writeHTMLHead(w, "kidx analyze")
	fmt.Fprintf(w, "<pre>%s</pre>\n", html.EscapeString(a.headline()))
	writeHTMLTable(w, a.table(), nil)
	writeFigures(w, figs)
	fmt.Fprintln(w, "<h2>Recommendations</h2>")
	for _, p := range a.Partitions {
		fmt.Fprintf(w, "<h3>%s</h3>\n<ul>\n", html.EscapeString(p.name()))
		for _, r := range p.Recommendations {
			fmt.Fprintf(w, "<li>%s</li>\n", html.EscapeString(r))
		}
		fmt.Fprintln(w, "</ul>")
	}
	if fs := a.allFindings(); len(fs) > 0 {
		fmt.Fprintln(w, "<h2>Findings</h2>\n<ul>")
		for _, f := range fs {
			fmt.Fprintf(w, "<li><code>%s</code></li>\n", html.EscapeString(f.String()))
		}
		fmt.Fprintln(w, "</ul>")
	}
	fmt.Fprintln(w, "</body>\n</html>")
	return nil
}
