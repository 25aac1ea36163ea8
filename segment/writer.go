package segment

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"sync"

	"kidx/segment/vfs"
)

// Event kinds (docs/contract.md §4).
const (
	EventRejected            = "rejected"
	EventOffsetIndexOverflow = "offset-index-overflow"
	EventTimeIndexOverflow   = "time-index-overflow"
)

// Event is a rejected append or an index overflow, with the 0-based step
// (call of Append/Restart/Recover on the Log) where it happened.
type Event struct {
	Kind    string `json:"kind"`
	Step    int    `json:"step"`
	Bytes   int64  `json:"bytes,omitempty"` // size of the rejected append
	Message string `json:"message"`         // Kafka's exception message
}

// ErrLogFailed is returned for any operation but Close after an index
// overflow: Kafka's LogSegment.append threw, the partition is offline.
var ErrLogFailed = errors.New("log failed after an index overflow; only Close is allowed")

// errLostActive is returned for any operation but Close after an I/O error left the log
// without an active segment (a roll or reopen whose files could not be made): Kafka takes
// the log dir offline on an IOException (LogDirFailureChannel).
var errLostActive = errors.New("the log has no active segment after an earlier I/O error; only Close is allowed")

// errRollStep refuses a forced roll: the writer rolls only by Kafka's own rules.
var errRollStep = errors.New("a roll step: the file writer rolls only as Kafka does (size, time, a full index), and cannot replay an operator's or the cleaner's roll")

// indexFullError is Kafka's IllegalArgumentException from a full index.
type indexFullError struct {
	kind string
	msg  string
}

func (e *indexFullError) Error() string { return e.msg }

// Log writes a partition directory as Kafka's UnifiedLog + LogSegment do:
// offsets assigned in order, maybeRoll once per append, the chosen append
// rule inside the active segment. It is not safe for concurrent use.
type Log struct {
	fs         vfs.FS
	dir        string
	cfg        Config
	rule       Rule
	nextOffset int64
	active     *writeSegment
	bases      []int64
	events     []Event
	step       int
	failed     bool
	closed     bool
	buf        []byte
	batches    [][]byte
	// recoveryPoint is UnifiedLog's recovery point: every offset below it is flushed. It
	// advances when a flush completes (LocalLog.markFlushed) and never passes the log end.
	recoveryPoint int64
	// checkpoint, when set, is the recovery-point-offset-checkpoint the log keeps
	// (KeepRecoveryCheckpoint).
	checkpoint *recoveryCheckpoint
	// sequences is each transactional producer's next base sequence.
	sequences map[int64]int32
}

// CreateLog starts a log in dir (created if missing) whose first segment
// has base offset startOffset. Existing files with the same names are
// overwritten: callers that must not clobber a directory check first.
func CreateLog(dir string, cfg Config, rule Rule, startOffset int64) (*Log, error) {
	return CreateLogFS(vfs.OS, dir, cfg, rule, startOffset)
}

// CreateLogFS is CreateLog on fsys (docs/vfs.md). The log syncs where Kafka
// flushes: the previous segment after a roll and the active one on Close and
// Restart, each as LogSegment.flush does (the .log, then the .index, then the
// .timeindex), then the directory, so that the segments' names are durable too;
// the directory's parent is synced once, after the directory is created.
func CreateLogFS(fsys vfs.FS, dir string, cfg Config, rule Rule, startOffset int64) (*Log, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if startOffset < 0 {
		return nil, fmt.Errorf("start offset %d is negative", startOffset)
	}
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// The directory's own name is durable once its parent is synced. A parent
	// the user may write into but not list (no read permission) cannot be opened
	// to sync; writing there worked before the writer synced, so it still does.
	if err := fsys.SyncDir(filepath.Dir(dir)); err != nil && !errors.Is(err, fs.ErrPermission) {
		return nil, err
	}
	l := &Log{fs: fsys, dir: dir, cfg: cfg, rule: rule, nextOffset: startOffset}
	seg, err := l.newSegment(startOffset)
	if err != nil {
		return nil, err
	}
	l.active = seg
	l.bases = append(l.bases, startOffset)
	// The first segment's names are made durable at once, so that a crash never leaves the
	// partition without a segment (docs/vfs.md, "Where the writer syncs").
	if err := fsys.SyncDir(dir); err != nil {
		seg.closeFiles()
		return nil, err
	}
	return l, nil
}

// Events returns every event so far.
func (l *Log) Events() []Event { return l.events }

// NextOffset is the log end offset.
func (l *Log) NextOffset() int64 { return l.nextOffset }

// SegmentBaseOffsets lists the segments written, oldest first.
func (l *Log) SegmentBaseOffsets() []int64 { return l.bases }

// Failed reports whether an index overflow stopped the log.
func (l *Log) Failed() bool { return l.failed }

func (l *Log) addEvent(e Event) *Event {
	l.events = append(l.events, e)
	return &l.events[len(l.events)-1]
}

// Append appends one append of raw v2 batches, as UnifiedLog.append does
// for a validated MemoryRecords: offsets are assigned by overwriting each
// batch's BaseOffset field (not covered by the CRC); an append larger than
// segment.bytes is rejected (RecordBatchTooLargeException) and nothing is
// written; maybeRoll decides once for the whole append. It returns the
// event (rejection or index overflow) if there was one.
func (l *Log) Append(batches ...[]byte) (*Event, error) {
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
	var total int64
	for i, b := range batches {
		if len(b) < RecordBatchOverhead || b[MagicOffset] != 2 || int64(binary.BigEndian.Uint32(b[8:]))+LogOverhead != int64(len(b)) ||
			int32(binary.BigEndian.Uint32(b[23:])) < 0 {
			return nil, fmt.Errorf("append %d: batch %d is not a well-formed v2 batch", step, i)
		}
		total += int64(len(b))
	}
	if total == 0 {
		return nil, nil
	}
	if total > l.cfg.SegmentBytes {
		return l.addEvent(Event{Kind: EventRejected, Step: step, Bytes: total,
			Message: fmt.Sprintf("Message batch size is %d bytes, which exceeds the maximum configured segment size of %d: Kafka rejects the append (RecordBatchTooLargeException), nothing is written.", total, l.cfg.SegmentBytes)}), nil
	}
	next := l.nextOffset
	for _, b := range batches {
		// A batch built at an offset past the log end keeps it: the offsets of a compacted
		// log, or of a follower of one (appendAsFollower keeps the offsets it is given), have
		// gaps. Any other base offset is assigned, as a leader assigns them.
		if base := int64(binary.BigEndian.Uint64(b)); base > next {
			next = base
		}
		binary.BigEndian.PutUint64(b, uint64(next))
		next += int64(int32(binary.BigEndian.Uint32(b[23:]))) + 1
	}
	first := int64(binary.BigEndian.Uint64(batches[0]))
	last := next - 1
	appendMaxTs := int64(NoTimestamp)
	for _, b := range batches {
		appendMaxTs = max(appendMaxTs, batchMaxTimestamp(b))
	}
	if err := l.maybeRoll(total, len(batches), first, last, appendMaxTs); err != nil {
		return nil, err
	}
	err := l.active.append(l, batches, nil, total, last)
	var full *indexFullError
	if errors.As(err, &full) {
		// The batches are in the .log (LogSegment.append writes them before its index loop),
		// but UnifiedLog never advances the log end offset past an append that threw.
		l.failed = true
		return l.addEvent(Event{Kind: full.kind, Step: step, Message: full.msg}), nil
	}
	l.nextOffset = next
	if err != nil {
		return nil, err
	}
	return nil, l.maybeFlush()
}

// maybeFlush is UnifiedLog.append's flush.messages check: once log end - recovery point
// reaches it, the log is flushed to its end (LocalLog.flush: the unflushed segment, here the
// active one, then the directory when that segment is new since the recovery point) and the
// recovery point moves there.
func (l *Log) maybeFlush() error {
	n := l.cfg.FlushMessages
	if n <= 0 || l.nextOffset-l.recoveryPoint < n {
		return nil
	}
	s := l.active
	if err := s.flush(); err != nil {
		return err
	}
	if s.base >= l.recoveryPoint {
		if err := l.fs.SyncDir(l.dir); err != nil {
			return err
		}
	}
	return l.markFlushed(l.nextOffset)
}

// maybeRoll is UnifiedLog.maybeRoll + LogSegment.shouldRoll for an append of n batches:
// size > segment.bytes - appendSize, time waited > segment.ms (on the batches' timestamps), a
// full offset or time index, or a last offset the active segment cannot index; under
// candidate fix (a) also a non-empty segment whose indexes lack room for n entries.
func (l *Log) maybeRoll(appendSize int64, n int, first, last, appendMaxTs int64) error {
	s := l.active
	rel := last - s.base
	timeRoll := l.cfg.SegmentMs > 0 && s.size > 0 && s.timeWaitedForRoll(appendMaxTs) > l.cfg.SegmentMs
	roomRoll := l.cfg.Candidate.RollWhenAppendLacksIndexRoom && s.size > 0 && s.lacksIndexRoom(n)
	if !(s.size > l.cfg.SegmentBytes-appendSize || timeRoll || s.idxEntries >= s.idxMax || s.tEntries >= s.tMax-1 || rel < 0 || rel > math.MaxInt32 || roomRoll) {
		return nil
	}
	if s.size == 0 {
		// LocalLog.roll: the empty active segment with the same base offset
		// is deleted and recreated (KAFKA-6388 path).
		base := s.base
		if err := s.closeFiles(); err != nil {
			return err
		}
		ns, err := l.newSegment(base)
		l.active = ns
		return err
	}
	if err := s.onBecomeInactive(); err != nil {
		return err
	}
	ns, err := l.newSegment(first)
	if err != nil {
		s.closeFiles()
		return err
	}
	l.active = ns
	l.bases = append(l.bases, first)
	// UnifiedLog.roll schedules flushUptoOffsetExclusive(new base offset): once the
	// new segment exists, the previous one is flushed (LogSegment.flush) and the
	// recovery point moves to the new base (LocalLog.markFlushed) -- unless the
	// recovery point is there already (UnifiedLog.flush: only when the offset is past
	// the recovery point). That happens when a clean restart checkpointed the log end
	// and the next append rolls: the old segment's data was flushed at the restart, and
	// its trim now is never synced (docs/crash.md).
	if first <= l.recoveryPoint {
		return s.closeFiles()
	}
	if err := l.flushAndClose(s); err != nil {
		return err
	}
	return l.markFlushed(first)
}

// flushAndClose is LocalLog.flush of s (LogSegment.flush: the .log, then the
// offset index, then the time index), then the directory when s is new since the
// recovery point (the names of segments created since the last flush), and the file
// handles released.
func (l *Log) flushAndClose(s *writeSegment) error {
	err := s.flush()
	if err == nil && s.base >= l.recoveryPoint {
		err = l.fs.SyncDir(l.dir)
	}
	return errors.Join(err, s.closeFiles())
}

// AppendSpecs builds each batch with BuildSizedBatch (BuildCompressedBatch for a compressed
// one) and appends them as one append.
func (l *Log) AppendSpecs(specs []BatchSpec) (*Event, error) {
	l.buf = l.buf[:0]
	var total int
	for _, s := range specs {
		total += s.Bytes
	}
	if cap(l.buf) < total {
		if l.buf == nil {
			if p, _ := appendBuffers.Get().(*[]byte); p != nil {
				l.buf = (*p)[:0]
			}
		}
		if cap(l.buf) < total {
			l.buf = make([]byte, 0, total)
		}
	}
	l.batches = l.batches[:0]
	off := l.nextOffset
	sequencesBefore := maps.Clone(l.sequences)
	for i, s := range specs {
		start := len(l.buf)
		off = max(off, s.BaseOffset) // a gap (docs/contract.md §3's "baseOffset")
		if s.Control != "" || s.Transactional {
			if err := s.checkTransactional(); err != nil {
				l.step++
				return nil, fmt.Errorf("append %d batch %d: %w", l.step-1, i, err)
			}
		}
		pid := s.ProducerID
		if pid == 0 {
			pid = DefaultTransactionalProducerID
		}
		if s.Control != "" {
			l.buf = appendCommitMarker(l.buf, off, pid, s.MaxTimestamp)
			off++
			l.batches = append(l.batches, l.buf[start:len(l.buf):len(l.buf)])
			continue
		}
		if s.Compression != CompressionNone {
			var err error
			if l.buf, err = appendCompressedBatch(l.buf, off, s.Records, s.Bytes, s.MaxTimestamp, s.Compression); err != nil {
				l.step++
				return nil, fmt.Errorf("append %d batch %d: %w", l.step-1, i, err)
			}
			off += int64(s.Records)
			l.batches = append(l.batches, l.buf[start:len(l.buf):len(l.buf)])
			l.markTransactional(s, pid)
			continue
		}
		p, err := planSizedBatch(s.Records, s.Bytes)
		if err != nil {
			l.step++
			return nil, fmt.Errorf("append %d batch %d: %w", l.step-1, i, err)
		}
		l.buf = appendPlannedBatch(l.buf, off, s.Records, s.MaxTimestamp, p)
		off += int64(max(s.Records, 1))
		l.batches = append(l.batches, l.buf[start:len(l.buf):len(l.buf)])
		l.markTransactional(s, pid)
	}
	e, err := l.Append(l.batches...)
	if e != nil && e.Kind == EventRejected {
		// A rejected append never reached the log: its sequences are not the producer's.
		l.sequences = sequencesBefore
	}
	return e, err
}

// markTransactional makes the last batch built a transactional producer's when s says so,
// numbering its records after the producer's earlier ones (sequences count records, per
// producer and partition, from 0: ProducerAppendInfo.checkSequence).
func (l *Log) markTransactional(s BatchSpec, pid int64) {
	if !s.Transactional {
		return
	}
	if l.sequences == nil {
		l.sequences = map[int64]int32{}
	}
	seq := l.sequences[pid]
	markTransactional(l.batches[len(l.batches)-1], pid, seq)
	l.sequences[pid] = incrementSequence(seq, int32(s.Records))
}

// AppendRecipe builds each batch record by record (RecipeBatch.Build) and
// appends them as one append.
func (l *Log) AppendRecipe(batches []RecipeBatch) (*Event, error) {
	l.buf = l.buf[:0]
	l.batches = l.batches[:0]
	off := l.nextOffset
	var starts []int
	for _, b := range batches {
		starts = append(starts, len(l.buf))
		l.buf = b.Build(l.buf, off)
		off += int64(max(b.Records, 1))
	}
	for i, s := range starts {
		e := len(l.buf)
		if i+1 < len(starts) {
			e = starts[i+1]
		}
		l.batches = append(l.batches, l.buf[s:e:e])
	}
	return l.Append(l.batches...)
}

// Apply runs one workload step of a single log (a replicated workload's steps run on a
// ReplicaSet).
func (l *Log) Apply(s Step) (*Event, error) {
	switch {
	case s.Roll:
		l.step++
		return nil, errRollStep
	case s.Fetch || s.Elect:
		l.step++
		return nil, errors.New("a fetch or an election is a step of a replicated workload, and this log is a single one")
	case s.Restart:
		return nil, l.Restart()
	case s.Recover && s.HasRecoveryPoint:
		return l.RecoverFrom(s.RecoveryPoint)
	case s.Recover:
		return l.Recover()
	case s.Crash != nil:
		return l.Crash(*s.Crash)
	case s.Clean != nil:
		return l.Clean(*s.Clean)
	}
	return l.AppendSpecs(s.Append)
}

// Restart is a clean broker restart: the active segment is closed
// (LogSegment.close: final time-index entry, indexes and log trimmed) and
// reopened as a new LogSegment object (bytesSinceLastIndexEntry = 0, max
// timestamp reloaded lazily from the time index), with its indexes resized
// back to segment.index.bytes as LogLoader does for the active segment.
func (l *Log) Restart() error {
	l.step++
	if l.closed {
		return errors.New("log is closed")
	}
	if l.active == nil {
		return errLostActive
	}
	if l.failed {
		return ErrLogFailed
	}
	base := l.active.base
	if err := l.closeActive(); err != nil {
		return err
	}
	// A clean shutdown flushes the whole log and checkpoints its end (LogManager.shutdown).
	if err := l.markFlushed(l.nextOffset); err != nil {
		return err
	}
	s, err := l.openSegment(base)
	l.active = s
	return err
}

// Close closes the active segment as LogSegment.close does: the final
// time-index entry (if the max timestamp was ever loaded), indexes and log
// trimmed. It also finishes a failed log, as Kafka's shutdown would.
func (l *Log) Close() error {
	if l.closed {
		return nil
	}
	l.closed = true
	if l.buf != nil {
		// The files hold copies of the batches (an io.WriterAt does not keep p): the next
		// log may build into this buffer.
		b := l.buf[:0]
		appendBuffers.Put(&b)
		l.buf, l.batches = nil, nil
	}
	if err := l.closeActive(); err != nil {
		return err
	}
	if l.failed {
		return nil
	}
	return l.markFlushed(l.nextOffset)
}

// appendBuffers holds the batch-building buffers of closed logs for the logs created next (a
// differential campaign creates one or two per case).
var appendBuffers sync.Pool

// closeActive is a clean shutdown of the active segment: LogSegment.close's
// final time-index entry and trims, then the flush. Kafka's shutdown flushes
// the log (UnifiedLog.flush) and then closes its segments; the flush follows
// the trims here so that a cleanly closed log is durable exactly as it stands.
func (l *Log) closeActive() error {
	s := l.active
	if s == nil {
		return nil // lost to an earlier I/O error, which was reported then
	}
	if err := s.finish(); err != nil {
		s.closeFiles()
		return err
	}
	return l.flushAndClose(s)
}

// WriteResult summarizes a materialized workload. A single log's is Segments, NextOffset
// and Events; a replicated workload's is Replicas (one per replica, in number order), Leader
// (the replica leading at the end) and Notes, and its JSON holds only those.
type WriteResult struct {
	Segments   []int64 `json:"segments"` // base offsets
	NextOffset int64   `json:"nextOffset"`
	Events     []Event `json:"events"`

	Replicas []ReplicaResult `json:"-"`
	Leader   int             `json:"-"`
	Notes    []ReplicaNote   `json:"-"` // steps that did nothing, and why
}

// MarshalJSON writes a single log's result as it always was, and a replicated one as
// {"leader", "replicas", "notes"}.
func (r WriteResult) MarshalJSON() ([]byte, error) {
	if r.Replicas == nil {
		type single WriteResult // without this method
		return json.Marshal(single(r))
	}
	return json.Marshal(struct {
		Leader   int             `json:"leader"`
		Replicas []ReplicaResult `json:"replicas"`
		Notes    []ReplicaNote   `json:"notes"`
	}{r.Leader, r.Replicas, r.Notes})
}

// WriteWorkload writes w into dir through the size-targeting builder.
func WriteWorkload(dir string, w *Workload) (*WriteResult, error) {
	return WriteWorkloadFS(vfs.OS, dir, w)
}

// WriteWorkloadFS is WriteWorkload on fsys. A replicated workload is written as dir holding
// one partition directory per replica (ReplicaDirName).
func WriteWorkloadFS(fsys vfs.FS, dir string, w *Workload) (*WriteResult, error) {
	if w.Replicas != nil {
		return writeReplicas(fsys, dir, w)
	}
	return writeAll(fsys, dir, w.Config, w.Rule, w.StartOffset, w.Steps, (*Log).Apply)
}

// WriteRecipe writes a record-level recipe (kafka-input.json) into dir.
func WriteRecipe(dir string, r *Recipe) (*WriteResult, error) {
	return WriteRecipeFS(vfs.OS, dir, r)
}

// WriteRecipeFS is WriteRecipe on fsys.
func WriteRecipeFS(fsys vfs.FS, dir string, r *Recipe) (*WriteResult, error) {
	return writeAll(fsys, dir, r.Config, r.Rule, r.StartOffset, r.Appends, (*Log).AppendRecipe)
}

// writeAll creates a log in dir, applies every step until one fails the log (an index
// overflow: Kafka threw), and closes it.
func writeAll[S any](fsys vfs.FS, dir string, cfg Config, rule Rule, start int64, steps []S, apply func(*Log, S) (*Event, error)) (*WriteResult, error) {
	l, err := CreateLogFS(fsys, dir, cfg, rule, start)
	if err != nil {
		return nil, err
	}
	for i, s := range steps {
		if interrupted.Load() {
			l.Close()
			return nil, ErrInterrupted
		}
		if writeStepHook != nil {
			if err := writeStepHook(i); err != nil {
				l.Close()
				return nil, err
			}
		}
		if _, err := apply(l, s); err != nil {
			l.Close()
			return nil, err
		}
		if l.failed {
			break
		}
	}
	return l.finish()
}

func (l *Log) finish() (*WriteResult, error) {
	err := l.Close()
	ev := l.events
	if ev == nil {
		ev = []Event{}
	}
	return &WriteResult{Segments: l.bases, NextOffset: l.nextOffset, Events: ev}, err
}

// writeSegment is the active segment's write state (LogSegment fields plus
// the OffsetIndex/TimeIndex counters that Kafka keeps next to its mmaps).
type writeSegment struct {
	base            int64
	cfg             Config
	logF, idxF, tF  vfs.File
	size            int64
	idxEntries      int
	idxMax          int
	idxLast         int64
	tEntries, tMax  int
	tLast           TimeIndexEntry
	bytesSince      int64
	maxTs, maxTsOff int64
	maxTsKnown      bool
	// LogSegment.rollingBasedTimestamp: the first batch's max timestamp,
	// loaded lazily from the file (per-append: set by the first append).
	rollingTs        int64
	rollingKnown     bool
	logPath, idxPath string
	tPath            string
	scratch          [12]byte
}

func (l *Log) paths(base int64) (string, string, string) {
	stem := filepath.Join(l.dir, FilenamePrefixFromOffset(base))
	return stem + LogSuffix, stem + IndexSuffix, stem + TimeIndexSuffix
}

// newSegment creates empty files; the indexes are preallocated (sparse,
// zero-filled) to segment.index.bytes rounded down to the entry size, as
// AbstractIndex.createAndAssignMmap does.
func (l *Log) newSegment(base int64) (*writeSegment, error) {
	return l.newSegmentFiles(base, "")
}

// newSegmentFiles is newSegment with suffix after each file's name (".cleaned" for the
// cleaner's segment: LogSegment.open with a file suffix).
func (l *Log) newSegmentFiles(base int64, suffix string) (*writeSegment, error) {
	s := &writeSegment{base: base, cfg: l.cfg}
	s.logPath, s.idxPath, s.tPath = l.paths(base)
	s.logPath, s.idxPath, s.tPath = s.logPath+suffix, s.idxPath+suffix, s.tPath+suffix
	s.idxMax = int(l.cfg.SegmentIndexBytes / OffsetIndexEntrySize)
	s.tMax = int(l.cfg.SegmentIndexBytes / TimeIndexEntrySize)
	s.tLast = TimeIndexEntry{Timestamp: NoTimestamp, Offset: base}
	var err error
	if s.logF, err = l.fs.Create(s.logPath); err != nil {
		return nil, err
	}
	if s.idxF, err = l.fs.Create(s.idxPath); err != nil {
		s.closeFiles()
		return nil, err
	}
	if s.tF, err = l.fs.Create(s.tPath); err != nil {
		s.closeFiles()
		return nil, err
	}
	if err := s.resizeIndexes(); err != nil {
		s.closeFiles()
		return nil, err
	}
	return s, nil
}

// openSegment reopens an existing (closed, trimmed) segment as a new
// LogSegment object would: entries = file length / entry size, the last
// time-index entry read back, then the indexes resized to
// segment.index.bytes (LogLoader: resizeIndexes on the active segment).
func (l *Log) openSegment(base int64) (*writeSegment, error) {
	s := &writeSegment{base: base, cfg: l.cfg}
	s.logPath, s.idxPath, s.tPath = l.paths(base)
	s.idxMax = int(l.cfg.SegmentIndexBytes / OffsetIndexEntrySize)
	s.tMax = int(l.cfg.SegmentIndexBytes / TimeIndexEntrySize)
	var err error
	if s.logF, err = l.fs.OpenReadWrite(s.logPath); err != nil {
		return nil, err
	}
	if s.idxF, err = l.fs.OpenReadWrite(s.idxPath); err != nil {
		s.closeFiles()
		return nil, err
	}
	if s.tF, err = l.fs.OpenReadWrite(s.tPath); err != nil {
		s.closeFiles()
		return nil, err
	}
	if err := s.loadState(); err != nil {
		s.closeFiles()
		return nil, err
	}
	if err := s.resizeIndexes(); err != nil {
		s.closeFiles()
		return nil, err
	}
	return s, nil
}

func (s *writeSegment) loadState() error {
	st, err := s.logF.Stat()
	if err != nil {
		return err
	}
	s.size = st.Size()
	if st, err = s.idxF.Stat(); err != nil {
		return err
	}
	s.idxEntries = int(st.Size() / OffsetIndexEntrySize)
	s.idxLast = s.base
	if s.idxEntries > 0 {
		if _, err := s.idxF.ReadAt(s.scratch[:8], int64(s.idxEntries-1)*8); err != nil {
			return err
		}
		s.idxLast = s.base + int64(int32(binary.BigEndian.Uint32(s.scratch[:])))
	}
	if st, err = s.tF.Stat(); err != nil {
		return err
	}
	s.tEntries = int(st.Size() / TimeIndexEntrySize)
	s.tLast = TimeIndexEntry{Timestamp: NoTimestamp, Offset: s.base}
	if s.tEntries > 0 {
		if _, err := s.tF.ReadAt(s.scratch[:12], int64(s.tEntries-1)*12); err != nil {
			return err
		}
		s.tLast = TimeIndexEntry{Timestamp: int64(binary.BigEndian.Uint64(s.scratch[:])), Offset: s.base + int64(int32(binary.BigEndian.Uint32(s.scratch[8:])))}
	}
	return nil
}

func (s *writeSegment) resizeIndexes() error {
	if err := s.idxF.Truncate(int64(s.idxMax) * OffsetIndexEntrySize); err != nil {
		return err
	}
	return s.tF.Truncate(int64(s.tMax) * TimeIndexEntrySize)
}

// maxTimestampSoFar is LogSegment.maxTimestampSoFar: loaded lazily from the
// time index's last entry ((-1, base) when empty).
func (s *writeSegment) maxTimestampSoFar() int64 {
	if !s.maxTsKnown {
		s.maxTs, s.maxTsOff, s.maxTsKnown = s.tLast.Timestamp, s.tLast.Offset, true
	}
	return s.maxTs
}

// offsetIndexAppend is OffsetIndex.append: full check first, then strictly
// increasing offsets (the first entry may equal the base), then the
// relative-offset range. Positions are not validated.
func (s *writeSegment) offsetIndexAppend(offset, position int64) error {
	if s.idxEntries >= s.idxMax {
		return &indexFullError{EventOffsetIndexOverflow, fmt.Sprintf("Attempt to append to a full index (size = %d).", s.idxEntries)}
	}
	if s.idxEntries != 0 && offset <= s.idxLast {
		return kafkaErr("Attempt to append an offset %d to position %d no larger than the last offset appended (%d) to %s", offset, s.idxEntries, s.idxLast, s.idxPath)
	}
	rel := offset - s.base
	if rel < 0 || rel > math.MaxInt32 {
		return kafkaErr("Integer overflow for offset: %d (%s)", offset, s.idxPath)
	}
	b := EncodeIndexEntry(s.scratch[:0], s.base, IndexEntry{Offset: offset, Position: position})
	if _, err := s.idxF.WriteAt(b, int64(s.idxEntries)*OffsetIndexEntrySize); err != nil {
		return err
	}
	s.idxEntries++
	s.idxLast = offset
	return nil
}

// timeIndexMaybeAppend is TimeIndex.maybeAppend: the full check (entries >=
// maxEntries-1) comes before anything else, even an entry that would be
// ignored; an entry is written only when ts > the last timestamp.
func (s *writeSegment) timeIndexMaybeAppend(ts, offset int64, skipFullCheck bool) error {
	if !skipFullCheck && s.tEntries >= s.tMax-1 {
		return &indexFullError{EventTimeIndexOverflow, fmt.Sprintf("Attempt to append to a full time index (size = %d).", s.tEntries)}
	}
	if s.tEntries != 0 && offset < s.tLast.Offset {
		return kafkaErr("Attempt to append an offset (%d) to slot %d no larger than the last offset appended (%d) to %s", offset, s.tEntries, s.tLast.Offset, s.tPath)
	}
	if s.tEntries != 0 && ts < s.tLast.Timestamp {
		return kafkaErr("Attempt to append a timestamp (%d) to slot %d no larger than the last timestamp appended (%d) to %s", ts, s.tEntries, s.tLast.Timestamp, s.tPath)
	}
	if ts <= s.tLast.Timestamp {
		return nil
	}
	if s.tEntries >= s.tMax {
		return fmt.Errorf("java.nio.BufferOverflowException: time index %s has no room for slot %d", s.tPath, s.tEntries)
	}
	b := EncodeTimeIndexEntry(s.scratch[:0], s.base, TimeIndexEntry{Timestamp: ts, Offset: offset})
	if _, err := s.tF.WriteAt(b, int64(s.tEntries)*TimeIndexEntrySize); err != nil {
		return err
	}
	s.tEntries++
	s.tLast = TimeIndexEntry{Timestamp: ts, Offset: offset}
	return nil
}

// append is LogSegment.append under the log's rule. All bytes are written
// first; an index that fills during the loop throws after that, leaving
// the entries made so far (the KAFKA-806 capacity hazard, docs/kafka.md §2.4).
// whole, when set, is the batches one after another in one buffer, written in one write (the
// cleaner's write buffer: FileRecords.append of one MemoryRecords).
func (s *writeSegment) append(l *Log, batches [][]byte, whole []byte, total, largestOffset int64) error {
	start := s.size
	pos := start
	if whole != nil {
		if _, err := s.logF.WriteAt(whole, pos); err != nil {
			return err
		}
		pos += int64(len(whole))
	}
	for _, b := range batches {
		if whole != nil {
			break
		}
		if _, err := s.logF.WriteAt(b, pos); err != nil {
			return err
		}
		pos += int64(len(b))
	}
	s.size = pos
	interval := s.cfg.IndexIntervalBytes
	if l.rule == PerAppend {
		// appendInfo.maxTimestamp / shallowOffsetOfMaxTimestamp: the first
		// batch holding the append's largest max timestamp (strict >).
		largestTs, shallow := NoTimestamp, int64(-1)
		for _, b := range batches {
			if ts := batchMaxTimestamp(b); ts > largestTs {
				largestTs, shallow = ts, batchLastOffset(b)
			}
		}
		// The pre-KAFKA-806 append sets rollingBasedTimestamp on the first
		// append into an empty file.
		if start == 0 {
			s.rollingTs, s.rollingKnown = largestTs, true
		}
		if largestTs > s.maxTimestampSoFar() {
			s.maxTs, s.maxTsOff = largestTs, shallow
		}
		if s.bytesSince > interval {
			if err := s.offsetIndexAppend(largestOffset, start); err != nil {
				return err
			}
			if err := s.timeIndexMaybeAppend(s.maxTimestampSoFar(), s.maxTsOff, false); err != nil {
				return err
			}
			s.bytesSince = 0
		}
		s.bytesSince += total
		return nil
	}
	pos = start
	for _, b := range batches {
		last := batchLastOffset(b)
		if ts := batchMaxTimestamp(b); ts > s.maxTimestampSoFar() {
			s.maxTs, s.maxTsOff = ts, last
		}
		// Candidate fix (b): no entry into a full index, and the counter is not reset.
		if s.bytesSince > interval && !(s.cfg.Candidate.SkipEntryWhenIndexFull && s.lacksIndexRoom(1)) {
			if err := s.offsetIndexAppend(last, pos); err != nil {
				return err
			}
			if err := s.timeIndexMaybeAppend(s.maxTimestampSoFar(), s.maxTsOff, false); err != nil {
				return err
			}
			s.bytesSince = 0
		}
		pos += int64(len(b))
		s.bytesSince += int64(len(b))
	}
	return nil
}

// timeWaitedForRoll is LogSegment.timeWaitedForRoll without a wall clock:
// appendMaxTs minus the rolling timestamp (loaded lazily from the first
// batch's max timestamp); 0 when that is unknown (-1), where Kafka would fall
// back to now - created.
func (s *writeSegment) timeWaitedForRoll(appendMaxTs int64) int64 {
	if !s.rollingKnown && s.size > 0 {
		var ts [8]byte
		if _, err := s.logF.ReadAt(ts[:], 35); err == nil {
			s.rollingTs, s.rollingKnown = int64(binary.BigEndian.Uint64(ts[:])), true
		}
	}
	if s.rollingKnown && s.rollingTs >= 0 {
		return appendMaxTs - s.rollingTs
	}
	return 0
}

func batchLastOffset(b []byte) int64 {
	return int64(binary.BigEndian.Uint64(b)) + int64(int32(binary.BigEndian.Uint32(b[23:])))
}

func batchMaxTimestamp(b []byte) int64 { return int64(binary.BigEndian.Uint64(b[35:])) }

// trim is trimToValidSize on both indexes and FileRecords.trim on the log.
func (s *writeSegment) trim() error {
	if err := s.idxF.Truncate(int64(s.idxEntries) * OffsetIndexEntrySize); err != nil {
		return err
	}
	s.idxMax = s.idxEntries
	if err := s.tF.Truncate(int64(s.tEntries) * TimeIndexEntrySize); err != nil {
		return err
	}
	s.tMax = s.tEntries
	return s.logF.Truncate(s.size)
}

// onBecomeInactive is LogSegment.onBecomeInactiveSegment: the final
// time-index entry, then the trims. The caller flushes and closes.
func (s *writeSegment) onBecomeInactive() error {
	if err := s.timeIndexMaybeAppend(s.maxTimestampSoFar(), s.maxTsOff, true); err != nil {
		return err
	}
	return s.trim()
}

// finish is LogSegment.close before the handles go: the final time-index
// entry only when the max timestamp was ever loaded, then the trims.
func (s *writeSegment) finish() error {
	var err error
	if s.maxTsKnown {
		err = s.timeIndexMaybeAppend(s.maxTs, s.maxTsOff, true)
	}
	return errors.Join(err, s.trim())
}

// flush is LogSegment.flush: the log, then the offset index, then the time
// index (the transaction index, which the writer does not write, comes last in
// Kafka).
func (s *writeSegment) flush() error {
	for _, f := range []vfs.File{s.logF, s.idxF, s.tF} {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	return nil
}

func (s *writeSegment) closeFiles() error {
	var err error
	for _, f := range []vfs.File{s.logF, s.idxF, s.tF} {
		if f != nil {
			err = errors.Join(err, f.Close())
		}
	}
	return err
}
