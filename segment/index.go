package segment

import (
	"encoding/binary"
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
// distinct 4 KiB pages of the index file touched (SPEC §5).
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

// OffsetIndex is a read-only view of a .index file with Kafka's semantics:
// the file is assumed full of entries, Len() = floor(size/8) (so a zero
// tail of an untrimmed index counts, as in OffsetIndex's constructor).
// DumpLen() applies DumpLogSegments' stop rule instead.
type OffsetIndex struct {
	indexFile
	n int
}

// indexFile is an index file of either kind, read into memory (they are small, and a broker
// resizes them at every roll, so kidx does not map them).
type indexFile struct {
	Path       string
	BaseOffset int64
	FileSize   int64
	data       []byte
}

// readIndexFile opens path read-only and reads it whole.
func readIndexFile(path string, baseOffset int64) (indexFile, error) {
	f, size, err := openReadOnly(path)
	if err != nil {
		return indexFile{}, err
	}
	defer f.Close()
	data, err := readWhole(f, size)
	if err != nil {
		return indexFile{}, err
	}
	return indexFile{Path: path, BaseOffset: baseOffset, FileSize: size, data: data}, nil
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
	return &OffsetIndex{f, len(f.data) / OffsetIndexEntrySize}, nil
}

// Len is Kafka's entry count: floor(file size / 8).
func (x *OffsetIndex) Len() int { return x.n }

// Entry returns slot i (OffsetIndex.entry); out of range is an error, as
// Kafka's IllegalArgumentException.
func (x *OffsetIndex) Entry(i int) (IndexEntry, error) {
	if i < 0 || i >= x.n {
		return IndexEntry{}, kafkaErr("Attempt to fetch the %dth entry from index %s, which has size %d", i, x.Path, x.n)
	}
	return x.entry(i), nil
}

func (x *OffsetIndex) entry(i int) IndexEntry {
	d := x.data[i*8:]
	return IndexEntry{Offset: x.BaseOffset + int64(int32(binary.BigEndian.Uint32(d))), Position: int64(int32(binary.BigEndian.Uint32(d[4:])))}
}

func (x *OffsetIndex) key(i int) int64 {
	return x.BaseOffset + int64(int32(binary.BigEndian.Uint32(x.data[i*8:])))
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

// Lookup is OffsetIndex.lookup: the largest entry with offset <= target, or
// (baseOffset, 0) when there is none. slot is -1 in that case.
func (x *OffsetIndex) Lookup(target int64) (e IndexEntry, slot int, st SearchStats) {
	s := searchState{entrySize: OffsetIndexEntrySize}
	slot = largestLowerBound(x.n, 8192/OffsetIndexEntrySize, x.key, target, &s)
	if slot < 0 {
		return IndexEntry{Offset: x.BaseOffset}, -1, s.stats
	}
	return x.entry(slot), slot, s.stats
}

// SanityCheck is OffsetIndex.sanityCheck: a non-empty index whose last
// offset is below the base offset, or a length not a multiple of 8, is
// corrupt. Nothing else is checked (ordering and positions are not).
func (x *OffsetIndex) SanityCheck() error {
	if x.n != 0 {
		if last := x.key(x.n - 1); last < x.BaseOffset {
			return formatErr(x.Path, int64(x.n-1)*8, "Corrupt index found, index file (%s) has non-zero size but the last offset is %d which is less than the base offset %d", x.Path, last, x.BaseOffset)
		}
	}
	if x.FileSize%OffsetIndexEntrySize != 0 {
		return formatErr(x.Path, x.FileSize-x.FileSize%8, "Index file %s is corrupt, found %d bytes which is neither positive nor a multiple of %d", x.Path, x.FileSize, OffsetIndexEntrySize)
	}
	return nil
}

// TimeIndex is a read-only view of a .timeindex file, Len() =
// floor(size/12), DumpLen() with DumpLogSegments' stop rule.
type TimeIndex struct {
	indexFile
	n int
}

// OpenTimeIndex reads path (opened read-only) into memory.
func OpenTimeIndex(path string, baseOffset int64) (*TimeIndex, error) {
	f, err := readIndexFile(path, baseOffset)
	if err != nil {
		return nil, err
	}
	return &TimeIndex{f, len(f.data) / TimeIndexEntrySize}, nil
}

// Len is floor(file size / 12).
func (x *TimeIndex) Len() int { return x.n }

func (x *TimeIndex) entry(i int) TimeIndexEntry {
	d := x.data[i*12:]
	return TimeIndexEntry{Timestamp: int64(binary.BigEndian.Uint64(d)), Offset: x.BaseOffset + int64(int32(binary.BigEndian.Uint32(d[8:])))}
}

func (x *TimeIndex) key(i int) int64 { return int64(binary.BigEndian.Uint64(x.data[i*12:])) }

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

// LastEntry is TimeIndex.lastEntry: the last slot, or (-1, baseOffset) when
// empty.
func (x *TimeIndex) LastEntry() TimeIndexEntry {
	if x.n == 0 {
		return TimeIndexEntry{Timestamp: NoTimestamp, Offset: x.BaseOffset}
	}
	return x.entry(x.n - 1)
}

// Lookup is TimeIndex.lookup: the largest entry with timestamp <= ts, or
// (-1, baseOffset).
func (x *TimeIndex) Lookup(ts int64) (e TimeIndexEntry, slot int, st SearchStats) {
	s := searchState{entrySize: TimeIndexEntrySize}
	slot = largestLowerBound(x.n, 8192/TimeIndexEntrySize, x.key, ts, &s)
	if slot < 0 {
		return TimeIndexEntry{Timestamp: NoTimestamp, Offset: x.BaseOffset}, -1, s.stats
	}
	return x.entry(slot), slot, s.stats
}

// SanityCheck is TimeIndex.sanityCheck (same three rules, same wording).
func (x *TimeIndex) SanityCheck() error {
	if x.n != 0 {
		last, first := x.entry(x.n-1), x.entry(0)
		if last.Timestamp < first.Timestamp {
			return formatErr(x.Path, int64(x.n-1)*12, "Corrupt time index found, time index file (%s) has non-zero size but the last timestamp is %d which is less than the first timestamp %d", x.Path, last.Timestamp, first.Timestamp)
		}
		if last.Offset < x.BaseOffset {
			return formatErr(x.Path, int64(x.n-1)*12+8, "Corrupt time index found, time index file (%s) has non-zero size but the last offset is %d which is less than the first offset %d", x.Path, last.Offset, x.BaseOffset)
		}
	}
	if x.FileSize%TimeIndexEntrySize != 0 {
		return formatErr(x.Path, x.FileSize-x.FileSize%12, "Time index file %s is corrupt, found %d bytes which is neither positive nor a multiple of %d", x.Path, x.FileSize, TimeIndexEntrySize)
	}
	return nil
}

// ParseOffsetIndex decodes an in-memory .index image (Kafka's view:
// floor(len/8) entries). For fuzzing and small files.
func ParseOffsetIndex(data []byte, base int64) []IndexEntry {
	x := OffsetIndex{indexFile{BaseOffset: base, data: data}, len(data) / 8}
	return x.Entries(x.n)
}

// ParseTimeIndex decodes an in-memory .timeindex image.
func ParseTimeIndex(data []byte, base int64) []TimeIndexEntry {
	x := TimeIndex{indexFile{BaseOffset: base, data: data}, len(data) / 12}
	return x.Entries(x.n)
}
