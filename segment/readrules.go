package segment

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"kidx/codec"
)

// IndexView is which index entries Kafka's phase 1 searches (docs/kafka.md §7.5).
type IndexView int

const (
	// ViewRunning searches a running broker's entries: a trimmed file's slots, or an
	// untrimmed (preallocated) file's slots before its zero tail (ValidLen).
	ViewRunning IndexView = iota
	// ViewReopened searches every slot, floor(file size / entry size), as a broker that
	// reopens the files does (LogSegment.open, AbstractIndex's constructor): a zero slot reads
	// as (base offset, position 0).
	ViewReopened
)

func (v IndexView) String() string {
	if v == ViewReopened {
		return "reopened"
	}
	return "running"
}

// ParseIndexView reads "running" or "reopened".
func ParseIndexView(s string) (IndexView, error) {
	switch s {
	case "running", "":
		return ViewRunning, nil
	case "reopened":
		return ViewReopened, nil
	}
	return 0, fmt.Errorf("index view %q: want running or reopened", s)
}

// ReadRelease is a release line whose offset lookup (LogSegment.translateOffset) answers
// differently from its neighbours' on some bytes (docs/kafka.md §7.5). Intact files get the
// same answer from every line; damaged ones may not.
type ReadRelease int

const (
	// Release41 is 4.1.0 and later: FileRecords.searchForOffsetFromPosition (KAFKA-18989)
	// walks by baseOffset() and reads one batch past the hit. It is the zero value: rules that
	// name no line ask for the newest.
	Release41 ReadRelease = iota
	// Release40 is 4.0.x: as Release21, then the hit's baseOffset() (KAFKA-17803), which for a
	// batch read as legacy loads and iterates it.
	Release40
	// Release21 is 2.1.0-3.9.x: as Release011, phase 1 with the warm section
	// (AbstractIndex.indexSlotRangeFor).
	Release21
	// Release011 is 0.11.0-2.0.x: nextBatch's 17-byte framing and a v2 batch's lastOffset()
	// from a 61-byte header load; phase 1 without the warm section.
	Release011
	// Release0102 is 0.10.2.x: FileRecords over FileLogInputStream.nextEntry: 12-byte framing,
	// an entry past the end ends the log; the offset field decides for every magic.
	Release0102
	// Release0101 is 0.10.1.x: FileMessageSet.searchForOffsetWithSize checks the size
	// (IllegalStateException below 14) before the offset; still no end check.
	Release0101
	// Release08 is 0.8.0-0.10.0.x: FileMessageSet.searchFor compares an entry's offset before
	// it checks its size, and never checks that the entry fits the file.
	Release08
)

// ReadReleases are every release line, oldest first.
var ReadReleases = []ReadRelease{Release08, Release0101, Release0102, Release011, Release21, Release40, Release41}

var readReleaseNames = [...]string{Release41: "4.1+", Release40: "4.0", Release21: "2.1-3.9", Release011: "0.11-2.0", Release0102: "0.10.2", Release0101: "0.10.1", Release08: "0.8-0.10.0"}

func (r ReadRelease) String() string {
	if r >= 0 && int(r) < len(readReleaseNames) {
		return readReleaseNames[r]
	}
	return fmt.Sprintf("ReadRelease(%d)", int(r))
}

// ParseReadRelease reads a release line's name (ReadRelease.String).
func ParseReadRelease(s string) (ReadRelease, error) {
	var names []string
	for _, r := range ReadReleases {
		if r.String() == s {
			return r, nil
		}
		names = append(names, r.String())
	}
	return 0, fmt.Errorf("release line %q: want one of %s", s, strings.Join(names, ", "))
}

// ReadReleaseFor is the line of Kafka release major.minor.patch.
func ReadReleaseFor(major, minor, patch int) ReadRelease {
	v := major*1000000 + minor*1000 + patch
	switch {
	case v < 10001: // 0.10.1
		return Release08
	case v < 10002:
		return Release0101
	case v < 11000:
		return Release0102
	case v < 2001000:
		return Release011
	case v < 4000000:
		return Release21
	case v < 4001000:
		return Release40
	}
	return Release41
}

// warmSearch says whether the line's phase 1 tries the warm section first (2.1.0 on).
func (r ReadRelease) warmSearch() bool { return r <= Release21 }

// ReadRules are the release line and the index view a lookup answers for. The zero value is
// 4.1+ over the running index.
type ReadRules struct {
	Release ReadRelease
	View    IndexView
}

func (rr ReadRules) String() string { return rr.Release.String() + ", " + rr.View.String() + " index" }

// Lookup reasons (LookupResult.Reason): the rule that decided an answer Kafka gives on bytes
// a careful reader would refuse, so a reader's divergence there is told apart from one on
// plain data.
const (
	ReasonShortV2Header = "short-v2-header"    // a v2 batch under 61 bytes: its lastOffset() read the bytes after it
	ReasonLegacy        = "legacy-batch"       // the hit (or a batch the walk judged) was read as legacy (magic below 2)
	ReasonNoEndCheck    = "no-end-check"       // before 0.10.2: the hit runs past the end of the file
	ReasonWalk41        = "4.1-walk"           // 4.1's walk by baseOffset() answers otherwise than the lastOffset() walk
	ReasonZeroSlot      = "reopened-zero-slot" // the reopened view's phase 1 landed on a slot of the zero tail
)

// javaError is an error Kafka's lookup throws, as a *FormatError with its class.
func javaError(class, file string, pos int64, format string, args ...any) *FormatError {
	return &FormatError{File: file, Pos: pos, Msg: fmt.Sprintf(format, args...), Class: class}
}

// LookupAs translates an offset as release line rr.Release's LogSegment.translateOffset does,
// phase 1 over rr.View's entries (docs/kafka.md §7.5). Hops counts the batch headers the
// line's walk reads (4.1 reads one past the hit). Errors are *FormatError with Kafka's
// exception class; Reason names a rule that decided the answer on irregular bytes.
func (s *Segment) LookupAs(target int64, rr ReadRules) (LookupResult, error) {
	r := LookupResult{Target: target, IndexOffset: s.BaseOffset}
	var reasons []string
	if s.Index != nil {
		n := s.Index.valid
		if rr.View == ViewReopened {
			n = s.Index.n
		}
		st := searchState{entrySize: OffsetIndexEntrySize}
		var slot int
		if rr.Release.warmSearch() {
			slot = largestLowerBound(n, 8192/OffsetIndexEntrySize, s.Index.key, target, &st)
		} else {
			slot = plainLargestLowerBound(n, s.Index.key, target, &st)
		}
		r.Search = st.stats
		if slot >= 0 {
			e := s.Index.entry(slot)
			r.IndexOffset, r.IndexPosition = e.Offset, e.Position
			if slot >= s.Index.valid {
				reasons = append(reasons, ReasonZeroSlot)
			}
		}
	}
	r2, err := s.lookupFrom(target, max(r.IndexPosition, 0), rr, reasons) // translateOffset: max(mapping.position, startingFilePosition = 0)
	r2.IndexOffset, r2.IndexPosition, r2.Search = r.IndexOffset, r.IndexPosition, r.Search
	return r2, err
}

// lookupFrom is phase 2 from start under rr.Release, reasons being phase 1's.
func (s *Segment) lookupFrom(target, start int64, rr ReadRules, reasons []string) (LookupResult, error) {
	r := LookupResult{Target: target}
	w := kafkaWalk{l: s.Log, end: s.Log.Size(), target: target}
	var err error
	switch rr.Release {
	case Release08, Release0101:
		err = w.messageSet(start, rr.Release == Release0101)
	case Release0102:
		err = w.nextEntry(start)
	case Release41:
		err = w.byBaseOffset(start)
		// The reason says when KAFKA-18989's walk decided: the walk by last offset (4.0's)
		// would throw where it answers, or the reverse, or hit another batch.
		old := kafkaWalk{l: s.Log, end: s.Log.Size(), target: target}
		oerr := old.byLastOffset(start, false)
		if (err == nil) != (oerr == nil) || (err == nil && (old.found != w.found || old.hit.pos != w.hit.pos)) {
			w.reasons = append(w.reasons, ReasonWalk41)
		}
	default:
		err = w.byLastOffset(start, rr.Release == Release40)
	}
	r.Hops = w.hops
	reasons = append(reasons, w.reasons...)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) && fe.Class != "" {
			reasons = append(reasons, fe.Class)
		}
		r.Reason = strings.Join(dedupe(reasons), "+")
		return r, err
	}
	if w.found {
		r.Found = true
		r.HitPosition, r.HitBaseOffset, r.HitLastOffset, r.HitSize = w.hit.pos, w.hit.base, w.hit.last, w.hit.size
	}
	r.Reason = strings.Join(dedupe(reasons), "+")
	return r, nil
}

// LookupFrom is phase 2 alone as release line rr.Release reads it: the walk from position
// start (a reader with a phase 1 of its own gets Kafka's phase 2 from its start).
func (s *Segment) LookupFrom(target, start int64, rr ReadRules) (LookupResult, error) {
	r, err := s.lookupFrom(target, max(start, 0), rr, nil)
	r.IndexOffset, r.IndexPosition = -1, start
	return r, err
}

func dedupe(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// plainLargestLowerBound is OffsetIndex.indexSlotFor before 2.1.0: slot 0 above the target
// means none, else the upper-middle binary search over every entry.
func plainLargestLowerBound(n int, key func(int) int64, target int64, st *searchState) int {
	if n == 0 {
		return -1
	}
	st.touch(0)
	if key(0) > target {
		return -1
	}
	return binarySearch(0, n-1, key, target, st)
}

// kafkaWalk is phase 2 as one release line reads it: raw reads of the .log, Kafka's checks in
// Kafka's order and nothing else (no ensureValid).
type kafkaWalk struct {
	l       *LogFile
	end     int64
	target  int64
	hops    int
	found   bool
	hit     walkBatch
	reasons []string
}

// walkBatch is what nextBatch returned for one entry.
type walkBatch struct {
	pos, size  int64 // size: 12 + the size field
	offset     int64 // the offset field
	magic      int8
	base, last int64 // filled in when read
	lastLoaded bool  // last is known (loadBatchHeader keeps the header it read)
}

// int32 arithmetic: Kafka's positions are Java ints and wrap.
func wrap32(v int64) int64 { return int64(int32(v)) }

// messageSet is FileMessageSet.searchFor (0.8-0.10.0) and searchForOffsetWithSize (0.10.1):
// while position + 12 < size, read the offset and size; 0.10.1 checks the size first.
func (w *kafkaWalk) messageSet(pos int64, sizeFirst bool) error {
	sizeField := pos // where a position that wrapped came from: the size field that moved it
	for wrap32(pos+LogOverhead) < w.end {
		if pos < 0 { // FileChannel.read's own check
			return javaError("IllegalArgumentException", w.l.Path, sizeField, "Negative position")
		}
		h, err := w.l.read(pos, LogOverhead)
		if err != nil || len(h) < LogOverhead {
			return javaError("IllegalStateException", w.l.Path, pos, "Failed to read complete buffer for targetOffset %d in %s", w.target, w.l.Path)
		}
		off, size := int64(binary.BigEndian.Uint64(h)), int32(binary.BigEndian.Uint32(h[8:]))
		w.hops++
		bad := size < MinRecordOverhead
		if sizeFirst && bad {
			return javaError("IllegalStateException", w.l.Path, pos+8, "Invalid message size: %d", size)
		}
		if off >= w.target {
			w.found = true
			w.hit = walkBatch{pos: pos, size: LogOverhead + int64(size), offset: off, base: off, last: off}
			if pos+LogOverhead+int64(size) > w.end || bad {
				w.reasons = append(w.reasons, ReasonNoEndCheck)
			}
			return nil
		}
		if bad {
			return javaError("IllegalStateException", w.l.Path, pos+8, "Invalid message size: %d", size)
		}
		sizeField, pos = pos+8, wrap32(pos+LogOverhead+int64(size))
	}
	return nil
}

// nextEntry is 0.10.2's FileRecords.searchForOffsetWithSize over FileLogInputStream.nextEntry:
// position + 12 >= end ends the log, a size below 14 throws, an entry past the end ends the
// log (the test is Java int arithmetic and wraps for a huge size), the offset field decides.
func (w *kafkaWalk) nextEntry(pos int64) error {
	sizeField := pos // where a position that wrapped came from: the size field that moved it
	for {
		if wrap32(pos+LogOverhead) >= w.end {
			return nil
		}
		if pos < 0 { // Utils.readFullyOrFail's own check (0.10.2.0 Utils.java:823-825)
			return javaError("IllegalArgumentException", w.l.Path, sizeField, "The file channel position cannot be negative, but it is %d", pos)
		}
		h, err := w.l.read(pos, LogOverhead)
		if err != nil || len(h) < LogOverhead {
			return javaError("KafkaException", w.l.Path, pos, "Failed to read log header at position %d", pos)
		}
		off, size := int64(binary.BigEndian.Uint64(h)), int32(binary.BigEndian.Uint32(h[8:]))
		if size < MinRecordOverhead {
			return javaError("CorruptRecordException", w.l.Path, pos+8, "Record size is smaller than minimum record overhead (14).")
		}
		if wrap32(pos+LogOverhead+int64(size)) > w.end {
			return nil
		}
		w.hops++
		if off >= w.target {
			w.found = true
			w.hit = walkBatch{pos: pos, size: LogOverhead + int64(size), offset: off, base: off, last: off}
			return nil
		}
		sizeField, pos = pos+8, wrap32(pos+LogOverhead+int64(size))
	}
}

// next is FileLogInputStream.nextBatch (0.11 on): ok false at the end of the log.
func (w *kafkaWalk) next(pos int64) (b walkBatch, ok bool, err error) {
	if pos >= w.end-HeaderSizeUpToMagic {
		return b, false, nil
	}
	h, rerr := w.l.read(pos, HeaderSizeUpToMagic)
	if rerr != nil || len(h) < HeaderSizeUpToMagic {
		return b, false, javaError("CorruptRecordException", w.l.Path, pos, "Unexpected EOF while attempting to read the next batch")
	}
	size := int32(binary.BigEndian.Uint32(h[8:]))
	if size < MinRecordOverhead {
		return b, false, javaError("CorruptRecordException", w.l.Path, pos+8, "Found record size %d smaller than minimum record overhead (%d) in file %s.", size, MinRecordOverhead, w.l.Path)
	}
	if pos > w.end-LogOverhead-int64(size) {
		return b, false, nil
	}
	w.hops++
	b = walkBatch{pos: pos, size: LogOverhead + int64(size), offset: int64(binary.BigEndian.Uint64(h)), magic: int8(h[MagicOffset])}
	return b, true, nil
}

// records is FileRecords.toString of the segment's .log as FileRecords.open opens an existing
// file: start 0, end Integer.MAX_VALUE (the size comes from the channel).
func (w *kafkaWalk) records() string {
	return fmt.Sprintf("FileRecords(size=%d, file=%s, start=0, end=2147483647)", w.end, w.l.Path)
}

// lastOffset is FileChannelRecordBatch.lastOffset(): a legacy entry's offset field; for v2,
// loadBatchHeader() reads 61 bytes whatever the batch's size (a short batch's read runs into
// the bytes after it) and fails only when the file ends first.
func (w *kafkaWalk) lastOffset(b *walkBatch) error {
	if b.lastLoaded {
		return nil
	}
	last, ok := w.headerLast(*b)
	if !ok {
		return javaError("KafkaException", w.l.Path, b.pos, "Failed to load record batch at position %d from %s", b.pos, w.records())
	}
	if b.magic >= 2 && b.size < RecordBatchOverhead {
		w.reasons = append(w.reasons, ReasonShortV2Header)
	}
	b.last, b.lastLoaded = last, true
	return nil
}

// headerLast is a batch's lastOffset() without its side effects: a legacy entry's offset
// field, or a v2 header's base offset + lastOffsetDelta from the 61 bytes at its position; ok
// is false when the file ends before them.
func (w *kafkaWalk) headerLast(b walkBatch) (last int64, ok bool) {
	if b.magic < 2 {
		return b.offset, true
	}
	h, err := w.l.read(b.pos, RecordBatchOverhead)
	if err != nil || len(h) < RecordBatchOverhead {
		return 0, false
	}
	return b.offset + int64(int32(binary.BigEndian.Uint32(h[23:]))), true
}

// byLastOffset is FileRecords.searchForOffsetWithSize (0.11-4.0.x): the first batch whose
// lastOffset() is at or past the target. takeBase: 4.0's translateOffset then takes the hit's
// baseOffset() (KAFKA-17803).
func (w *kafkaWalk) byLastOffset(pos int64, takeBase bool) error {
	for {
		b, ok, err := w.next(pos)
		if err != nil || !ok {
			return err
		}
		if err := w.lastOffset(&b); err != nil {
			return err
		}
		if b.last >= w.target {
			b.base = b.offset
			if b.magic < 2 { // lastOffset() was the offset field (LegacyFileChannelRecordBatch)
				w.reasons = append(w.reasons, ReasonLegacy)
			}
			if takeBase {
				if err := w.baseOffset(&b); err != nil {
					return err
				}
			}
			w.found, w.hit = true, b
			return nil
		}
		pos = b.pos + b.size
	}
}

// byBaseOffset is FileRecords.searchForOffsetFromPosition (4.1 on, KAFKA-18989).
func (w *kafkaWalk) byBaseOffset(pos int64) error {
	var prev *walkBatch
	prevHolds := func() (bool, error) {
		if prev == nil {
			return false, nil
		}
		if err := w.lastOffset(prev); err != nil {
			return false, err
		}
		return prev.last >= w.target, nil
	}
	for {
		b, ok, err := w.next(pos)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if err := w.baseOffset(&b); err != nil {
			return err
		}
		if b.base == w.target {
			return w.hitAt(b)
		}
		if b.base > w.target {
			holds, err := prevHolds()
			if err != nil {
				return err
			}
			if holds {
				return w.hitAt(*prev)
			}
			return w.hitAt(b)
		}
		prev = &b
		pos = b.pos + b.size
	}
	holds, err := prevHolds()
	if err != nil || !holds {
		return err
	}
	return w.hitAt(*prev)
}

// hitAt records b as the hit, with its lastOffset (LogOffsetPosition.fromBatch reads no more;
// kidx reports the last offset for the answer's batch when the bytes give it).
func (w *kafkaWalk) hitAt(b walkBatch) error {
	if !b.lastLoaded {
		if last, ok := w.headerLast(b); ok {
			b.last = last
		} else {
			b.last = b.offset
		}
	}
	w.found, w.hit = true, b
	return nil
}

// legacyDecompressLimit bounds what kidx inflates to find a legacy wrapper's first offset.
const legacyDecompressLimit = 256 << 20

// baseOffset is FileChannelRecordBatch.baseOffset(): a v2 batch's offset field; for a batch
// read as legacy (magic byte below 2) loadFullBatch().baseOffset(), that is
// AbstractLegacyRecordBatch.iterator().next().offset(): an uncompressed message's own offset,
// a compressed wrapper's first inner offset after DeepRecordsIterator has read every inner
// message, with Kafka's checks in its order.
func (w *kafkaWalk) baseOffset(b *walkBatch) error {
	if b.magic >= 2 {
		b.base = b.offset
		return nil
	}
	w.reasons = append(w.reasons, ReasonLegacy)
	data, err := w.l.read(b.pos, int(b.size))
	if err != nil || int64(len(data)) < b.size {
		return javaError("KafkaException", w.l.Path, b.pos, "Failed to load record batch at position %d from %s", b.pos, w.records())
	}
	rec := data[LogOverhead:] // LegacyRecord over the message (its size bytes)
	attrs := int8(rec[5])     // LegacyRecord.ATTRIBUTES_OFFSET; size >= 14 so it exists
	switch c := attrs & 7; {  // LegacyRecord.compressionType(): CompressionType.forId
	case c == 0:
		b.base = b.offset
		return nil
	case c > 4:
		return javaError("IllegalArgumentException", w.l.Path, b.pos, "Unknown compression type id: %d", c)
	}
	magic := int8(rec[4])
	if magic != 0 && magic != 1 {
		return javaError("InvalidRecordException", w.l.Path, b.pos, "Invalid wrapper magic found in legacy deep record iterator %d", magic)
	}
	c := codec.Codec(attrs & 7)
	if c == codec.Zstd {
		return javaError("InvalidRecordException", w.l.Path, b.pos, "Invalid wrapper compressionType found in legacy deep record iterator %d", magic)
	}
	value, cls, msg := legacyValue(rec, magic)
	if cls != "" {
		return javaError(cls, w.l.Path, b.pos, "%s", msg)
	}
	if value == nil {
		return javaError("InvalidRecordException", w.l.Path, b.pos, "Found invalid compressed record set with null value (magic = %d)", magic)
	}
	inner, derr := codec.Decompress(c, magic, value, legacyDecompressLimit)
	if derr != nil {
		return javaError("KafkaException", w.l.Path, b.pos, "decompressing the %s wrapper: %v", c, derr)
	}
	first, last, n := int64(0), int64(0), 0
	var firstAttrs int8
	for p := 0; len(inner)-p >= LogOverhead; { // DataLogInputStream.nextBatch; a partial entry ends the stream
		off, size := int64(binary.BigEndian.Uint64(inner[p:])), int32(binary.BigEndian.Uint32(inner[p+8:]))
		if size < MinRecordOverhead {
			return javaError("CorruptRecordException", w.l.Path, b.pos, "Record size is less than the minimum record overhead (14)")
		}
		if int64(len(inner)-p-LogOverhead) < int64(size) {
			break
		}
		if n == 0 {
			first, firstAttrs = off, int8(inner[p+LogOverhead+5])
		}
		last = off
		n++
		p += LogOverhead + int(size)
	}
	if n == 0 {
		return javaError("InvalidRecordException", w.l.Path, b.pos, "Found invalid compressed record set with no inner records")
	}
	if magic == 1 {
		base := int64(0)
		if b.offset != 0 { // the outer offset may be 0 (certain librdkafka versions)
			if b.offset < last {
				return javaError("InvalidRecordException", w.l.Path, b.pos, "Found invalid wrapper offset in compressed v1 message set, wrapper offset '%d' is less than the last inner message offset '%d' and it is not zero.", b.offset, last)
			}
			base = b.offset - last
		}
		first += base
	}
	switch ic := firstAttrs & 7; { // DeepRecordsIterator.makeNext: entry.isCompressed()
	case ic > 4:
		return javaError("IllegalArgumentException", w.l.Path, b.pos, "Unknown compression type id: %d", ic)
	case ic != 0:
		return javaError("InvalidRecordException", w.l.Path, b.pos, "Inner messages must not be compressed")
	}
	b.base = first
	return nil
}

// legacyValue is LegacyRecord.value() over rec (the message after offset and size): nil for a
// negative size (Utils.sizeDelimited); cls and msg name the Java exception a read past the
// buffer throws.
func legacyValue(rec []byte, magic int8) (value []byte, cls, msg string) {
	getInt := func(at int) (int32, bool) {
		if at < 0 || at+4 > len(rec) {
			return 0, false
		}
		return int32(binary.BigEndian.Uint32(rec[at:])), true
	}
	keySizeAt := 6 // KEY_SIZE_OFFSET_V0
	if magic != 0 {
		keySizeAt = 14 // KEY_SIZE_OFFSET_V1
	}
	ks, ok := getInt(keySizeAt)
	if !ok {
		return nil, "IndexOutOfBoundsException", fmt.Sprintf("index %d out of bounds for the %d-byte message (key size)", keySizeAt, len(rec))
	}
	valueSizeAt := keySizeAt + 4 + int(max(0, ks))
	vs, ok := getInt(valueSizeAt)
	if !ok {
		return nil, "IndexOutOfBoundsException", fmt.Sprintf("index %d out of bounds for the %d-byte message (value size)", valueSizeAt, len(rec))
	}
	if vs < 0 {
		return nil, "", ""
	}
	if int64(vs) > int64(len(rec)-valueSizeAt-4) {
		return nil, "IllegalArgumentException", fmt.Sprintf("newLimit > capacity: (%d > %d)", vs, len(rec)-valueSizeAt-4)
	}
	return rec[valueSizeAt+4 : valueSizeAt+4+int(vs)], "", ""
}
