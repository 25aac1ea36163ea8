package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kidx/logdir"
	"kidx/model"
	"kidx/segment"
)

// Expected is a case's expected.json (docs/corpus.md): what a correct reader reports on the
// case's files.
type Expected struct {
	Version      int    `json:"version"`
	Case         int    `json:"case"`
	Seed         uint64 `json:"seed"`
	Rule         string `json:"rule"`
	KafkaVersion string `json:"kafkaVersion,omitempty"`
	// Release and IndexView say whose answers the lookups are: a release line's
	// LogSegment.translateOffset (segment.ReadRelease) over the running or reopened index
	// (docs/corpus.md). Version 1 files, which lack them, hold 2.1-3.9's answers, running.
	Release   string           `json:"release"`
	IndexView string           `json:"indexView"`
	Partition string           `json:"partition"`
	Damage    *Damage          `json:"damage,omitempty"`
	Segments  []SegmentAnswers `json:"segments"`
	Verify    Verdict          `json:"verify"`
}

// SegmentAnswers are one segment's index contents and lookup answers.
type SegmentAnswers struct {
	BaseOffset int64  `json:"baseOffset"`
	Log        string `json:"log"`
	Index      string `json:"index"`
	TimeIndex  string `json:"timeIndex"`
	// OpenError is set when the segment cannot be opened (then every query below has it too
	// and the entry lists are empty).
	OpenError        *ReadError     `json:"openError,omitempty"`
	IndexEntries     []IndexEntry   `json:"indexEntries"`
	TimeIndexEntries []TimeEntry    `json:"timeIndexEntries"`
	Lookups          []OffsetLookup `json:"lookups"`
	TimeLookups      []TimeLookup   `json:"timeLookups"`
}

// IndexEntry is a valid .index entry, offsets absolute.
type IndexEntry struct {
	Offset   int64 `json:"offset"`
	Position int64 `json:"position"`
}

// TimeEntry is a valid .timeindex entry, offsets absolute.
type TimeEntry struct {
	Timestamp int64 `json:"timestamp"`
	Offset    int64 `json:"offset"`
}

// ReadError is where a reader must stop: the file (relative to the case directory) and
// byte of the error kidx's reader returns (a segment.FormatError's File and Pos; -1 when the
// error names no byte).
type ReadError struct {
	File    string `json:"file"`
	Byte    int64  `json:"byte"`
	Message string `json:"message"`
	// Class is the Java exception Kafka's reader throws there (lookups only).
	Class string `json:"class,omitempty"`
}

// Batch is a batch header's place and offsets.
type Batch struct {
	Position   int64 `json:"position"`
	BaseOffset int64 `json:"baseOffset"`
	LastOffset int64 `json:"lastOffset"`
	Size       int64 `json:"size"`
}

// OffsetLookup is LogSegment.translateOffset's answer for one offset (docs/contract.md §5):
// phase 1's index entry (the segment's base offset and position 0 when no entry is at or
// below the offset), then the first batch from there whose last offset is at or past it.
type OffsetLookup struct {
	Offset        int64      `json:"offset"`
	IndexOffset   int64      `json:"indexOffset"`
	IndexPosition int64      `json:"indexPosition"`
	Found         bool       `json:"found"`
	Hit           *Batch     `json:"hit,omitempty"`
	Hops          int        `json:"hops"`
	Error         *ReadError `json:"error,omitempty"`
	// Reason names the rule that decided the answer on irregular bytes (segment.LookupResult's
	// Reason): "" for a plain answer.
	Reason string `json:"reason,omitempty"`
}

// TimeLookup is LogSegment.findOffsetByTimestamp's answer for one timestamp (docs/kafka.md
// §7.4): the time-index entry (-1 and the base offset when none), the start position the
// offset index gives for its offset, and the first record at or past the timestamp.
type TimeLookup struct {
	Timestamp      int64      `json:"timestamp"`
	IndexTimestamp int64      `json:"indexTimestamp"`
	IndexOffset    int64      `json:"indexOffset"`
	StartPosition  int64      `json:"startPosition"`
	Found          bool       `json:"found"`
	FoundOffset    int64      `json:"foundOffset"`
	FoundTimestamp int64      `json:"foundTimestamp"`
	Error          *ReadError `json:"error,omitempty"`
}

// Verdict is kidx verify's (logdir.Verify, deep) on the partition directory.
type Verdict struct {
	Healthy  bool      `json:"healthy"`
	Findings []Finding `json:"findings"`
}

// Finding is one verify finding.
type Finding struct {
	Check    string `json:"check"`
	Severity string `json:"severity"`
	File     string `json:"file"`
	Byte     int64  `json:"byte"`
	Message  string `json:"message"`
}

// smallCase is the largest case (offsets queried, one past each segment included) whose every
// offset is looked up; larger ones get sampleOffsets drawn offsets plus each segment's ends.
const (
	smallCase     = 2000
	sampleOffsets = 500
	timeSamples   = 12 // as fuzz/compare.go: batches whose timestamps are looked up per segment
)

// answers reads the written (maybe damaged) case in caseDir with kidx's readers. segs are the
// model's segments of the undamaged files (the differential check made them equal): they
// choose the offsets and timestamps asked.
func answers(caseDir string, segs []*model.Segment, rng *rand.Rand, rules segment.ReadRules, verdict bool) (*Expected, error) {
	part := filepath.Join(caseDir, Partition)
	rel := func(s string) string { return strings.ReplaceAll(s, caseDir+string(filepath.Separator), "") }
	exp := &Expected{Version: Version, Release: rules.Release.String(), IndexView: rules.View.String(), Partition: Partition,
		Segments: make([]SegmentAnswers, 0, len(segs))}
	offsets := chooseOffsets(segs, rng)
	for i, ms := range segs {
		name := segment.FilenamePrefixFromOffset(ms.BaseOffset())
		sa := SegmentAnswers{BaseOffset: ms.BaseOffset(), Log: filepath.Join(Partition, name+segment.LogSuffix),
			Index: filepath.Join(Partition, name+segment.IndexSuffix), TimeIndex: filepath.Join(Partition, name+segment.TimeIndexSuffix),
			IndexEntries: []IndexEntry{}, TimeIndexEntries: []TimeEntry{}, Lookups: []OffsetLookup{}, TimeLookups: []TimeLookup{}}
		tss := chooseTimestamps(ms)
		seg, err := segment.OpenSegment(filepath.Join(part, name+segment.LogSuffix))
		if err != nil {
			re := readError(err, rel)
			sa.OpenError = re
			for _, o := range offsets[i] {
				sa.Lookups = append(sa.Lookups, OffsetLookup{Offset: o, Error: re})
			}
			for _, ts := range tss {
				sa.TimeLookups = append(sa.TimeLookups, TimeLookup{Timestamp: ts, Error: re})
			}
			exp.Segments = append(exp.Segments, sa)
			continue
		}
		if seg.Index != nil {
			for _, e := range seg.Index.Entries(seg.Index.ValidLen()) {
				sa.IndexEntries = append(sa.IndexEntries, IndexEntry{e.Offset, e.Position})
			}
		}
		if seg.TimeIndex != nil {
			for _, e := range seg.TimeIndex.Entries(seg.TimeIndex.ValidLen()) {
				sa.TimeIndexEntries = append(sa.TimeIndexEntries, TimeEntry{e.Timestamp, e.Offset})
			}
		}
		for _, o := range offsets[i] {
			r, err := seg.LookupAs(o, rules)
			a := OffsetLookup{Offset: o, IndexOffset: r.IndexOffset, IndexPosition: r.IndexPosition, Found: r.Found, Hops: r.Hops, Reason: r.Reason}
			if r.Found {
				a.Hit = &Batch{r.HitPosition, r.HitBaseOffset, r.HitLastOffset, r.HitSize}
			}
			if err != nil {
				a.Found, a.Hit, a.Error = false, nil, readError(err, rel)
			}
			sa.Lookups = append(sa.Lookups, a)
		}
		for _, ts := range tss {
			r, err := seg.LookupTimestampIn(ts, rules.View)
			a := TimeLookup{Timestamp: ts, IndexTimestamp: r.IndexTimestamp, IndexOffset: r.IndexOffset, StartPosition: r.StartPosition,
				Found: r.Found, FoundOffset: r.FoundOffset, FoundTimestamp: r.FoundTimestamp}
			if err != nil {
				a.Found, a.FoundOffset, a.FoundTimestamp, a.Error = false, -1, -1, readError(err, rel)
			}
			sa.TimeLookups = append(sa.TimeLookups, a)
		}
		if err := seg.Close(); err != nil {
			return nil, err
		}
		exp.Segments = append(exp.Segments, sa)
	}
	if !verdict {
		return exp, nil
	}
	rep, err := logdir.Verify([]string{part}, logdir.VerifyOptions{Deep: true})
	if err != nil {
		return nil, err
	}
	exp.Verify = Verdict{Healthy: rep.Problems() == 0, Findings: []Finding{}}
	for _, f := range rep.Findings {
		exp.Verify.Findings = append(exp.Verify.Findings, Finding{Check: f.Check, Severity: string(f.Severity), File: relFile(caseDir, f.File),
			Byte: f.Pos, Message: rel(f.Message)})
	}
	return exp, nil
}

// relFile is a finding's file relative to the case directory.
func relFile(caseDir, f string) string {
	if f == "" {
		return ""
	}
	abs, err := filepath.Abs(f)
	if err != nil {
		return f
	}
	if r, err := filepath.Rel(caseDir, abs); err == nil {
		return r
	}
	return f
}

// readError is err as a reader must report it: file and byte from a segment.FormatError.
func readError(err error, rel func(string) string) *ReadError {
	var fe *segment.FormatError
	if errors.As(err, &fe) {
		return &ReadError{File: rel(fe.File), Byte: fe.Pos, Message: rel(fe.Msg), Class: fe.Class}
	}
	re := &ReadError{Byte: -1, Message: rel(err.Error())}
	var oe *segment.OpenError
	if errors.As(err, &oe) {
		re.File = rel(oe.Path)
	}
	return re
}

// chooseOffsets picks, per segment, the offsets asked: every offset of every segment and one
// past its last when the case is small, else a seeded sample over the whole case plus each
// segment's first, last and one-past-last offsets. Each segment's list is sorted.
func chooseOffsets(segs []*model.Segment, rng *rand.Rand) [][]int64 {
	out := make([][]int64, len(segs))
	var total int64
	for _, s := range segs {
		total += s.LastOffset() - s.BaseOffset() + 2
	}
	if total <= smallCase {
		for i, s := range segs {
			for o := s.BaseOffset(); o <= s.LastOffset()+1; o++ {
				out[i] = append(out[i], o)
			}
		}
		return out
	}
	for i, s := range segs {
		out[i] = append(out[i], s.BaseOffset(), s.LastOffset(), s.LastOffset()+1)
	}
	lo, hi := segs[0].BaseOffset(), segs[len(segs)-1].LastOffset()+1
	for range sampleOffsets {
		o := lo + rng.Int64N(hi-lo+1)
		// The segment holding o: the last whose base offset is at or below it.
		i, _ := slices.BinarySearchFunc(segs, o, func(s *model.Segment, t int64) int {
			switch {
			case s.BaseOffset() < t:
				return -1
			case s.BaseOffset() > t:
				return 1
			}
			return 0
		})
		if i == len(segs) || segs[i].BaseOffset() > o {
			i--
		}
		out[i] = append(out[i], o)
	}
	for i := range out {
		slices.Sort(out[i])
		out[i] = slices.Compact(out[i])
		// An empty segment's "last" is below its base: keep the offsets it can be asked.
		out[i] = slices.DeleteFunc(out[i], func(o int64) bool { return o < segs[i].BaseOffset() })
	}
	return out
}

// chooseTimestamps are the timestamps fuzz/compare.go's harness asks a segment: -1, 0, 2^62,
// the max timestamp of up to timeSamples batches and its neighbours, the last batch's, the
// segment's largest and one past it. Sorted, without repeats.
func chooseTimestamps(ms *model.Segment) []int64 {
	tss := []int64{-1, 0, 1 << 62}
	mb := ms.Batches()
	stride := max(1, len(mb)/timeSamples)
	for i := 0; i < len(mb); i += stride {
		ts := mb[i].MaxTimestamp
		tss = append(tss, ts-1, ts, ts+1)
	}
	if n := len(mb); n > 0 {
		tss = append(tss, mb[n-1].MaxTimestamp, ms.MaxTimestamp(), ms.MaxTimestamp()+1)
	}
	slices.Sort(tss)
	return slices.Compact(tss)
}

// ReadCase reads a case directory's expected.json (strictly: an unknown key or another
// version is an error) and workload.json.
func ReadCase(caseDir string) (*Expected, model.Workload, error) {
	data, err := os.ReadFile(filepath.Join(caseDir, "expected.json"))
	if err != nil {
		return nil, model.Workload{}, err
	}
	var exp Expected
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&exp); err != nil {
		return nil, model.Workload{}, fmt.Errorf("%s: %w", filepath.Join(caseDir, "expected.json"), err)
	}
	switch exp.Version {
	case 1: // before release lines: answered as 2.1-3.9's reader does, running index
		exp.Release, exp.IndexView = segment.Release21.String(), segment.ViewRunning.String()
	case Version:
	default:
		return nil, model.Workload{}, fmt.Errorf("%s: version %d, this kidx reads versions 1 and %d", filepath.Join(caseDir, "expected.json"), exp.Version, Version)
	}
	wdata, err := os.ReadFile(filepath.Join(caseDir, "workload.json"))
	if err != nil {
		return nil, model.Workload{}, err
	}
	w, err := model.ParseWorkload(wdata)
	if err != nil {
		return nil, model.Workload{}, fmt.Errorf("%s: %w", filepath.Join(caseDir, "workload.json"), err)
	}
	return &exp, w, nil
}
