package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"kidx/internal/english"
	"kidx/logdir"
	"kidx/model"
	"kidx/segment"
)

// AnalyzeOptions configure AnalyzeDirs.
type AnalyzeOptions struct {
	// Top keeps the N partitions with the worst lookup cost (largest max scan, then mean);
	// 0 keeps all.
	Top         int
	MaxMapCount int64
	// Judge is how the files are judged (era, interval), as logdir.Verify takes it; Deep is
	// ignored (analyze reads headers only).
	Judge logdir.VerifyOptions
	// Broker names the broker in the report (fleet merges group by it). Empty: the node.id
	// of the log directories' meta.properties (broker.id in ZooKeeper mode), else HostName.
	Broker   string
	HostName string
	// Progress, if set, is called with the log bytes of each segment analyzed.
	Progress func(bytes int64)
	// HeaderReads is the era whose phase-2 header reads the scan figures give (docs/contract.md §5): the
	// hops before 4.1, more from 4.1 (model.Era.HeaderReadsPastHit). nil: no release is
	// known, and the report gives both, the hops for before 4.1 and the 4.1+ reads.
	HeaderReads *model.Era
}

// Analysis is the report of `kidx analyze`: one broker's log directories (or one partition),
// read only.
type Analysis struct {
	Broker string
	// BrokerFrom says where the name comes from: "--broker", "meta.properties" or "host name".
	BrokerFrom string
	ClusterID  string // meta.properties' cluster.id, when the log directories agree on one
	Roots      []string
	Partitions []*PartitionReport // worst first; only the top N with AnalyzeOptions.Top
	Analyzed   int                // partitions analyzed (before --top)
	Findings   []logdir.Finding   // directory-level findings (unreadable entries, stray files, the log directories' tops)
	// LogDirs is each log directory's top as the broker's next start reads it.
	LogDirs  []logdir.LogDirState
	Problems int // findings of severity error or warning, everywhere
	Errors   int // of which errors
	Warnings int // of which warnings
	// AttentionPartitions counts the partitions that need attention (PartitionReport.Attention).
	AttentionPartitions int
	// ExposedPartitions counts the partitions exposed to the follower index overflow
	// (PartitionReport.Exposure).
	ExposedPartitions int
	// Topics rolls the partitions up by topic, the topics to look at first on top (all of
	// them, --top or not).
	Topics     []TopicRollup
	topicIndex map[string]int
	// problemPartitions and emptyIndexes count, over every partition (--top or not), those
	// with a problem (all of them kept) and those whose index is empty for want of a lower
	// index.interval.bytes.
	problemPartitions, emptyIndexes int
	Verdict                         BrokerVerdict
	// NoteCounts counts the info findings by check, every partition's and the log
	// directories'.
	NoteCounts   map[string]int
	Maps         int64 // 2 per segment, every partition
	Segments     int
	LiveSegments int
	Restarts     int
	// CleanedSegments counts the segments the log cleaner wrote, as their files show
	// (CleanedReport.Cleaned), every partition's.
	CleanedSegments int
	MaxMapCount     int64
	LogBytes        int64
	Elapsed         time.Duration
	// HeaderReadsFor is what the partitions' Scan header reads follow: "4.1+" or "before 4.1".
	// HeaderReadsBoth says no release was given: the figures are 4.1+'s, and the hops are the
	// reads before 4.1.
	HeaderReadsFor  string
	HeaderReadsBoth bool
}

// PartitionReport is one partition's actual figures.
type PartitionReport struct {
	Path      string
	Topic     string
	Partition int

	Segments           int // segment sets with a .log
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
	// MaxLastBatchPos is the largest position at which a segment's last batch starts: with no
	// entry anywhere, index.interval.bytes is at least that (no counter ever passed it).
	MaxLastBatchPos int64

	Scan  model.ScanStats
	ScanQ map[Quantile]int64
	HopsQ map[Quantile]int64
	// WarmCoveredBytes is what the warm section of the last (active) segment spans, exactly,
	// from its index.
	WarmCoveredBytes int64
	Phase1           Phase1
	Passes           int

	// Eras names the releases whose rules explain the newest segment's files (or the given
	// release's era).
	Eras     string
	Live     []LiveReport
	Restarts []RestartReport
	// Cleaned lists the segments whose files show the log cleaner (logdir.CleanerEvidence,
	// the evidence explain decides its cleaned history with; issue 25).
	Cleaned []CleanedReport

	Maps int64
	// Rebuilt lists the segments without a .index: their figures are the index's that Kafka's
	// next start rebuilds (recover()), not an empty one's.
	Rebuilt  []RebuiltIndex
	Findings []logdir.Finding // verify findings (logdir.Verify) and skipped statistics
	Problems int
	Errors   int // problems of severity error
	// Attention says why the partition needs an operator's attention (nil: it does not).
	Attention []string
	// NextStart is what the broker's next start recovers (or rebuilds) of the partition:
	// nil when no log directory was named (a partition directory given alone).
	NextStart *logdir.EraWork
	// Exposure is the partition's exposure to the follower index overflow (issue 23): nil
	// when it has no batches or verify could not judge it.
	Exposure *PartitionExposure
	// Advice is the partition's recommendations in machine-readable form; Recommendations
	// are their sentences.
	Advice          []Advice
	Recommendations []string
	// unsearched: a segment's .index holds more entries than its .log has room for, and
	// its lookups were not figured (unsearchedWalk).
	unsearched bool
}

// LiveReport is a live segment of a partition (preallocated indexes: the active segment of a
// running broker).
type LiveReport struct {
	BaseOffset int64 `json:"baseOffset"`
	logdir.LiveState
}

// CleanedReport is a segment whose files show the log cleaner: Cleaned when the evidence is
// one only the cleaner leaves (a delete horizon, the cleaner checkpoint past the segment), else
// compacted data (offset gaps: the cleaner's output or a follower's copy of it).
type CleanedReport struct {
	BaseOffset int64    `json:"baseOffset"`
	Cleaned    bool     `json:"cleaned"`
	Evidence   []string `json:"evidence"`
}

// RestartReport is a byte-counter restart inside a segment and what it costs lookups: the
// offsets after it and before the next entry start at the last entry before it.
type RestartReport struct {
	BaseOffset int64 `json:"baseOffset"`
	logdir.Restart
	Offsets        int64 `json:"offsets"`      // offsets whose lookup crosses the restart
	MaxScanBytes   int64 `json:"maxScanBytes"` // their largest scan
	TotalScanBytes int64 `json:"totalScanBytes"`
}

// AnalyzeDir is AnalyzeDirs of one directory.
func AnalyzeDir(dir string, opts AnalyzeOptions) (*Analysis, error) {
	return AnalyzeDirs([]string{dir}, opts)
}

// AnalyzeDirs reads dirs (a broker's log.dirs entries, or partition directories) without
// writing anything, and reports per partition: segments, actual index density, the exact
// scan statistics of every offset computed from the real .log headers and the indexes' valid
// entries, the eras the files show, live segments, byte-counter restarts and their cost, the
// verify findings, the map count and recommendations. Memory is one partition's figures at a
// time: logs are streamed header by header, never loaded.
func AnalyzeDirs(dirs []string, opts AnalyzeOptions) (*Analysis, error) {
	start := time.Now()
	if opts.MaxMapCount <= 0 {
		opts.MaxMapCount = DefaultMaxMapCount
	}
	a := &Analysis{Roots: dirs, MaxMapCount: opts.MaxMapCount, Findings: []logdir.Finding{},
		HeaderReadsFor: "4.1+", HeaderReadsBoth: opts.HeaderReads == nil}
	if opts.HeaderReads != nil && !opts.HeaderReads.HeaderReadsPastHit {
		a.HeaderReadsFor = "before 4.1"
	}
	cps := logdir.NewCheckpoints()
	judge := logdir.NewBrokerJudge(cps)
	for _, dir := range dirs {
		ds, err := logdir.ScanLogDir(dir)
		if err != nil {
			return nil, err
		}
		judge.AddScan(ds)
		// The scan's findings about a partition's files are that partition's: its problems
		// column, the header and verify then count each file once (issue 11, defect 4).
		owned := make([][]logdir.Finding, len(ds.Partitions))
		for _, f := range append(ds.Findings, logdir.VerifyLogDirFiles(ds)...) {
			if i := owningPartition(ds.Partitions, f.File); i >= 0 {
				owned[i] = append(owned[i], f)
				continue
			}
			a.Findings = append(a.Findings, f)
			if f.Severity != logdir.SeverityInfo {
				a.Problems += f.Weight()
			}
		}
		for i := range ds.Partitions {
			pr := analyzePartition(&ds.Partitions[i], owned[i], cps, judge, opts)
			a.Analyzed++
			a.Problems += pr.Problems
			a.Maps += pr.Maps
			a.Segments += pr.Segments
			a.LogBytes += pr.LogBytes
			a.LiveSegments += len(pr.Live)
			a.Restarts += len(pr.Restarts)
			for _, c := range pr.Cleaned {
				if c.Cleaned {
					a.CleanedSegments++
				}
			}
			a.countPartition(pr)
			a.Partitions = append(a.Partitions, pr)
			// Keep memory flat for 10 000 partitions: only the worst N survive, and every
			// partition with a problem (issue 22, item 3: --top never hides one).
			if opts.Top > 0 && len(a.Partitions) > 2*opts.Top+a.problemPartitions {
				a.Partitions = keepTop(a.Partitions, opts.Top)
			}
		}
	}
	var top []logdir.Finding
	a.LogDirs, top = judge.Finish()
	a.nameBroker(opts)
	for _, f := range top {
		a.Findings = append(a.Findings, f)
		if f.Severity != logdir.SeverityInfo {
			a.Problems += f.Weight()
		}
	}
	sortWorst(a.Partitions)
	if opts.Top > 0 {
		a.Partitions = keepTop(a.Partitions, opts.Top)
	}
	a.judgeBroker()
	for _, pr := range a.Partitions {
		pr.Advice = recommendPartition(pr, a)
		pr.Recommendations = texts(pr.Advice)
	}
	a.Elapsed = time.Since(start)
	return a, nil
}

// nameBroker names the broker: --broker, else the node.id its log directories' meta.properties
// give (several joined with "+" when copies of several brokers were read together), else the
// host name.
func (a *Analysis) nameBroker(opts AnalyzeOptions) {
	var ids []string
	clusters := map[string]bool{}
	for _, d := range a.LogDirs {
		if d.NodeID != nil && !slices.Contains(ids, fmt.Sprint(*d.NodeID)) {
			ids = append(ids, fmt.Sprint(*d.NodeID))
		}
		if d.ClusterID != "" {
			clusters[d.ClusterID] = true
		}
	}
	if len(clusters) == 1 {
		for c := range clusters {
			a.ClusterID = c
		}
	}
	switch {
	case opts.Broker != "":
		a.Broker, a.BrokerFrom = opts.Broker, "--broker"
	case len(ids) > 0:
		a.Broker, a.BrokerFrom = strings.Join(ids, "+"), "meta.properties"
	case opts.HostName != "":
		a.Broker, a.BrokerFrom = opts.HostName, "host name"
	}
}

// keepTop keeps the n partitions with the worst lookup cost, and after them every other
// partition with a problem, worst first.
func keepTop(ps []*PartitionReport, n int) []*PartitionReport {
	sortWorst(ps)
	kept := ps[:0]
	for i, p := range ps {
		if i < n || p.Problems > 0 {
			kept = append(kept, p)
		}
	}
	for i := len(kept); i < len(ps); i++ {
		ps[i] = nil
	}
	return kept
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

// replayLimit bounds the cost runs kept in memory for the exact-quantile refinement passes
// (24 bytes each); past it the passes read the headers again.
const replayLimit = 4 << 20

// owningPartition is the index of the partition whose directory holds file (or is file), or -1.
func owningPartition(ps []logdir.PartitionDir, file string) int {
	for i := range ps {
		if file == ps[i].Path || strings.HasPrefix(file, ps[i].Path+string(filepath.Separator)) {
			return i
		}
	}
	return -1
}

func analyzePartition(pd *logdir.PartitionDir, scanned []logdir.Finding, cps *logdir.Checkpoints, broker *logdir.BrokerJudge, opts AnalyzeOptions) *PartitionReport {
	logSegs := pd.LogSegments()
	pr := &PartitionReport{Path: pd.Path, Topic: pd.Topic, Partition: pd.Partition, Segments: len(logSegs),
		Maps: 2 * int64(len(logSegs)), Findings: append([]logdir.Finding{}, scanned...)}

	scan, hops := NewDist(), NewDist()
	var stats model.ScanStats
	type replayRun struct{ count, scanBytes, hops int64 }
	// Runs are kept in fixed chunks: a growing slice would copy them over and over.
	const replayChunk = 1 << 16
	var replay [][]replayRun
	kept := 0
	replayable := true
	addRun := func(r costRun) {
		scan.Add(r.count, r.scanBytes)
		hops.Add(r.count, r.hops)
		stats.Add(r.count, r.scanBytes, r.hops)
		if replayable {
			if kept == replayLimit {
				replay, replayable = nil, false
				return
			}
			if n := len(replay); n == 0 || len(replay[n-1]) == replayChunk {
				// The first chunk starts small and grows: most partitions hold few runs.
				c := replayChunk
				if n == 0 {
					c = 256
				}
				replay = append(replay, make([]replayRun, 0, c))
			}
			last := &replay[len(replay)-1]
			*last = append(*last, replayRun{r.count, r.scanBytes, r.hops})
			kept++
		}
	}
	type walked struct {
		sf         segment.SegmentFiles
		fig        *segmentFigures
		unsearched bool // an index verify did not load (unsearchedWalk)
		// timeUnloaded: verify judged the .timeindex streaming, over its .log's capacity
		// (logdir's index-capacity finding); its entry count is verify's.
		timeUnloaded bool
	}
	var walks []walked // in segment order
	sizes := &batchSizes{}
	var verdict *logdir.PartitionVerdict
	// Segments without a .index are walked after verify, with the index recovery would build
	// (rebuilt.go); the others during verify's walk, the cost walk riding along.
	rebuilt := map[int64]*segment.OffsetIndex{}
	judge := opts.Judge
	judge.Deep = false
	judge.Visit = func(sf segment.SegmentFiles, seg *segment.Segment) logdir.SegmentVisitor {
		if seg.Index == nil && sf.Index == "" {
			walks = append(walks, walked{sf: sf})
			return nil
		}
		if seg.Index == nil {
			// Verify did not load the .index: more entries than the .log has room for
			// (logdir's index-capacity finding). No Kafka release wrote it, so lookups through
			// it mean nothing: the batches are counted, the scan figures skipped.
			uw := &unsearchedWalk{}
			uw.fig.skipped = "the offset index holds more entries than its .log has room for (index-capacity): no lookup figures are computed over an index no Kafka release wrote"
			walks = append(walks, walked{sf, &uw.fig, true, sf.TimeIndex != "" && seg.TimeIndex == nil})
			return uw
		}
		cw := newCostWalk(seg, addRun)
		cw.progress = opts.Progress
		cw.sizes = sizes
		walks = append(walks, walked{sf: sf, fig: &cw.fig, timeUnloaded: sf.TimeIndex != "" && seg.TimeIndex == nil})
		return cw
	}
	report := logdir.VerifyPartition(pd, cps, judge)
	pr.Findings = append(pr.Findings, report.Findings...)
	if len(report.Partitions) == 1 {
		pr.Findings = append(pr.Findings, broker.Partition(pd, &report.Partitions[0])...)
		pr.NextStart = report.Partitions[0].NextStart
		verdict = &report.Partitions[0]
		pv := report.Partitions[0]
		verdicts := map[int64]*logdir.SegmentVerdict{}
		for i, v := range pv.Segments {
			verdicts[v.BaseOffset] = &pv.Segments[i]
			if v.Live != nil {
				pr.Live = append(pr.Live, LiveReport{BaseOffset: v.BaseOffset, LiveState: *v.Live})
			}
			for _, r := range v.Restarts {
				pr.Restarts = append(pr.Restarts, RestartReport{BaseOffset: v.BaseOffset, Restart: r})
			}
			ev := v.Cleaner
			if i > 0 && pv.Segments[i-1].NextOffset > v.BaseOffset {
				// The segment below holds offsets of this one: a cleaned copy beside the
				// segment it was cleaned from (verify's segment-overlap finding says so).
				// Below the checkpoint this one is that source, not the cleaner's output.
				ev.BelowCheckpoint = false
			}
			if ev.Any() {
				pr.Cleaned = append(pr.Cleaned, CleanedReport{BaseOffset: v.BaseOffset, Cleaned: ev.Strong(), Evidence: ev.Facts()})
			}
		}
		if n := len(pv.Segments); n > 0 {
			pr.Eras = pv.Segments[n-1].Eras
		}
		for i := range walks {
			if v := verdicts[walks[i].sf.BaseOffset]; walks[i].unsearched && v != nil {
				pr.unsearched = true
				walks[i].fig.entries = v.IndexEntries // as verify counted them, streaming
				if st, err := os.Stat(walks[i].sf.Index); err == nil {
					walks[i].fig.indexFileSize = st.Size()
				}
			}
			if v := verdicts[walks[i].sf.BaseOffset]; walks[i].timeUnloaded && v != nil {
				walks[i].fig.timeEntries = v.TimeIndexEntries // as verify counted them, streaming
				if st, err := os.Stat(walks[i].sf.TimeIndex); err == nil {
					walks[i].fig.timeFileSize = st.Size()
				}
			}
			if walks[i].fig == nil {
				walks[i].fig = pr.rebuildAndWalk(walks[i].sf, verdicts[walks[i].sf.BaseOffset], opts, rebuilt, addRun)
			}
		}
	}
	var last segmentFigures
	pastHit := opts.HeaderReads == nil || opts.HeaderReads.HeaderReadsPastHit
	var reads41Total, reads41Max int64
	for _, wk := range walks {
		if wk.fig == nil {
			continue // verify could not open the segment: its finding says why
		}
		fig := *wk.fig
		reads41Total += fig.reads41.total
		reads41Max = max(reads41Max, fig.reads41.max)
		if fig.skipped != "" {
			// A note, not a problem: verify's findings on the segment are the problem, and
			// counting this too would make analyze's count differ from verify's.
			pr.Findings = append(pr.Findings, logdir.Finding{File: wk.sf.Log, Pos: -1, Severity: logdir.SeverityInfo,
				Check: "scan-stats-skipped", Message: fig.skipped})
		}
		pr.Batches += fig.batches
		pr.LogBytes += fig.logBytes
		pr.MaxBatchBytes = max(pr.MaxBatchBytes, fig.maxBatch)
		pr.OffsetIndexEntries += int64(fig.entries)
		pr.TimeIndexEntries += int64(fig.timeEntries)
		pr.IndexFileBytes += fig.indexFileSize
		pr.TimeIndexFileBytes += fig.timeFileSize
		if !wk.unsearched {
			// Phase 1 is figured on the fullest index searched (phase1For builds one that size).
			pr.MaxEntries = max(pr.MaxEntries, fig.entries)
		}
		pr.MaxLastBatchPos = max(pr.MaxLastBatchPos, fig.lastBatchPos)
		last = fig
	}
	if len(pr.Restarts) > 0 {
		restartCosts(pr, logSegs, rebuilt)
	}
	if verdict != nil && !pr.unsearched {
		pr.Exposure = partitionExposure(pr, sizes, verdict, opts.Judge)
	}
	pr.Passes = 1
	// Exact quantiles: replay the runs while a quantile's bucket holds several values, from
	// memory, or (past replayLimit) by reading the headers again.
	for {
		scanDone := scan.Resolve()
		if hopsDone := hops.Resolve(); scanDone && hopsDone {
			break
		}
		scan.BeginRefine()
		hops.BeginRefine()
		pr.Passes++
		if replayable {
			for _, chunk := range replay {
				for _, r := range chunk {
					scan.Add(r.count, r.scanBytes)
					hops.Add(r.count, r.hops)
				}
			}
			continue
		}
		for _, sf := range logSegs {
			_, _ = segmentRunsWith(sf, rebuilt[sf.BaseOffset], func(r costRun) {
				scan.Add(r.count, r.scanBytes)
				hops.Add(r.count, r.hops)
			})
		}
	}
	if pastHit {
		stats.TotalHeaderReads, stats.MaxHeaderReads = reads41Total, reads41Max
	} else {
		stats.TotalHeaderReads, stats.MaxHeaderReads = stats.TotalHops, stats.MaxHops
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
	for _, f := range pr.Findings {
		if f.Severity != logdir.SeverityInfo {
			pr.Problems += f.Weight()
		}
		if f.Severity == logdir.SeverityError {
			pr.Errors += f.Weight()
		}
	}
	return pr
}

// unsearchedWalk counts a segment's batches without looking offsets up: its index is not one
// to search.
type unsearchedWalk struct{ fig segmentFigures }

func (u *unsearchedWalk) Batch(b segment.BatchInfo, first, last int64) bool {
	u.fig.batches++
	u.fig.maxBatch = max(u.fig.maxBatch, b.Size)
	u.fig.lastBatchPos = b.Position
	return true
}

func (u *unsearchedWalk) End(seg *segment.Segment, res segment.WalkResult) {
	u.fig.logBytes = res.ValidBytes
	if seg.TimeIndex != nil {
		u.fig.timeEntries, u.fig.timeFileSize = seg.TimeIndex.ValidLen(), seg.TimeIndex.FileSize
	}
}

// restartCosts sums, per restart, the cost of the offsets whose lookups cross it: those in
// the batches from the restart to the next entry or restart. Only the segments with a restart
// are read again (headers only); a segment without its .index is left out (its figures are the
// rebuilt index's, which recover() writes in one lifetime).
func restartCosts(pr *PartitionReport, segs []segment.SegmentFiles, rebuilt map[int64]*segment.OffsetIndex) {
	for _, sf := range segs {
		if rebuilt[sf.BaseOffset] != nil {
			continue // recover() rebuilds the index with one counter: no lifetime splits its lookups
		}
		var rs []*RestartReport
		for i := range pr.Restarts {
			if pr.Restarts[i].BaseOffset == sf.BaseOffset {
				rs = append(rs, &pr.Restarts[i])
			}
		}
		if len(rs) == 0 {
			continue
		}
		_, _ = segmentRuns(sf, func(r costRun) {
			for _, x := range rs {
				if r.pos >= x.Position && (x.UntilPosition < 0 || r.pos < x.UntilPosition) {
					x.Offsets += r.count
					x.TotalScanBytes += r.count * r.scanBytes
					x.MaxScanBytes = max(x.MaxScanBytes, r.scanBytes)
				}
			}
		})
	}
}

// recommendPartition derives advice from a partition's actual figures; every claim is checked
// against them.
func recommendPartition(pr *PartitionReport, a *Analysis) []Advice {
	var out []Advice
	if pr.Batches == 0 {
		return []Advice{{Kind: AdviceNoBatches, Figure: fig("batches", 0, "batches"), Text: "No batches: nothing to tune."}}
	}
	if pr.unsearched {
		return []Advice{{Kind: AdviceIndexCapacity, Figure: fig("problems", int64(pr.Problems), "findings"), Text: fmt.Sprintf("An offset index here holds more entries than its .log has room for (index-capacity): no Kafka release wrote it, so no density or lookup advice is drawn from it; %s (see findings).", plural(int64(pr.Problems), "verify problem"))}}
	}
	// The densest index the append rule allows: every batch but the first of each segment and
	// the first after each byte-counter restart.
	unindexable := int64(pr.Segments + len(pr.Restarts))
	densest := pr.Batches - unindexable
	if len(pr.Rebuilt) > 0 {
		// No advice from an index that is not there: what the next start does instead.
		out = append(out, Advice{Kind: AdviceRebuiltIndex, Figure: fig("rebuilt", int64(len(pr.Rebuilt)), "segments"), Text: rebuiltWords(pr.Rebuilt)})
		densest = 0
	}
	switch {
	case pr.OffsetIndexEntries == 0 && densest > 0 && pr.MaxLastBatchPos <= defaultIndexInterval:
		out = append(out, Advice{Kind: AdviceEmptyIndexSmall, Figure: fig("scan.maxScanBytes", pr.Scan.MaxScanBytes, "bytes"),
			Text: fmt.Sprintf("No entries: no segment has a batch more than %s in (the default index.interval.bytes is %d), so every lookup walks from byte 0, at most %s and %s. Nothing to tune at this size.",
				plural(pr.MaxLastBatchPos, "byte"), defaultIndexInterval, plural(pr.Scan.MaxScanBytes, "byte"), plural(pr.Scan.MaxHops, "hop"))})
	case pr.OffsetIndexEntries == 0 && densest > 0:
		// The sentence names no value: the files bound the interval from below only.
		out = append(out, Advice{Kind: AdviceLowerIndexInterval, Config: "index.interval.bytes", Figure: fig("scan.maxScanBytes", pr.Scan.MaxScanBytes, "bytes"),
			Text: fmt.Sprintf("The offset indexes are empty over %s: index.interval.bytes is at least %d (a batch starts that far into a segment without an entry), so every lookup walks headers from byte 0, up to %s and %s. Lower index.interval.bytes.",
				plural(pr.Batches, "batch"), pr.MaxLastBatchPos, plural(pr.Scan.MaxScanBytes, "byte"), plural(pr.Scan.MaxHops, "hop"))})
	case densest > 0 && pr.OffsetIndexEntries == densest:
		what := "each segment's first"
		switch n := len(pr.Restarts); {
		case n == 1:
			what += " and the first after the byte-counter restart"
		case n > 1:
			what += fmt.Sprintf(" and the first after each of the %d byte-counter restarts", n)
		}
		claim := fmt.Sprintf("Every batch except %s is indexed (%s over %s): the index is as dense as the batching allows, and lowering index.interval.bytes changes nothing. ",
			what, plural(pr.OffsetIndexEntries, "entry"), plural(pr.Batches, "batch"))
		if pr.Scan.MaxScanBytes == 0 {
			claim += "Every lookup starts at its own batch: no header is walked past."
		} else {
			claim += fmt.Sprintf("A lookup walks at most one batch, the one before the batch holding its offset: here up to %s.", plural(pr.Scan.MaxScanBytes, "byte"))
		}
		out = append(out, Advice{Kind: AdvicePlateau, Figure: fig("offsetIndexEntries", pr.OffsetIndexEntries, "entries"), Text: claim})
	case densest > 0:
		out = append(out, Advice{Kind: AdviceIndexDensity, Figure: &AdviceFigure{Name: "batchesPerEntry", Value: round2(pr.BatchesPerEntry), Unit: "batches"},
			Text: fmt.Sprintf("One entry per %.1f batches (%.0f log bytes per entry): lookups walk up to %s, p99 %s, mean %.1f hops.",
				pr.BatchesPerEntry, pr.BytesPerEntry, plural(pr.Scan.MaxScanBytes, "byte"), plural(pr.ScanQ[P99], "byte"), pr.Scan.MeanHops())})
	}
	if s, worst := restartsWords(pr.Restarts); s != "" {
		out = append(out, Advice{Kind: AdviceRestartCost, Figure: fig("restarts.maxScanBytes", worst, "bytes"), Text: s})
	}
	if pr.MaxEntries > model.WarmEntries(model.OffsetIndexEntrySize)+1 {
		out = append(out, Advice{Kind: AdviceWarmPartial, Figure: fig("warmCoveredBytes", pr.WarmCoveredBytes, "bytes"),
			Text: fmt.Sprintf("The warm section of the active segment covers %s of log: consumers lagging further search cold index pages (up to %s against %s at the tail).",
				Bytes(pr.WarmCoveredBytes), plural(int64(pr.Phase1.ColdPages), "page"), plural(int64(pr.Phase1.TailPages), "page"))})
	}
	if s := pr.Exposure.Sentence(); s != "" {
		out = append(out, exposureAdvice(pr.Exposure.Exposure, "followerOverflow.fullAtBytes", s))
	}
	if pr.Problems > 0 {
		out = append(out, Advice{Kind: AdviceVerifyProblems, Figure: fig("problems", int64(pr.Problems), "findings"),
			Text: fmt.Sprintf("%s (see findings): check these files before trusting the figures.", plural(int64(pr.Problems), "verify problem"))})
	}
	if a.Maps > a.MaxMapCount {
		// The figure is the broker's (the document's top-level "maps"), the least limit that holds it.
		k, v := setting("vm.max_map_count", a.Maps)
		out = append(out, Advice{Kind: AdviceRaiseMaxMapCount, Config: k, Value: v, Figure: fig("maps", a.Maps, "maps"),
			Text: fmt.Sprintf("This broker alone needs %s (2 per segment) against vm.max_map_count=%d.", plural(a.Maps, "map"), a.MaxMapCount)})
	}
	return out
}

// defaultIndexInterval is index.interval.bytes' default (LogConfig).
const defaultIndexInterval = 4096

// restartsWords says what the byte-counter restarts cost lookups, in one sentence however
// many there are, with the longest walk they leave.
func restartsWords(rs []RestartReport) (string, int64) {
	var costly []RestartReport
	var offsets, worst int64
	for _, r := range rs {
		if r.Offsets > 0 {
			costly = append(costly, r)
			offsets += r.Offsets
			worst = max(worst, r.MaxScanBytes)
		}
	}
	switch len(costly) {
	case 0:
		return "", 0
	case 1:
		r := costly[0]
		return fmt.Sprintf("A byte-counter restart in segment %d (%s) leaves %s without an entry of their own lifetime: their lookups walk up to %s.",
			r.BaseOffset, restartWhere(r.Restart), plural(r.Offsets, "offset"), plural(r.MaxScanBytes, "byte")), r.MaxScanBytes
	}
	var where []string
	for i, r := range costly {
		if i == 4 {
			where = append(where, fmt.Sprintf("%d more", len(costly)-4))
			break
		}
		where = append(where, fmt.Sprintf("segment %d %s", r.BaseOffset, restartWhere(r.Restart)))
	}
	return fmt.Sprintf("%d byte-counter restarts (%s) leave %s without an entry of their own lifetime: their lookups walk up to %s.",
		len(costly), strings.Join(where, "; "), plural(offsets, "offset"), plural(worst, "byte")), worst
}

func restartWhere(r logdir.Restart) string {
	if r.Snapshot != "" {
		return fmt.Sprintf("before offset %d, a clean shutdown by its producer snapshot", r.Offset)
	}
	return fmt.Sprintf("before offset %d", r.Offset)
}

// plural writes "1 byte", "2 bytes", "1 entry", "3 entries", "1 batch", "2 batches".
func plural(n int64, what string) string { return english.Plural(n, what) }
