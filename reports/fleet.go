package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"kidx/internal/jsonwords"
	"kidx/internal/printsafe"
)

// A Fleet merges the `kidx analyze --format json` reports of several brokers: each broker
// runs analyze on its own log.dirs (with any job runner), and the JSON files merge anywhere.
// Nothing is re-read: the figures are the brokers' own.
type Fleet struct {
	Brokers []FleetBroker
	// Worst are the partitions with the worst lookup cost across the fleet (largest max scan,
	// then mean), each named with its broker.
	Worst []FleetPartition
	// Live lists every live segment (preallocated indexes) of the fleet.
	Live []FleetLive
	// Partitions, Segments, LogBytes, Problems are fleet totals.
	Partitions, Segments, LiveSegments, Restarts, Problems int
	LogBytes                                               int64
	// Notes say what the merge could not make whole: reports that name the same broker, live
	// segments of partitions a report left out (--top).
	Notes []string
}

// FleetBroker is one broker's totals, with its memory maps against its own vm.max_map_count.
type FleetBroker struct {
	Broker       string   `json:"broker"`
	Roots        []string `json:"roots"`
	Partitions   int      `json:"partitions"`
	Segments     int      `json:"segments"`
	LiveSegments int      `json:"liveSegments"`
	Restarts     int      `json:"restarts"`
	LogBytes     int64    `json:"logBytes"`
	Maps         int64    `json:"maps"`
	MaxMapCount  int64    `json:"maxMapCount"`
	Headroom     int64    `json:"headroom"`
	Problems     int      `json:"problems"`
	Verdict      string   `json:"verdict,omitempty"` // the broker's verdict state, when its report has one
}

// FleetPartition is one partition of one broker.
type FleetPartition struct {
	Broker    string   `json:"broker"`
	Partition string   `json:"partition"`
	Path      string   `json:"path"`
	Segments  int      `json:"segments"`
	Eras      string   `json:"eras"`
	Scan      ScanJSON `json:"scan"`
	Problems  int      `json:"problems"`
}

// FleetLive is one live segment of one broker.
type FleetLive struct {
	Broker     string `json:"broker"`
	Partition  string `json:"partition"`
	BaseOffset int64  `json:"baseOffset"`
	IndexValid int    `json:"indexValid"`
	IndexSlots int    `json:"indexSlots"`
	LogBytes   int64  `json:"logBytes"`
}

// ReadAnalysisJSON decodes one `kidx analyze --format json` report. name stands for the
// broker when the report has none (its file name, say).
func ReadAnalysisJSON(r io.Reader, name string) (*AnalysisDoc, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	// A document of another shape or version is named, not misread: kidx.analyze/1, or a
	// report written before reports named their schema. Its "schema" is read first, alone,
	// since the rest of another shape need not decode as a report.
	var head struct {
		Schema any `json:"schema"`
	}
	if json.NewDecoder(bytes.NewReader(data)).Decode(&head) == nil && head.Schema != nil && head.Schema != AnalyzeSchema {
		return nil, fmt.Errorf("%s: a %s document, not a kidx analyze report (%s): --merge reads what analyze --format json writes",
			name, printsafe.Line(fmt.Sprint(head.Schema)), AnalyzeSchema)
	}
	var doc AnalysisDoc
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: not a kidx analyze JSON report: %v", name, jsonwords.Describe(err, ""))
	}
	if doc.Roots == nil && doc.Root == "" {
		return nil, fmt.Errorf("%s: not a kidx analyze JSON report (no root)", name)
	}
	if doc.Broker == "" {
		doc.Broker = name
	}
	return &doc, nil
}

// MergeFleet merges brokers' reports; top bounds Worst (0: every partition).
func MergeFleet(docs []*AnalysisDoc, top int) *Fleet {
	f := &Fleet{}
	seen := map[string]bool{}
	clusters := map[string]map[string]bool{} // broker name -> the cluster ids reports give it
	for _, d := range docs {
		if clusters[d.Broker] == nil {
			clusters[d.Broker] = map[string]bool{}
		}
		clusters[d.Broker][d.ClusterID] = true
	}
	for _, d := range docs {
		if len(clusters[d.Broker]) > 1 && d.ClusterID != "" {
			// One node.id in several clusters: the cluster tells them apart.
			d.Broker += " (cluster " + d.ClusterID + ")"
		}
		if seen[d.Broker] {
			f.Notes = append(f.Notes, fmt.Sprintf("two reports name the broker %q: their figures are listed apart, but name each broker with analyze --broker", d.Broker))
		}
		seen[d.Broker] = true
		roots := d.Roots
		if roots == nil {
			roots = []string{d.Root}
		}
		b := FleetBroker{Broker: d.Broker, Roots: roots, Partitions: d.Analyzed, Segments: d.Segments, LiveSegments: d.LiveSegments,
			Restarts: d.Restarts, LogBytes: d.LogBytes, Maps: d.Maps, MaxMapCount: d.MaxMapCount, Headroom: d.MaxMapCount - d.Maps, Problems: d.Problems}
		if d.Verdict != nil {
			b.Verdict = d.Verdict.State
		}
		f.Brokers = append(f.Brokers, b)
		f.Partitions += b.Partitions
		f.Segments += b.Segments
		f.LiveSegments += b.LiveSegments
		f.Restarts += b.Restarts
		f.Problems += b.Problems
		f.LogBytes += b.LogBytes
		for _, p := range d.Partitions {
			name := p.Path
			if p.Topic != "" {
				name = fmt.Sprintf("%s-%d", p.Topic, p.Partition)
			}
			f.Worst = append(f.Worst, FleetPartition{Broker: d.Broker, Partition: name, Path: p.Path, Segments: p.Segments, Eras: p.Eras, Scan: p.Scan, Problems: p.Problems})
			for _, l := range p.Live {
				f.Live = append(f.Live, FleetLive{Broker: d.Broker, Partition: name, BaseOffset: l.BaseOffset, IndexValid: l.IndexValid, IndexSlots: l.IndexSlots, LogBytes: l.LogBytes})
			}
		}
	}
	if len(f.Live) < f.LiveSegments {
		f.Notes = append(f.Notes, fmt.Sprintf("%d of the %d live segments are listed: the others are in partitions a report left out (analyze --top)", len(f.Live), f.LiveSegments))
	}
	sort.SliceStable(f.Brokers, func(i, j int) bool { return f.Brokers[i].Headroom < f.Brokers[j].Headroom })
	sort.SliceStable(f.Worst, func(i, j int) bool {
		a, b := f.Worst[i].Scan, f.Worst[j].Scan
		if a.MaxScanBytes != b.MaxScanBytes {
			return a.MaxScanBytes > b.MaxScanBytes
		}
		if a.MeanScanBytes != b.MeanScanBytes {
			return a.MeanScanBytes > b.MeanScanBytes
		}
		return f.Worst[i].Broker+f.Worst[i].Path < f.Worst[j].Broker+f.Worst[j].Path
	})
	if top > 0 && len(f.Worst) > top {
		f.Worst = f.Worst[:top]
	}
	return f
}

// WriteText writes the fleet report: brokers by map headroom (tightest first), the worst
// partitions, the live segments.
func (f *Fleet) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "kidx analyze --merge\n%s, %s, %s (%d live), %s, %s; %s\n\n", plural(int64(len(f.Brokers)), "broker"),
		plural(int64(f.Partitions), "partition"), plural(int64(f.Segments), "segment"), f.LiveSegments,
		plural(int64(f.Restarts), "byte-counter restart"), plural(f.LogBytes, "log byte"), plural(int64(f.Problems), "problem"))
	bt := &table{names: 1, cols: []column{{"broker", "the broker the report names (--broker)", 1}, {"partitions", "partitions analyzed", 1},
		{"segments", "segments (sets with a .log)", 1}, {"live", "live segments (an index still preallocated)", 1},
		{"restarts", "byte-counter restarts seen in the files", 1}, {"log B", ".log bytes", 1}, {"maps", "memory maps: 2 per segment", 1},
		{"vm.max_map_count", "the broker's own limit", 1}, {"headroom", "vm.max_map_count - maps (negative: over the limit)", 1},
		{"problems", "findings of severity error or warning", 1}, {"verdict", "the broker's verdict (healthy, needs attention, damaged)", 1}}}
	for _, b := range f.Brokers {
		bt.add(b.Broker, fmt.Sprint(b.Partitions), fmt.Sprint(b.Segments), fmt.Sprint(b.LiveSegments), fmt.Sprint(b.Restarts), itoa(b.LogBytes),
			itoa(b.Maps), itoa(b.MaxMapCount), itoa(b.Headroom), fmt.Sprint(b.Problems), b.Verdict)
	}
	bt.writeText(w, false)
	fmt.Fprintln(w, "\nworst partitions:")
	pt := &table{names: 2, cols: []column{{"broker", "the broker the partition is on", 1}, {"partition", "topic-partition", 1},
		{"segs", "segments", 1}, {"max scan B", "the most bytes one lookup walks in phase 2 (exact, every offset)", 1},
		{"mean scan B", "phase-2 bytes walked per lookup, mean", 1}, {"p99 B", "99th percentile of phase-2 bytes walked", 1},
		{"max hops", "the most batch headers one lookup steps over", 1}, {"problems", "findings of severity error or warning", 1},
		{"written under", "the releases whose rules the newest segment's files follow", 1}}}
	for _, p := range f.Worst {
		pt.add(p.Broker, p.Partition, fmt.Sprint(p.Segments), itoa(p.Scan.MaxScanBytes), fmt.Sprintf("%.1f", p.Scan.MeanScanBytes),
			itoa(p.Scan.P99ScanBytes), itoa(p.Scan.MaxHops), fmt.Sprint(p.Problems), strings.TrimPrefix(p.Eras, "Kafka "))
	}
	pt.writeText(w, false)
	for _, b := range f.Brokers {
		if b.Headroom < 0 {
			fmt.Fprintf(w, "\n%s needs %s against vm.max_map_count=%d: raise it before the broker runs out of mappings.\n", b.Broker, plural(b.Maps, "map"), b.MaxMapCount)
		}
	}
	for _, n := range f.Notes {
		fmt.Fprintf(w, "\nnote: %s\n", n)
	}
	if len(f.Live) > 0 {
		fmt.Fprintf(w, "\nlive segments (%d):\n", len(f.Live))
		for _, l := range f.Live {
			fmt.Fprintf(w, "  %s %s segment %d: %d of %d index slots used, %s\n", l.Broker, l.Partition, l.BaseOffset, l.IndexValid, l.IndexSlots, plural(l.LogBytes, "log byte"))
		}
	}
	return nil
}

// WriteJSON writes the fleet report.
func (f *Fleet) WriteJSON(w io.Writer) error {
	doc := struct {
		Schema       string           `json:"schema"`
		Brokers      []FleetBroker    `json:"brokers"`
		Partitions   int              `json:"partitions"`
		Segments     int              `json:"segments"`
		LiveSegments int              `json:"liveSegments"`
		Restarts     int              `json:"restarts"`
		LogBytes     int64            `json:"logBytes"`
		Problems     int              `json:"problems"`
		Worst        []FleetPartition `json:"worstPartitions"`
		Live         []FleetLive      `json:"live"`
		Notes        []string         `json:"notes"`
	}{FleetSchema, f.Brokers, f.Partitions, f.Segments, f.LiveSegments, f.Restarts, f.LogBytes, f.Problems, f.Worst, f.Live, f.Notes}
	if doc.Notes == nil {
		doc.Notes = []string{}
	}
	if doc.Live == nil {
		doc.Live = []FleetLive{}
	}
	if doc.Worst == nil {
		doc.Worst = []FleetPartition{}
	}
	if doc.Brokers == nil {
		doc.Brokers = []FleetBroker{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
