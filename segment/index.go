package segment

import (
	"encoding/binary"
	"fmt"
)

// Entry sizes (OffsetIndex, TimeIndex).
const (
	OffsetIndexEntrySize = 8
	TimeIndexEntrySize   = 12
	pageSize             = 4096
)

// IndexEntry is an offset-index entry with its absolute offset.
type IndexEntry struct {
	Offset   int64
	Position int64
}

// TimeIndexEntry is a time-index entry with its absolute offset.
type TimeIndexEntry struct {
	Timestamp int64
	Offset    int64
}

// EncodeIndexEntry appends the 8-byte form: int32 relative offset, int32
// position, big-endian.
func EncodeIndexEntry(dst []byte, base int64, e IndexEntry) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(int32(e.Offset-base)))
	return binary.BigEndian.AppendUint32(dst, uint32(int32(e.Position)))
}

// EncodeTimeIndexEntry appends the 12-byte form: int64 timestamp, int32
// relative offset, big-endian.
func EncodeTimeIndexEntry(dst []byte, base int64, e TimeIndexEntry) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(e.Timestamp))
	return binary.BigEndian.AppendUint32(dst, uint32(int32(e.Offset-base)))
}

// SearchStats is the phase-1 cost of one index search: slots compared and
// distinct 4 KiB pages of the index file touched (docs/contract.md §5).
type SearchStats struct {
	SlotsCompared int
	PagesTouched  int
}

// searchState records touched slots for SearchStats without allocating.
type searchState struct {
	stats     SearchStats
	entrySize int
	pages     [64]int
	np        int
}

func (s *searchState) touch(slot int) {
	s.stats.SlotsCompared++
	p := slot * s.entrySize / pageSize
	for i := 0; i < s.np; i++ {
		if s.pages[i] == p {
			return
		}
	}
	if s.np < len(s.pages) {
		s.pages[s.np] = p
		s.np++
	}
	s.stats.PagesTouched++
}

// largestLowerBound is AbstractIndex.indexSlotRangeFor(..., KEY) with the
// largest-lower-bound result: the warm section [F, n-1] with
// F = max(0, n-1-warmEntries) is tried first, then slot 0, then the cold
// range; the binary search takes the upper middle. It returns -1 when every
// entry is above target (or n == 0).
func largestLowerBound(n, warmEntries int, key func(int) int64, target int64, st *searchState) int {
	if n == 0 {
		return -1
	}
	first := max(0, n-1-warmEntries)
	st.touch(first)
	if key(first) < target {
		return binarySearch(first, n-1, key, target, st)
	}
	st.touch(0)
	if key(0) > target {
		return -1
	}
	return binarySearch(0, first, key, target, st)
}

func binarySearch(lo, hi int, key func(int) int64, target int64, st *searchState) int {
	for lo < hi {
		mid := int(uint(lo+hi+1) >> 1)
		st.touch(mid)
		k := key(mid)
		switch {
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

// OffsetIndex is a read-only view of a .index file. It gives three views of the same
// bytes, because Kafka itself has three:
//   - Len: the slots of the file, floor(size/8), as OffsetIndex's constructor counts them when
//     it reopens a file (an untrimmed index then reads as full of entries);
//   - DumpLen: where DumpLogSegments.dumpIndex stops (the first slot i > 0 naming the base
//     offset);
//   - ValidLen: the entries a running broker holds, the one kidx judges and searches: a
//     trimmed file's slots, or an untrimmed (preallocated, live) file's slots before its zero
//     tail, where an all-zero slot 0 means no entry at all (docs/segment.md, "Valid entries").
type OffsetIndex struct {
	indexFile
	n     int
	valid int
}

// indexFile is an index file of either kind, read into memory (they are small, and a broker
// resizes them at every roll, so kidx does not map them). Only the file's data regions are
// read: a preallocated index is a sparse file whose holes read as zeros.
type indexFile struct {
	Path       string
	BaseOffset int64
	FileSize   int64
	// data is the file's bytes up to a little past its last data region (readSparse); up to
	// length (the bytes the file held when read: FileSize, unless it shrank meanwhile) the rest
	// are zeros. Read slots through at.
	data    []byte
	length  int64
	regions []fileRegion // byte ranges holding data; the rest of the file is a hole (zeros)
}

// zeroSlot is a slot of a hole.
var zeroSlot [TimeIndexEntrySize]byte

// at is the n bytes (at most a slot) of the file at off, which must lie within length: a slice
// of data, or zeros past it. No caller may modify them.
func (x *indexFile) at(off, n int) []byte {
	if off+n <= len(x.data) {
		return x.data[off : off+n]
	}
	return zeroSlot[:n]
}

// readIndexFile opens path read-only and reads its data regions.
func readIndexFile(path string, baseOffset int64) (indexFile, error) {
	f, size, err := openReadOnly(path)
	if err != nil {
		return indexFile{}, err
	}
	defer f.Close()
	data, length, regions, err := readSparse(f, size)
	if err != nil {
		return indexFile{}, err
	}
	return indexFile{Path: path, BaseOffset: baseOffset, FileSize: size, data: data, length: length, regions: regions}, nil
}

// validSlots counts the entries before the zero tail. A slot i > 0 whose relative offset is 0
// ends them: offsets only increase after slot 0, so such a slot is never written
// (DumpLogSegments stops there too). Slot 0 alone is the ambiguous one: all zeros there is
// the preallocated file of a segment with no entry yet, or a real entry (base offset,
// position 0 / timestamp 0). Kafka never writes such an offset-index entry (its append rule
// and recover() never index position 0: the counter starts at 0 and the check is a strict >),
// and a time-index entry (0, base) needs a record stamped 1970-01-01T00:00:00Z. So an
// all-zero slot 0 followed only by zeros is "no entry", unless the file has that one slot
// (a trimmed one-entry index); followed by real entries it is an entry, which verify then
// judges (docs/segment.md, "Valid entries").
func validSlots(x *indexFile, slots, entrySize, relOffsetAt int) int {
	k := slots
	for i := 1; i < slots; i++ {
		if binary.BigEndian.Uint32(x.at(i*entrySize+relOffsetAt, 4)) == 0 {
			k = i
			break
		}
	}
	if k == 1 && slots > 1 && allZero(x.at(0, entrySize)) {
		return 0
	}
	return k
}

func allZero(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Untrimmed reports a zero tail: more slots than valid entries, and the file ending in zeros.
// Kafka trims an index at roll and close (LogSegment.onBecomeInactiveSegment,
// AbstractIndex.trimToValidSize), so an untrimmed index belongs to the active segment of a
// running broker, or to a segment left by an unclean shutdown. A file whose last slot holds
// an entry was trimmed, and a zero slot before it is a zeroed entry; a length that is no
// multiple of the entry size is no preallocated file either (Kafka rounds every length down
// to one) but a corrupt one.
func (x *indexFile) untrimmed(valid, entrySize int) bool {
	size, es := x.FileSize, int64(entrySize)
	if size <= int64(valid)*es || size%es != 0 || x.length < size {
		return false
	}
	return allZero(x.at(int(size-es), entrySize))
}

// tailGarbage returns the first slot after the valid entries that holds a non-zero byte, or
// -1. A running broker never looks past its entry count, but nothing it writes lands there
// either, except the stale entries AbstractIndex.truncateTo leaves behind (it moves the
// position, it does not zero the bytes).
func (x *indexFile) tailGarbage(valid, entrySize int) int {
	from := int64(valid) * int64(entrySize)
	for _, r := range x.regions {
		lo, hi := max(r.off, from), r.off+r.len
		for p := lo; p < hi; {
			n := min(hi-p, 1<<16)
			chunk := x.data[p : p+n]
			if !allZero(chunk) {
				for i, c := range chunk {
					if c != 0 {
						return int((p + int64(i)) / int64(entrySize))
					}
				}
			}
			p += n
		}
	}
	return -1
}

// Close releases the index.
func (x *indexFile) Close() error {
	x.data = nil
	return nil
}

// OpenOffsetIndex reads path (opened read-only) into memory. baseOffset normally comes from the
// file name (OffsetFromFileName).
func OpenOffsetIndex(path string, baseOffset int64) (*OffsetIndex, error) {
	f, err := readIndexFile(path, baseOffset)
	if err != nil {
		return nil, err
	}
	n := int(f.length / OffsetIndexEntrySize)
	return &OffsetIndex{f, n, validSlots(&f, n, OffsetIndexEntrySize, 0)}, nil
}

// Len is the entry count of a reopened file as OffsetIndex's constructor sets it:
// floor(file size / 8), the zero tail included.
func (x *OffsetIndex) Len() int { return x.n }

// ValidLen is the number of valid entries: the slots before the zero tail.
func (x *OffsetIndex) ValidLen() int { return x.valid }

// Untrimmed reports that the file has slots after its valid entries (a live or
// uncleanly-closed segment's preallocated index).
func (x *OffsetIndex) Untrimmed() bool { return x.untrimmed(x.valid, OffsetIndexEntrySize) }

// TailGarbage is the first slot after the valid entries holding a non-zero byte, or -1.
func (x *OffsetIndex) TailGarbage() int { return x.tailGarbage(x.valid, OffsetIndexEntrySize) }

// Entry returns slot i (OffsetIndex.entry); out of range is an error, as
// Kafka's IllegalArgumentException.
func (x *OffsetIndex) Entry(i int) (IndexEntry, error) {
	if i < 0 || i >= x.n {
		return IndexEntry{}, kafkaErr("Attempt to fetch the %dth entry from index %s, which has size %d", i, x.Path, x.n)
	}
	return x.entry(i), nil
}

func (x *OffsetIndex) entry(i int) IndexEntry {
	d := x.at(i*8, 8)
	return IndexEntry{Offset: x.BaseOffset + int64(int32(binary.BigEndian.Uint32(d))), Position: int64(int32(binary.BigEndian.Uint32(d[4:])))}
}

func (x *OffsetIndex) key(i int) int64 {
	return x.BaseOffset + int64(int32(binary.BigEndian.Uint32(x.at(i*8, 4))))
}

// DumpLen is the number of entries DumpLogSegments.dumpIndex prints: it
// stops at the first slot i > 0 whose offset equals the base offset (the
// zero tail of a sparse, untrimmed file).
func (x *OffsetIndex) DumpLen() int {
	for i := 1; i < x.n; i++ {
		if x.key(i) == x.BaseOffset {
			return i
		}
	}
	return x.n
}

// Entries returns slots [0, n).
func (x *OffsetIndex) Entries(n int) []IndexEntry {
	n = min(n, x.n)
	out := make([]IndexEntry, n)
	for i := range out {
		out[i] = x.entry(i)
	}
	return out
}

// Lookup is OffsetIndex.lookup over the valid entries (what a running broker searches): the
// largest entry with offset <= target, or (baseOffset, 0) when there is none. slot is -1 in
// that case.
func (x *OffsetIndex) Lookup(target int64) (e IndexEntry, slot int, st SearchStats) {
	s := searchState{entrySize: OffsetIndexEntrySize}
	slot = largestLowerBound(x.valid, 8192/OffsetIndexEntrySize, x.key, target, &s)
	if slot < 0 {
		return IndexEntry{Offset: x.BaseOffset}, -1, s.stats
	}
	return x.entry(slot), slot, s.stats
}

// LookupReopened is OffsetIndex.lookup as Kafka's tools see a reopened file: over every slot,
// the zero tail included (DumpLogSegments opens indexes this way).
func (x *OffsetIndex) LookupReopened(target int64) IndexEntry {
	s := searchState{entrySize: OffsetIndexEntrySize}
	slot := largestLowerBound(x.n, 8192/OffsetIndexEntrySize, x.key, target, &s)
	if slot < 0 {
		return IndexEntry{Offset: x.BaseOffset}
	}
	return x.entry(slot)
}

// SanityCheck is OffsetIndex.sanityCheck (its messages name the file by its absolute path,
// as Kafka's do): a non-empty index whose last
// offset is below the base offset, or a length not a multiple of 8, is
// corrupt. Nothing else is checked (ordering and positions are not).
func (x *OffsetIndex) SanityCheck() error {
	if x.n != 0 {
		if last := x.key(x.n - 1); last < x.BaseOffset {
			return formatErr(x.Path, int64(x.n-1)*8, "Corrupt index found, index file (%s) has non-zero size but the last offset is %d which is less than the base offset %d", KafkaPath(x.Path), last, x.BaseOffset)
		}
	}
	if x.FileSize%OffsetIndexEntrySize != 0 {
		return formatErr(x.Path, x.FileSize-x.FileSize%8, "Index file %s is corrupt, found %d bytes which is neither positive nor a multiple of %d", KafkaPath(x.Path), x.FileSize, OffsetIndexEntrySize)
	}
	return nil
}

// TimeIndex is a read-only view of a .timeindex file with the same three views as
// OffsetIndex: Len() = floor(size/12), DumpLen() with DumpLogSegments' stop rule, ValidLen()
// the entries before the zero tail (an all-zero slot 0 means no entry).
type TimeIndex struct {
	indexFile
	n     int
	valid int
}

// OpenTimeIndex reads path (opened read-only) into memory.
func OpenTimeIndex(path string, baseOffset int64) (*TimeIndex, error) {
	f, err := readIndexFile(path, baseOffset)
	if err != nil {
		return nil, err
	}
	n := int(f.length / TimeIndexEntrySize)
	return &TimeIndex{f, n, validSlots(&f, n, TimeIndexEntrySize, 8)}, nil
}

// Len is floor(file size / 12), the zero tail included.
func (x *TimeIndex) Len() int { return x.n }

// ValidLen is the number of valid entries: the slots before the zero tail.
func (x *TimeIndex) ValidLen() int { return x.valid }

// Untrimmed reports slots after the valid entries.
func (x *TimeIndex) Untrimmed() bool { return x.untrimmed(x.valid, TimeIndexEntrySize) }

// TailGarbage is the first slot after the valid entries holding a non-zero byte, or -1.
func (x *TimeIndex) TailGarbage() int { return x.tailGarbage(x.valid, TimeIndexEntrySize) }

func (x *TimeIndex) entry(i int) TimeIndexEntry {
	d := x.at(i*12, 12)
	return TimeIndexEntry{Timestamp: int64(binary.BigEndian.Uint64(d)), Offset: x.BaseOffset + int64(int32(binary.BigEndian.Uint32(d[8:])))}
}

func (x *TimeIndex) key(i int) int64 { return int64(binary.BigEndian.Uint64(x.at(i*12, 8))) }

// Entry returns slot i (TimeIndex.entry).
func (x *TimeIndex) Entry(i int) (TimeIndexEntry, error) {
	if i < 0 || i >= x.n {
		return TimeIndexEntry{}, kafkaErr("Attempt to fetch the %dth entry from time index %s, which has size %d", i, x.Path, x.n)
	}
	return x.entry(i), nil
}

// Entries returns slots [0, n).
func (x *TimeIndex) Entries(n int) []TimeIndexEntry {
	n = min(n, x.n)
	out := make([]TimeIndexEntry, n)
	for i := range out {
		out[i] = x.entry(i)
	}
	return out
}

// DumpLen applies DumpLogSegments.dumpTimeIndex's stop rule: the first
// slot i > 0 whose offset equals the base offset ends the file.
func (x *TimeIndex) DumpLen() int {
	for i := 1; i < x.n; i++ {
		if x.entry(i).Offset == x.BaseOffset {
			return i
		}
	}
	return x.n
}

// LastEntry is TimeIndex.lastEntry over the valid entries: the last one, or (-1,
// baseOffset) when there is none.
func (x *TimeIndex) LastEntry() TimeIndexEntry {
	if x.valid == 0 {
		return TimeIndexEntry{Timestamp: NoTimestamp, Offset: x.BaseOffset}
	}
	return x.entry(x.valid - 1)
}

// Lookup is TimeIndex.lookup over the valid entries: the largest entry with timestamp <= ts,
// or (-1, baseOffset).
func (x *TimeIndex) Lookup(ts int64) (e TimeIndexEntry, slot int, st SearchStats) {
	s := searchState{entrySize: TimeIndexEntrySize}
	slot = largestLowerBound(x.valid, 8192/TimeIndexEntrySize, x.key, ts, &s)
	if slot < 0 {
		return TimeIndexEntry{Timestamp: NoTimestamp, Offset: x.BaseOffset}, -1, s.stats
	}
	return x.entry(slot), slot, s.stats
}

// LookupReopened is TimeIndex.lookup over every slot, the zero tail included, as a broker that
// reopens the file searches it (a zero slot reads as timestamp 0 at the base offset).
func (x *TimeIndex) LookupReopened(ts int64) TimeIndexEntry {
	s := searchState{entrySize: TimeIndexEntrySize}
	slot := largestLowerBound(x.n, 8192/TimeIndexEntrySize, x.key, ts, &s)
	if slot < 0 {
		return TimeIndexEntry{Timestamp: NoTimestamp, Offset: x.BaseOffset}
	}
	return x.entry(slot)
}

// SanityCheck is TimeIndex.sanityCheck (same three rules, same wording).
func (x *TimeIndex) SanityCheck() error {
	if x.n != 0 {
		last, first := x.entry(x.n-1), x.entry(0)
		if last.Timestamp < first.Timestamp {
			return formatErr(x.Path, int64(x.n-1)*12, "Corrupt time index found, time index file (%s) has non-zero size but the last timestamp is %d which is less than the first timestamp %d", KafkaPath(x.Path), last.Timestamp, first.Timestamp)
		}
		if last.Offset < x.BaseOffset {
			return formatErr(x.Path, int64(x.n-1)*12+8, "Corrupt time index found, time index file (%s) has non-zero size but the last offset is %d which is less than the first offset %d", KafkaPath(x.Path), last.Offset, x.BaseOffset)
		}
	}
	if x.FileSize%TimeIndexEntrySize != 0 {
		return formatErr(x.Path, x.FileSize-x.FileSize%12, "Time index file %s is corrupt, found %d bytes which is neither positive nor a multiple of %d", KafkaPath(x.Path), x.FileSize, TimeIndexEntrySize)
	}
	return nil
}

// ParseOffsetIndex decodes an in-memory .index image (Kafka's view:
// floor(len/8) entries). For fuzzing and small files.
func ParseOffsetIndex(data []byte, base int64) []IndexEntry {
	x := OffsetIndex{indexFile: indexFile{BaseOffset: base, data: data}, n: len(data) / 8}
	return x.Entries(x.n)
}

// ParseTimeIndex decodes an in-memory .timeindex image.
func ParseTimeIndex(data []byte, base int64) []TimeIndexEntry {
	x := TimeIndex{indexFile: indexFile{BaseOffset: base, data: data}, n: len(data) / 12}
	return x.Entries(x.n)
}

// MarshalJSON keeps entry keys lower-case and stable.
func (e IndexEntry) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(`{"offset":%d,"position":%d}`, e.Offset, e.Position)), nil
}

// MarshalJSON keeps entry keys lower-case and stable.
func (e TimeIndexEntry) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(`{"timestamp":%d,"offset":%d}`, e.Timestamp, e.Offset)), nil
}
