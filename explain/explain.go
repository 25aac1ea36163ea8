package explain

import (
	"fmt"
	"sort"

	"kidx/logdir"
	"kidx/segment"
)

// Explain finds, for every segment of a partition directory, what reproduces its .index and
// .timeindex byte for byte from its .log (docs/explain.md): the Kafka eras whose rules do, the
// exact set of index.interval.bytes values, how appends were grouped, and the process
// lifetimes (where the byte counter was reset). Where nothing reproduces the files it names
// the first entry that disagrees and what that means. Files are only read.

// Options narrow an explanation to what the operator knows.
type Options struct {
	// Eras, when not empty, are the only eras tried (a given Kafka release).
	Eras logdir.EraSet
	// Interval >= 0 is the configured index.interval.bytes: only it is tried, and restarts are
	// placed for it. -1: unknown.
	Interval int64
	// Checkpoints, when set, caches the log directories' checkpoint files across partitions
	// (the cleaner-offset-checkpoint is evidence of the cleaned history); nil: Partition
	// reads the partition's log directory's own.
	Checkpoints *logdir.Checkpoints

	// cleanerOffset is the partition's cleaner-offset-checkpoint entry (Partition sets it).
	cleanerOffset    int64
	hasCleanerOffset bool
}

// AppendShape is how a segment's appends were grouped into LogSegment.append calls.
type AppendShape string

// The shapes explain considers.
const (
	// OneBatchPerAppend: every batch its own append, as a leader writes a producer's batches.
	OneBatchPerAppend AppendShape = "one batch per append"
	// SeveralBatchesPerAppend: appends of several batches, as a follower's fetch, the cleaner
	// or an old producer's message set writes them; the index then pins only where appends
	// with an entry started.
	SeveralBatchesPerAppend AppendShape = "several batches per append"
)

// PartitionExplanation explains one partition directory.
type PartitionExplanation struct {
	Dir       string
	Topic     string
	Partition int
	Segments  []SegmentExplanation
	// Eras reproduce every reproduced segment (empty: no one era does, as after an upgrade).
	Eras logdir.EraSet
	// Interval holds the values that reproduce every reproduced segment.
	Interval IntervalSet
	// Notes are what the partition's other files say (indexes without a .log).
	Notes []string
	// Unreadable: the partition directory could not be listed (verify's "unreadable"
	// finding); nothing of it is explained.
	Unreadable []logdir.Finding
}

// Reproduced reports whether every segment with index files was reproduced (and the
// partition directory could be read).
func (p *PartitionExplanation) Reproduced() bool {
	if len(p.Unreadable) > 0 {
		return false
	}
	for i := range p.Segments {
		if !p.Segments[i].Reproduced && !p.Segments[i].NoIndexes {
			return false
		}
	}
	return true
}

// SegmentExplanation explains one segment.
type SegmentExplanation struct {
	BaseOffset int64
	Log        string
	Batches    int
	// Live: the newest segment with a preallocated, untrimmed index (a running broker's or
	// one an unclean shutdown left); its indexes are explained up to their zero tail.
	Live       bool
	Reproduced bool
	// NoIndexes: the segment has neither index file, so there is nothing to reproduce.
	NoIndexes bool
	Eras      logdir.EraSet
	// Interval holds the values that reproduce the segment under one of Eras with the chosen
	// append shape (Appends); EraIntervals says which under each era and shape that does as
	// well (one batch per append pins the interval from both sides, several batches per append
	// only from the entries).
	Interval     IntervalSet
	EraIntervals []EraInterval
	// OtherShapeEras and OtherShapeInterval answer as well with the other append shape
	// (several batches per append when one each was chosen, or the reverse).
	OtherShapeEras     logdir.EraSet
	OtherShapeInterval IntervalSet
	// IntervalExact is false when restarts were placed for one interval value only (a stretch
	// needed several), so Interval holds just that value.
	IntervalExact bool
	// IntervalPick is the value a replay uses (the configured one, 4096 when it fits, else
	// the smallest).
	IntervalPick int64
	Appends      AppendShape
	// History is which of the segment's possible histories reproduces its files (issue 25):
	// written by appends, by the log cleaner in one pass, or rebuilt by recovery at a
	// restart. HistoryEvidence says what in the files led to it (empty for appends).
	History         History
	HistoryEvidence []string
	// Recovery is where recovery rebuilt the indexes, for HistoryRecovered: the first batch
	// after that restart (Offset and Position are the log end when it came after the last
	// batch). nil otherwise.
	Recovery *Restart
	// AppendStarts are the ordinals of the batches that start an append, when several
	// batches per append matter (nil: every batch is checked on its own); a replay groups
	// the batches so.
	AppendStarts []int
	// Origin is who appended, when the files tell: "leader", "replication" (a follower, the
	// cleaner or the raft layer) or "" (either).
	Origin   string
	Restarts []Restart
	// OffsetEntries and TimeEntries are the valid entries compared (before any zero tail).
	OffsetEntries, TimeEntries int
	// Alternatives are other explanations that reproduce the files with more assumptions.
	Alternatives []string
	// FirstDisagreement is set when nothing reproduces the files.
	FirstDisagreement *Disagreement
	Notes             []string
	// Unreadable are the segment's files that could not be opened (verify's "unreadable"
	// findings): the segment is not explained, and not reproduced.
	Unreadable []logdir.Finding
}

// EraInterval is the interval set under one era and append shape.
type EraInterval struct {
	Era      logdir.Era
	Appends  AppendShape
	Interval IntervalSet
}

// Restart is a place where the segment's byte counter must have restarted from 0: a
// broker restart, a recovery or a follower's truncation.
type Restart struct {
	// Offset and Position are those of the first batch after the restart at its latest
	// possible place (Position is the log's size when it came after the last batch);
	// EarliestOffset and EarliestPosition at its earliest.
	Offset, Position                 int64
	EarliestOffset, EarliestPosition int64
	// Evidence: "producer-snapshot" (a .snapshot at that offset, written at every clean
	// shutdown), "time-index" (the entry close() appends) or "required" (the offset index
	// needs it, nothing in the files marks it).
	Evidence string
	Snapshot string
}

// Disagreement is the first place no rule explains, with what it means.
type Disagreement struct {
	File     string `json:"file"`
	Slot     int    `json:"slot"` // index slot (-1 when the disagreement is in the .log)
	Byte     int64  `json:"byte"` // byte offset in File
	Found    string `json:"found"`
	Expected string `json:"expected"`
	Meaning  string `json:"meaning"`
}

func (d *Disagreement) String() string {
	s := fmt.Sprintf("%s:%d", d.File, d.Byte)
	if d.Slot >= 0 {
		s += fmt.Sprintf(" (slot %d)", d.Slot)
	}
	s += ": found " + d.Found
	if d.Expected != "" {
		s += ", expected " + d.Expected
	}
	if d.Meaning != "" {
		s += ": " + d.Meaning
	}
	return s
}

// Dirs explains every partition under paths (partition directories or log.dirs
// entries), in path order.
func Dirs(paths []string, opts Options) ([]PartitionExplanation, error) {
	var out []PartitionExplanation
	if opts.Checkpoints == nil {
		opts.Checkpoints = logdir.NewCheckpoints()
	}
	for _, path := range paths {
		scan, err := logdir.ScanLogDir(path)
		if err != nil {
			return nil, err
		}
		// A partition directory the scan could not list is reported, never skipped.
		first := len(out)
		unreadable := unreadableDirs(scan)
		out = append(out, unreadable...)
		for i := range scan.Partitions {
			pe, err := Partition(&scan.Partitions[i], opts)
			if err != nil {
				return nil, err
			}
			out = append(out, pe)
		}
		if len(unreadable) > 0 {
			// Each in its place among the others (scan order is otherwise kept as it was).
			sort.SliceStable(out[first:], func(i, j int) bool { return out[first+i].Dir < out[first+j].Dir })
		}
	}
	return out, nil
}

// Partition explains one scanned partition directory.
func Partition(p *logdir.PartitionDir, opts Options) (PartitionExplanation, error) {
	pe := PartitionExplanation{Dir: p.Path, Topic: p.Topic, Partition: p.Partition, Eras: logdir.AllEras, Interval: AllIntervals}
	if opts.Eras.Empty() {
		opts.Eras = logdir.AllEras
	}
	snaps := snapshotFiles(p)
	cps := opts.Checkpoints
	if cps == nil {
		cps = logdir.NewCheckpoints()
	}
	opts.cleanerOffset, opts.hasCleanerOffset = cps.Of(p).CleanerOffset(p)
	unreadable := unreadableSegmentFiles(p)
	for _, sf := range p.Segments {
		if sf.Log == "" && unreadable[sf.BaseOffset] != nil {
			// Its .log is there but cannot be opened: a segment not explained, not one
			// without a .log.
			pe.Segments = append(pe.Segments, SegmentExplanation{BaseOffset: sf.BaseOffset, Unreadable: unreadable[sf.BaseOffset]})
			continue
		}
		if sf.Log == "" && (sf.Index != "" || sf.TimeIndex != "") {
			pe.Notes = append(pe.Notes, fmt.Sprintf("segment %d has indexes but no .log: nothing to reproduce them from (Kafka would not load them)", sf.BaseOffset))
		}
	}
	for base, fs := range unreadable {
		if !hasSegment(p.Segments, base) {
			// Every file of the segment is unreadable: the scan kept no set for it.
			pe.Segments = append(pe.Segments, SegmentExplanation{BaseOffset: base, Unreadable: fs})
		}
	}
	segs := p.LogSegments()
	for i, sf := range segs {
		if fs := unreadable[sf.BaseOffset]; fs != nil {
			pe.Segments = append(pe.Segments, SegmentExplanation{BaseOffset: sf.BaseOffset, Log: sf.Log, Unreadable: fs})
			continue
		}
		se, err := explainSegment(sf, snaps, i == len(segs)-1, opts)
		if err != nil {
			return pe, err
		}
		if se.Reproduced {
			pe.Eras &= se.Eras
			pe.Interval = pe.Interval.Intersect(se.Interval)
		}
		pe.Segments = append(pe.Segments, se)
	}
	if unreadable != nil {
		sort.SliceStable(pe.Segments, func(i, j int) bool { return pe.Segments[i].BaseOffset < pe.Segments[j].BaseOffset })
	}
	return pe, nil
}

func hasSegment(sets []segment.SegmentFiles, base int64) bool {
	for _, s := range sets {
		if s.BaseOffset == base {
			return true
		}
	}
	return false
}

type snapshotFile struct {
	offset int64
	path   string
}

func snapshotFiles(p *logdir.PartitionDir) []snapshotFile {
	var out []snapshotFile
	for _, f := range p.Files {
		if f.Role == logdir.RoleProducerSnapshot {
			out = append(out, snapshotFile{f.Offset, f.Path})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].offset < out[j].offset })
	return out
}
