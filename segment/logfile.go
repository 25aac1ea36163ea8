package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"path/filepath"
	"sync"
)

// Access selects how a LogFile reads: one pread per request, or an mmap of
// the file. Readers never write either way. See docs/segment.md for the
// measurements behind DefaultAccess.
type Access int

// Access modes.
const (
	AccessPread Access = iota
	AccessMmap
)

// DefaultAccess is used by OpenLog and OpenSegment.
var DefaultAccess = AccessMmap

// LogFile is a read-only .log file. It is not safe for concurrent use (it
// owns one read buffer).
type LogFile struct {
	Path       string
	BaseOffset int64 // from the file name; -1 when the name has no offset
	size       int64
	f          logSource
	access     Access
	mm         fileBytes
	// mem is the whole file as bytes in memory (LogFileFromBytes), which no other process can
	// truncate: reads slice it directly, with no copy and no fault guard.
	mem        []byte
	buf        []byte  // pread window
	tsBuf      []int64 // RecordTimestamps' (offset, timestamp) pairs read under the fault guard
	bufPos     int64
	bufLen     int
	readAhead  int
	skipWindow bool // the last batch read was larger than readAhead
	// smallRun counts the batches in a row no larger than a page-sized readAhead: every page
	// then holds a header, and reading more of them per pread reads no page the walk would
	// not (wideWindow).
	smallRun int
	// prefetchWalks maps a walk's range ahead on other cores (SetPrefetch).
	prefetchWalks bool
}

// logSource is what a LogFile reads: an *os.File opened O_RDONLY, a file of another
// filesystem (docs/vfs.md), or bytes in memory.
type logSource interface {
	io.ReaderAt
	Close() error
}

// keepOpen is a logSource whose Close leaves the file open: the LogFile only borrows it.
type keepOpen struct{ io.ReaderAt }

func (keepOpen) Close() error { return nil }

// LogFileFromBytes is a LogFile over data, a .log's whole contents already in memory (a file of
// an in-memory filesystem, a fuzzer's input). path names it in errors and gives the base offset.
// data must not change while the LogFile is in use. Reads return slices of data itself (bytes in
// memory cannot fault as a mapped file can), which no caller may modify.
func LogFileFromBytes(path string, data []byte) *LogFile {
	return &LogFile{Path: path, BaseOffset: baseFromName(path), size: int64(len(data)), f: keepOpen{bytes.NewReader(data)},
		access: AccessMmap, mm: fileBytes{data: data}, mem: data, readAhead: RecordBatchOverhead}
}

// logFileOn is a LogFile reading size bytes of r with preads, without owning r: the writer reads
// its own active .log through it (Recover), whatever filesystem holds it.
func logFileOn(path string, r io.ReaderAt, size int64) *LogFile {
	return &LogFile{Path: path, BaseOffset: baseFromName(path), size: size, f: keepOpen{r}, access: AccessPread, readAhead: RecordBatchOverhead}
}

func baseFromName(path string) int64 {
	base, err := OffsetFromFileName(filepath.Base(path))
	if err != nil {
		return -1
	}
	return base
}

// OpenLog opens path O_RDONLY with DefaultAccess.
func OpenLog(path string) (*LogFile, error) { return OpenLogWith(path, DefaultAccess) }

// OpenLogWith opens path O_RDONLY with the given access mode.
func OpenLogWith(path string, access Access) (*LogFile, error) {
	f, size, err := openReadOnly(path)
	if err != nil {
		return nil, err
	}
	l := &LogFile{Path: path, BaseOffset: baseFromName(path), size: size, f: f, access: access, readAhead: RecordBatchOverhead}
	if access == AccessMmap {
		if l.mm, err = mapFile(f, size); err != nil {
			f.Close()
			return nil, err
		}
	}
	return l, nil
}

// Size is the file size at open time; walks never go past it.
func (l *LogFile) Size() int64 { return l.size }

// SetReadAhead sets how many bytes one pread fetches at least (default 61:
// one batch header per hop): header walks use a page (HeaderWindow), dumps 1 MiB.
func (l *LogFile) SetReadAhead(n int) { l.readAhead = max(n, RecordBatchOverhead) }

// SetPrefetch makes walks of a mapped file map their range ahead on the other cores: worth it
// for walks that read every byte (verify --deep, dump), not for short ones that stop early.
func (l *LogFile) SetPrefetch(on bool) { l.prefetchWalks = on }

// ReadAhead is the read-ahead in bytes (SetReadAhead).
func (l *LogFile) ReadAhead() int { return l.readAhead }

// Access is how the file is read: AccessPread or AccessMmap.
func (l *LogFile) Access() Access { return l.access }

// PreadView is a second reader of the same open file, for another goroutine: it reads with
// pread (safe to share) and reads ahead one batch header. It must not outlive l, and it is not
// closed: l owns the file.
func (l *LogFile) PreadView() *LogFile {
	return &LogFile{Path: l.Path, BaseOffset: l.BaseOffset, size: l.size, f: l.f, access: AccessPread, readAhead: RecordBatchOverhead}
}

// ReadBytes returns the n bytes at pos (fewer at the end of the file, with
// io.ErrUnexpectedEOF). The slice is valid until the next read, and no caller may modify it.
func (l *LogFile) ReadBytes(pos int64, n int) ([]byte, error) { return l.read(pos, n) }

// Close releases the file (and mapping).
func (l *LogFile) Close() error {
	if cap(l.buf) == wideWindow {
		b := l.buf[:0]
		windows.Put(&b)
	}
	l.buf = nil
	err := l.mm.unmap()
	if e := l.f.Close(); err == nil {
		err = e
	}
	return err
}

// read returns file bytes [pos, pos+n); fewer only at end of file (then
// with io.ErrUnexpectedEOF). The slice is valid until the next read, and read-only.
func (l *LogFile) read(pos int64, n int) ([]byte, error) {
	if pos < 0 || pos > l.size {
		return nil, formatErr(l.Path, pos, "position outside the file (size %d)", l.size)
	}
	avail := l.size - pos
	short := false
	if int64(n) > avail {
		n, short = int(avail), true
	}
	if l.mem != nil {
		b := l.mem[pos : pos+int64(n) : pos+int64(n)]
		if short {
			return b, io.ErrUnexpectedEOF
		}
		return b, nil
	}
	if l.access == AccessMmap {
		if cap(l.buf) < n {
			l.buf = make([]byte, max(n, RecordBatchOverhead))
		}
		b := l.buf[:n]
		l.bufLen = 0 // the pread window no longer describes buf
		if err := l.mm.copyMapped(b, pos, l.Path); err != nil {
			return nil, err
		}
		if short {
			return b, io.ErrUnexpectedEOF
		}
		return b, nil
	}
	if pos >= l.bufPos && pos+int64(n) <= l.bufPos+int64(l.bufLen) {
		off := int(pos - l.bufPos)
		b := l.buf[off : off+n]
		if short {
			return b, io.ErrUnexpectedEOF
		}
		return b, nil
	}
	want := max(n, l.readAhead)
	if l.smallRun > 0 {
		want = max(n, min(wideWindow, l.readAhead<<min(l.smallRun, 5)))
	}
	if l.skipWindow {
		// The last batch was larger than the window: the next header is as far away, and
		// reading the window would only copy payload.
		want = n
	}
	if int64(want) > avail {
		want = int(avail)
	}
	if cap(l.buf) < want {
		l.buf = windowBuffer(want)
	}
	got, err := l.f.ReadAt(l.buf[:want], pos)
	l.bufPos, l.bufLen = pos, got
	if got < n {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return l.buf[:got], err
	}
	if short {
		return l.buf[:n], io.ErrUnexpectedEOF
	}
	return l.buf[:n], nil
}

// wideWindow bounds a header walk's reads while its batches are small: each small batch in a
// row doubles the read (a broker's directory of small segments was read with 24 preads per
// segment at one page each).
const wideWindow = 64 << 10

// windows holds the read windows of closed LogFiles for the next ones: a directory's walk
// opens a LogFile per segment.
var windows sync.Pool

// windowBuffer is a read buffer of at least n bytes: a pooled wideWindow one when that is
// enough.
func windowBuffer(n int) []byte {
	if n > wideWindow {
		return make([]byte, n)
	}
	if b, ok := windows.Get().(*[]byte); ok {
		return (*b)[:wideWindow]
	}
	return make([]byte, wideWindow)
}

// BatchInfo is one entry of the .log walk: the framing plus the v2 header
// (61 bytes) or the legacy message header.
type BatchInfo struct {
	Position int64
	Size     int64 // LOG_OVERHEAD + size field = sizeInBytes
	Magic    int8
	Header   BatchHeader  // Magic >= 2
	Legacy   LegacyHeader // Magic < 2
}

// IsLegacy reports a v0/v1 entry.
func (b BatchInfo) IsLegacy() bool { return b.Magic < 2 }

// BaseOffset is the v2 base offset; for legacy entries the offset field
// (the last offset; a compressed wrapper's base offset would need
// decompression, which Kafka's lazy batch also avoids until asked).
func (b BatchInfo) BaseOffset() int64 {
	if b.IsLegacy() {
		return b.Legacy.Offset
	}
	return b.Header.BaseOffset
}

// LastOffset is DefaultRecordBatch.lastOffset / the legacy offset field.
func (b BatchInfo) LastOffset() int64 {
	if b.IsLegacy() {
		return b.Legacy.Offset
	}
	return b.Header.LastOffset()
}

// MaxTimestamp is the v2 header field / the v1 timestamp (-1 for v0).
func (b BatchInfo) MaxTimestamp() int64 {
	if b.IsLegacy() {
		return b.Legacy.Timestamp
	}
	return b.Header.MaxTimestamp
}

// End is the position after the batch.
func (b BatchInfo) End() int64 { return b.Position + b.Size }

// ErrNoBatch ends a walk without corruption (end of data or a truncated tail).
var ErrNoBatch = errors.New("no batch")

// NextBatch reads the entry at pos exactly as FileLogInputStream.nextBatch
// decides, with end the walk's limit (normally Size()):
//   - pos >= end-17: end of stream (a tail of <= 17 bytes is ignored);
//   - size field < 14: corrupt ("Found record size ... smaller than minimum
//     record overhead (14)");
//   - the entry would run past end: end of stream, no error (truncated tail;
//     a huge size field is never trusted beyond the file size);
//   - magic < 2: legacy entry, else v2 (magic is not otherwise validated).
//
// It returns ErrNoBatch at end of stream. A v2 entry shorter than 61 bytes
// is reported as corrupt here, where Kafka would read garbage for the header
// and fail later in ensureValid.
func (l *LogFile) NextBatch(pos, end int64) (BatchInfo, error) {
	end = min(end, l.size)
	if pos >= end-HeaderSizeUpToMagic {
		return BatchInfo{}, ErrNoBatch
	}
	want := RecordBatchOverhead
	if int64(want) > end-pos {
		want = int(end - pos)
	}
	hdr, err := l.read(pos, want)
	if err != nil && len(hdr) < HeaderSizeUpToMagic {
		return BatchInfo{}, formatErr(l.Path, pos, "Unexpected EOF while attempting to read the next batch: %v", err)
	}
	size := int32(binary.BigEndian.Uint32(hdr[8:]))
	if size < MinRecordOverhead {
		return BatchInfo{}, formatErr(l.Path, pos+8, "Found record size %d smaller than minimum record overhead (%d) in file %s.", size, MinRecordOverhead, l.Path)
	}
	if pos > end-LogOverhead-int64(size) {
		return BatchInfo{}, ErrNoBatch
	}
	b := BatchInfo{Position: pos, Size: LogOverhead + int64(size), Magic: int8(hdr[MagicOffset])}
	l.skipWindow = b.Size > int64(l.readAhead)
	if l.readAhead >= pageSize && l.readAhead < wideWindow && !l.skipWindow {
		l.smallRun++
	} else {
		l.smallRun = 0
	}
	if b.Magic >= 2 {
		if b.Size < RecordBatchOverhead {
			return b, formatErr(l.Path, pos+8, "Record batch is corrupt (the size %d is smaller than the minimum allowed overhead %d)", b.Size, RecordBatchOverhead)
		}
		if len(hdr) >= RecordBatchOverhead {
			b.Header = parseWholeBatchHeader(hdr)
			return b, nil
		}
		b.Header, err = ParseBatchHeader(hdr, l.Path, pos)
		return b, err
	}
	n := LogOverhead + legacyHeaderSizeV0
	if b.Magic == 1 {
		n = LogOverhead + legacyHeaderSizeV1
	}
	if b.Size < int64(n) {
		return b, formatErr(l.Path, pos+8, "legacy message size %d is smaller than its header (%d)", size, n-LogOverhead)
	}
	b.Legacy, err = ParseLegacyHeader(hdr[:n], l.Path, pos)
	return b, err
}

// WalkResult says where and why a walk stopped.
type WalkResult struct {
	Batches    int
	ValidBytes int64 // position after the last batch returned
	End        int64 // the limit the walk ran to
	Err        error // corruption that stopped the walk (nil for a clean end or truncated tail)
}

// TrailingBytes are the bytes after the last whole batch (DumpLogSegments'
// "Found N invalid bytes at the end").
func (r WalkResult) TrailingBytes() int64 { return r.End - r.ValidBytes }

// Walk calls fn for every batch from start to end (<= 0: the file size),
// following NextBatch. fn returning false stops the walk. On a mapped file set to prefetch
// (SetPrefetch, for walks that read the whole range) the range is mapped ahead on the other
// cores while the walk reads.
func (l *LogFile) Walk(start, end int64, fn func(BatchInfo) bool) WalkResult {
	if end <= 0 || end > l.size {
		end = l.size
	}
	if l.prefetchWalks && l.access == AccessMmap {
		defer l.mm.prefetch(start, end)()
	}
	res := WalkResult{ValidBytes: start, End: end}
	l.walkTo(&res, start, math.MaxInt64, end, fn)
	return res
}

// walkTo walks from pos while the next batch would start before stop, into res; it returns
// where it stopped and whether the walk is over (end of data, corruption, or fn said stop).
func (l *LogFile) walkTo(res *WalkResult, pos, stop, end int64, fn func(BatchInfo) bool) (int64, bool) {
	for pos < stop {
		b, err := l.NextBatch(pos, end)
		if err == ErrNoBatch {
			return pos, true
		}
		if err != nil {
			res.Err = err
			return pos, true
		}
		res.Batches++
		pos = b.End()
		res.ValidBytes = pos
		if !fn(b) {
			return pos, true
		}
	}
	return pos, false
}

// crcChunk bounds memory while checking a batch of any size.
const crcChunk = 1 << 20

// CheckBatch is ensureValid for the batch b of this file: v2 CRC-32C over
// [21, end) / legacy CRC-32 over magic..end, streamed in 1 MiB chunks so a
// batch of any size costs bounded memory.
func (l *LogFile) CheckBatch(b BatchInfo) error {
	from, stored, crcPos := b.Position+attributesOffset, b.Header.CRC, b.Position+crcOffset
	table := castagnoli
	if b.IsLegacy() {
		// LegacyRecord: the CRC is the message's first field, after offset and size.
		from, stored, table, crcPos = b.Position+MagicOffset, b.Legacy.CRC, crc32.IEEETable, b.Position+LogOverhead
	}
	if b.End() > l.size {
		return formatErr(l.Path, b.Position, "batch runs past the end of the file (size %d)", l.size)
	}
	var c uint32
	if l.mem != nil {
		if c = crc32.Update(0, table, l.mem[from:b.End()]); c != stored {
			return formatErr(l.Path, crcPos, "Record is corrupt (stored crc = %d, computed crc = %d)", stored, c)
		}
		return nil
	}
	if l.access == AccessMmap {
		var err error
		if c, err = l.mm.updateCRCMapped(0, table, from, int(b.End()-from), l.Path); err != nil {
			return err
		}
		if c != stored {
			return formatErr(l.Path, crcPos, "Record is corrupt (stored crc = %d, computed crc = %d)", stored, c)
		}
		return nil
	}
	for pos := from; pos < b.End(); {
		n := int(min(int64(crcChunk), b.End()-pos))
		chunk, err := l.read(pos, n)
		if err != nil {
			return formatErr(l.Path, pos, "reading batch for CRC: %v", err)
		}
		c = crc32.Update(c, table, chunk)
		pos += int64(n)
	}
	if c != stored {
		return formatErr(l.Path, crcPos, "Record is corrupt (stored crc = %d, computed crc = %d)", stored, c)
	}
	return nil
}

// ReadBatch returns the whole batch b (at most the file size, which NextBatch
// already checked). The slice is valid until the next read.
func (l *LogFile) ReadBatch(b BatchInfo) ([]byte, error) {
	if b.Size > int64(maxInMemory) {
		return nil, formatErr(l.Path, b.Position, "batch of %d bytes too large to load", b.Size)
	}
	data, err := l.read(b.Position, int(b.Size))
	if err != nil {
		return nil, formatErr(l.Path, b.Position, "reading batch: %v", err)
	}
	return data, nil
}

// RecordTimestamps calls fn(offset, timestamp) for every record of batch b,
// as Kafka's record iteration reports them, whatever the batch's kind (as
// Records does): LogAppendTime batches report the batch max timestamp,
// compressed batches and legacy wrappers their inner records.
//
// An uncompressed v2 data batch is read in place when the file is bytes in memory or mapped
// (the mapped bytes under guardFault), and only each record's timestamp and offset delta are
// kept, with every check Records makes. At anything Records would refuse (or a fault, or any
// other kind of batch) Records takes over from the first record not yet reported, so fn sees
// the same records and the error is Records' own. fn must not use l.
func (l *LogFile) RecordTimestamps(b BatchInfo, fn func(offset, ts int64) bool) error {
	skip := 0
	if !b.IsLegacy() && b.Position >= 0 && b.Size >= RecordBatchOverhead && b.End() <= l.size {
		reported, done := l.timestampsInPlace(b, fn)
		if done {
			return nil
		}
		skip = reported
	}
	return l.Records(b, RecordLimits{}, func(r DecodedRecord) bool {
		if skip > 0 {
			skip--
			return true
		}
		return fn(r.Offset, r.Timestamp)
	})
}

// timestampsInPlace is RecordTimestamps' fast path for b, a v2 batch inside the file: it
// returns how many records fn was given and whether the batch is done (fn stopped, or every
// record given and the batch well formed). Not done, Records must go on after them.
func (l *LogFile) timestampsInPlace(b BatchInfo, fn func(offset, ts int64) bool) (reported int, done bool) {
	if l.mem != nil {
		s, ok := newV2Skim(l.mem[b.Position:b.End()], l.Path)
		if !ok {
			return 0, false
		}
		for {
			off, ts, res := s.next()
			switch {
			case res == skimEnd:
				return reported, true
			case res == skimRefused:
				return reported, false
			}
			reported++
			if !fn(off, ts) {
				return reported, true
			}
		}
	}
	if l.access != AccessMmap || int64(len(l.mm.data)) < b.End() {
		return 0, false
	}
	// Mapped: the records are read under guardFault in runs (1, 2, 4, ... up to 64 records,
	// so that a search that stops at the first record reads one), and fn runs outside the
	// guard, so that a fault of its own does not read as a shrunk file.
	var s v2Skim
	started, res := false, skimRecord
	for run := 1; ; run = min(2*run, 64) {
		pairs := l.tsBuf[:0]
		if guardFault(l.Path, b.Position, func() {
			if !started {
				var ok bool
				if s, ok = newV2Skim(l.mm.data[b.Position:b.End()], l.Path); !ok {
					res = skimRefused
					return
				}
				started = true
			}
			for len(pairs) < 2*run {
				var off, ts int64
				if off, ts, res = s.next(); res != skimRecord {
					return
				}
				pairs = append(pairs, off, ts)
			}
		}) != nil {
			// Records reads the batch again under its own guard and reports the fault as
			// before, after the records already given.
			return reported, false
		}
		l.tsBuf = pairs[:0]
		for i := 0; i < len(pairs); i += 2 {
			reported++
			if !fn(pairs[i], pairs[i+1]) {
				return reported, true
			}
		}
		if res != skimRecord {
			return reported, res == skimEnd
		}
	}
}

// parseWholeBatchHeader is ParseBatchHeader for a slice that holds the whole 61-byte header,
// which then cannot fail: the fields read straight, without the bounds-checked reader the
// walk paid for on every hop.
func parseWholeBatchHeader(b []byte) BatchHeader {
	_ = b[RecordBatchOverhead-1]
	be := binary.BigEndian
	return BatchHeader{
		BaseOffset:           int64(be.Uint64(b[0:])),
		Length:               int32(be.Uint32(b[8:])),
		PartitionLeaderEpoch: int32(be.Uint32(b[12:])),
		Magic:                int8(b[16]),
		CRC:                  be.Uint32(b[17:]),
		Attributes:           int16(be.Uint16(b[21:])),
		LastOffsetDelta:      int32(be.Uint32(b[23:])),
		BaseTimestamp:        int64(be.Uint64(b[27:])),
		MaxTimestamp:         int64(be.Uint64(b[35:])),
		ProducerID:           int64(be.Uint64(b[43:])),
		ProducerEpoch:        int16(be.Uint16(b[51:])),
		BaseSequence:         int32(be.Uint32(b[53:])),
		RecordCount:          int32(be.Uint32(b[57:])),
	}
}

func (b BatchInfo) String() string {
	return fmt.Sprintf("batch@%d[%d..%d size %d]", b.Position, b.BaseOffset(), b.LastOffset(), b.Size)
}
