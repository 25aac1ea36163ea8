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
	buf        []byte // pread window
	bufPos     int64
	bufLen     int
	readAhead  int
	skipWindow bool // the last batch read was larger than readAhead
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
// data must not change while the LogFile is in use.
func LogFileFromBytes(path string, data []byte) *LogFile {
	return &LogFile{Path: path, BaseOffset: baseFromName(path), size: int64(len(data)), f: keepOpen{bytes.NewReader(data)},
		access: AccessMmap, mm: fileBytes{data: data}, readAhead: RecordBatchOverhead}
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

// Close releases the file (and mapping).
func (l *LogFile) Close() error {
	err := l.mm.unmap()
	if e := l.f.Close(); err == nil {
		err = e
	}
	return err
}

// read returns file bytes [pos, pos+n); fewer only at end of file (then
// with io.ErrUnexpectedEOF). The slice is valid until the next read.
func (l *LogFile) read(pos int64, n int) ([]byte, error) {
	if pos < 0 || pos > l.size {
		return nil, formatErr(l.Path, pos, "position outside the file (size %d)", l.size)
	}
	avail := l.size - pos
	short := false
	if int64(n) > avail {
		n, short = int(avail), true
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
	if l.skipWindow {
		// The last batch was larger than the window: the next header is as far away, and
		// reading the window would only copy payload.
		want = n
	}
	if int64(want) > avail {
		want = int(avail)
	}
	if cap(l.buf) < want {
		l.buf = make([]byte, want)
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

// errNoBatch ends a walk without corruption (end of data or a truncated tail).
var errNoBatch = errors.New("no batch")

// NextBatch reads the entry at pos exactly as FileLogInputStream.nextBatch
// decides, with end the walk's limit (normally Size()):
//   - pos >= end-17: end of stream (a tail of <= 17 bytes is ignored);
//   - size field < 14: corrupt ("Found record size ... smaller than minimum
//     record overhead (14)");
//   - the entry would run past end: end of stream, no error (truncated tail;
//     a huge size field is never trusted beyond the file size);
//   - magic < 2: legacy entry, else v2 (magic is not otherwise validated).
//
// It returns errNoBatch at end of stream. A v2 entry shorter than 61 bytes
// is reported as corrupt here, where Kafka would read garbage for the header
// and fail later in ensureValid.
func (l *LogFile) NextBatch(pos, end int64) (BatchInfo, error) {
	end = min(end, l.size)
	if pos >= end-HeaderSizeUpToMagic {
		return BatchInfo{}, errNoBatch
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
		return BatchInfo{}, errNoBatch
	}
	b := BatchInfo{Position: pos, Size: LogOverhead + int64(size), Magic: int8(hdr[magicOffset])}
	l.skipWindow = b.Size > int64(l.readAhead)
	if b.Magic >= 2 {
		if b.Size < RecordBatchOverhead {
			return b, formatErr(l.Path, pos+8, "Record batch is corrupt (the size %d is smaller than the minimum allowed overhead %d)", b.Size, RecordBatchOverhead)
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
		if err == errNoBatch {
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
		from, stored, table, crcPos = b.Position+magicOffset, b.Legacy.CRC, crc32.IEEETable, b.Position+LogOverhead
	}
	if b.End() > l.size {
		return formatErr(l.Path, b.Position, "batch runs past the end of the file (size %d)", l.size)
	}
	var c uint32
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
// as Kafka's record iteration reports them, whatever the batch's kind (it goes
// through Records): LogAppendTime batches report the batch max timestamp,
// compressed batches and legacy wrappers their inner records.
func (l *LogFile) RecordTimestamps(b BatchInfo, fn func(offset, ts int64) bool) error {
	return l.Records(b, RecordLimits{}, func(r DecodedRecord) bool { return fn(r.Offset, r.Timestamp) })
}

func (b BatchInfo) String() string {
	return fmt.Sprintf("batch@%d[%d..%d size %d]", b.Position, b.BaseOffset(), b.LastOffset(), b.Size)
}
