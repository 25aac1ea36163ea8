package reports

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// label names a point by what the sweeps vary (and the rule when rules are compared).
func (r *WhatIf) label(p *Point) string {
	var parts []string
	for _, s := range r.Sweeps {
		if IsProducerKey(s.Key) {
			for _, x := range p.Producer {
				if x.Key == s.Key {
					parts = append(parts, fmt.Sprintf("%s=%d", s.Key, x.Value))
				}
			}
			continue
		}
		v, _ := p.Config.Get(s.Key)
		parts = append(parts, fmt.Sprintf("%s=%d", s.Key, v))
	}
	if len(r.Eras) > 1 {
		parts = append(parts, r.eraName(p))
	}
	if len(parts) == 0 {
		return "base"
	}
	return strings.Join(parts, " ")
}

// eraName names a point's era among the report's: its rule name, or its era ID when two
// eras of the report share a rule.
func (r *WhatIf) eraName(p *Point) string {
	for _, e := range r.Eras {
		if e.ID != p.Era.ID && e.Rule() == p.Rule {
			return p.Era.ID
		}
	}
	return p.Rule.String()
}

func (r *WhatIf) table() *table {
	t := &table{header: []string{"point", "regime", "segs", "entries/seg", ".index B", ".timeindex B", "max scan B", "mean scan B",
		"p50 B", "p99 B", "p99.9 B", "max hops", "mean hops", "p99 hops", "reads max/mean", "bound B", "slack B", "ph1 pages tail/cold", "warm covers B", "maps", "headroom"}}
	for _, p := range r.Points {
		t.add(r.label(p), string(p.Regime), strconv.Itoa(p.Segments), fmt.Sprintf("%.2f", p.meanEntries()),
			itoa(p.IndexBytes), itoa(p.TimeIndexBytes), itoa(p.Scan.MaxScanBytes), fmt.Sprintf("%.1f", p.Scan.MeanScanBytes()),
			itoa(p.ScanQ[P50]), itoa(p.ScanQ[P99]), itoa(p.ScanQ[P999]), itoa(p.Scan.MaxHops),
			fmt.Sprintf("%.2f", p.Scan.MeanHops()), itoa(p.HopsQ[P99]),
			fmt.Sprintf("%d/%.2f", p.Scan.MaxHeaderReads, p.Scan.MeanHeaderReads()), itoa(p.BoundLimit), itoa(p.BoundSlack),
			fmt.Sprintf("%d/%d", p.Phase1.TailPages, p.Phase1.ColdPages), itoa(p.Warm.CoveredBytes),
			strconv.FormatInt(p.Maps.Maps, 10), strconv.FormatInt(p.Maps.Headroom, 10))
	}
	return t
}

func (r *WhatIf) headline() string {
	rules := make([]string, len(r.Rules))
	for i, x := range r.Rules {
		rules[i] = x.String()
		if i < len(r.Eras) {
			rules[i] = fmt.Sprintf("%s (era %s)", x, r.Eras[i].ID)
		}
	}
	// What holds for every point: one source and its batch count, or (a producer sweep) one
	// line per workload (issue 11, defect 5).
	source := fmt.Sprintf("source: %s", r.Source)
	batches := fmt.Sprintf("%s per pass, ", plural(r.Batches, "batch"))
	if len(r.Workloads) > 1 {
		source = fmt.Sprintf("source: %d workloads, one per producer setting:", len(r.Workloads))
		for _, wl := range r.Workloads {
			source += fmt.Sprintf("\n  %s: %s per pass", wl.Source, plural(wl.Batches, "batch"))
		}
		batches = ""
	}
	head := fmt.Sprintf("%s\nrule: %s; config checked against Kafka %s; %s%s\n"+
		"scale: %s, vm.max_map_count %d",
		source, strings.Join(rules, " vs "), r.KafkaVersion, batches, plural(int64(r.Passes), "pass"),
		plural(int64(r.Scale.Partitions), "partition"), r.Scale.MaxMapCount)
	for _, w := range r.versionWarnings() {
		head += "\nwarning: " + w
	}
	return head + r.Baseline.line()
}

// versionWarnings are the points' release warnings, each once, in the order of the points:
// said at the top, not under every point (issue 11, defect 5). Each names the value it is
// about, so the points it concerns are plain.
func (r *WhatIf) versionWarnings() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range r.Points {
		for _, w := range p.VersionWarnings {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// line is the baseline check under the headline ("" without a replayed partition).
func (b *Baseline) line() string {
	if b == nil {
		return ""
	}
	s := fmt.Sprintf("\nbaseline reproduces the real index: yes (era %s, index.interval.bytes=%d, %s replayed, the files' segment boundaries)", b.Era, b.Interval, plural(int64(b.Restarts), "restart"))
	if !b.Reproduces {
		s = fmt.Sprintf("\nbaseline reproduces the real index: no: %s (era %s, index.interval.bytes=%d)", b.Detail, b.Era, b.Interval)
	}
	for _, n := range b.Notes {
		s += "\n  note: " + n
	}
	return s
}

// WriteText writes the aligned terminal report: a table of every point, then each point's
// recommendations.
func (r *WhatIf) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "kidx whatif\n%s\n\n", r.headline())
	r.table().writeText(w)
	fmt.Fprintln(w, "\nScan figures are exact over every offset (bytes walked in phase 2, header hops); reads = the batch headers Kafka's own\n"+
		"phase-2 loop reads in the era (the hops before 4.1); bound = min(I + largest batch, segment.bytes).")
	for _, p := range r.Points {
		writeBullets(w, false, fmt.Sprintf("%s (%s)", r.label(p), p.Regime), p.Recommendations)
	}
	return nil
}

// WriteMarkdown writes the same report as Markdown.
func (r *WhatIf) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "# kidx whatif\n\n")
	for _, line := range strings.Split(r.headline(), "\n") {
		fmt.Fprintf(w, "- %s\n", line)
	}
	fmt.Fprintln(w)
	r.table().writeMarkdown(w)
	fmt.Fprintln(w, "\nScan figures are exact over every offset; reads = the batch headers Kafka's own phase-2 loop reads in the era (the hops before 4.1); bound = min(I + largest batch, segment.bytes).")
	for _, p := range r.Points {
		writeBullets(w, true, fmt.Sprintf("%s (%s)", r.label(p), p.Regime), p.Recommendations)
	}
	return nil
}

// writeBullets writes a titled list (a point's or a partition's recommendations): an indented
// list under "title:" on a terminal, a "## title" section in Markdown.
func writeBullets(w io.Writer, markdown bool, title string, items []string) {
	if markdown {
		fmt.Fprintf(w, "\n## %s\n\n", title)
	} else {
		fmt.Fprintf(w, "\n%s:\n", title)
	}
	for _, it := range items {
		if markdown {
			fmt.Fprintf(w, "- %s\n", it)
		} else {
			fmt.Fprintf(w, "  - %s\n", it)
		}
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
