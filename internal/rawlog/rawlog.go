// Package rawlog is a brute-force reader of Kafka's segment files for tests: it walks the raw
// bytes of a .log and a .index by the definitions of docs/kafka.md (§1 layout and
// the file reader's rules, §4 the offset index, §5/§7.1 the two-phase lookup) and computes the
// lookup of every offset one offset at a time, so that kidx's own readers (segment, reports)
// can be checked against it. It is written independently of them and imports none of kidx's
// packages: only the standard library and klauspost/compress's snappy block decoder (legacy
// snappy wrappers). Nothing here is fast or clever on purpose.
//
// Definitions it implements:
//   - The file reader (FileLogInputStream.nextBatch): at position p with file end E, stop when
//     fewer than 18 bytes remain (p >= E-17); the int32 at p+8 is the entry's size field; a size
//     below 14 is corrupt; an entry that runs past E (p+12+size > E) ends the walk (a truncated
//     tail, no error). The entry is 12+size bytes on disk.
//   - Offsets an entry holds: a v2 batch (magic 2) holds base..base+lastOffsetDelta; a legacy
//     (magic 0/1) uncompressed message holds its offset field; a legacy compressed wrapper's
//     offset field is its last inner offset and it holds the inner offsets first..last (magic 0:
//     inner offsets absolute; magic 1: relative, 0..n-1). Gzip and snappy (Kafka's xerial
//     framing or a raw block) wrappers are decompressed to learn them; lz4 and zstd legacy
//     wrappers are refused with an error.
//   - Valid index entries: the 8-byte slots (int32 relative offset, int32 position) before the
//     zero tail: a slot i > 0 whose relative offset is 0 ends the entries (DumpLogSegments' stop
//     rule), and an all-zero slot 0 is "no entry" (Kafka never indexes position 0). A trimmed
//     index has no zero tail, so its entries are all its slots.
//   - Lookup of offset o: phase 1 start = position of the valid entry with the largest offset
//     <= o, else 0; phase 2 walks entry headers from start with the file reader's rules; the hit
//     is the first entry whose last offset >= o. scanBytes = hit position - start; hops = headers
//     read, the hit included (Kafka up to 4.0, FileRecords.searchForOffsetWithSize).
//   - Kafka 4.1+'s phase 2 (FileRecords.searchForOffsetFromPosition, KAFKA-18989, docs/kafka.md
//     §7.1): from start, read each entry's header; return it when its base offset equals o; at
//     the first whose base offset is past o, return the previous one if it holds o, else this
//     one; after the last, the previous one if it holds o. SearchFromPosition counts the headers
//     it reads. An entry's base offset is a v2 batch's base offset field, a legacy message's
//     first (inner) offset, as AbstractLegacyRecordBatch.baseOffset() reads it.
package rawlog

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/klauspost/compress/snappy"
)

// Byte layout (docs/kafka.md §1.2-§1.4).
const (
	logOverhead     = 12 // offset(8) + size(4)
	minReadable     = 18 // the reader needs more than 17 bytes to look at an entry
	minSize         = 14 // LegacyRecord.RECORD_OVERHEAD_V0: smallest size field accepted
	v2Overhead      = 61 // RECORD_BATCH_OVERHEAD
	magicAt         = 16
	v2LastDeltaAt   = 23
	v2RecordCountAt = 57
	legacyAttrAt    = 17
	indexEntryBytes = 8
)

// Codecs of the attributes' low three bits.
const (
	CodecNone   = 0
	CodecGzip   = 1
	CodecSnappy = 2
	CodecLZ4    = 3
	CodecZstd   = 4
)

// Batch is one entry of a .log as the file reader returns it: a v2 batch or a legacy message
// (a compressed wrapper counts as one entry, as it does for the reader).
type Batch struct {
	Position int64 // byte of the entry in the .log
	Size     int64 // bytes on disk: 12 + the size field
	Magic    byte
	Codec    byte  // attributes & 7
	Offset   int64 // the offset field: v2 base offset; legacy: the (last) offset
	First    int64 // first offset held
	Last     int64 // last offset held (v2: base + lastOffsetDelta; legacy: the offset field)
	Messages int   // v2: the records count field; legacy: inner messages (1 uncompressed)
}

// End is the byte after the entry.
func (b Batch) End() int64 { return b.Position + b.Size }

// Log is a .log read whole, walked from byte 0.
type Log struct {
	Path       string
	BaseOffset int64 // from the file name
	Data       []byte
	Batches    []Batch
	// ValidBytes is where the walk from 0 stopped: the end of the last whole entry.
	ValidBytes int64
}

// FormatError is a problem in the bytes, at a byte position of a file.
type FormatError struct {
	File string
	Pos  int64
	Msg  string
}

func (e *FormatError) Error() string { return fmt.Sprintf("%s: byte %d: %s", e.File, e.Pos, e.Msg) }

// BaseOffsetFromName parses the 20-digit base offset before the first '.' of a segment file
// name.
func BaseOffsetFromName(path string) (int64, error) {
	name := filepath.Base(path)
	stem, _, _ := strings.Cut(name, ".")
	if len(stem) != 20 {
		return 0, fmt.Errorf("%s: not a 20-digit segment file name", path)
	}
	return strconv.ParseInt(stem, 10, 64)
}

// ReadLog reads path whole and walks it.
func ReadLog(path string) (*Log, error) {
	base, err := BaseOffsetFromName(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	batches, valid, err := ParseLog(data, path)
	if err != nil {
		return nil, err
	}
	return &Log{Path: path, BaseOffset: base, Data: data, Batches: batches, ValidBytes: valid}, nil
}

func be64(b []byte, at int64) int64 { return int64(binary.BigEndian.Uint64(b[at:])) }
func be32(b []byte, at int64) int32 { return int32(binary.BigEndian.Uint32(b[at:])) }

// header is what phase 2 reads per hop: the entry's size on disk and its last offset. ok is
// false at the end of the stream (fewer than 18 bytes left, or an entry that runs past the
// end).
func header(data []byte, pos int64, file string) (size, last int64, ok bool, err error) {
	end := int64(len(data))
	if pos < 0 || pos > end {
		return 0, 0, false, &FormatError{file, pos, fmt.Sprintf("position outside the file (%d bytes)", end)}
	}
	if end-pos < minReadable {
		return 0, 0, false, nil
	}
	sz := int64(be32(data, pos+8))
	if sz < minSize {
		return 0, 0, false, &FormatError{file, pos + 8, fmt.Sprintf("size %d smaller than the minimum record overhead (14)", sz)}
	}
	if pos+logOverhead+sz > end {
		return 0, 0, false, nil
	}
	size = logOverhead + sz
	switch magic := data[pos+magicAt]; {
	case magic == 2:
		if size < v2Overhead {
			return 0, 0, false, &FormatError{file, pos + 8, fmt.Sprintf("v2 batch of %d bytes is shorter than its 61-byte header", size)}
		}
		return size, be64(data, pos) + int64(be32(data, pos+v2LastDeltaAt)), true, nil
	case magic < 2:
		return size, be64(data, pos), true, nil
	default:
		return 0, 0, false, &FormatError{file, pos + magicAt, fmt.Sprintf("unknown magic %d", magic)}
	}
}

// ParseLog walks data from byte 0 and returns its entries and where the walk stopped.
func ParseLog(data []byte, file string) ([]Batch, int64, error) {
	var out []Batch
	pos := int64(0)
	for {
		size, last, ok, err := header(data, pos, file)
		if err != nil {
			return out, pos, err
		}
		if !ok {
			return out, pos, nil
		}
		b := Batch{Position: pos, Size: size, Magic: data[pos+magicAt], Offset: be64(data, pos), Last: last}
		entry := data[pos : pos+size]
		if b.Magic == 2 {
			b.Codec = byte(binary.BigEndian.Uint16(entry[21:]) & 7)
			b.First = b.Offset
			b.Messages = int(be32(entry, v2RecordCountAt))
		} else {
			first, n, codec, err := legacyOffsets(entry, file, pos)
			if err != nil {
				return out, pos, err
			}
			b.Codec, b.First, b.Messages = codec, first, n
		}
		out = append(out, b)
		pos += size
	}
}

// legacyFields splits a legacy message (from its offset field) into attributes, key and value.
func legacyFields(m []byte, file string, pos int64) (magic, attrs byte, key, value []byte, err error) {
	magic = m[magicAt]
	at := int64(legacyAttrAt + 1) // after attributes
	if magic == 1 {
		at += 8 // timestamp
	}
	bad := func(what string) error {
		return &FormatError{file, pos, fmt.Sprintf("legacy v%d message: %s", magic, what)}
	}
	if int64(len(m)) < at+4 {
		return 0, 0, nil, nil, bad("too short for its header")
	}
	attrs = m[legacyAttrAt]
	readBytes := func() ([]byte, error) {
		if int64(len(m)) < at+4 {
			return nil, bad("length field past the end")
		}
		n := int64(be32(m, at))
		at += 4
		if n < 0 {
			return nil, nil
		}
		if int64(len(m)) < at+n {
			return nil, bad(fmt.Sprintf("a %d-byte field runs past the end", n))
		}
		b := m[at : at+n]
		at += n
		return b, nil
	}
	if key, err = readBytes(); err != nil {
		return
	}
	if value, err = readBytes(); err != nil {
		return
	}
	return magic, attrs, key, value, nil
}

// legacyOffsets is the first offset a legacy entry holds, its inner message count and codec.
func legacyOffsets(m []byte, file string, pos int64) (first int64, n int, codec byte, err error) {
	magic, attrs, _, value, err := legacyFields(m, file, pos)
	if err != nil {
		return 0, 0, 0, err
	}
	codec = attrs & 7
	offset := be64(m, 0)
	var inner []byte
	switch codec {
	case CodecNone:
		return offset, 1, codec, nil
	case CodecGzip:
		zr, err := gzip.NewReader(bytes.NewReader(value))
		if err != nil {
			return 0, 0, codec, &FormatError{file, pos, "gzip wrapper: " + err.Error()}
		}
		if inner, err = io.ReadAll(zr); err != nil {
			return 0, 0, codec, &FormatError{file, pos, "gzip wrapper: " + err.Error()}
		}
	case CodecSnappy:
		if inner, err = unsnappy(value); err != nil {
			return 0, 0, codec, &FormatError{file, pos, "snappy wrapper: " + err.Error()}
		}
	default:
		return 0, 0, codec, &FormatError{file, pos, fmt.Sprintf("legacy v%d wrapper with codec %d (lz4/zstd): rawlog does not decode it; the real data was said to hold none", magic, codec)}
	}
	// The inner message set: offset(8) size(4) message, repeated.
	var offs []int64
	for at := int64(0); at < int64(len(inner)); {
		if int64(len(inner))-at < logOverhead {
			return 0, 0, codec, &FormatError{file, pos, fmt.Sprintf("compressed wrapper: %d stray bytes after inner message %d", int64(len(inner))-at, len(offs))}
		}
		sz := int64(be32(inner, at+8))
		if sz < minSize || at+logOverhead+sz > int64(len(inner)) {
			return 0, 0, codec, &FormatError{file, pos, fmt.Sprintf("compressed wrapper: inner message %d has size %d", len(offs), sz)}
		}
		if inner[at+magicAt] != magic {
			return 0, 0, codec, &FormatError{file, pos, fmt.Sprintf("compressed wrapper v%d holds a v%d message", magic, inner[at+magicAt])}
		}
		if inner[at+legacyAttrAt]&7 != 0 {
			return 0, 0, codec, &FormatError{file, pos, "compressed wrapper holds a compressed message"}
		}
		offs = append(offs, be64(inner, at))
		at += logOverhead + sz
	}
	if len(offs) == 0 {
		return 0, 0, codec, &FormatError{file, pos, "compressed wrapper holds no message"}
	}
	for i := 1; i < len(offs); i++ {
		if offs[i] <= offs[i-1] {
			return 0, 0, codec, &FormatError{file, pos, fmt.Sprintf("compressed wrapper: inner offsets not increasing (%d then %d)", offs[i-1], offs[i])}
		}
	}
	if magic == 0 {
		// Absolute inner offsets: the wrapper's offset field must be the last of them.
		if offs[len(offs)-1] != offset {
			return 0, 0, codec, &FormatError{file, pos, fmt.Sprintf("v0 wrapper offset %d is not its last inner offset %d", offset, offs[len(offs)-1])}
		}
		return offs[0], len(offs), codec, nil
	}
	// Magic 1: relative inner offsets; the wrapper's offset is the absolute last one.
	return offset - (offs[len(offs)-1] - offs[0]), len(offs), codec, nil
}

// xerialMagic starts Kafka's snappy framing (org.xerial.snappy.SnappyOutputStream): the 8-byte
// magic, int32 version, int32 compatible version, then blocks of int32 length + raw snappy.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

func unsnappy(v []byte) ([]byte, error) {
	if !bytes.HasPrefix(v, xerialMagic) {
		return snappy.Decode(nil, v)
	}
	if len(v) < 16 {
		return nil, errors.New("xerial header cut short")
	}
	var out []byte
	for at := 16; at < len(v); {
		if len(v)-at < 4 {
			return nil, fmt.Errorf("xerial block length cut short at %d", at)
		}
		n := int(binary.BigEndian.Uint32(v[at:]))
		at += 4
		if n < 0 || len(v)-at < n {
			return nil, fmt.Errorf("xerial block of %d bytes runs past the end at %d", n, at)
		}
		blk, err := snappy.Decode(nil, v[at:at+n])
		if err != nil {
			return nil, err
		}
		out = append(out, blk...)
		at += n
	}
	return out, nil
}

// Offsets is every offset the log holds: the union of its entries' [First, Last], sorted.
func (l *Log) Offsets() []int64 {
	type span struct{ a, b int64 }
	spans := make([]span, 0, len(l.Batches))
	for _, b := range l.Batches {
		if b.Last >= b.First {
			spans = append(spans, span{b.First, b.Last})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
	var out []int64
	next := int64(-1 << 63)
	for _, s := range spans {
		for o := max(s.a, next); o <= s.b; o++ {
			out = append(out, o)
		}
		next = max(next, s.b+1)
	}
	return out
}

// IndexEntry is one valid offset-index entry, with its slot and absolute offset.
type IndexEntry struct {
	Slot     int
	Offset   int64
	Position int64
}

// Index is a .index read whole.
type Index struct {
	Path       string
	BaseOffset int64
	Data       []byte
	Slots      int // floor(size / 8)
	Entries    []IndexEntry
	// End is the slot where the valid entries stop: the first slot i > 0 whose relative offset
	// is 0, or Slots when there is none. Slots [End, Slots) are the tail.
	End int
}

// ReadIndex reads a .index whole; the base offset comes from its name.
func ReadIndex(path string) (*Index, error) {
	base, err := BaseOffsetFromName(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	entries, end := ValidEntries(data, base)
	return &Index{Path: path, BaseOffset: base, Data: data, Slots: len(data) / indexEntryBytes, Entries: entries, End: end}, nil
}

// ValidEntries applies the valid-entry rules to an index's bytes (a partial last slot is not a
// slot).
func ValidEntries(data []byte, base int64) ([]IndexEntry, int) {
	n := len(data) / indexEntryBytes
	var out []IndexEntry
	for i := 0; i < n; i++ {
		rel, pos := be32(data, int64(i)*8), be32(data, int64(i)*8+4)
		if i > 0 && rel == 0 {
			return out, i
		}
		if i == 0 && rel == 0 && pos == 0 {
			continue
		}
		out = append(out, IndexEntry{Slot: i, Offset: base + int64(rel), Position: int64(pos)})
	}
	return out, n
}

// ZeroTail reports whether the index is untrimmed: it has slots after its valid entries and
// every byte from slot End on is zero (a live, preallocated index).
func (x *Index) ZeroTail() bool {
	if x.End >= x.Slots {
		return false
	}
	for _, c := range x.Data[x.End*indexEntryBytes:] {
		if c != 0 {
			return false
		}
	}
	return true
}

// Segment is a .log with its sibling .index (nil when absent).
type Segment struct {
	Log   *Log
	Index *Index

	byPos map[int64]int // entry number by position, for SearchFromPosition
}

// OpenSegment reads "<stem>.log" and "<stem>.index" if it exists.
func OpenSegment(logPath string) (*Segment, error) {
	l, err := ReadLog(logPath)
	if err != nil {
		return nil, err
	}
	s := &Segment{Log: l}
	ip := strings.TrimSuffix(logPath, ".log") + ".index"
	if _, err := os.Stat(ip); err == nil {
		if s.Index, err = ReadIndex(ip); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return s, nil
}

// Cost is one offset's lookup by the definition.
type Cost struct {
	Target      int64
	HasEntry    bool  // phase 1 found a valid entry with offset <= Target
	EntryOffset int64 // that entry's offset (the base offset when none)
	Start       int64 // where phase 2 starts: that entry's position, else 0
	Found       bool  // an entry with last offset >= Target was reached
	HitPosition int64
	HitLast     int64
	Hops        int   // headers read in phase 2, the hit included
	ScanBytes   int64 // HitPosition - Start (0 when not found)
}

// Lookup computes target's lookup: a linear pass over the valid entries, then a header walk
// over the raw bytes.
func (s *Segment) Lookup(target int64) (Cost, error) {
	c := Cost{Target: target, EntryOffset: s.Log.BaseOffset}
	if s.Index != nil {
		for _, e := range s.Index.Entries {
			if e.Offset <= target && (!c.HasEntry || e.Offset > c.EntryOffset) {
				c.HasEntry, c.EntryOffset, c.Start = true, e.Offset, e.Position
			}
		}
	}
	for pos := c.Start; ; {
		size, last, ok, err := header(s.Log.Data, pos, s.Log.Path)
		if err != nil {
			return c, err
		}
		if !ok {
			return c, nil
		}
		c.Hops++
		if last >= target {
			c.Found, c.HitPosition, c.HitLast, c.ScanBytes = true, pos, last, pos-c.Start
			return c, nil
		}
		pos += size
	}
}

// SearchFromPosition runs Kafka 4.1+'s phase-2 loop for target from start, literally (see the
// package comment), and returns the entry it returns (found false: none) and the headers it
// read.
func (s *Segment) SearchFromPosition(target, start int64) (hit Batch, reads int, found bool, err error) {
	if s.byPos == nil {
		s.byPos = make(map[int64]int, len(s.Log.Batches))
		for i, b := range s.Log.Batches {
			s.byPos[b.Position] = i
		}
	}
	byPos := s.byPos
	var prev *Batch
	for pos := start; ; {
		size, _, ok, err := header(s.Log.Data, pos, s.Log.Path)
		if err != nil {
			return Batch{}, reads, false, err
		}
		if !ok {
			break
		}
		reads++
		i, known := byPos[pos]
		if !known {
			return Batch{}, reads, false, &FormatError{s.Log.Path, pos, "the walk from the start position reached no entry start"}
		}
		b := &s.Log.Batches[i]
		base := b.First
		if base == target {
			return *b, reads, true, nil
		}
		if base > target {
			if prev != nil && prev.Last >= target {
				return *prev, reads, true, nil
			}
			return *b, reads, true, nil
		}
		prev = b
		pos += size
	}
	if prev != nil && prev.Last >= target {
		return *prev, reads, true, nil
	}
	return Batch{}, reads, false, nil
}

// Costs looks up every offset the segment holds, in order.
func (s *Segment) Costs() ([]Cost, error) {
	offs := s.Log.Offsets()
	out := make([]Cost, 0, len(offs))
	for _, o := range offs {
		c, err := s.Lookup(o)
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Totals are the sums and maxima of a set of lookups (found ones only), as analyze reports
// them.
type Totals struct {
	Lookups, TotalScanBytes, MaxScanBytes, TotalHops, MaxHops int64
}

// Add counts c when it was found.
func (t *Totals) Add(c Cost) {
	if !c.Found {
		return
	}
	t.Lookups++
	t.TotalScanBytes += c.ScanBytes
	t.MaxScanBytes = max(t.MaxScanBytes, c.ScanBytes)
	t.TotalHops += int64(c.Hops)
	t.MaxHops = max(t.MaxHops, int64(c.Hops))
}

// RebuildIndex stands for the missing .index the index Kafka's LogSegment.recover builds at the
// next start, written here from the rule alone: walking the batches from byte 0 with the last
// entry's position at 0, a batch whose position lies more than interval bytes past it gets an
// entry at its position, naming its last offset (namesLast: Kafka 2.0 and later) or its first.
// A segment that has an index keeps it.
func (s *Segment) RebuildIndex(interval int64, namesLast bool) {
	if s.Index != nil {
		return
	}
	x := &Index{Path: strings.TrimSuffix(s.Log.Path, ".log") + ".index (rebuilt)", BaseOffset: s.Log.BaseOffset}
	lastEntry := int64(0)
	for _, b := range s.Log.Batches {
		if b.Position-lastEntry > interval {
			off := b.First
			if namesLast {
				off = b.Last
			}
			x.Entries = append(x.Entries, IndexEntry{Slot: len(x.Entries), Offset: off, Position: b.Position})
			lastEntry = b.Position
		}
	}
	x.Slots, x.End = len(x.Entries), len(x.Entries)
	s.Index = x
}
