package segment

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// Segment is a read-only segment set: a .log with its .index and .timeindex
// (either index may be missing: nil).
type Segment struct {
	BaseOffset int64
	Log        *LogFile
	Index      *OffsetIndex
	TimeIndex  *TimeIndex
}

// OpenSegment opens "<dir>/<base>.log" and its sibling indexes, all O_RDONLY.
func OpenSegment(logPath string) (*Segment, error) { return OpenSegmentWith(logPath, DefaultAccess) }

// OpenSegmentWith is OpenSegment with an explicit .log access mode. The indexes are read
// before the .log's size is taken: a running broker writes a batch before the entries that
// name it, so every entry read has its batch inside the size seen.
func OpenSegmentWith(logPath string, access Access) (*Segment, error) {
	base, err := OffsetFromFileName(filepath.Base(logPath))
	if err != nil {
		return nil, &FormatError{File: logPath, Msg: "file name does not start with a base offset"}
	}
	s := &Segment{BaseOffset: base}
	stem := strings.TrimSuffix(logPath, LogSuffix)
	if x, err := OpenOffsetIndex(stem+IndexSuffix, base); err == nil {
		s.Index = x
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if x, err := OpenTimeIndex(stem+TimeIndexSuffix, base); err == nil {
		s.TimeIndex = x
	} else if !errors.Is(err, fs.ErrNotExist) {
		s.Close()
		return nil, err
	}
	l, err := OpenLogWith(logPath, access)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.Log = l
	return s, nil
}

// OpenError is an open of a segment set that failed, naming the file that failed.
type OpenError struct {
	Path string
	Err  error
}

func (e *OpenError) Error() string { return e.Path + ": " + e.Reason() }

// Reason is the failure without the path.
func (e *OpenError) Reason() string {
	return strings.TrimPrefix(PathlessError(e.Err), e.Path+": ")
}
func (e *OpenError) Unwrap() error { return e.Err }

// OpenSegmentFiles opens exactly the files sf names (an empty index path: that index is
// absent), all O_RDONLY, in OpenSegmentWith's order. Unlike OpenSegmentWith it never derives
// a sibling's name: files a directory scan set aside (a FIFO, an unreadable index) stay
// unopened. A failure is an *OpenError naming the file that failed.
func OpenSegmentFiles(sf SegmentFiles, access Access) (*Segment, error) {
	s := &Segment{BaseOffset: sf.BaseOffset}
	if sf.Index != "" {
		x, err := OpenOffsetIndex(sf.Index, sf.BaseOffset)
		if err != nil {
			return nil, &OpenError{Path: sf.Index, Err: err}
		}
		s.Index = x
	}
	if sf.TimeIndex != "" {
		x, err := OpenTimeIndex(sf.TimeIndex, sf.BaseOffset)
		if err != nil {
			s.Close()
			return nil, &OpenError{Path: sf.TimeIndex, Err: err}
		}
		s.TimeIndex = x
	}
	l, err := OpenLogWith(sf.Log, access)
	if err != nil {
		s.Close()
		return nil, &OpenError{Path: sf.Log, Err: err}
	}
	s.Log = l
	return s, nil
}

// Close closes every file of the set.
func (s *Segment) Close() error {
	var err error
	if s.Index != nil {
		err = errors.Join(err, s.Index.Close())
	}
	if s.TimeIndex != nil {
		err = errors.Join(err, s.TimeIndex.Close())
	}
	if s.Log != nil {
		err = errors.Join(err, s.Log.Close())
	}
	return err
}

// LookupResult is one offset lookup on files (docs/contract.md §5): phase 1 in the
// index, phase 2 over batch headers.
type LookupResult struct {
	Target        int64
	IndexOffset   int64 // OffsetIndex.lookup result (base offset when none)
	IndexPosition int64 // its position = where phase 2 starts
	Found         bool  // a batch with lastOffset >= target exists from there
	HitPosition   int64
	HitBaseOffset int64
	HitLastOffset int64
	HitSize       int64
	Hops          int // batch headers read in phase 2, the hit included
	Search        SearchStats
	// Reason names the rule that decided the answer on irregular bytes (LookupAs only; ""
	// for a plain answer): Reason* constants joined by "+", and an error's Java class.
	Reason string
}

// ScanBytes is hit position - start position (docs/contract.md §5).
func (r LookupResult) ScanBytes() int64 { return r.HitPosition - r.IndexPosition }

// Lookup translates an offset as LogSegment.translateOffset does (S):
// OffsetIndex.lookup, then FileRecords.searchForOffsetWithSize from that
// position: the first batch with lastOffset >= target.
func (s *Segment) Lookup(target int64) (LookupResult, error) {
	r := LookupResult{Target: target, IndexOffset: s.BaseOffset}
	if s.Index != nil {
		e, _, st := s.Index.Lookup(target)
		r.IndexOffset, r.IndexPosition, r.Search = e.Offset, e.Position, st
	}
	end := s.Log.Size()
	for pos := max(r.IndexPosition, 0); ; {
		b, err := s.Log.NextBatch(pos, end)
		if err == ErrNoBatch {
			return r, nil
		}
		if err != nil {
			return r, err
		}
		r.Hops++
		if b.LastOffset() >= target {
			r.Found = true
			r.HitPosition, r.HitBaseOffset, r.HitLastOffset, r.HitSize = b.Position, b.BaseOffset(), b.LastOffset(), b.Size
			return r, nil
		}
		pos = b.End()
	}
}

// TimeLookupResult is LogSegment.findOffsetByTimestamp on files.
type TimeLookupResult struct {
	Target         int64
	IndexTimestamp int64 // TimeIndex.lookup result ((-1, base) when none)
	IndexOffset    int64
	StartPosition  int64 // OffsetIndex.lookup(max(IndexOffset, startingOffset)).position
	Found          bool
	FoundTimestamp int64 // -1 when not found
	FoundOffset    int64 // -1 when not found
}

// LookupTimestamp is LogSegment.findOffsetByTimestamp(ts, baseOffset) (§7.4):
// time-index LLB, offset-index lookup of that offset, then
// FileRecords.searchForTimestamp: the first batch with maxTimestamp >= ts,
// then its first record with timestamp >= ts.
func (s *Segment) LookupTimestamp(ts int64) (TimeLookupResult, error) {
	return s.LookupTimestampIn(ts, ViewRunning)
}

// LookupTimestampIn is LookupTimestamp with both indexes searched in view v (the reopened
// view searches every slot; docs/kafka.md §7.5).
func (s *Segment) LookupTimestampIn(ts int64, v IndexView) (TimeLookupResult, error) {
	r := TimeLookupResult{Target: ts, IndexTimestamp: NoTimestamp, IndexOffset: s.BaseOffset, FoundTimestamp: -1, FoundOffset: -1}
	if s.TimeIndex != nil {
		var e TimeIndexEntry
		if v == ViewReopened {
			e = s.TimeIndex.LookupReopened(ts)
		} else {
			e, _, _ = s.TimeIndex.Lookup(ts)
		}
		r.IndexTimestamp, r.IndexOffset = e.Timestamp, e.Offset
	}
	if s.Index != nil {
		var e IndexEntry
		if v == ViewReopened {
			e = s.Index.LookupReopened(max(r.IndexOffset, s.BaseOffset))
		} else {
			e, _, _ = s.Index.Lookup(max(r.IndexOffset, s.BaseOffset))
		}
		r.StartPosition = e.Position
	}
	startingOffset := s.BaseOffset
	var ferr error
	res := s.Log.Walk(max(r.StartPosition, 0), 0, func(b BatchInfo) bool {
		if b.MaxTimestamp() < ts {
			return true
		}
		ferr = s.Log.RecordTimestamps(b, func(off, t int64) bool {
			if t >= ts && off >= startingOffset {
				r.Found, r.FoundTimestamp, r.FoundOffset = true, t, off
				return false
			}
			return true
		})
		return ferr == nil && !r.Found
	})
	if ferr != nil {
		return r, ferr
	}
	return r, res.Err
}

// PathlessError is an open error without the path (the finding names the file already).
func PathlessError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}
