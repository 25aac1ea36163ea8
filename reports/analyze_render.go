package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"kidx/logdir"
	"kidx/model"
)

func (pr *PartitionReport) name() string {
	if pr.Topic != "" {
		return fmt.Sprintf("%s-%d", pr.Topic, pr.Partition)
	}
	return pr.Path
}

// table is one row per partition listed (docs/reports.md "Tables").
func (a *Analysis) table(parts []*PartitionReport) *table {
	reads := "reads max/mean"
	if a.HeaderReadsBoth {
		reads = "4.1+ reads max/mean"
	}
	t := &table{names: 1, cols: []column{
		{"partition", "topic-partition (or the directory)", 0},
		{"segs", "segments (sets with a .log)", 7},
		{"live", "live segments (an index still preallocated)", 0},
		{"restarts", "byte-counter restarts seen in the files", 0},
		{"batches", "record batches in the .log files", 0},
		{"log B", ".log bytes", 0},
		{"entries", "valid offset-index entries", 6},
		{"B/entry", "log bytes per offset-index entry", 4},
		{"batches/entry", "batches per offset-index entry (1: the densest)", 0},
		{"max scan B", "the most bytes one lookup walks in phase 2, from its index entry to its batch (exact, every offset)", 10},
		{"mean scan B", "phase-2 bytes walked per lookup, mean over every offset", 5},
		{"p50 B", "median phase-2 bytes walked (nearest rank)", 0},
		{"p99 B", "99th percentile of phase-2 bytes walked (nearest rank)", 8},
		{"p99.9 B", "99.9th percentile of phase-2 bytes walked (nearest rank)", 0},
		{"max hops", "the most batch headers one lookup steps over", 0},
		{"mean hops", "batch headers stepped over per lookup, mean", 0},
		{reads, "batch headers Kafka's own phase-2 loop reads per lookup, max/mean (see the note on header reads)", 3},
		{"warm covers B", "log bytes the warm section (the last 1025 entries) spans in the active segment", 0},
		{"maps", "memory maps: 2 per segment (.index and .timeindex)", 2},
		{"problems", "findings of severity error or warning", 9},
	}}
	for _, p := range parts {
		t.add(p.name(), fmt.Sprint(p.Segments), fmt.Sprint(len(p.Live)), fmt.Sprint(len(p.Restarts)), itoa(p.Batches), itoa(p.LogBytes), itoa(p.OffsetIndexEntries),
			fmt.Sprintf("%.0f", p.BytesPerEntry), fmt.Sprintf("%.2f", p.BatchesPerEntry), itoa(p.Scan.MaxScanBytes),
			fmt.Sprintf("%.1f", p.Scan.MeanScanBytes()), itoa(p.ScanQ[P50]), itoa(p.ScanQ[P99]), itoa(p.ScanQ[P999]),
			itoa(p.Scan.MaxHops), fmt.Sprintf("%.2f", p.Scan.MeanHops()),
			fmt.Sprintf("%d/%.2f", p.Scan.MaxHeaderReads, p.Scan.MeanHeaderReads()), itoa(p.WarmCoveredBytes), itoa(p.Maps), fmt.Sprint(p.Problems))
	}
	return t
}

// readsNote says what the header-read figures are.
func (a *Analysis) readsNote() string {
	var total model.ScanStats
	for _, p := range a.Partitions {
		total.Merge(p.Scan)
	}
	switch {
	case a.HeaderReadsBoth:
		return fmt.Sprintf("Header reads are the batch headers Kafka's own phase-2 loop reads, by the release that reads the files (no --kafka-version: both): "+
			"before 4.1 the hops (here max %d, mean %.2f); from 4.1, which searches by base offset, one more unless the target is its batch's base offset or that batch is the segment's last (max %d, mean %.2f).",
			total.MaxHops, total.MeanHops(), total.MaxHeaderReads, total.MeanHeaderReads())
	case a.HeaderReadsFor == "4.1+":
		return fmt.Sprintf("Header reads are the batch headers Kafka 4.1+'s phase-2 loop reads: one more than the hops unless the target is its batch's base offset or that batch is the segment's last (here max %d, mean %.2f).",
			total.MaxHeaderReads, total.MeanHeaderReads())
	}
	return "Header reads are the batch headers Kafka's phase-2 loop reads: before 4.1, exactly the hops."
}

func (a *Analysis) headline() string {
	shown := ""
	if len(a.Partitions) < a.Analyzed {
		shown = fmt.Sprintf(" (worst %d shown)", len(a.Partitions))
	}
	broker := ""
	if a.Broker != "" {
		broker = "broker: " + a.Broker
		switch a.BrokerFrom {
		case "meta.properties":
			broker += " (node.id in meta.properties"
			if a.ClusterID != "" {
				broker += ", cluster " + a.ClusterID
			}
			broker += ")"
		case "host name":
			broker += " (this host: no meta.properties names a node.id)"
		}
		broker += "\n"
	}
	what := "directory"
	if len(a.Roots) > 1 {
		what = "directories"
	}
	return fmt.Sprintf("%s%s: %s\n%s%s, %s (%d live), %s, %s; %s against vm.max_map_count %d (headroom %d); %s",
		broker, what, strings.Join(a.Roots, ", "), plural(int64(a.Analyzed), "partition"), shown, plural(int64(a.Segments), "segment"), a.LiveSegments,
		plural(int64(a.Restarts), "byte-counter restart"), plural(a.LogBytes, "log byte"), plural(a.Maps, "map"), a.MaxMapCount, a.MaxMapCount-a.Maps, plural(int64(a.Problems), "problem"))
}

// allFindings lists every finding; problemsOnly keeps errors and warnings (the text forms
// leave the notes to the per-partition lines and --format json).
func (a *Analysis) allFindings(problemsOnly bool) []logdir.Finding {
	out := append([]logdir.Finding(nil), a.Findings...)
	for _, p := range a.Partitions {
		out = append(out, p.Findings...)
	}
	if !problemsOnly {
		return out
	}
	kept := out[:0]
	for _, f := range out {
		if f.Severity != logdir.SeverityInfo {
			kept = append(kept, f)
		}
	}
	return kept
}

// notes are a partition's facts that are not advice: the releases its files show, its live
// segments and their fate at an unclean start, its restarts.
func (p *PartitionReport) notes() []string {
	var out []string
	if p.Eras != "" {
		out = append(out, "the newest segment's files are as "+p.Eras+" writes them")
	}
	for _, l := range p.Live {
		what := "live segment"
		if !l.Newest {
			what = "untrimmed segment (not the newest: left by an unclean shutdown)"
		}
		out = append(out, fmt.Sprintf("%s %d: %s of %s valid, %s of %s valid. At a start after an unclean shutdown: %s",
			what, l.BaseOffset, plural(int64(l.IndexValid), ".index entry"), plural(int64(l.IndexSlots), "slot"),
			plural(int64(l.TimeValid), ".timeindex entry"), plural(int64(l.TimeSlots), "slot"), l.UncleanNote))
	}
	for _, r := range p.Restarts {
		out = append(out, fmt.Sprintf("segment %d: %s", r.BaseOffset, r.Restart))
	}
	for _, c := range p.Cleaned {
		what := "written by the log cleaner"
		if !c.Cleaned {
			what = "compacted data (the log cleaner's output, or a follower's copy of it)"
		}
		out = append(out, fmt.Sprintf("segment %d: %s: %s", c.BaseOffset, what, strings.Join(c.Evidence, "; ")))
	}
	for _, f := range p.Findings {
		if f.Check == "scan-stats-skipped" {
			out = append(out, fmt.Sprintf("%s: scan figures incomplete: %s", filepath.Base(f.File), f.Message))
		}
	}
	return out
}

// AnalysisDoc is the document of kidx analyze --format json (AnalyzeSchema).
type AnalysisDoc struct {
	// Schema is AnalyzeSchema; a report written before it had none.
	Schema     string               `json:"schema"`
	Broker     string               `json:"broker,omitempty"`
	BrokerFrom string               `json:"brokerFrom,omitempty"`
	ClusterID  string               `json:"clusterId,omitempty"`
	LogDirs    []logdir.LogDirState `json:"logDirs"`
	Verdict    *BrokerVerdict       `json:"verdict,omitempty"`
	Topics     []TopicRollup        `json:"topics"`
	Errors     int                  `json:"errors"`
	Warnings   int                  `json:"warnings"`
	// AttentionPartitions counts the partitions that need attention (each partition's
	// "attention" says why).
	AttentionPartitions int `json:"attentionPartitions"`
	// ExposedPartitions counts the partitions exposed to the follower index overflow.
	ExposedPartitions int `json:"exposedPartitions"`
	// EmptyIndexPartitions counts the partitions whose offset index is empty though
	// index.interval.bytes could fill it (the verdict's "empty-indexes" reason).
	EmptyIndexPartitions int                 `json:"emptyIndexPartitions"`
	Root                 string              `json:"root"`
	Roots                []string            `json:"roots"`
	LiveSegments         int                 `json:"liveSegments"`
	CleanedSegments      int                 `json:"cleanedSegments"`
	Restarts             int                 `json:"restarts"`
	Analyzed             int                 `json:"analyzedPartitions"`
	Segments             int                 `json:"segments"`
	LogBytes             int64               `json:"logBytes"`
	Maps                 int64               `json:"maps"`
	MaxMapCount          int64               `json:"maxMapCount"`
	Headroom             int64               `json:"headroom"`
	Problems             int                 `json:"problems"`
	Findings             []logdir.Finding    `json:"findings"`
	Partitions           []partitionJSONItem `json:"partitions"`
	// HeaderReadsFor is the release range the scan objects' header reads are for ("4.1+" or
	// "before 4.1"); HeaderReadsBoth: no release was given, and the hops are the reads before 4.1.
	HeaderReadsFor  string `json:"headerReadsFor"`
	HeaderReadsBoth bool   `json:"headerReadsBoth"`
}

type partitionJSONItem struct {
	Path               string           `json:"path"`
	Topic              string           `json:"topic"`
	Partition          int              `json:"partition"`
	Segments           int              `json:"segments"`
	Batches            int64            `json:"batches"`
	LogBytes           int64            `json:"logBytes"`
	MaxBatchBytes      int64            `json:"maxBatchBytes"`
	OffsetIndexEntries int64            `json:"offsetIndexEntries"`
	TimeIndexEntries   int64            `json:"timeIndexEntries"`
	IndexFileBytes     int64            `json:"indexFileBytes"`
	TimeIndexFileBytes int64            `json:"timeIndexFileBytes"`
	BytesPerEntry      float64          `json:"bytesPerEntry"`
	BatchesPerEntry    float64          `json:"batchesPerEntry"`
	Scan               ScanJSON         `json:"scan"`
	WarmCoveredBytes   int64            `json:"warmCoveredBytes"`
	Phase1             phase1JSON       `json:"phase1"`
	Eras               string           `json:"eras"`
	Live               []LiveReport     `json:"live"`
	Restarts           []RestartReport  `json:"restarts"`
	Cleaned            []CleanedReport  `json:"cleaned"`
	Maps               int64            `json:"maps"`
	Rebuilt            []RebuiltIndex   `json:"rebuilt"`
	Problems           int              `json:"problems"`
	Attention          []string         `json:"attention"`
	Findings           []logdir.Finding `json:"findings"`
	Recommendations    []string         `json:"recommendations"`
	// Advice: the recommendations, one for one, in machine-readable form.
	Advice []Advice `json:"advice"`
	// FollowerOverflow is the partition's exposure (absent: no batches, or not judged).
	FollowerOverflow *partitionExposureJSON `json:"followerOverflow,omitempty"`
}

// partitionExposureJSON is a partition's exposure to the follower index overflow
// (docs/reports.md).
type partitionExposureJSON struct {
	exposureJSON
	Config map[string]int64 `json:"config"`
	// Assumed names the settings not given with --config and where their values come from.
	Assumed []string `json:"assumed"`
	// PerBatchReleases, OlderReleases: the release lines the files show.
	PerBatchReleases bool `json:"perBatchReleases"`
	OlderReleases    bool `json:"olderReleases"`
}

// WriteJSON writes the analysis; every partition carries the docs/contract.md §10 `scan` object.
func (a *Analysis) WriteJSON(w io.Writer) error {
	root := ""
	if len(a.Roots) > 0 {
		root = a.Roots[0]
	}
	doc := AnalysisDoc{Schema: AnalyzeSchema, EmptyIndexPartitions: a.emptyIndexes, Broker: a.Broker, BrokerFrom: a.BrokerFrom, ClusterID: a.ClusterID, LogDirs: append([]logdir.LogDirState{}, a.LogDirs...), Verdict: &a.Verdict,
		Topics: append([]TopicRollup{}, a.Topics...), Errors: a.Errors, Warnings: a.Warnings, AttentionPartitions: a.AttentionPartitions, ExposedPartitions: a.ExposedPartitions, Root: root, Roots: a.Roots, LiveSegments: a.LiveSegments, CleanedSegments: a.CleanedSegments, Restarts: a.Restarts, Analyzed: a.Analyzed, Segments: a.Segments, LogBytes: a.LogBytes, Maps: a.Maps,
		MaxMapCount: a.MaxMapCount, Headroom: a.MaxMapCount - a.Maps, Problems: a.Problems, Findings: a.Findings,
		Partitions: []partitionJSONItem{}, HeaderReadsFor: a.HeaderReadsFor, HeaderReadsBoth: a.HeaderReadsBoth}
	for _, p := range a.Partitions {
		item := partitionJSONItem{Path: p.Path, Topic: p.Topic, Partition: p.Partition, Segments: p.Segments, Batches: p.Batches,
			LogBytes: p.LogBytes, MaxBatchBytes: p.MaxBatchBytes, OffsetIndexEntries: p.OffsetIndexEntries,
			TimeIndexEntries: p.TimeIndexEntries, IndexFileBytes: p.IndexFileBytes, TimeIndexFileBytes: p.TimeIndexFileBytes,
			BytesPerEntry: round1(p.BytesPerEntry), BatchesPerEntry: round2(p.BatchesPerEntry),
			Scan: scanJSON(p.Scan, p.ScanQ, p.HopsQ), WarmCoveredBytes: p.WarmCoveredBytes, Phase1: phase1JSON(p.Phase1),
			Eras: p.Eras, Live: append([]LiveReport{}, p.Live...), Restarts: append([]RestartReport{}, p.Restarts...),
			Cleaned: append([]CleanedReport{}, p.Cleaned...), Maps: p.Maps, Rebuilt: append([]RebuiltIndex{}, p.Rebuilt...), Problems: p.Problems, Attention: append([]string{}, p.Attention...), Findings: p.Findings, Recommendations: p.Recommendations, Advice: p.Advice}

		if e := p.Exposure; e != nil {
			x := e.Exposure
			x.PerBatch = e.PerBatch
			doc := exposureDoc(x, e.Config, "releases before 3.9.1 and 4.0.1")
			doc.Sentence = e.Sentence()
			item.FollowerOverflow = &partitionExposureJSON{exposureJSON: doc, Assumed: append([]string{}, e.Assumed...), PerBatchReleases: e.PerBatch, OlderReleases: e.Older,
				Config: map[string]int64{"index.interval.bytes": e.Config.IndexIntervalBytes, "segment.bytes": e.Config.SegmentBytes, "segment.index.bytes": e.Config.SegmentIndexBytes}}
		}
		if item.Findings == nil {
			item.Findings = []logdir.Finding{}
		}
		if item.Recommendations == nil {
			item.Recommendations = []string{}
		}
		if item.Advice == nil {
			item.Advice = []Advice{}
		}
		doc.Partitions = append(doc.Partitions, item)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// weightOf is how many findings fs stand for: a summary line of the --max-findings cap
// stands for the findings it counts (logdir.Finding.Weight).
func weightOf(fs []logdir.Finding) int {
	n := 0
	for _, f := range fs {
		n += f.Weight()
	}
	return n
}
