package reports

import (
	"fmt"
	"io"
	"math"
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

// whatIfColumns are the what-if table's figure columns, in order (docs/reports.md "Tables").
var whatIfColumns = []column{
	{"regime", "where the point sits: plateau (as many entries as index.interval.bytes=0 gives; none when no segment holds a second batch), thinning (some batches that could carry an entry are skipped), cliff (the offset index is empty though index.interval.bytes=0 gives entries)", 9},
	{"segs", "segments the workload fills", 7},
	{"entries/seg", "offset-index entries per segment (mean)", 8},
	{".index B", ".index bytes over all segments (8 per entry)", 0},
	{".timeindex B", ".timeindex bytes over all segments (12 per entry)", 0},
	{"max scan B", "the most bytes one lookup walks in phase 2, from its index entry to its batch (exact, every offset)", 10},
	{"mean scan B", "phase-2 bytes walked per lookup, mean over every offset", 5},
	{"p50 B", "median phase-2 bytes walked (nearest rank)", 0},
	{"p99 B", "99th percentile of phase-2 bytes walked (nearest rank)", 6},
	{"p99.9 B", "99.9th percentile of phase-2 bytes walked (nearest rank)", 0},
	{"max hops", "the most batch headers one lookup steps over", 0},
	{"mean hops", "batch headers stepped over per lookup, mean", 0},
	{"p99 hops", "99th percentile of batch headers stepped over", 0},
	{"reads max/mean", "batch headers Kafka's own phase-2 loop reads per lookup in the point's era, max/mean (the hops before 4.1)", 4},
	{"bound B", "min(index.interval.bytes + largest batch, segment.bytes): no lookup walks further", 0},
	{"slack B", "bound B - max scan B", 0},
	{"ph1 pages tail/cold", "index pages Kafka's phase-1 search touches in the fullest segment: the newest entry / the worst entry below the warm section", 0},
	{"warm covers B", "log bytes the warm section (the last 1025 entries) spans in the fullest segment", 0},
	{"maps", "memory maps at scale: partitions x segments per partition x 2 (.index and .timeindex)", 3},
	{"headroom", "vm.max_map_count - maps (negative: over the limit)", 2},
}

// table is one row per point: the values the sweeps vary (one column per swept key, and the
// era when eras are compared), then the figures.
func (r *WhatIf) table() *table {
	t := &table{}
	for _, s := range r.Sweeps {
		t.cols = append(t.cols, column{name: s.Key, means: "the swept value of " + s.Key})
	}
	if len(r.Eras) > 1 {
		t.cols = append(t.cols, column{name: "era", means: "the Kafka era the point runs under (its append rule, or its era ID)"})
	}
	if len(t.cols) == 0 {
		t.cols = append(t.cols, column{name: "point", means: "the configuration (base: the one the report starts from)"})
	}
	t.names = len(t.cols)
	if len(r.Pieces) > 0 {
		t.cols = append(t.cols, column{"same run for", "the index.interval.bytes values that give exactly this point's run (its piece of the exact sweep)", 3})
	}
	t.cols = append(t.cols, whatIfColumns...)
	// The follower-overflow column is essential when some point is exposed, else --wide only
	// (no noise for healthy setups).
	follower := column{"follower", "exposed: an index can fill before segment.bytes with these batches, so a follower of Kafka 3.9.1, 4.0.1 " +
		"or 4.1+ can overflow it on a fetch (per-append eras: a recovery of a follower's segment can); no: it cannot (docs/kafka-hazards.md)", 0}
	for _, p := range r.Points {
		if p.Exposure.Exposed {
			follower.keep = 5
		}
	}
	t.cols = append(t.cols, follower)
	for _, p := range r.Points {
		if entriesPerSegment(p) == fewEntries {
			for i := range t.cols {
				if t.cols[i].name == "entries/seg" { // a copy: whatIfColumns keeps its words
					t.cols[i].means += "; " + fewEntries + ": some, fewer than 1 per 100 segments"
				}
			}
			break
		}
	}
	for _, p := range r.Points {
		var cells []string
		for _, s := range r.Sweeps {
			cells = append(cells, itoa(p.SweptValue(s.Key)))
		}
		if len(r.Eras) > 1 {
			cells = append(cells, r.eraName(p))
		}
		if len(cells) == 0 {
			cells = append(cells, "base")
		}
		if len(r.Pieces) > 0 {
			cells = append(cells, pieceRange(r.PieceOf(p.Config.IndexIntervalBytes)))
		}
		t.add(append(cells, string(p.Regime), strconv.Itoa(p.Segments), entriesPerSegment(p),
			itoa(p.IndexBytes), itoa(p.TimeIndexBytes), itoa(p.Scan.MaxScanBytes), fmt.Sprintf("%.1f", p.Scan.MeanScanBytes()),
			itoa(p.ScanQ[P50]), itoa(p.ScanQ[P99]), itoa(p.ScanQ[P999]), itoa(p.Scan.MaxHops),
			fmt.Sprintf("%.2f", p.Scan.MeanHops()), itoa(p.HopsQ[P99]),
			fmt.Sprintf("%d/%.2f", p.Scan.MaxHeaderReads, p.Scan.MeanHeaderReads()), itoa(p.BoundLimit), itoa(p.BoundSlack),
			fmt.Sprintf("%d/%d", p.Phase1.TailPages, p.Phase1.ColdPages), itoa(p.Warm.CoveredBytes),
			strconv.FormatInt(p.Maps.Maps, 10), strconv.FormatInt(p.Maps.Headroom, 10), p.Exposure.Cell())...)
	}
	return t
}

// fewEntries is the entries/seg cell of an index whose mean rounds to 0.00 but is not empty.
const fewEntries = "<0.01"

// entriesPerSegment is the table's mean entries per segment. A mean that rounds to 0.00 while
// the index holds entries is written "<0.01": a "0.00" there reads as the empty index of a
// cliff, or of a plateau where no segment holds a second batch.
func entriesPerSegment(p *Point) string {
	if m := p.meanEntries(); p.OffsetIndexEntries > 0 && m < 0.005 {
		return fewEntries
	}
	return fmt.Sprintf("%.2f", p.meanEntries())
}

// pieceRange writes a piece as "lo..hi", or "lo and up" for the last.
func pieceRange(pc *IntervalPiece) string {
	switch {
	case pc == nil:
		return "-"
	case pc.Max >= math.MaxInt32:
		return fmt.Sprintf("%d and up", pc.Min)
	}
	return fmt.Sprintf("%d..%d", pc.Min, pc.Max)
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
	if r.Pieces != nil && !r.PiecesComplete && len(r.Pieces) > 0 {
		last := r.Pieces[len(r.Pieces)-1]
		head += fmt.Sprintf("\nexact sweep: cut into its first %d pieces, up to index.interval.bytes=%d; above that only the values given were run",
			len(r.Pieces), last.Max)
	}
	for _, w := range r.versionWarnings() {
		var b strings.Builder
		writeWrapped(&b, "warning: ", "  ", w, TextWidth)
		head += "\n" + strings.TrimSuffix(b.String(), "\n")
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
	s := "\nbaseline reproduces the real index: " + b.Verdict()
	switch {
	case b.Compared == 0:
	case b.Reproduces:
		s += fmt.Sprintf(" (era %s, index.interval.bytes=%d, %s replayed, the files' segment boundaries)", b.Era, b.Interval, plural(int64(b.Restarts), "restart"))
	default:
		s += fmt.Sprintf(" (era %s, index.interval.bytes=%d)", b.Era, b.Interval)
	}
	for _, n := range b.Notes {
		s += "\n  note: " + n
	}
	return s
}

// WriteText writes the aligned terminal report: the verdict, a table of every point, then each
// point's recommendations.
func (r *WhatIf) WriteText(w io.Writer) error { return r.WriteTextWith(w, RenderOptions{}) }

// WriteTextWith is WriteText with a layout (RenderOptions.Wide: every column).
func (r *WhatIf) WriteTextWith(w io.Writer, o RenderOptions) error {
	fmt.Fprintln(w, "kidx whatif")
	if v := r.Verdict(); v != "" {
		writeWrapped(w, "Verdict: ", "  ", v, TextWidth)
	}
	fmt.Fprintf(w, "\n%s\n\n", r.headline())
	r.table().writeText(w, o.Wide)
	fmt.Fprintln(w, "\nScan figures are exact over every offset (bytes walked in phase 2, header hops); reads = the batch headers Kafka's own\n"+
		"phase-2 loop reads in the era (the hops before 4.1); bound = min(I + largest batch, segment.bytes).")
	for _, p := range r.Points {
		writeBullets(w, false, fmt.Sprintf("%s (%s)", r.label(p), p.Regime), p.Recommendations)
	}
	return nil
}

// WriteMarkdown writes the same report as Markdown.
func (r *WhatIf) WriteMarkdown(w io.Writer) error { return r.WriteMarkdownWith(w, RenderOptions{}) }

// WriteMarkdownWith is WriteMarkdown with a layout (RenderOptions.Wide: every column).
func (r *WhatIf) WriteMarkdownWith(w io.Writer, o RenderOptions) error {
	fmt.Fprintf(w, "# kidx whatif\n\n")
	if v := r.Verdict(); v != "" {
		fmt.Fprintf(w, "**Verdict.** %s\n\n", v)
	}
	for _, line := range strings.Split(r.headline(), "\n") {
		fmt.Fprintf(w, "- %s\n", line)
	}
	fmt.Fprintln(w)
	r.table().writeMarkdown(w, o.Wide)
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
			// Wrapped to the table's width, continued under the text (a terminal's 120 columns).
			writeWrapped(w, "  - ", "    ", it, TextWidth)
		}
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// Verdict is the baseline check in words: "yes", "no: <the first difference>", or, with no
// segment's index files to compare, what a broker does instead (docs/explain.md, "Replaying
// what was inferred").
func (b *Baseline) Verdict() string {
	unindexed := ""
	if b.Unindexed > 0 {
		unindexed = fmt.Sprintf("; %s without index files, not compared (a broker's next start rebuilds them, LogSegment.recover)", plural(int64(b.Unindexed), "segment"))
	}
	switch {
	case b.Compared == 0:
		return "nothing to compare: no segment has index files (a broker's next start rebuilds them from the .log, LogSegment.recover)"
	case !b.Reproduces:
		return "no: " + b.Detail + unindexed
	}
	return "yes" + unindexed
}
