// Package kafkaindex is a small, independent reader of one Kafka log segment: it answers an
// offset lookup the way a broker does (LogSegment.translateOffset), in two phases, and reports
// corrupt data as an error at a file and byte instead of failing.
//
// It is the reference reader of kidx's "against" protocol (docs/against.md) and imports no kidx
// package on purpose: it is written from Kafka's rules (docs/kafka.md §4, §5, §7.1, §1.5 and the
// valid entries of docs/logdirs.md), so that kidx can be checked against it and it against kidx.
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

// Sizes from Kafka's record classes (docs/kafka.md §1.2-§1.4).
const (
	indexSlotSize       = 8    // OffsetIndex.ENTRY_SIZE
	warmEntries         = 1024 // AbstractIndex.warmEntries: 8192 / entry size
	logOverhead         = 12   // Records.LOG_OVERHEAD: offset and size fields
	headerUpToMagic     = 17   // Records.HEADER_SIZE_UP_TO_MAGIC
	minRecordOverhead   = 14   // LegacyRecord.RECORD_OVERHEAD_V0: the smallest size field
	v2BatchOverhead     = 61   // DefaultRecordBatch.RECORD_BATCH_OVERHEAD
	lastOffsetDeltaAt   = 23   // DefaultRecordBatch.LAST_OFFSET_DELTA_OFFSET
	legacyHeaderV0      = logOverhead + 6
	legacyHeaderV1      = logOverhead + 14
	lastOffsetDeltaSize = 4
)

// ReadError is corrupt or unreadable data: File is relative to the partition directory (for
// example "00000000000000000000.log"), Byte the offset in it where the bad field starts, or -1
// when no byte is to blame (a missing or unreadable file).
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

// Answer is one lookup's result: Start is phase 1's start position as the index holds it (it
// may be negative in a damaged index), Hit the position of the first batch whose last offset
// reaches the target, -1 at the end of the log. When Err is set, Start and Hit mean nothing.
type Answer struct {
	Start, Hit int64
	Err        *ReadError
}

type entry struct{ offset, position int64 }

// Segment is one segment's index, read once, and its log, read at each hop.
type Segment struct {
	base    int64
	entries []entry
	logName string
	log     *os.File // nil when logErr is set
	logSize int64
	logErr  *ReadError
}

// SegmentName is Kafka's file stem for a base offset: 20 digits (LogFileUtils.filenamePrefixFromOffset).
func SegmentName(baseOffset int64) string { return fmt.Sprintf("%020d", baseOffset) }

// Open reads the segment of dir whose base offset is baseOffset. A missing .index means no
// entries; a missing .log is reported by every Lookup. Nothing in dir is written or locked.
func Open(dir string, baseOffset int64) (*Segment, error) {
	return OpenNamed(dir, SegmentName(baseOffset), baseOffset)
}

// OpenNamed is Open with the file stem given, for a request that names it. The error, when
// there is one, is a *ReadError.
func OpenNamed(dir, stem string, baseOffset int64) (*Segment, error) {
	if stem == "" || stem == "." || stem == ".." || filepath.Base(stem) != stem {
		return nil, &ReadError{File: stem, Byte: -1, Message: "segment name is not a file stem in the partition directory"}
	}
	s := &Segment{base: baseOffset, logName: stem + ".log"}
	indexName := stem + ".index"
	raw, err := os.ReadFile(filepath.Join(dir, indexName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// no index: every lookup starts at byte 0, as with an empty one
	case err != nil:
		return nil, &ReadError{File: indexName, Byte: -1, Message: withoutPath(err)}
	default:
		s.entries = validEntries(raw, baseOffset)
	}
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

// validEntries are the entries a running broker holds (docs/logdirs.md, "Valid entries"): the
// slots before the first slot i >= 1 whose relative offset is 0 (a preallocated index ends in
// zeros), and none when that leaves only an all-zero slot 0 of a file of several slots (Kafka
// never indexes position 0). A partial slot at the end is ignored, as Kafka rounds down.
func validEntries(raw []byte, base int64) []entry {
	slots := len(raw) / indexSlotSize
	n := slots
	for i := 1; i < slots; i++ {
		if relativeAt(raw, i) == 0 {
			n = i
			break
		}
	}
	if n == 1 && slots > 1 && relativeAt(raw, 0) == 0 && positionAt(raw, 0) == 0 {
		n = 0
	}
	out := make([]entry, n)
	for i := range out {
		// int64 arithmetic wraps like Java's long addition in AbstractIndex.parseEntry.
		out[i] = entry{offset: base + int64(relativeAt(raw, i)), position: int64(positionAt(raw, i))}
	}
	return out
}

func relativeAt(raw []byte, slot int) int32 {
	return int32(binary.BigEndian.Uint32(raw[slot*indexSlotSize:]))
}

func positionAt(raw []byte, slot int) int32 {
	return int32(binary.BigEndian.Uint32(raw[slot*indexSlotSize+4:]))
}

// Lookup answers the batch holding offset target: phase 1 in the index, phase 2 in the log
// (docs/kafka.md §7.1).
func (s *Segment) Lookup(target int64) Answer {
	start := s.startPosition(target)
	if s.logErr != nil {
		return Answer{Err: s.logErr}
	}
	hit, rerr := s.walk(max(start, 0), target)
	if rerr != nil {
		return Answer{Err: rerr}
	}
	return Answer{Start: start, Hit: hit}
}

// startPosition is phase 1, AbstractIndex.largestLowerBoundSlotFor with its warm section
// (docs/kafka.md §5): searched as Kafka searches, so that entries out of order get Kafka's
// answer, not the answer of a search that assumes order.
func (s *Segment) startPosition(target int64) int64 {
	n := len(s.entries)
	if n == 0 {
		return 0
	}
	key := func(i int) int64 { return s.entries[i].offset }
	first := max(0, n-1-warmEntries)
	var slot int
	switch {
	case key(first) < target:
		slot = s.binarySearch(first, n-1, target)
	case key(0) > target:
		return 0
	default:
		slot = s.binarySearch(0, first, target)
	}
	return s.entries[slot].position
}

// binarySearch is AbstractIndex.binarySearch for the largest lower bound: the upper middle,
// and an equal key ends the search.
func (s *Segment) binarySearch(lo, hi int, target int64) int {
	for lo < hi {
		mid := (lo + hi + 1) / 2
		switch k := s.entries[mid].offset; {
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

// walk is phase 2: FileLogInputStream.nextBatch hop by hop from pos, as
// FileRecords.searchForOffsetWithSize uses it (docs/kafka.md §1.5, §7.1).
func (s *Segment) walk(pos, target int64) (int64, *ReadError) {
	end := s.logSize
	var head [lastOffsetDeltaAt + lastOffsetDeltaSize]byte
	for {
		if pos >= end-headerUpToMagic {
			return -1, nil // fewer than 18 bytes left: the end of the log
		}
		// At least 18 bytes are left, enough for the offset, size and magic fields.
		if err := s.readAt(head[:headerUpToMagic], pos); err != nil {
			return 0, err
		}
		size := int64(int32(binary.BigEndian.Uint32(head[8:])))
		if size < minRecordOverhead {
			return 0, s.corrupt(pos+8, fmt.Sprintf("Found record size %d smaller than minimum record overhead (%d)", size, minRecordOverhead))
		}
		if pos > end-logOverhead-size {
			return -1, nil // the entry runs past the end of the file: a torn tail, the end of the log
		}
		total := logOverhead + size
		magic := int8(head[16])
		var last int64
		if magic >= 2 {
			if total < v2BatchOverhead {
				return 0, s.corrupt(pos+8, fmt.Sprintf("Record batch is corrupt (the size %d is smaller than the minimum allowed overhead %d)", total, v2BatchOverhead))
			}
			// total >= 61 and the batch fits in the file, so the delta field is inside it.
			if err := s.readAt(head[headerUpToMagic:], pos+headerUpToMagic); err != nil {
				return 0, err
			}
			delta := int32(binary.BigEndian.Uint32(head[lastOffsetDeltaAt:]))
			last = int64(binary.BigEndian.Uint64(head[0:])) + int64(delta)
		} else {
			header := int64(legacyHeaderV0)
			if magic == 1 {
				header = legacyHeaderV1
			}
			if total < header {
				return 0, s.corrupt(pos+8, fmt.Sprintf("Legacy record (magic %d) of size %d is smaller than its header (%d)", magic, total, header))
			}
			// A legacy entry's offset field is its last offset (a compressed wrapper's last inner offset).
			last = int64(binary.BigEndian.Uint64(head[0:]))
		}
		if last >= target {
			return pos, nil
		}
		pos += total
	}
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
