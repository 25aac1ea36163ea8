package logdir

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"kidx/internal/english"
	"kidx/segment"
)

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// Deep checks every batch's CRC (ensureValid), reading every byte, and decodes the
	// records of the batches the time index names.
	Deep bool
	// Era, when set, judges every segment by that era's rules (--kafka-version, --rule): what
	// it does not explain is an error. Nil: each segment is judged by the eras its own files
	// allow (inferred), and the report says which.
	Era *Era
	// IndexIntervalBytes is the topic's index.interval.bytes, when HaveInterval. It enables the
	// interval-rule check (no entry closer than the interval to the previous one) and places
	// the byte-counter restarts exactly; without it they are placed with the largest interval
	// the entries allow.
	IndexIntervalBytes int64
	HaveInterval       bool
	// SegmentIndexBytes and SegmentBytes, when above 0, are the topic's segment.index.bytes
	// and segment.bytes (--config): the capacity of trimmed indexes for the
	// follower-index-overflow check (live ones show theirs), and its remedy.
	SegmentIndexBytes, SegmentBytes int64
	// MaxMessageSize is DumpLogSegments' --max-message-size (slice used by the .index check
	// of entries that are not at a batch boundary); 0 means its default 5242880.
	MaxMessageSize int64
	// Visit, if set, is asked for a visitor of each segment's walk, so that other figures are
	// computed in the same pass over the headers (analyze's lookup costs).
	Visit func(sf segment.SegmentFiles, seg *segment.Segment) SegmentVisitor
	// MaxFindings caps the findings listed per file, check and severity (--max-findings): the
	// first MaxFindings are listed with their file and byte, the rest counted in one summary
	// line (Finding.More) and never built. 0 lists every one.
	MaxFindings int
}

// A SegmentVisitor follows one segment's walk in Verify: Batch sees every batch in file
// order with the offsets it holds (its return value is ignored: the walk goes on for
// verify's own checks), End sees how the walk ended, the files still open.
type SegmentVisitor interface {
	Batch(b segment.BatchInfo, first, last int64) bool
	End(seg *segment.Segment, res segment.WalkResult)
}

// VerifyReport collects what Verify found.
type VerifyReport struct {
	Segments   int                `json:"segments"` // segment sets with a .log
	Batches    int                `json:"batches"`
	LogBytes   int64              `json:"logBytes"`
	Findings   []Finding          `json:"findings"`
	Partitions []PartitionVerdict `json:"partitions"`
	// LogDirs is each log directory's top as a broker's next start reads it (BrokerJudge).
	LogDirs []LogDirState `json:"logDirs"`
	// DumpLogSegments-style pairs per absolute path, for WriteKafkaSummary: only the ones no
	// era explains.
	IndexMismatches map[string][][2]int64 `json:"-"`
	TimeMismatches  map[string][][2]int64 `json:"-"`
	TimeOutOfOrder  map[string][][2]int64 `json:"-"`
	TimeNotFound    map[string][][2]int64 `json:"-"`
	// The cap on listed findings (VerifyOptions.MaxFindings) and what it held back.
	maxFindings int
	listed      map[findingKind]int
	omitted     map[findingKind]int
	omitOrder   []findingKind
}

// VerifySchema names the document of kidx verify --format json (docs/schema/README.md): a
// change that could break its readers bumps N.
const VerifySchema = "kidx.verify/1"

// VerifyDocument is kidx verify's JSON: the schema's name first, the verdict, then the report.
type VerifyDocument struct {
	Schema  string        `json:"schema"`
	Verdict VerifyVerdict `json:"verdict"`
	*VerifyReport
}

// VerifyVerdict is the verdict line in machine-readable form: its state (VerdictHealthy,
// VerdictAttention, VerdictDamaged), the problems it counts, the partitions that hold them,
// and one reason per check and severity of problem.
type VerifyVerdict struct {
	State      string         `json:"state"`
	Errors     int            `json:"errors"`
	Warnings   int            `json:"warnings"`
	Partitions int            `json:"partitions"` // partitions holding a problem
	Text       string         `json:"text"`
	Reasons    []VerifyReason `json:"reasons"`
}

// VerifyReason is one kind of problem behind a verdict: Kind is the findings' check (a Check
// constant), Count how many findings of that check and severity (summary lines counting what
// they stand for), File and Pos the first one's file and byte (-1: not about a byte), Text
// the first one as the text report prints it.
type VerifyReason struct {
	Kind     string   `json:"kind"`
	Severity Severity `json:"severity"`
	Count    int      `json:"count"`
	File     string   `json:"file"`
	Pos      int64    `json:"pos"`
	Text     string   `json:"text"`
}

// Document is the report as kidx verify --format json writes it.
func (r *VerifyReport) Document() VerifyDocument {
	state, errs, warns, parts := r.verdictCounts()
	v := VerifyVerdict{State: state, Errors: errs, Warnings: warns, Partitions: parts,
		Text: strings.TrimPrefix(r.Verdict(), "verdict: "), Reasons: []VerifyReason{}}
	at := map[findingKind]int{}
	for _, f := range r.Findings {
		if f.Severity == SeverityInfo {
			continue
		}
		k := findingKind{check: f.Check, severity: f.Severity}
		i, ok := at[k]
		if !ok {
			i = len(v.Reasons)
			at[k] = i
			v.Reasons = append(v.Reasons, VerifyReason{Kind: f.Check, Severity: f.Severity, File: f.File, Pos: f.Pos, Text: f.String()})
		}
		v.Reasons[i].Count += f.Weight()
	}
	return VerifyDocument{Schema: VerifySchema, Verdict: v, VerifyReport: r}
}

// findingKind is what the cap counts by: one check of one severity in one file.
type findingKind struct {
	file, check string
	severity    Severity
}

// PartitionVerdict is what verify makes of one partition directory.
type PartitionVerdict struct {
	Path     string           `json:"path"`
	Topic    string           `json:"topic,omitempty"`
	State    string           `json:"state,omitempty"`
	Segments []SegmentVerdict `json:"segments"`
	// Files counts the partition's other files by role (producer snapshots, checkpoints ...).
	Files map[Role]int `json:"files"`
	// JudgedAs names the release given with --kafka-version or --rule ("" when inferred).
	JudgedAs string `json:"judgedAs,omitempty"`
	// Interval is index.interval.bytes as used: given, or the largest value the entries allow.
	Interval      int64  `json:"interval"`
	IntervalGiven bool   `json:"intervalGiven"`
	IntervalKnown bool   `json:"intervalKnown"`
	RecoveryPoint *int64 `json:"recoveryPoint,omitempty"` // from the log dir's recovery-point-offset-checkpoint
	// NextStart is what the broker's next start recovers of this partition (BrokerJudge;
	// nil when its log directory was not named: a partition directory given alone).
	NextStart *EraWork `json:"nextStart,omitempty"`
}

// SegmentVerdict is what verify makes of one segment.
type SegmentVerdict struct {
	BaseOffset       int64    `json:"baseOffset"`
	Log              string   `json:"log"`
	Batches          int      `json:"batches"`
	LogBytes         int64    `json:"logBytes"`
	IndexEntries     int      `json:"indexEntries"`     // valid entries
	TimeIndexEntries int      `json:"timeIndexEntries"` // valid entries
	Eras             string   `json:"eras"`             // the releases whose rules explain its files
	EraIDs           []string `json:"eraIds"`
	// NextOffset is the offset after the segment's last batch (its base offset when it holds
	// none): LogSegment.readNextOffset, the log end offset of the newest segment.
	NextOffset int64 `json:"nextOffset"`
	// NoIndex: the segment has no .index file, which every start rebuilds (LogLoader).
	NoIndex  bool       `json:"noIndex,omitempty"`
	Live     *LiveState `json:"live,omitempty"`
	Restarts []Restart  `json:"restarts"`
	// Cleaner is what the segment's files say of the log cleaner (CleanerEvidence, issue 25):
	// analyze labels a segment with it. Not in verify's JSON.
	Cleaner CleanerEvidence `json:"-"`
	eras    EraSet
}

// EraSet is the set of eras that explain the segment's files.
func (v *SegmentVerdict) EraSet() EraSet { return v.eras }

// Problems counts findings of severity error or warning, those a summary line stands for
// included.
func (r *VerifyReport) Problems() int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity != SeverityInfo {
			n += f.Weight()
		}
	}
	return n
}

// add lists f, or counts it past the cap.
func (r *VerifyReport) add(f Finding) {
	if r.room(f.File, f.Check, f.Severity) {
		r.Findings = append(r.Findings, f)
	}
}

// room says whether a finding of this kind is listed. It counts it either way: past the cap
// it is only counted, so a caller with a finding per index entry asks first and builds the
// finding (its Sprintf) only when it is listed.
func (r *VerifyReport) room(file, check string, sev Severity) bool {
	if r.maxFindings <= 0 {
		return true
	}
	k := findingKind{file, check, sev}
	if r.listed[k] < r.maxFindings {
		r.listed[k]++
		return true
	}
	r.omit(k, 1)
	return false
}

// omit counts n findings of kind k that are not listed.
func (r *VerifyReport) omit(k findingKind, n int) {
	if r.omitted[k] == 0 {
		r.omitOrder = append(r.omitOrder, k)
	}
	r.omitted[k] += n
}

// flushOmitted writes one summary line per kind the cap held findings back of, after the
// listed ones (at the end of each segment, and of the report).
func (r *VerifyReport) flushOmitted() {
	for _, k := range r.omitOrder {
		n := r.omitted[k]
		r.Findings = append(r.Findings, Finding{File: k.file, Pos: -1, Severity: k.severity, Check: k.check, More: n,
			Message: fmt.Sprintf("and %d more like the %s above, not listed (--max-findings %d: the first %d of a kind are listed)", n, k.check, r.maxFindings, r.maxFindings)})
		delete(r.omitted, k)
	}
	r.omitOrder = r.omitOrder[:0]
}

// newVerifyReport is an empty report with the options' cap.
func newVerifyReport(opts VerifyOptions) *VerifyReport {
	return &VerifyReport{Findings: []Finding{}, Partitions: []PartitionVerdict{}, LogDirs: []LogDirState{},
		IndexMismatches: map[string][][2]int64{}, TimeMismatches: map[string][][2]int64{},
		TimeOutOfOrder: map[string][][2]int64{}, TimeNotFound: map[string][][2]int64{},
		maxFindings: max(opts.MaxFindings, 0), listed: map[findingKind]int{}, omitted: map[findingKind]int{}}
}

// Verify checks files, segment sets (any of .log/.index/.timeindex names the set) and
// directories (a partition or a whole log directory). Every file is opened O_RDONLY. Problems
// in the data are findings; the error is only for paths that do not exist or cannot be
// listed, and for a directory that holds nothing of Kafka's (a *NotLogDirError).
func Verify(paths []string, opts VerifyOptions) (*VerifyReport, error) {
	if opts.MaxMessageSize <= 0 {
		opts.MaxMessageSize = 5242880
	}
	r := newVerifyReport(opts)
	cps := NewCheckpoints()
	judge := NewBrokerJudge(cps)
	// Files named one by one are grouped into their partition directories.
	loose := map[string]*PartitionDir{}
	var order []string
	seen := map[string]bool{}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			ds, err := ScanLogDir(p)
			if err != nil {
				return nil, err
			}
			for _, f := range ds.Findings {
				r.add(f)
			}
			verifyStateFiles(r, ds.RootFiles)
			judge.AddScan(ds)
			for i := range ds.Partitions {
				pd := &ds.Partitions[i]
				if key := segment.KafkaPath(pd.Path); !seen[key] {
					seen[key] = true
					verifyPartition(r, pd, cps, opts)
					for _, f := range judge.Partition(pd, &r.Partitions[len(r.Partitions)-1]) {
						r.add(f)
					}
				}
			}
			continue
		}
		sf, err := segmentFilesOf(p)
		if err != nil {
			return nil, err
		}
		dir := filepath.Dir(p)
		pd := loose[dir]
		if pd == nil {
			pd = &PartitionDir{Path: dir, Partition: -1}
			loose[dir] = pd
			order = append(order, dir)
		}
		if !slicesHasBase(pd.Segments, sf.BaseOffset) {
			pd.Segments = append(pd.Segments, sf)
		}
	}
	for _, dir := range order {
		pd := loose[dir]
		sort.Slice(pd.Segments, func(i, j int) bool { return pd.Segments[i].BaseOffset < pd.Segments[j].BaseOffset })
		verifyPartition(r, pd, nil, opts)
	}
	var top []Finding
	r.LogDirs, top = judge.Finish()
	for _, f := range top {
		r.add(f)
	}
	r.flushOmitted()
	return r, nil
}

// VerifyPartition verifies one scanned partition directory; cps reads its log directory's
// checkpoints (nil: none are read).
func VerifyPartition(pd *PartitionDir, cps *Checkpoints, opts VerifyOptions) *VerifyReport {
	if opts.MaxMessageSize <= 0 {
		opts.MaxMessageSize = 5242880
	}
	r := newVerifyReport(opts)
	verifyPartition(r, pd, cps, opts)
	r.flushOmitted()
	return r
}

func slicesHasBase(sets []segment.SegmentFiles, base int64) bool {
	for _, s := range sets {
		if s.BaseOffset == base {
			return true
		}
	}
	return false
}

// segmentFilesOf finds the segment set a file names: "<dir>/<base>.log|.index|.timeindex".
func segmentFilesOf(p string) (segment.SegmentFiles, error) {
	base, err := segment.OffsetFromFileName(filepath.Base(p))
	if err != nil {
		return segment.SegmentFiles{}, fmt.Errorf("%s: not a segment file name: %v", p, err)
	}
	stem := filepath.Join(filepath.Dir(p), segment.FilenamePrefixFromOffset(base))
	if n := filepath.Base(p); !strings.HasPrefix(n, segment.FilenamePrefixFromOffset(base)+".") {
		stem = strings.TrimSuffix(p, filepath.Ext(p))
	}
	s := segment.SegmentFiles{BaseOffset: base}
	for _, c := range []struct {
		suf string
		dst *string
	}{{segment.LogSuffix, &s.Log}, {segment.IndexSuffix, &s.Index}, {segment.TimeIndexSuffix, &s.TimeIndex}, {segment.TxnIndexSuffix, &s.TxnIndex}} {
		if _, err := os.Stat(stem + c.suf); err == nil {
			*c.dst = stem + c.suf
		}
	}
	return s, nil
}

// partitionCtx is what a segment's checks need to know about its partition.
type partitionCtx struct {
	pd            *PartitionDir
	opts          VerifyOptions
	interval      int64
	intervalKnown bool
	snapshots     []snapshotMark
	recoveryPoint *int64 // recovery-point-offset-checkpoint's (nil: none)
	cleanerOffset *int64 // cleaner-offset-checkpoint's (nil: none)
	// liveSlots: the newest segment's live index slots, for the follower-overflow check of
	// the older, trimmed ones (liveSlots).
	liveSlots [2]int
	// capacity is each .index's streamed count, for those with more slots than their .log
	// has room for entries (capacityOf).
	capacity map[string]indexCapacity
}

func verifyPartition(r *VerifyReport, pd *PartitionDir, cps *Checkpoints, opts VerifyOptions) {
	pv := PartitionVerdict{Path: pd.Path, Topic: pd.Topic, State: pd.State, Segments: []SegmentVerdict{}, Files: map[Role]int{}}
	for _, f := range pd.Files {
		pv.Files[f.Role]++
	}
	if opts.Era != nil {
		pv.JudgedAs = opts.Era.String()
	}
	ctx := &partitionCtx{pd: pd, opts: opts}
	if opts.HaveInterval {
		ctx.interval, ctx.intervalKnown = opts.IndexIntervalBytes, true
		pv.IntervalGiven = true
	} else if bound, ok := intervalBound(pd, ctx); ok {
		ctx.interval, ctx.intervalKnown = bound, true
	}
	pv.Interval, pv.IntervalKnown = ctx.interval, ctx.intervalKnown
	if opts.SegmentIndexBytes <= 0 {
		ctx.liveSlots = liveSlots(pd)
	}
	readable := verifyStateFiles(r, pd.Files)
	for _, f := range pd.Files {
		if f.Role == RoleProducerSnapshot && readable[f.Path] {
			ctx.snapshots = append(ctx.snapshots, snapshotMark{offset: f.Offset, path: f.Path})
		}
	}
	sort.Slice(ctx.snapshots, func(i, j int) bool { return ctx.snapshots[i].offset < ctx.snapshots[j].offset })
	if dc := cps.Of(pd); dc != nil {
		if v, ok := lookup(dc.RecoveryPoints, pd); ok {
			ctx.recoveryPoint = &v
			pv.RecoveryPoint = &v
		}
		if v, ok := lookup(dc.CleanerOffsets, pd); ok {
			ctx.cleanerOffset = &v
		}
	}
	logSegs := pd.LogSegments()
	newest := int64(-1)
	if len(logSegs) > 0 {
		newest = logSegs[len(logSegs)-1].BaseOffset
	}
	for i, s := range pd.Segments {
		if s.Log == "" {
			// A .log that is there but set aside (a directory, FIFO, unreadable file) makes
			// Kafka's File.exists true: the indexes are not orphans, and the .log's own
			// finding says what is wrong.
			if pd.SetAside[s.Stem()+segment.LogSuffix] != SetAsidePresent {
				reportOrphans(r, s)
			}
			continue
		}
		verifyTxnIndex(r, s)
		next := segment.SegmentFiles{BaseOffset: -1}
		for _, t := range pd.Segments[i+1:] {
			if t.Log != "" {
				next = t
				break
			}
		}
		r.Segments++
		v := verifySegment(r, ctx, s, s.BaseOffset == newest, next)
		pv.Segments = append(pv.Segments, v)
	}
	r.Partitions = append(r.Partitions, pv)
}

// reportOrphans: index files without their .log belong to no segment. Kafka's LogLoader
// deletes them at the next start ("Found an orphaned index file ..., with no corresponding
// log file.").
func reportOrphans(r *VerifyReport, s segment.SegmentFiles) {
	for _, f := range []string{s.Index, s.TimeIndex, s.TxnIndex} {
		if f == "" {
			continue
		}
		r.add(Finding{File: f, Pos: -1, Severity: SeverityWarning, Check: CheckMissingLog,
			Message:  fmt.Sprintf("%s has no .log: it belongs to no segment, and at its next start Kafka deletes it as an orphaned index file (LogLoader)", filepath.Base(f)),
			Expected: segment.FilenamePrefixFromOffset(s.BaseOffset) + segment.LogSuffix})
	}
}

// intervalBound is the largest index.interval.bytes the partition's entries allow: every
// entry lies more than the interval after the previous one (or after the segment's start),
// under every era's rule (the counter only grows between entries, and restarts only delay
// them). False when no segment has an entry.
func intervalBound(pd *PartitionDir, ctx *partitionCtx) (int64, bool) {
	bound, ok := int64(-1), false
	for _, s := range pd.Segments {
		if s.Log == "" || s.Index == "" {
			continue
		}
		if _, over := ctx.capacityOf(s); over {
			continue // no Kafka release wrote it: it says nothing of the interval, and is not loaded
		}
		x, err := segment.OpenOffsetIndex(s.Index, s.BaseOffset)
		if err != nil {
			continue
		}
		prev := int64(0)
		for i := 0; i < x.ValidLen(); i++ {
			e, _ := x.Entry(i) // i is below the slot count: no error
			if gap := e.Position - prev; gap > 0 && (!ok || gap-1 < bound) {
				bound, ok = gap-1, true
			}
			prev = e.Position
		}
		x.Close()
	}
	return bound, ok
}

// plural writes "1 segment", "2 segments", "1 batch", "3 batches", "2 entries".

func plural(n int, what string) string { return english.Plural(int64(n), what) }
