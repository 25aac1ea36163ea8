// Package kafkaindex is a small, independent reader of one Kafka log segment: it answers an
// offset lookup the way a broker of a named Kafka release does (LogSegment.translateOffset), in
// two phases, answers a timestamp lookup (LogSegment.findOffsetByTimestamp) and a which-segment
// query (LogSegments.floorSegment), and reports corrupt data as an error at a file and byte
// instead of failing.
//
// It is the reference reader of kidx's "against" protocol (docs/against.md) and imports no kidx
// package on purpose: it is written from Kafka's source, release line by release line (see
// Release), so that kidx can be checked against it and it against kidx.
package kafkaindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Sizes from Kafka's record classes.
const (
	offsetSlotSize    = 8  // OffsetIndex.ENTRY_SIZE
	timeSlotSize      = 12 // TimeIndex.ENTRY_SIZE
	logOverhead       = 12 // Records.LOG_OVERHEAD: offset and size fields
	headerUpToMagic   = 17 // Records.HEADER_SIZE_UP_TO_MAGIC
	minRecordOverhead = 14 // LegacyRecord.RECORD_OVERHEAD_V0: the smallest size field
	v2BatchOverhead   = 61 // DefaultRecordBatch.RECORD_BATCH_OVERHEAD
	lastOffsetDeltaAt = 23 // DefaultRecordBatch.LAST_OFFSET_DELTA_OFFSET
	// warmIndexBytes is AbstractIndex.warmEntries' 8192: the warm section is the last
	// 8192 / entry size entries (1024 offset slots, 682 time slots).
	warmIndexBytes = 8192
)

// ReadError is corrupt or unreadable data: File is relative to the partition directory (for
// example "00000000000000000000.log"), Byte the offset in it where Kafka's reader fails, or -1
// when no byte is to blame (a missing or unreadable file). Message starts with the class of the
// exception Kafka throws there, when there is one.
type ReadError struct {
	File    string
	Byte    int64
	Message string
}

func (e *ReadError) Error() string {
	if e.Byte < 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Message)
	}
	return fmt.Sprintf("%s at byte %d: %s", e.File, e.Byte, e.Message)
}

// Answer is one offset lookup's result: Start is phase 1's start position as the index holds it
// (it may be negative in a damaged index), Hit the position of the batch Kafka answers, -1 when
// it answers none. When Err is set, Start and Hit mean nothing.
type Answer struct {
	Start, Hit int64
	Err        *ReadError
}

// Segment is one segment's index files, read once, and its log, read at each hop.
type Segment struct {
	base      int64
	offsetRaw []byte // the .index, whole slots only
	timeRaw   []byte // the .timeindex, whole slots only
	// offsetValid and timeValid count the valid entries (the running view).
	offsetValid, timeValid int
	stem, logName          string
	log                    *os.File // nil when logErr is set
	logSize                int64
	logErr                 *ReadError
}

// SegmentName is Kafka's file stem for a base offset: 20 digits (LogFileUtils.filenamePrefixFromOffset).
func SegmentName(baseOffset int64) string { return fmt.Sprintf("%020d", baseOffset) }

// Open reads the segment of dir whose base offset is baseOffset. A missing .index or .timeindex
// means no entries; a missing .log is reported by every lookup. Nothing in dir is written or
// locked.
func Open(dir string, baseOffset int64) (*Segment, error) {
	return OpenNamed(dir, SegmentName(baseOffset), baseOffset)
}

// OpenNamed is Open with the file stem given, for a request that names it. The error, when
// there is one, is a *ReadError.
func OpenNamed(dir, stem string, baseOffset int64) (*Segment, error) {
	if stem == "" || stem == "." || stem == ".." || filepath.Base(stem) != stem {
		return nil, &ReadError{File: stem, Byte: -1, Message: "segment name is not a file stem in the partition directory"}
	}
	s := &Segment{base: baseOffset, stem: stem, logName: stem + ".log"}
	var err error
	if s.offsetRaw, err = readIndexFile(dir, stem+".index", offsetSlotSize); err != nil {
		return nil, err
	}
	if s.timeRaw, err = readIndexFile(dir, stem+".timeindex", timeSlotSize); err != nil {
		return nil, err
	}
	s.offsetValid = validEntries(s.offsetRaw, offsetSlotSize, 0)
	s.timeValid = validEntries(s.timeRaw, timeSlotSize, 8)
	f, err := os.Open(filepath.Join(dir, s.logName))
	if err != nil {
		s.logErr = &ReadError{File: s.logName, Byte: -1, Message: withoutPath(err)}
		return s, nil
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err != nil {
		f.Close()
		s.logErr = &ReadError{File: s.logName, Byte: -1, Message: withoutPath(err)}
		return s, nil
	}
	s.log, s.logSize = f, info.Size()
	return s, nil
}

// readIndexFile reads an index file rounded down to whole slots, as Kafka rounds its length
// (AbstractIndex); a missing file has no slots.
func readIndexFile(dir, name string, slotSize int) ([]byte, error) {
	raw, err := os.ReadFile(filepath.Join(dir, name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, &ReadError{File: name, Byte: -1, Message: withoutPath(err)}
	}
	return raw[:len(raw)/slotSize*slotSize], nil
}

// withoutPath is an OS error without the path in it: the ReadError names the file.
func withoutPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// Close releases the log file.
func (s *Segment) Close() error {
	if s.log == nil {
		return nil
	}
	err := s.log.Close()
	s.log = nil
	return err
}

// validEntries counts the entries a running broker holds (kidx's docs/logdirs.md, "Valid
// entries"): the slots before the first slot i >= 1 whose relative offset (at relAt in the
// slot) is 0, since a preallocated index ends in zeros; and none when that leaves only an
// all-zero slot 0 of a file of several slots (Kafka's append rule never indexes position 0).
func validEntries(raw []byte, slotSize, relAt int) int {
	slots := len(raw) / slotSize
	relativeAt := func(raw []byte, i int) int32 { return int32At(raw, i*slotSize+relAt) }
	n := slots
	for i := 1; i < slots; i++ {
		if relativeAt(raw, i) == 0 {
			n = i
			break
		}
	}
	if n == 1 && slots > 1 && allZero(raw[:slotSize]) {
		n = 0
	}
	return n
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func int32At(b []byte, at int) int32 { return int32(binary.BigEndian.Uint32(b[at:])) }
func int64At(b []byte, at int) int64 { return int64(binary.BigEndian.Uint64(b[at:])) }

// entries is how many slots phase 1 searches: the valid entries in the running view, every
// whole slot in the reopened one (AbstractIndex: entries = length / entry size, so a zero slot
// reads as the entry (base offset, 0)).
func (s *Segment) entries(raw []byte, valid, slotSize int, view View) int {
	if view == ViewReopened {
		return len(raw) / slotSize
	}
	return valid
}

// Lookup answers the batch holding offset target as the default release line (2.1-3.9) does,
// in the running view.
func (s *Segment) Lookup(target int64) Answer {
	return s.LookupAs(target, Rules{})
}

// LookupAs answers the batch holding offset target as rules' release line and index view do:
// phase 1 in the index, phase 2 in the log (LogSegment.translateOffset).
func (s *Segment) LookupAs(target int64, rules Rules) Answer {
	start, _ := s.offsetStart(target, rules)
	if s.logErr != nil {
		return Answer{Err: s.logErr}
	}
	hit, rerr := s.walk(max(start, 0), target, rules.Release)
	if rerr != nil {
		return Answer{Err: rerr}
	}
	return Answer{Start: start, Hit: hit}
}

// offsetStart is phase 1 on the offset index: OffsetIndex.lookup's position, 0 when no entry
// is at or below target (Kafka's (base offset, 0)), and the slot it comes from (-1 for none).
func (s *Segment) offsetStart(target int64, rules Rules) (int64, int) {
	n := s.entries(s.offsetRaw, s.offsetValid, offsetSlotSize, rules.View)
	var slot int
	if rules.Release == Release08 {
		// 0.8's OffsetIndex.indexSlotFor compares relative offsets with target - base (a long).
		slot = largestLowerBound(n, 0, target-s.base, func(i int) int64 { return int64(int32At(s.offsetRaw, i*offsetSlotSize)) })
	} else {
		// From 0.10.1 on AbstractIndex compares the entry's absolute offset, base + relative
		// (a long addition that wraps, AbstractIndex.parseEntry).
		slot = largestLowerBound(n, s.warmEntries(offsetSlotSize, rules.Release), target, func(i int) int64 {
			return s.base + int64(int32At(s.offsetRaw, i*offsetSlotSize))
		})
	}
	if slot < 0 {
		return 0, -1
	}
	return int64(int32At(s.offsetRaw, slot*offsetSlotSize+4)), slot
}

// warmEntries is the size of the warm section Kafka searches first: AbstractIndex's warm
// search came with 2.1.0 (KAFKA-6432); before it the search is plain (0 here).
func (s *Segment) warmEntries(slotSize int, r Release) int {
	if !r.since(Release21) {
		return 0
	}
	return warmIndexBytes / slotSize
}

// largestLowerBound is AbstractIndex.largestLowerBoundSlotFor over n keys: the slot of the
// largest key <= target, -1 when none. With warm > 0 it is 2.1's indexSlotRangeFor: the warm
// section (the last warm entries and one more) first when its first key is below the target;
// with warm 0 it is the plain search of the releases before. Both search as Kafka does, the
// upper middle and an equal key ending the search, so entries out of order get Kafka's answer.
func largestLowerBound(n, warm int, target int64, key func(int) int64) int {
	if n == 0 {
		return -1
	}
	lo, hi := 0, n-1
	if warm > 0 {
		first := max(0, n-1-warm)
		if key(first) < target {
			return binarySearch(first, n-1, target, key)
		}
		hi = first
	}
	if key(0) > target {
		return -1
	}
	return binarySearch(lo, hi, target, key)
}

// binarySearch is AbstractIndex.binarySearch for the largest lower bound: the upper middle,
// and an equal key ends the search.
func binarySearch(lo, hi int, target int64, key func(int) int64) int {
	for lo < hi {
		mid := (lo + hi + 1) / 2
		switch k := key(mid); {
		case k > target:
			hi = mid - 1
		case k < target:
			lo = mid
		default:
			return mid
		}
	}
	return lo
}

// nextBatch is FileLogInputStream.nextBatch (0.11.0 on): ok false at the end of the log, which
// is 17 bytes or fewer left, or an entry that runs past the end of the file; a size under 14
// is an error at the size field.
func (s *Segment) nextBatch(pos int64) (b batchHead, ok bool, rerr *ReadError) {
	end := s.logSize
	if pos >= end-headerUpToMagic {
		return b, false, nil
	}
	var head [headerUpToMagic]byte
	if err := s.readAt(head[:], pos); err != nil {
		return b, false, err
	}
	size := int64(int32At(head[:], 8))
	if size < minRecordOverhead {
		return b, false, s.corrupt(pos+8, fmt.Sprintf("CorruptRecordException: Found record size %d smaller than minimum record overhead (%d) in file %s.", size, minRecordOverhead, s.logName))
	}
	if pos > end-logOverhead-size {
		return b, false, nil // the entry runs past the end of the file: a torn tail, the end of the log
	}
	return batchHead{pos: pos, total: logOverhead + size, offset: int64At(head[:], 0), magic: int8(head[16])}, true, nil
}

func (s *Segment) readAt(buf []byte, at int64) *ReadError {
	if _, err := s.log.ReadAt(buf, at); err != nil {
		if errors.Is(err, io.EOF) {
			return s.corrupt(at, fmt.Sprintf("the file ended while reading %d bytes (it shrank while read)", len(buf)))
		}
		return &ReadError{File: s.logName, Byte: at, Message: err.Error()}
	}
	return nil
}

func (s *Segment) corrupt(at int64, msg string) *ReadError {
	return &ReadError{File: s.logName, Byte: at, Message: msg}
}
