package explain

import (
	"sort"

	"kidx/logdir"
	"kidx/segment"
)

// exBatch is one batch as explain needs it; the segment keeps its batches compact
// (batchTable) and hands them out as exBatch values.
type exBatch struct {
	pos, size, base, last, maxTs int64
	flags                        uint8
	magic1                       bool
}

const (
	batchLegacy  uint8 = 1 << iota // a legacy (magic 0/1) message
	batchWrapper                   // a legacy compressed wrapper
	// batchExact: v2, uncompressed, CreateTime: a leader of 0.11-3.6 time-indexes it at the
	// record holding its max timestamp.
	batchExact
	// batchBaseIsMax: the header's base timestamp is its max timestamp.
	batchBaseIsMax
	// batchMagic1: a v1 message (batchTable's flags; exBatch has magic1).
	batchMagic1
	// batchDeleteHorizon: a v2 batch with attribute bit 6, the delete horizon only the
	// cleaner sets (KIP-534).
	batchDeleteHorizon
)

func (b exBatch) legacy() bool        { return b.flags&batchLegacy != 0 }
func (b exBatch) wrapper() bool       { return b.flags&batchWrapper != 0 }
func (b exBatch) exactEligible() bool { return b.flags&batchExact != 0 }

// exSegment is a segment's files, read for explain.
type exSegment struct {
	files    segment.SegmentFiles
	lf       *segment.LogFile
	batches  batchTable
	logEnd   int64 // the bytes the walk accepted
	logErr   error // the walk stopped at corruption
	newest   bool
	entries  []segment.IndexEntry
	hasIndex bool
	idxLive  bool // untrimmed
	idxSize  int64
	idxJunk  int // first non-zero slot after the valid entries, -1
	times    []segment.TimeIndexEntry
	hasTime  bool
	timeLive bool
	timeJunk int
	snaps    []snapshotFile // producer snapshots at offsets inside the segment
	// exact maps a batch ordinal to the offset of its first record holding the max, as a delta
	// from the batch's base offset (-1: not read yet); allocated when first needed.
	exact []int32
	pm    *prefixMax
	// timeMemo holds time-index checks by what decides them: equal moments give equal results.
	timeMemo map[timeKey]timeResult
	fitMemo  map[fitKey]fitResult

	// idxOver, timeOver: the .index or .timeindex holds more entries than the .log has room
	// for; it is not loaded (overCapacity), idxOverEntries and timeOverEntries count them.
	idxOver         *Disagreement
	idxOverEntries  int
	timeOver        *Disagreement
	timeOverEntries int

	// cleaner is what the files say of the log cleaner having written the segment
	// (logdir.CleanerEvidence): it decides whether the cleaned history is tried.
	cleaner logdir.CleanerEvidence
}

func readExSegment(sf segment.SegmentFiles, snaps []snapshotFile, newest bool, cleanerOffset int64, hasCleanerOffset bool) (*exSegment, error) {
	// A .log Kafka would not open is refused from its size, before a walk of it costs a read
	// per batch (issue 27).
	if err := segment.CheckLogSize(sf.Log); err != nil {
		return nil, err
	}
	s := &exSegment{files: sf, newest: newest, idxJunk: -1, timeJunk: -1, timeMemo: map[timeKey]timeResult{}, fitMemo: map[fitKey]fitResult{}}
	// The indexes first: an entry near the middle lets a second core read half the headers.
	if s.idxOver, s.idxOverEntries = overCapacity(sf, false); s.idxOver != nil {
		s.hasIndex = true
	} else if sf.Index != "" {
		x, err := segment.OpenOffsetIndex(sf.Index, sf.BaseOffset)
		if err != nil {
			return nil, err
		}
		s.hasIndex, s.idxSize = true, x.FileSize
		s.entries = x.Entries(x.ValidLen())
		s.idxLive, s.idxJunk = x.Untrimmed(), x.TailGarbage()
	}
	if s.timeOver, s.timeOverEntries = overCapacity(sf, true); s.timeOver != nil {
		s.hasTime = true
	} else if sf.TimeIndex != "" {
		x, err := segment.OpenTimeIndex(sf.TimeIndex, sf.BaseOffset)
		if err != nil {
			return nil, err
		}
		s.hasTime = true
		s.times = x.Entries(x.ValidLen())
		s.timeLive, s.timeJunk = x.Untrimmed(), x.TailGarbage()
	}
	// Headers only, by pread on two cores (WalkSplit), as verify reads them: a mapping costs
	// as much as reading the pages it touches.
	lf, err := segment.OpenLogWith(sf.Log, segment.AccessPread)
	if err != nil {
		return nil, err
	}
	s.lf = lf
	s.batches.segBase = sf.BaseOffset
	var berr error
	res := lf.WalkSplit(0, 0, segment.SplitHint(s.entries, nil, lf.Size()), func(b segment.BatchInfo) bool {
		eb := exBatch{pos: b.Position, size: b.Size, base: b.BaseOffset(), last: b.LastOffset(), maxTs: b.MaxTimestamp()}
		if b.IsLegacy() {
			eb.flags |= batchLegacy
			eb.magic1 = b.Magic == 1
			if b.Legacy.Attributes&7 != 0 {
				eb.flags |= batchWrapper
				if eb.base, berr = lf.FirstOffset(b); berr != nil {
					return false
				}
			}
		} else if b.Header.Compression() == 0 && b.Header.Attributes&0x08 == 0 {
			eb.flags |= batchExact
			if b.Header.BaseTimestamp == b.Header.MaxTimestamp {
				eb.flags |= batchBaseIsMax
			}
		}
		if !b.IsLegacy() && b.Header.HasDeleteHorizon() {
			eb.flags |= batchDeleteHorizon
		}
		s.batches.add(eb)
		return true
	})
	s.logEnd = res.ValidBytes
	switch {
	case berr != nil:
		s.logErr = berr
	case res.Err != nil:
		s.logErr = res.Err
	}
	var first, end int64 = sf.BaseOffset, sf.BaseOffset
	if n := s.batches.len(); n > 0 {
		first, end = s.batches.at(0).base, s.batches.at(n-1).last
	}
	for _, sn := range snaps {
		if sn.offset > first && sn.offset <= end+1 {
			s.snaps = append(s.snaps, sn)
		}
	}
	marks := logdir.NewCleanerMarks(sf.BaseOffset)
	for i := range s.batches.len() {
		b := s.batches.at(i)
		marks.Batch(b.base, b.last, b.flags&batchDeleteHorizon != 0)
	}
	s.cleaner = marks.Evidence(cleanerOffset, hasCleanerOffset)
	return s, nil
}

// batchAtPos is the ordinal of the batch starting at pos, or -1.
func (s *exSegment) batchAtPos(pos int64) int {
	i := sort.Search(s.batches.len(), func(i int) bool { return s.batches.posOf(i) >= pos })
	if i < s.batches.len() && s.batches.posOf(i) == pos {
		return i
	}
	return -1
}

// batchFrom is the first batch whose base offset is >= off (len(batches) when none).
func (s *exSegment) batchFrom(off int64) int {
	return sort.Search(s.batches.len(), func(i int) bool { return s.batches.at(i).base >= off })
}

// maxMagic is the newest message format among the batches.
func (s *exSegment) maxMagic() int {
	m := 0
	for i := range s.batches.len() {
		b := s.batches.at(i)
		switch {
		case !b.legacy():
			return 2
		case b.magic1:
			m = 1
		}
	}
	return m
}

// formatEras are the eras that can write the segment's message formats: v1 messages from
// 0.10.0 (KIP-32), v2 batches from 0.11 (KIP-98).
func (s *exSegment) formatEras() logdir.EraSet {
	switch s.maxMagic() {
	case 2:
		return logdir.ErasWhere(func(e logdir.Era) bool {
			return e.TimeEntry == logdir.TimeExactRecord || e.TimeEntry == logdir.TimeBatchLast
		})
	case 1:
		return logdir.ErasWhere(func(e logdir.Era) bool { return e.ID != "0.8.0" && e.ID != "0.8.1-0.8.2" })
	}
	return logdir.AllEras
}

const (
	// evidenceNone: v2 batches with consecutive offsets, as a leader appends a producer's
	// batches one per append (a follower's fetches of several batches show in the entries).
	evidenceNone appendEvidence = iota
	// evidenceMessageSets: legacy uncompressed messages; a producer's message set is one
	// append of many.
	evidenceMessageSets
	// evidenceGaps: offset gaps, as the cleaner's output (or a follower of a compacted
	// leader) has; both append several batches at once.
	evidenceGaps
)
