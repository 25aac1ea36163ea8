package reports

import (
	"fmt"
	"sort"
	"time"

	"kidx/model"
	"kidx/segment"
)

// AnalyzeOptions configure AnalyzeDir.
type AnalyzeOptions struct {
	// Top keeps the N partitions with the worst lookup cost (largest max scan, then mean);
	// 0 keeps all.
	Top         int
	MaxMapCount int64
	// Progress, if set, is called with the log bytes of each segment analyzed.
	Progress func(bytes int64)
}

// Analysis is the report of `kidx analyze`: one log directory (or one partition), read only.
type Analysis struct {
	Root        string
	Partitions  []*PartitionReport // worst first; only the top N with AnalyzeOptions.Top
	Analyzed    int                // partitions analyzed (before --top)
	Findings    []segment.Finding  // directory-level findings (unreadable entries, stray files)
	Problems    int                // findings of severity error or warning, everywhere
	Maps        int64              // 2 per segment, every partition
	Segments    int
	MaxMapCount int64
	LogBytes    int64
	Elapsed     time.Duration
}

// PartitionReport is one partition's actual figures.
type PartitionReport struct {
	Path      string
	Topic     string
	Partition int

	Segments           int
	Batches            int64
	LogBytes           int64
	MaxBatchBytes      int64
	OffsetIndexEntries int64
	TimeIndexEntries   int64
	IndexFileBytes     int64
	TimeIndexFileBytes int64
	// BytesPerEntry is the log bytes per offset-index entry (0 with no entries): the actual
	// index density. BatchesPerEntry likewise in batches (1 is the densest possible).
	BytesPerEntry   float64
	BatchesPerEntry float64
	MaxEntries      int // entries of the fullest segment

	Scan  model.ScanStats
	ScanQ map[Quantile]int64
	HopsQ map[Quantile]int64
	// WarmCoveredBytes is what the warm section of the last (active) segment spans, exactly,
	// from its index.
	WarmCoveredBytes int64
	Phase1           Phase1
	Passes           int

	Maps            int64
	Findings        []segment.Finding // verify findings (segment.Verify) and skipped statistics
	Problems        int
	Recommendations []string
}

// AnalyzeDir reads dir (a broker's log.dirs entry or a single partition directory) without
// writing anything, and reports per partition: segments, actual index density, the exact scan
// statistics of every offset computed from the real .log headers and .index entries, the
// verify findings, the map count and recommendations. Memory is one partition's figures at a
// time: logs are streamed header by header, never loaded.
func AnalyzeDir(dir string, opts AnalyzeOptions) (*Analysis, error) {
	start := time.Now()
	if opts.MaxMapCount <= 0 {
		opts.MaxMapCount = DefaultMaxMapCount
	}
	ds, err := segment.ScanDir(dir)
	if err != nil {
		return nil, err
	}
	a := &Analysis{Root: dir, MaxMapCount: opts.MaxMapCount, Findings: ds.Findings}
	if a.Findings == nil {
		a.Findings = []segment.Finding{}
	}
	for _, f := range ds.Findings {
		if f.Severity != segment.SeverityInfo {
			a.Problems++
		}
	}
	for i := range ds.Partitions {
		pr := analyzePartition(&ds.Partitions[i], opts)
		a.Analyzed++
		a.Problems += pr.Problems
		a.Maps += pr.Maps
		a.Segments += pr.Segments
		a.LogBytes += pr.LogBytes
		a.Partitions = append(a.Partitions, pr)
		// Keep memory flat for 10 000 partitions: only the worst N survive.
		if opts.Top > 0 && len(a.Partitions) > 2*opts.Top {
			sortWorst(a.Partitions)
			a.Partitions = a.Partitions[:opts.Top]
		}
	}
	sortWorst(a.Partitions)
	if opts.Top > 0 && len(a.Partitions) > opts.Top {
		a.Partitions = a.Partitions[:opts.Top]
	}
	for _, pr := range a.Partitions {
		pr.Recommendations = recommendPartition(pr, a)
	}
	a.Elapsed = time.Since(start)
	return a, nil
}

// sortWorst orders partitions by lookup cost: largest max scan, then largest mean, then path.
func sortWorst(ps []*PartitionReport) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Scan.MaxScanBytes != b.Scan.MaxScanBytes {
			return a.Scan.MaxScanBytes > b.Scan.MaxScanBytes
		}
		if a.Scan.MeanScanBytes() != b.Scan.MeanScanBytes() {
			return a.Scan.MeanScanBytes() > b.Scan.MeanScanBytes()
		}
		return a.Path < b.Path
	})
}

func analyzePartition(pd *segment.PartitionDir, opts AnalyzeOptions) *PartitionReport {
	pr := &PartitionReport{Path: pd.Path, Topic: pd.Topic, Partition: pd.Partition, Segments: len(pd.Segments),
		Maps: 2 * int64(len(pd.Segments))}
	scan, hops := NewDist(), NewDist()
	var stats model.ScanStats
	firstPass := true
	onRun := func(c, s, h int64) {
		scan.Add(c, s)
		hops.Add(c, h)
		if firstPass {
			stats.Add(c, s, h)
		}
	}
	var last segmentFigures
	for _, sf := range pd.Segments {
		if sf.Log == "" {
			continue // segment.Verify reports the missing .log
		}
		fig, err := segmentRuns(sf, onRun)
		if err != nil {
			pr.Findings = append(pr.Findings, segment.Finding{File: sf.Log, Pos: -1, Severity: segment.SeverityError,
				Check: segment.CheckUnreadable, Message: err.Error()})
			continue
		}
		if fig.skipped != "" {
			pr.Findings = append(pr.Findings, segment.Finding{File: sf.Log, Pos: -1, Severity: segment.SeverityWarning,
				Check: "scan-stats-skipped", Message: fig.skipped})
		}
		if opts.Progress != nil {
			opts.Progress(fig.logBytes)
		}
		pr.Batches += fig.batches
		pr.LogBytes += fig.logBytes
		pr.MaxBatchBytes = max(pr.MaxBatchBytes, fig.maxBatch)
		pr.OffsetIndexEntries += int64(fig.entries)
		pr.TimeIndexEntries += int64(fig.timeEntries)
		pr.IndexFileBytes += fig.indexFileSize
		pr.TimeIndexFileBytes += fig.timeFileSize
		pr.MaxEntries = max(pr.MaxEntries, fig.entries)
		last = fig
	}
	pr.Passes = 1
	firstPass = false
	// Exact quantiles: replay the partition's headers while a quantile's bucket holds several
	// values (the directory is read again, still only headers).
	for {
		scanDone := scan.Resolve()
		if hopsDone := hops.Resolve(); scanDone && hopsDone {
			break
		}
		scan.BeginRefine()
		hops.BeginRefine()
		pr.Passes++
		for _, sf := range pd.Segments {
			if sf.Log != "" {
				_, _ = segmentRuns(sf, onRun)
			}
		}
	}
	pr.Scan = stats
	pr.ScanQ, pr.HopsQ = map[Quantile]int64{}, map[Quantile]int64{}
	for _, q := range ReportedQuantiles {
		pr.ScanQ[q], pr.HopsQ[q] = scan.Quantile(q), hops.Quantile(q)
	}
	if pr.OffsetIndexEntries > 0 {
		pr.BytesPerEntry = float64(pr.LogBytes) / float64(pr.OffsetIndexEntries)
		pr.BatchesPerEntry = float64(pr.Batches) / float64(pr.OffsetIndexEntries)
	}
	pr.WarmCoveredBytes = last.warmCovered
	pr.Phase1 = phase1For(pr.MaxEntries)

	report, err := segment.Verify([]string{pd.Path}, segment.VerifyOptions{})
	if err != nil {
		pr.Findings = append(pr.Findings, segment.Finding{File: pd.Path, Pos: -1, Severity: segment.SeverityError,
			Check: segment.CheckUnreadable, Message: err.Error()})
	} else {
		pr.Findings = append(pr.Findings, report.Findings...)
	}
	for _, f := range pr.Findings {
		if f.Severity != segment.SeverityInfo {
			pr.Problems++
		}
	}
	return pr
}

// recommendPartition derives advice from a partition's actual figures.
func recommendPartition(pr *PartitionReport, a *Analysis) []string {
	var out []string
	if pr.Batches == 0 {
		return []string{"No batches: nothing to tune."}
	}
	densest := pr.Batches - int64(pr.Segments)
	switch {
	case pr.OffsetIndexEntries == 0 && pr.Batches > int64(pr.Segments):
		out = append(out, fmt.Sprintf("The offset indexes are empty over %d batches: every lookup walks headers from byte 0, up to %d bytes "+
			"and %d hops. index.interval.bytes is at or near segment.bytes; lower it.", pr.Batches, pr.Scan.MaxScanBytes, pr.Scan.MaxHops))
	case densest > 0 && pr.OffsetIndexEntries >= densest:
		out = append(out, fmt.Sprintf("Every batch after each segment's first is indexed (%d entries, %d batches): the index is as dense as "+
			"the batching allows. Lowering index.interval.bytes changes nothing; the largest batch (%d bytes) sets the max scan (%d bytes).",
			pr.OffsetIndexEntries, pr.Batches, pr.MaxBatchBytes, pr.Scan.MaxScanBytes))
	case densest > 0:
		out = append(out, fmt.Sprintf("One entry per %.1f batches (%.0f log bytes per entry): lookups walk up to %d bytes, p99 %d, mean %.1f hops.",
			pr.BatchesPerEntry, pr.BytesPerEntry, pr.Scan.MaxScanBytes, pr.ScanQ[P99], pr.Scan.MeanHops()))
	}
	if pr.MaxEntries > model.WarmEntries(model.OffsetIndexEntrySize)+1 {
		out = append(out, fmt.Sprintf("The warm section of the active segment covers %s of log: consumers lagging further search cold index pages (up to %d pages against %d at the tail).",
			Bytes(pr.WarmCoveredBytes), pr.Phase1.ColdPages, pr.Phase1.TailPages))
	}
	if pr.Problems > 0 {
		out = append(out, fmt.Sprintf("%d verify problems (see findings): check these files before trusting the figures.", pr.Problems))
	}
	if a.Maps > a.MaxMapCount {
		out = append(out, fmt.Sprintf("This directory alone needs %d maps (2 per segment) against vm.max_map_count=%d.", a.Maps, a.MaxMapCount))
	}
	return out
}
