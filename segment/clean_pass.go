package segment

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// The clean step on real files (docs/segment.md "The clean step"): Kafka's Cleaner.doClean →
// groupSegmentsBySize → cleanSegments → cleanInto, then UnifiedLog.replaceSegments. What the
// cleaner keeps is the step's (CleanSpec): the offset map, tombstone times and transaction
// state that decide it in Kafka are not modelled.

// cleanSource is what the grouping reads of one source segment (Cleaner.groupSegmentsBySize):
// LogSegment.size and the entries each index holds (AbstractIndex.sizeInBytes, the file's
// length for a trimmed index).
type cleanSource struct {
	base                    int64
	logBytes                int64
	indexBytes, timeBytes   int64
	logPath, idxPath, tPath string
}

// Clean runs one pass of the log cleaner (docs/contract.md §3 "clean") on the log's files. An
// invalid step (a batch named that the pass does not clean, a rewrite of a compressed batch, an
// uncleanable offset inside the active segment) is refused before anything changes. An append
// into a cleaned segment that Kafka's LogSegment.append throws from (a full index, an offset a
// relative offset cannot hold) or a buffer that cannot grow is an event: the log fails, and the
// cleaned segment's .cleaned files stay until a reload deletes them (LogLoader).
func (l *Log) Clean(c CleanSpec) (*Event, error) {
	step := l.step
	l.step++
	switch {
	case l.closed:
		return nil, errors.New("log is closed")
	case l.active == nil:
		return nil, errLostActive
	case l.failed:
		return nil, ErrLogFailed
	}
	activeBase := l.active.base
	uncleanable := activeBase
	if c.HasUncleanableOffset {
		// Cleaner's firstUncleanableDirtyOffset never passes the active segment's base offset
		// (LogCleanerManager.cleanableOffsets).
		if c.UncleanableOffset > activeBase {
			return nil, fmt.Errorf("step %d: clean: uncleanableOffset %d is inside the active segment (base offset %d): Kafka never cleans the active segment", step, c.UncleanableOffset, activeBase)
		}
		uncleanable = c.UncleanableOffset
	}
	ioBuffer := c.IOBufferSize
	if ioBuffer == 0 {
		ioBuffer = DefaultCleanerIOBufferSize
	}
	var sources []cleanSource
	for _, b := range l.bases[:len(l.bases)-1] {
		if b >= uncleanable {
			break
		}
		src, err := l.cleanSourceOf(b)
		if err != nil {
			return nil, fmt.Errorf("step %d: clean: %w", step, err)
		}
		sources = append(sources, src)
	}
	drop := map[int64]bool{}
	for _, o := range c.Drop {
		drop[o] = true
	}
	rewrite := map[int64]CleanRewrite{}
	for _, r := range c.Rewrite {
		if drop[r.BaseOffset] {
			return nil, fmt.Errorf("step %d: clean: batch %d is both dropped and rewritten", step, r.BaseOffset)
		}
		rewrite[r.BaseOffset] = r
	}
	if err := l.checkCleanNames(sources, drop, rewrite); err != nil {
		return nil, fmt.Errorf("step %d: clean: %w", step, err)
	}
	if len(sources) == 0 {
		return nil, nil
	}
	groups := groupCleanSources(sources, l.cfg.SegmentBytes, l.cfg.SegmentIndexBytes, uncleanable)
	var deleted []cleanSource
	cleaner := &cleanPass{l: l, step: step, drop: drop, rewrite: rewrite, ioBuffer: ioBuffer}
	for _, g := range groups {
		ev, err := cleaner.cleanGroup(g)
		if ev != nil || err != nil {
			// The groups swapped before this one still lose their .deleted files: Kafka's
			// scheduler removes them whatever the cleaner does next.
			for _, s := range deleted {
				err = errors.Join(err, l.removeDeletedFiles(s))
			}
			return ev, err
		}
		if err := l.replaceSegments(g[0].base, g); err != nil {
			return nil, err
		}
		deleted = append(deleted, g...)
		// The group's segments leave the log; the cleaned one takes the first one's place.
		i := slices.Index(l.bases, g[0].base)
		l.bases = slices.Delete(l.bases, i+1, i+len(g))
	}
	// LocalLog.deleteSegmentFiles(asyncDelete = true): the .deleted files are removed
	// file.delete.delay.ms later, here at the end of the step.
	for _, s := range deleted {
		if err := l.removeDeletedFiles(s); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// cleanSourceOf reads what the grouping needs of a closed segment.
func (l *Log) cleanSourceOf(base int64) (cleanSource, error) {
	s := cleanSource{base: base}
	s.logPath, s.idxPath, s.tPath = l.paths(base)
	for _, f := range []struct {
		path string
		dst  *int64
	}{{s.logPath, &s.logBytes}, {s.idxPath, &s.indexBytes}, {s.tPath, &s.timeBytes}} {
		st, err := l.fs.Stat(f.path)
		if err != nil {
			return s, err
		}
		*f.dst = st.Size()
	}
	if s.logBytes > math.MaxInt32 {
		return s, fmt.Errorf("%s: %d bytes, more than a segment holds", s.logPath, s.logBytes)
	}
	// AbstractIndex.sizeInBytes is entries × entry size, the entries of a reopened index being
	// its length rounded down to whole entries.
	s.indexBytes -= s.indexBytes % OffsetIndexEntrySize
	s.timeBytes -= s.timeBytes % TimeIndexEntrySize
	return s, nil
}

// checkCleanNames walks the sources' batch headers: every dropped or rewritten base offset
// must name a batch the pass cleans, and a rewrite an uncompressed v2 batch.
func (l *Log) checkCleanNames(sources []cleanSource, drop map[int64]bool, rewrite map[int64]CleanRewrite) error {
	found := map[int64]bool{}
	var head [RecordBatchOverhead]byte
	for _, s := range sources {
		f, err := l.fs.Open(s.logPath)
		if err != nil {
			return err
		}
		for pos := int64(0); pos < s.logBytes; {
			n, err := f.ReadAt(head[:min(int64(len(head)), s.logBytes-pos)], pos)
			if err != nil && !errors.Is(err, io.EOF) {
				f.Close()
				return err
			}
			h, err := ParseBatchHeader(head[:n], s.logPath, pos)
			if err != nil || h.Magic != 2 {
				f.Close()
				return fmt.Errorf("%s at byte %d: the file writer cleans only well-formed v2 batches (%v)", s.logPath, pos, err)
			}
			if drop[h.BaseOffset] || rewrite[h.BaseOffset].Bytes > 0 {
				found[h.BaseOffset] = true
				if _, ok := rewrite[h.BaseOffset]; ok && h.Compression() != CompressionNone {
					f.Close()
					return fmt.Errorf("rewrite of batch %d: it is %s-compressed, and the file writer rebuilds only uncompressed batches at an exact size", h.BaseOffset, h.Compression())
				}
			}
			pos += h.SizeInBytes()
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	var missing []int64
	for o := range drop {
		if !found[o] {
			missing = append(missing, o)
		}
	}
	for o := range rewrite {
		if !found[o] {
			missing = append(missing, o)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("batch %d is no batch of the segments this pass cleans (the non-active segments below the uncleanable offset)", missing[0])
	}
	return nil
}

// groupCleanSources is Cleaner.groupSegmentsBySize as 3.0+ writes it (the eras the file
// writer writes; docs/kafka.md §14.1): each group takes the following segments while its
// .log bytes and its offset- and time-index bytes, summed as longs (KAFKA-6030), stay at or
// below segment.bytes and segment.index.bytes, and the candidate's offsets -- up to the next
// segment's base offset - 1, or the first uncleanable offset - 1 for the last one (KAFKA-5413)
// -- stay within Int.MaxValue of the group's base; an empty candidate skips that range check
// (KAFKA-12889). Package model has its own version (model.GroupSegmentsBySize): segment
// never imports model.
func groupCleanSources(srcs []cleanSource, maxSize, maxIndexSize, firstUncleanable int64) [][]cleanSource {
	var groups [][]cleanSource
	for i := 0; i < len(srcs); {
		first := srcs[i]
		group := []cleanSource{first}
		logSize, indexSize, timeSize := first.logBytes, first.indexBytes, first.timeBytes
		for i++; i < len(srcs); i++ {
			c := srcs[i]
			if logSize+c.logBytes > maxSize || indexSize+c.indexBytes > maxIndexSize || timeSize+c.timeBytes > maxIndexSize {
				break
			}
			last := firstUncleanable - 1
			if i+1 < len(srcs) {
				last = srcs[i+1].base - 1
			}
			if c.logBytes != 0 && last-first.base > math.MaxInt32 {
				break
			}
			group = append(group, c)
			logSize += c.logBytes
			indexSize += c.indexBytes
			timeSize += c.timeBytes
		}
		groups = append(groups, group)
	}
	return groups
}

// cleanPass is one clean step's state: what it keeps, and the buffers' capacity.
type cleanPass struct {
	l        *Log
	step     int
	drop     map[int64]bool
	rewrite  map[int64]CleanRewrite
	ioBuffer int64
	read     []byte // the read buffer's bytes (its capacity is tracked in cleanInto)
	out      []byte // the write buffer: the chunk's retained batches, one after another
	kept     []retainedBatch
	batches  [][]byte
}

// retainedBatch is where a retained batch of a chunk lies in the write buffer.
type retainedBatch struct {
	start, end int
}

// cleanGroup is Cleaner.cleanSegments for one group, up to the swap: a new segment
// <base>.log.cleaned (LocalLog.createNewCleanedSegment: LogSegment.open with the ".cleaned"
// suffix, fresh indexes of segment.index.bytes), every source segment cleaned into it
// (cleanInto), then onBecomeInactiveSegment (the final time-index entry and the trims) and
// flush. An event leaves the .cleaned files as Kafka's thrown exception does.
func (p *cleanPass) cleanGroup(g []cleanSource) (*Event, error) {
	l := p.l
	dest, err := l.newSegmentFiles(g[0].base, CleanedSuffix)
	if err != nil {
		return nil, err
	}
	for _, src := range g {
		ev, err := p.cleanInto(src, dest)
		if ev != nil || err != nil {
			return ev, errors.Join(err, dest.closeFiles())
		}
	}
	if err := dest.onBecomeInactive(); err != nil {
		return nil, errors.Join(err, dest.closeFiles())
	}
	if err := dest.flush(); err != nil {
		return nil, errors.Join(err, dest.closeFiles())
	}
	return nil, dest.closeFiles()
}

// cleanInto is Cleaner.cleanInto: the source .log read from position 0 in chunks of the read
// buffer's capacity; each chunk is the whole batches that fit (MemoryRecords' batch iterator
// stops at one that does not); its retained batches -- kept byte for byte, rebuilt, dropped
// ones left out -- are one LogSegment.append into dest. A chunk that holds no whole batch grows
// the buffers (growBuffersOrFail); the capacity is restored at the end (restoreBuffers).
func (p *cleanPass) cleanInto(src cleanSource, dest *writeSegment) (*Event, error) {
	l := p.l
	f, err := l.fs.Open(src.logPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	capacity := p.ioBuffer
	for pos := int64(0); pos < src.logBytes; {
		n := min(capacity, src.logBytes-pos)
		if int64(cap(p.read)) < n {
			p.read = make([]byte, n)
		}
		buf := p.read[:n]
		if _, err := f.ReadAt(buf, pos); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		p.out, p.kept, p.batches = p.out[:0], p.kept[:0], p.batches[:0]
		var bytesRead, retainedBytes, largest int64
		for off := int64(0); off+LogOverhead <= n; {
			size := LogOverhead + int64(int32(binary.BigEndian.Uint32(buf[off+8:])))
			if size < LogOverhead+MinRecordOverhead {
				return nil, formatErr(src.logPath, pos+off, "CorruptRecordException: record size %d is less than the minimum record overhead (%d)", size-LogOverhead, MinRecordOverhead)
			}
			if off+size > n {
				break
			}
			b := buf[off : off+size]
			off += size
			bytesRead = off
			base := int64(binary.BigEndian.Uint64(b))
			if p.drop[base] {
				continue
			}
			// The write buffer: kept batches copied (batch.writeTo), rebuilt ones built there.
			start := len(p.out)
			if rw, ok := p.rewrite[base]; ok {
				if p.out, err = appendRebuiltBatch(p.out, b, rw, src.logPath, pos+off-size); err != nil {
					return nil, err
				}
			} else {
				p.out = append(p.out, b...)
			}
			at := retainedBatch{start: start, end: len(p.out)}
			p.kept = append(p.kept, at)
			retainedBytes += int64(at.end - at.start)
			largest = batchLastOffset(b) // a rebuilt batch keeps the last offset
			if retainedBytes > capacity {
				// MemoryRecords.filterTo: the write buffer, as large as the read buffer, had
				// to grow for this batch (a rebuilt batch larger than its source), and
				// filterTo returns early (KAFKA-5316): the chunk ends after it.
				break
			}
		}
		for _, k := range p.kept {
			p.batches = append(p.batches, p.out[k.start:k.end:k.end])
		}
		if len(p.batches) > 0 {
			// LogSegment.append → ensureOffsetInRange(largestOffset), then FileRecords.append's
			// size check.
			if rel := largest - dest.base; rel < 0 || rel > math.MaxInt32 {
				l.failed = true
				return l.addEvent(Event{Kind: EventOffsetOverflow, Step: p.step,
					Message: fmt.Sprintf("Detected offset overflow at offset %d in segment %d", largest, dest.base)}), nil
			}
			if retainedBytes > math.MaxInt32-dest.size {
				l.failed = true
				return l.addEvent(Event{Kind: EventSegmentSizeOverflow, Step: p.step, Bytes: retainedBytes,
					Message: fmt.Sprintf("Append of size %d bytes is too large for segment with current file position at %d", retainedBytes, dest.size)}), nil
			}
			err := dest.append(l, p.batches, p.out, retainedBytes, largest)
			var full *indexFullError
			if errors.As(err, &full) {
				l.failed = true
				return l.addEvent(Event{Kind: full.kind, Step: p.step, Message: full.msg}), nil
			}
			if err != nil {
				return nil, err
			}
		}
		pos += bytesRead
		if bytesRead == 0 {
			// growBuffersOrFail: below max.message.bytes grow towards it; at or above it, to
			// the next batch's own size (which is larger than the buffer, or it would have
			// been read).
			maxSize := l.cfg.MaxMessageBytes
			if capacity >= l.cfg.MaxMessageBytes {
				// MemoryRecords.firstBatchSize reads the size from the buffer, which must
				// hold the header up to the magic byte (only a max.message.bytes below 17
				// leaves it shorter).
				if n < HeaderSizeUpToMagic {
					l.failed = true
					return l.addEvent(Event{Kind: EventCleanerBufferOverflow, Step: p.step,
						Message: fmt.Sprintf("Could not determine next batch size for log segment %s at position %d", src.logPath, pos)}), nil
				}
				next := LogOverhead + int64(int32(binary.BigEndian.Uint32(buf[8:])))
				if next > src.logBytes-pos {
					return nil, formatErr(src.logPath, pos, "CorruptRecordException: Log segment may be corrupt, batch size %d > %d bytes left in segment", next, src.logBytes-pos)
				}
				maxSize = next
			}
			// growBuffers: the bound is the larger of that size and maxIoBufferSize.
			bound := max(maxSize, l.cfg.MaxMessageBytes)
			if capacity >= bound {
				l.failed = true
				return l.addEvent(Event{Kind: EventCleanerBufferOverflow, Step: p.step,
					Message: fmt.Sprintf("This log contains a message larger than maximum allowable size of %d.", bound)}), nil
			}
			// The doubling is a Java int: past 2^31-1 it wraps negative, and
			// ByteBuffer.allocate refuses the capacity.
			doubled := int64(int32(capacity * 2))
			if next := min(doubled, bound); next < 0 {
				l.failed = true
				return l.addEvent(Event{Kind: EventCleanerBufferOverflow, Step: p.step,
					Message: fmt.Sprintf("capacity < 0: (%d < 0)", next)}), nil
			}
			capacity = min(doubled, bound)
		}
	}
	return nil, nil
}
