package sim

import (
	"errors"
	"fmt"
	"io"

	"kidx/explain"
	"kidx/internal/printsafe"
	"kidx/logdir"
	"kidx/model"
	"kidx/segment"
)

// The replay of cleaned and recovered segments (issue 25; docs/explain.md, "Replaying what was
// inferred"). A cleaned segment is replayed as its own new segment with no restart inside it
// (Cleaner.cleanSegments: UnifiedLog.createNewCleanedSegment, cleanInto's appends, then
// onBecomeInactiveSegment, which the roll to the next segment does). The source segments the
// swap should have deleted, left beside it by a copy of the directory taken between the swap's
// renames, are left out of the replay.

// offsetCursor walks a .log's batches in file order (headers by pread; nothing is held).
type offsetCursor struct {
	lf   *segment.LogFile
	pos  int64
	done bool
	// first and last are the current batch's offsets (valid while !done).
	first, last int64
}

func openOffsetCursor(path string) (*offsetCursor, error) {
	lf, err := segment.OpenLogWith(path, segment.AccessPread)
	if err != nil {
		return nil, err
	}
	lf.SetReadAhead(logdir.HeaderWindow)
	c := &offsetCursor{lf: lf}
	return c, c.next()
}

// next moves to the next batch; done at the end of the data (or a zero tail).
func (c *offsetCursor) next() error {
	b, err := c.lf.NextBatch(c.pos, c.lf.Size())
	if errors.Is(err, segment.ErrNoBatch) {
		c.done = true
		return nil
	}
	if err != nil {
		return err
	}
	first, err := c.lf.FirstOffset(b)
	if err != nil {
		return err
	}
	c.first, c.last, c.pos = first, b.LastOffset(), b.End()
	return nil
}

func (c *offsetCursor) close() { c.lf.Close() }

// lastOffsetOf is the last offset of a .log's last batch (ok false when it holds none).
func lastOffsetOf(path string) (int64, bool, error) {
	c, err := openOffsetCursor(path)
	if err != nil {
		return 0, false, err
	}
	defer c.close()
	last, ok := int64(0), false
	for !c.done {
		last, ok = c.last, true
		if err := c.next(); err != nil {
			return 0, false, err
		}
	}
	return last, ok, nil
}

// cleanedFrom reports whether src can be a source segment of the cleaned segment cleaned (one
// the broker deleted at the swap): every batch of cleaned within src's offsets is a batch of
// src, with the same base and last offsets. The cleaner keeps a batch whole
// (writeOriginalBatch) or rebuilds it with its base and last offsets
// (MemoryRecords.buildRetainedRecordsInto, overrideLastOffset), so its output holds no other
// offsets. kept counts those batches (0: the cleaner kept none of src's). One walk of each
// file at once, nothing held.
func cleanedFrom(cleaned, src segment.SegmentFiles) (ok bool, kept int, err error) {
	c, err := openOffsetCursor(cleaned.Log)
	if err != nil {
		return false, 0, err
	}
	defer c.close()
	s, err := openOffsetCursor(src.Log)
	if err != nil {
		return false, 0, err
	}
	defer s.close()
	if s.done {
		return false, 0, nil // an empty .log is no source of anything
	}
	for ; !c.done && c.first < src.BaseOffset; err = c.next() {
		if err != nil {
			return false, 0, err
		}
	}
	for ; !c.done; err = c.next() {
		if err != nil {
			return false, 0, err
		}
		for !s.done && s.first < c.first {
			if err := s.next(); err != nil {
				return false, 0, err
			}
		}
		if s.done {
			break // past src's last batch: the batches of a later source
		}
		if s.first != c.first || s.last != c.last {
			return false, 0, nil
		}
		kept++
	}
	return err == nil, kept, err
}

// withoutStaleSources returns the segments the replay appends: every segment but the source
// segments a cleaned segment (explain's cleaned history) still overlaps. A segment that overlaps
// one before it and is not such a source stays, and the replay's walk refuses the overlap.
func (r *LogDirReplay) withoutStaleSources(files []segment.SegmentFiles) []segment.SegmentFiles {
	history := map[int64]explain.History{}
	for _, se := range r.Explanation.Segments {
		history[se.BaseOffset] = se.History
	}
	out := make([]segment.SegmentFiles, 0, len(files))
	for i := 0; i < len(files); i++ {
		c := files[i]
		out = append(out, c)
		if history[c.BaseOffset] != explain.HistoryCleaned {
			continue
		}
		last, any, err := lastOffsetOf(c.Log)
		if err != nil || !any {
			continue // the walk reports the error, or there is nothing to overlap
		}
		for i+1 < len(files) && files[i+1].BaseOffset <= last {
			src := files[i+1]
			ok, kept, err := cleanedFrom(c, src)
			if err != nil || !ok {
				break // a real overlap: the walk refuses it
			}
			survived := fmt.Sprintf("%d of its batches survive in the cleaned segment", kept)
			if kept == 0 {
				survived = "none of its batches survive in the cleaned segment"
			}
			r.LeftOut = append(r.LeftOut, src.BaseOffset)
			r.Notes = append(r.Notes, fmt.Sprintf("%s is left out of the replay: it is a source of the cleaned segment %s (the cleaned segment holds offsets up to %d, past its base offset %d, and every batch the cleaned segment holds in its offsets is one of its batches; %s), which the broker deletes at the swap (UnifiedLog.replaceSegments): the directory was copied before that deletion",
				printsafe.Name(src.Log), printsafe.Name(c.Log), last, src.BaseOffset, survived))
			i++
		}
	}
	return out
}

// CleanedFigure is what one index.interval.bytes does to one cleaned segment: the segment
// replayed alone, as the cleaner writes it (a new segment, its appends, then inactive).
type CleanedFigure struct {
	BaseOffset int64
	Interval   int64
	Batches    int64
	Bytes      int64
	// Entries and TimeEntries are the offset- and time-index entries; Scan the exact lookup
	// cost of every offset of the segment (model.ScanStats).
	Entries, TimeEntries int
	Scan                 model.ScanStats
}

// CleanedFigures replays every cleaned segment alone at each interval (the replay's other
// settings kept) and returns the figures in segment order, then interval order. A cleaned
// segment starts fresh and has no restart, so alone it gets exactly the entries it gets in
// the whole replay. Each segment is walked once, its steps fed to one model per interval.
func (r *LogDirReplay) CleanedFigures(intervals []int64) ([]CleanedFigure, error) {
	var out []CleanedFigure
	for i := range r.segments {
		if r.segments[i].cleaned {
			figs, err := r.cleanedFigures(r.segments[i], intervals)
			if err != nil {
				return nil, err
			}
			out = append(out, figs...)
		}
	}
	return out, nil
}

func (r *LogDirReplay) cleanedFigures(p replayPlanSegment, intervals []int64) ([]CleanedFigure, error) {
	base := p.files.BaseOffset
	figs := make([]CleanedFigure, len(intervals))
	logs := make([]*model.Log, len(intervals))
	done := make([]*model.Segment, len(intervals))
	for k, iv := range intervals {
		figs[k] = CleanedFigure{BaseOffset: base, Interval: iv}
		cfg := model.DefaultConfig()
		if err := r.Workload.ApplyTo(&cfg); err != nil {
			return nil, err
		}
		cfg.IndexIntervalBytes = iv
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
		l, err := model.NewLog(cfg, r.Era.Rule(), model.LogOptions{StartOffset: base, Era: r.Era, ForgetBatches: true,
			OnSegmentDone: func(s *model.Segment) { done[k] = s }})
		if err != nil {
			return nil, err
		}
		logs[k] = l
	}
	alone := &LogDirReplay{segments: []replayPlanSegment{p}, Era: r.Era}
	st := alone.open(false)
	defer st.close()
	steps := make([]model.Step, 256)
	var batches, bytes int64
	for {
		n, err := st.Next(steps)
		for _, s := range steps[:n] {
			for k, l := range logs {
				if err := l.Apply(s); err != nil {
					return nil, err
				}
				if l.Stopped() {
					return nil, fmt.Errorf("segment %d at index.interval.bytes=%d: the model stopped: %v", base, intervals[k], l.Events())
				}
			}
			batches += int64(len(s.Append))
			for _, b := range s.Append {
				bytes += b.Bytes
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	for k, l := range logs {
		// onBecomeInactiveSegment, as the roll after it (Cleaner.cleanSegments) does.
		if err := l.Close(); err != nil {
			return nil, err
		}
		if done[k] == nil || l.SegmentCount() != 1 {
			return nil, fmt.Errorf("segment %d at index.interval.bytes=%d: the model rolled inside the cleaned segment", base, intervals[k])
		}
		s := done[k]
		figs[k].Batches, figs[k].Bytes = batches, bytes
		figs[k].Entries, figs[k].TimeEntries, figs[k].Scan = s.OffsetIndex().Entries(), s.TimeIndex().Entries(), s.Scan()
	}
	return figs, nil
}
