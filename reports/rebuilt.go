package reports

import (
	"fmt"
	"strings"

	"kidx/logdir"
	"kidx/segment"
)

// A segment whose .index is missing has no entries to search, but no broker searches it that
// way: at its next start Kafka recovers the segment (LogSegment.sanityCheck throws
// NoSuchFileException, LogLoader.loadSegmentFiles calls recoverSegment) and rebuilds its
// indexes from the .log with LogSegment.recover, and lookups then use that index. analyze
// gives that index's figures, and says so (docs/reports.md, "Missing index files").

// RebuiltIndex is a segment without its .index, and the index recover() would build for it.
type RebuiltIndex struct {
	BaseOffset  int64 `json:"baseOffset"`
	Entries     int   `json:"entries"`
	TimeEntries int   `json:"timeEntries"`
	// IndexIntervalBytes is the interval the rebuild used: the one given (--config), else
	// Kafka's default, assumed (IntervalAssumed).
	IndexIntervalBytes int64 `json:"indexIntervalBytes"`
	IntervalAssumed    bool  `json:"intervalAssumed"`
	// NamesLastOffset: the entries name each batch's last offset (recover() of Kafka 2.0 and
	// later, KAFKA-6264); else its first offset (0.11-1.1).
	NamesLastOffset bool `json:"namesLastOffset"`
}

// recoverNamesLast says which offset recover() names for the eras that may have written the
// segment: the first offset only when every one of them is 0.8-1.1's; otherwise the last, the
// newest releases' rule (a start recovers with the release that runs it).
func recoverNamesLast(eras logdir.EraSet, given *logdir.Era) bool {
	if given != nil {
		return given.OffsetEntry != logdir.EntryAppendFirst
	}
	for _, e := range logdir.Eras {
		if eras.Has(e) && e.OffsetEntry != logdir.EntryAppendFirst {
			return true
		}
	}
	return eras.Empty()
}

// rebuildIndex walks the segment's batch headers as LogSegment.recover does and returns the
// offset index it builds: an entry (the batch's last offset, or its first) at a batch's
// position when more than interval bytes lie between it and the last entry (strict >, from 0
// at the segment's start, so the first batch is never indexed); a time-index entry beside it
// when the max timestamp so far grew past the last one's (TimeIndex.maybeAppend), and one more
// at the end when it grew since. The walk stops where recover() would truncate (the first
// batch that cannot be read whole).
func rebuildIndex(sf segment.SegmentFiles, namesLast bool, interval int64) (*segment.OffsetIndex, RebuiltIndex, error) {
	rb := RebuiltIndex{BaseOffset: sf.BaseOffset, IndexIntervalBytes: interval, NamesLastOffset: namesLast}
	lf, err := segment.OpenLogWith(sf.Log, segment.AccessPread)
	if err != nil {
		return nil, rb, err
	}
	defer lf.Close()
	lf.SetReadAhead(logdir.HeaderWindow)
	var data []byte
	lastEntry := int64(0)
	maxTs, lastTimeTs := int64(segment.NoTimestamp), int64(segment.NoTimestamp)
	lf.Walk(0, 0, func(b segment.BatchInfo) bool {
		maxTs = max(maxTs, b.MaxTimestamp())
		if b.Position-lastEntry > interval {
			off := b.LastOffset()
			if !namesLast {
				first, err := lf.FirstOffset(b)
				if err != nil {
					return false
				}
				off = first
			}
			data = segment.EncodeIndexEntry(data, sf.BaseOffset, segment.IndexEntry{Offset: off, Position: b.Position})
			rb.Entries++
			if maxTs > lastTimeTs {
				rb.TimeEntries++
				lastTimeTs = maxTs
			}
			lastEntry = b.Position
		}
		return true
	})
	// "A normally closed segment always appends the biggest timestamp ever seen into log
	// segment, we do this as well." (LogSegment.recover)
	if maxTs > lastTimeTs {
		rb.TimeEntries++
	}
	idx, err := segment.OffsetIndexFromBytes(fmt.Sprintf("%s (rebuilt by recovery)", segment.FilenamePrefixFromOffset(sf.BaseOffset)+segment.IndexSuffix), sf.BaseOffset, data)
	return idx, rb, err
}

// rebuildAndWalk gives the figures of a segment without its .index: the index recover() builds
// (the interval given, else Kafka's default) walked as analyze walks any segment. The rebuilt
// index is kept in rebuilt for the passes that read the segment again, and listed in
// pr.Rebuilt. nil when the segment cannot be read (verify's findings say why).
func (pr *PartitionReport) rebuildAndWalk(sf segment.SegmentFiles, v *logdir.SegmentVerdict, opts AnalyzeOptions, rebuilt map[int64]*segment.OffsetIndex, addRun func(costRun)) *segmentFigures {
	interval, assumed := int64(defaultIndexInterval), true
	if opts.Judge.HaveInterval {
		interval, assumed = opts.Judge.IndexIntervalBytes, false
	}
	var eras logdir.EraSet
	if v != nil {
		eras = v.EraSet()
	}
	idx, rb, err := rebuildIndex(sf, recoverNamesLast(eras, opts.Judge.Era), interval)
	if err != nil {
		return nil
	}
	rb.IntervalAssumed = assumed
	fig, err := segmentRunsWith(sf, idx, addRun)
	if err != nil {
		return nil
	}
	fig.timeEntries = rb.TimeEntries
	rebuilt[sf.BaseOffset] = idx
	pr.Rebuilt = append(pr.Rebuilt, rb)
	if opts.Progress != nil {
		opts.Progress(fig.logBytes)
	}
	return &fig
}

// rebuiltWords says what Kafka does with segments that have no .index, and where the figures
// come from.
func rebuiltWords(rs []RebuiltIndex) string {
	var bases []string
	for _, r := range rs {
		bases = append(bases, fmt.Sprint(r.BaseOffset))
	}
	which := "Segment " + bases[0] + " has"
	if len(rs) > 1 {
		which = "Segments " + strings.Join(bases, ", ") + " have"
	}
	assumed := ""
	if rs[0].IntervalAssumed {
		assumed = fmt.Sprintf(", with index.interval.bytes=%d, Kafka's default, assumed (give --config index.interval.bytes=I for the broker's)", rs[0].IndexIntervalBytes)
	}
	return fmt.Sprintf("%s no .index: Kafka's next start recovers %s and rebuilds the indexes from the .log (LogLoader: LogSegment.sanityCheck throws NoSuchFileException, then recoverSegment), "+
		"so the figures are those of the index LogSegment.recover builds%s; no advice is drawn from the missing file.",
		which, map[bool]string{true: "them", false: "it"}[len(rs) > 1], assumed)
}
