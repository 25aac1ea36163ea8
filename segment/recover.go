package segment

import (
	"errors"
	"math"
)

// Recover rebuilds the active segment's indexes from its .log exactly as
// LogSegment.recover does (docs/kafka.md §3), as after an unclean shutdown:
//   - both indexes reset to 0 entries and resized to segment.index.bytes;
//   - every batch from position 0 is checked (ensureValid: size and CRC); the
//     first invalid or unreadable batch ends the loop (CorruptRecordException
//     is logged, not thrown);
//   - per batch: max timestamp updated first, then the index check
//     validBytes - lastIndexEntry > index.interval.bytes (strict, before
//     adding the batch), entry = the batch's last offset at its position;
//   - the log is truncated to the valid bytes, the offset index trimmed, the
//     final time-index entry added (skipFullCheck) and the time index trimmed;
//   - LogLoader then resizes the active segment's indexes back to
//     segment.index.bytes, and the segment object is new (counter 0).
//
// An index that fills during the rebuild throws in Kafka; it is reported as
// an overflow event and the log fails, as for an append.
func (l *Log) Recover() (*Event, error) {
	step := l.step
	l.step++
	if l.closed {
		return nil, errors.New("log is closed")
	}
	if l.active == nil {
		return nil, errLostActive
	}
	if l.failed {
		return nil, ErrLogFailed
	}
	res, err := l.rebuild(l.active)
	if err != nil {
		return nil, err
	}
	if res.full != nil {
		l.failed = true
		return l.addEvent(Event{Kind: res.full.kind, Step: step, Message: res.full.msg}), nil
	}
	l.nextOffset = res.nextOffset
	// The recovery point never passes the log end (LocalLog.updateLogEndOffset).
	if err := l.lowerRecoveryPoint(l.nextOffset); err != nil {
		return nil, err
	}
	// LogLoader: segments.lastSegment().resizeIndexes(config.maxIndexSize).
	return nil, l.active.resizeIndexes()
}

// rebuildResult is what LogSegment.recover did to one segment.
type rebuildResult struct {
	truncated  int64 // bytes cut from the .log: an invalid or torn tail
	nextOffset int64 // the last valid batch's last offset + 1 (the base when none)
	full       *indexFullError
}

// rebuild is LogSegment.recover on s: the indexes rebuilt from the .log, read through the
// segment's own handle on whatever filesystem holds it, to its size there (after a crash,
// what survived); the invalid tail truncated; both indexes trimmed. It leaves s a new
// segment object (counter 0, rolling timestamp to be reloaded). A full index stops the
// rebuild with res.full set, as Kafka's throw does.
func (l *Log) rebuild(s *writeSegment) (rebuildResult, error) {
	res := rebuildResult{nextOffset: s.base}
	s.idxEntries, s.idxLast = 0, s.base
	s.tEntries, s.tLast = 0, TimeIndexEntry{Timestamp: NoTimestamp, Offset: s.base}
	s.idxMax = int(l.cfg.SegmentIndexBytes / OffsetIndexEntrySize)
	s.tMax = int(l.cfg.SegmentIndexBytes / TimeIndexEntrySize)
	if err := s.resizeIndexes(); err != nil {
		return res, err
	}
	s.maxTsKnown = false
	s.maxTimestampSoFar()
	s.bytesSince = 0
	// The unclean restart made a new LogSegment object: its rolling timestamp is loaded
	// again from the first batch in the file.
	s.rollingKnown = false

	st, err := s.logF.Stat()
	if err != nil {
		return res, err
	}
	s.size = st.Size()
	lf := logFileOn(s.logPath, s.logF, s.size)
	lf.SetReadAhead(1 << 20)
	var validBytes, lastIndexEntry int64
	var loopErr error
	lf.Walk(0, 0, func(b BatchInfo) bool {
		if lf.CheckBatch(b) != nil {
			return false
		}
		last := b.LastOffset()
		if rel := last - s.base; rel < 0 || rel > math.MaxInt32 {
			loopErr = formatErr(s.logPath, b.Position, "LogSegmentOffsetOverflowException: offset %d cannot be stored in the segment with base offset %d", last, s.base)
			return false
		}
		if ts := b.MaxTimestamp(); ts > s.maxTimestampSoFar() {
			s.maxTs, s.maxTsOff = ts, last
		}
		if validBytes-lastIndexEntry > l.cfg.IndexIntervalBytes {
			if loopErr = s.offsetIndexAppend(last, validBytes); loopErr != nil {
				return false
			}
			if loopErr = s.timeIndexMaybeAppend(s.maxTimestampSoFar(), s.maxTsOff, false); loopErr != nil {
				return false
			}
			lastIndexEntry = validBytes
		}
		validBytes += b.Size
		res.nextOffset = last + 1
		return true
	})
	lf.Close()
	if errors.As(loopErr, &res.full) {
		return res, nil
	}
	if loopErr != nil {
		return res, loopErr
	}
	if validBytes < s.size {
		res.truncated = s.size - validBytes
		s.size = validBytes
		if err := s.logF.Truncate(validBytes); err != nil {
			return res, err
		}
	}
	if err := s.idxF.Truncate(int64(s.idxEntries) * OffsetIndexEntrySize); err != nil {
		return res, err
	}
	if err := s.timeIndexMaybeAppend(s.maxTs, s.maxTsOff, true); err != nil {
		return res, err
	}
	return res, s.tF.Truncate(int64(s.tEntries) * TimeIndexEntrySize)
}
