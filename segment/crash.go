package segment

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"kidx/segment/vfs"
)

// A crash is an unclean shutdown (kill -9, power loss) followed by the broker's restart. What
// survives is stated as a CrashSpec, the workload's crash step (docs/contract.md §3), so that
// the model and the files agree on what the crash did; the reload is Kafka 2.3+'s
// (LogLoader.recoverLog, KAFKA-7283): every segment from the one holding the recovery point
// on is recovered, nothing is sanity-checked (docs/crash.md).

// CrashSpec is what survived a crash: the recovery point the broker reads back from its
// recovery-point-offset-checkpoint, and the segments whose files survived from the first
// unflushed one (the segment holding the recovery point) on, oldest first.
type CrashSpec struct {
	RecoveryPoint int64          `json:"recoveryPoint"`
	Segments      []CrashSegment `json:"segments"`
}

// CrashSegment is one surviving segment: its base offset and its files' sizes after the crash.
// The index sizes do not change what the reload does (it rebuilds both indexes of every
// unflushed segment); they record the crash for the findings and for a replay.
type CrashSegment struct {
	BaseOffset     int64 `json:"baseOffset"`
	LogBytes       int64 `json:"logBytes"`
	IndexBytes     int64 `json:"indexBytes"`
	TimeIndexBytes int64 `json:"timeIndexBytes"`
}

type wireCrash struct {
	RecoveryPoint *int64 `json:"recoveryPoint"`
	Segments      []struct {
		BaseOffset     *int64 `json:"baseOffset"`
		LogBytes       *int64 `json:"logBytes"`
		IndexBytes     *int64 `json:"indexBytes"`
		TimeIndexBytes *int64 `json:"timeIndexBytes"`
	} `json:"segments"`
}

func (w *wireCrash) spec(where string) (CrashSpec, error) {
	if w.RecoveryPoint == nil || *w.RecoveryPoint < 0 {
		return CrashSpec{}, fmt.Errorf("%s: needs \"recoveryPoint\" >= 0", where)
	}
	c := CrashSpec{RecoveryPoint: *w.RecoveryPoint}
	if len(w.Segments) == 0 {
		return c, fmt.Errorf("%s: needs at least one surviving segment in \"segments\"", where)
	}
	for i, s := range w.Segments {
		if s.BaseOffset == nil || s.LogBytes == nil || s.IndexBytes == nil || s.TimeIndexBytes == nil {
			return c, fmt.Errorf("%s.segments[%d]: needs \"baseOffset\", \"logBytes\", \"indexBytes\" and \"timeIndexBytes\"", where, i)
		}
		cs := CrashSegment{*s.BaseOffset, *s.LogBytes, *s.IndexBytes, *s.TimeIndexBytes}
		if cs.BaseOffset < 0 || cs.LogBytes < 0 || cs.IndexBytes < 0 || cs.TimeIndexBytes < 0 {
			return c, fmt.Errorf("%s.segments[%d]: base offset and sizes must not be negative", where, i)
		}
		if i > 0 && cs.BaseOffset <= c.Segments[i-1].BaseOffset {
			return c, fmt.Errorf("%s.segments[%d]: base offsets must increase", where, i)
		}
		c.Segments = append(c.Segments, cs)
	}
	return c, nil
}

// firstUnflushed is the index of the segment holding offset rp among sorted bases: the last
// base <= rp, or 0 when rp is below them all (LogSegments.values(recoveryPoint, MaxValue)
// starts at the floor segment).
func firstUnflushed(bases []int64, rp int64) int {
	u := 0
	for i, b := range bases {
		if b <= rp {
			u = i
		}
	}
	return u
}

// Crash applies a crash step to the log's files as they stand after the previous step, on any
// filesystem: the open handles are dropped without a flush; each listed segment's .log keeps
// its first LogBytes bytes and its indexes are cut or zero-extended to their sizes; the
// unlisted segments from the first listed one on lose their files; then the directory is
// reloaded as LoadAfterCrash does. An invalid step is refused before anything changes. The
// crash explorer (package fuzz) crashes a MemFS in the middle of a step instead and reloads
// with LoadAfterCrash; Crash is what replays its findings.
func (l *Log) Crash(c CrashSpec) (*Event, error) {
	step := l.step
	l.step++
	if l.closed {
		return nil, errors.New("log is closed")
	}
	if l.active == nil {
		return nil, errLostActive
	}
	if l.failed {
		return nil, fmt.Errorf("step %d: crash after an index overflow: the log failed at an earlier step", step)
	}
	if len(c.Segments) == 0 {
		return nil, fmt.Errorf("step %d: crash lists no segment", step)
	}
	// The listed segments must be segments of the log, in order; those after the first listed
	// one that are not listed lost their files.
	listed := map[int64]CrashSegment{}
	first := slices.Index(l.bases, c.Segments[0].BaseOffset)
	j := max(first, 0)
	for i, cs := range c.Segments {
		for j < len(l.bases) && l.bases[j] < cs.BaseOffset {
			j++
		}
		if first < 0 || j == len(l.bases) || l.bases[j] != cs.BaseOffset {
			return nil, fmt.Errorf("step %d: crash segment %d has base offset %d, which is no segment of the log", step, i, cs.BaseOffset)
		}
		listed[cs.BaseOffset] = cs
		j++
	}
	survivors := slices.Clone(l.bases[:first])
	for _, cs := range c.Segments {
		survivors = append(survivors, cs.BaseOffset)
	}
	if u := firstUnflushed(survivors, c.RecoveryPoint); survivors[u] != c.Segments[0].BaseOffset {
		return nil, fmt.Errorf("step %d: crash segment 0 has base offset %d, but the segment holding the recovery point %d is %d", step, c.Segments[0].BaseOffset, c.RecoveryPoint, survivors[u])
	}
	for _, cs := range c.Segments {
		logPath, _, _ := l.paths(cs.BaseOffset)
		st, err := l.fs.Stat(logPath)
		if err != nil {
			return nil, err
		}
		if cs.LogBytes > st.Size() {
			return nil, fmt.Errorf("step %d: crash keeps %d bytes of %s, which has %d", step, cs.LogBytes, filepath.Base(logPath), st.Size())
		}
	}
	// The crash: the handles dropped without a flush, then the files as the step says.
	if err := l.active.closeFiles(); err != nil {
		return nil, err
	}
	l.active = nil
	for _, base := range l.bases[first:] {
		cs, ok := listed[base]
		if !ok {
			if err := l.removeSegmentFiles(base); err != nil {
				return nil, err
			}
			continue
		}
		logPath, idxPath, tPath := l.paths(base)
		for _, f := range []struct {
			path string
			size int64
		}{{logPath, cs.LogBytes}, {idxPath, cs.IndexBytes}, {tPath, cs.TimeIndexBytes}} {
			if err := l.resizeFile(f.path, f.size); err != nil {
				return nil, err
			}
		}
	}
	l.bases = survivors
	_, ev, err := l.reload(c.RecoveryPoint, step)
	return ev, err
}

// RecoverFrom is a recover step with a recovery point (docs/contract.md §3 "recover"): an
// unclean restart whose recovery-point checkpoint reads recoveryPoint, so that LogLoader
// recovers every segment from the one holding it to the active one. It is a crash in which
// every file survived whole, and runs Crash with the files' own sizes, after writing the
// checkpoint the step names: the load reads its recovery point from that file, so a crash in
// the middle of this recovery must find it there too (Kafka writes the checkpoint on a timer,
// log.flush.offset.checkpoint.interval.ms, so one behind the flushed segments is ordinary).
func (l *Log) RecoverFrom(recoveryPoint int64) (*Event, error) {
	if recoveryPoint < 0 {
		l.step++
		return nil, fmt.Errorf("step %d: recover: recoveryPoint %d is negative", l.step-1, recoveryPoint)
	}
	if !l.closed && l.active != nil && !l.failed {
		if recoveryPoint > l.recoveryPoint {
			// The step says the broker had flushed up to recoveryPoint: the rolled segments
			// were synced when they rolled, the active one is synced now.
			if err := l.active.flush(); err != nil {
				l.step++
				return nil, err
			}
			if err := l.fs.SyncDir(l.dir); err != nil {
				l.step++
				return nil, err
			}
		}
		l.recoveryPoint = recoveryPoint
		if err := l.writeCheckpoint(); err != nil {
			l.step++
			return nil, err
		}
	}
	c := CrashSpec{RecoveryPoint: recoveryPoint}
	if len(l.bases) == 0 {
		return l.Crash(c) // refused there: no segment
	}
	for _, base := range l.bases[firstUnflushed(l.bases, recoveryPoint):] {
		var sizes [3]int64
		logPath, idxPath, tPath := l.paths(base)
		for i, p := range []string{logPath, idxPath, tPath} {
			st, err := l.fs.Stat(p)
			if err != nil {
				l.step++
				return nil, err
			}
			sizes[i] = st.Size()
		}
		c.Segments = append(c.Segments, CrashSegment{BaseOffset: base, LogBytes: sizes[0], IndexBytes: sizes[1], TimeIndexBytes: sizes[2]})
	}
	return l.Crash(c)
}

func (l *Log) resizeFile(path string, size int64) error {
	f, err := l.fs.OpenReadWrite(path)
	if err != nil {
		return err
	}
	return errors.Join(f.Truncate(size), f.Close())
}

// removeSegmentFiles deletes a segment's files (a missing one is not an error).
func (l *Log) removeSegmentFiles(base int64) error {
	logPath, idxPath, tPath := l.paths(base)
	var errs []error
	for _, p := range []string{logPath, idxPath, tPath} {
		if err := l.fs.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// CrashLoad says what the reload after a crash did (LogLoader.recoverLog).
type CrashLoad struct {
	RecoveryPoint int64   `json:"recoveryPoint"`
	Segments      []int64 `json:"segments"`  // the base offsets found
	Recovered     []int64 `json:"recovered"` // rebuilt by LogSegment.recover, in order
	// Truncated is the bytes each recovered segment lost (its invalid or torn tail).
	Truncated []int64 `json:"truncated"`
	// Deleted are the segments after a truncated one: LogLoader deletes them.
	Deleted []int64 `json:"deleted,omitempty"`
	// Overflow is set when a rebuild filled an index: Kafka throws and the log does not load.
	Overflow *Event `json:"overflow,omitempty"`
	// Orphans are index files found without their .log, deleted as LogLoader does.
	Orphans []string `json:"orphans,omitempty"`
	// Swap is what the load did with a clean's swap the crash interrupted (swap_load.go); nil
	// when the directory held no .cleaned, .swap or .deleted file.
	Swap *SwapLoad `json:"swap,omitempty"`
	// Rebuilt are segments below the recovery point whose .index was missing: LogLoader's
	// loadSegmentFiles recovers them (LogSegment.sanityCheck's NoSuchFileException).
	Rebuilt []int64 `json:"rebuilt,omitempty"`
}

// LoadAfterCrash reopens the partition directory dir on fsys after an unclean shutdown, as
// Kafka 2.3+'s LogLoader does, and returns the log ready for more steps: every segment from
// the one holding recoveryPoint on is recovered in order (LogSegment.recover: the .log read to
// its first invalid byte and truncated there, both indexes rebuilt per batch); a segment that
// lost bytes deletes every later one ("we had an invalid message, delete all remaining log");
// the segments before are reopened untouched; the last segment is the active one, its
// indexes resized to segment.index.bytes. A rebuild that fills an index is reported as
// CrashLoad.Overflow and the log is failed, as the broker cannot load it. A missing .index or
// .timeindex of a recovered segment is created, as LogLoader does. step is the workload step
// the crash happened in: an overflow event names it, and the log's next step is step+1.
func LoadAfterCrash(fsys vfs.FS, dir string, cfg Config, rule Rule, recoveryPoint int64, step int) (*Log, *CrashLoad, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	l := &Log{fs: fsys, dir: dir, cfg: cfg, rule: rule, step: step + 1}
	load := &CrashLoad{}
	swap, err := completeSwaps(fsys, dir, cfg)
	if err != nil {
		return nil, nil, err
	}
	if len(swap.Temp)+len(swap.Swapped)+len(swap.Replaced) > 0 {
		load.Swap = swap
	}
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	logs := map[string]bool{}
	for _, e := range ents {
		if stem, ok := strings.CutSuffix(e.Name(), LogSuffix); ok && !e.IsDir() {
			if b, err := OffsetFromFileName(stem + LogSuffix); err == nil {
				l.bases = append(l.bases, b)
				logs[stem] = true
			}
		}
	}
	// LogLoader.loadSegmentFiles: "Found an orphaned index file ..., with no corresponding log
	// file": deleted. A crash leaves one when an index's name was made durable and its .log's
	// was not.
	for _, e := range ents {
		for _, suf := range []string{IndexSuffix, TimeIndexSuffix, TxnIndexSuffix} {
			if stem, ok := strings.CutSuffix(e.Name(), suf); ok && !e.IsDir() && !logs[stem] {
				if _, err := OffsetFromFileName(e.Name()); err != nil {
					continue
				}
				if err := fsys.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return nil, nil, err
				}
				load.Orphans = append(load.Orphans, e.Name())
			}
		}
	}
	slices.Sort(l.bases)
	got, _, err := l.reload(recoveryPoint, step)
	if got != nil {
		got.Orphans, got.Swap = load.Orphans, load.Swap
	}
	return l, got, err
}

// reload is LogLoader's unclean-shutdown path on the files of l.bases (the active segment's
// handles already dropped).
func (l *Log) reload(rp int64, step int) (*CrashLoad, *Event, error) {
	if len(l.bases) == 0 {
		return nil, nil, fmt.Errorf("%s: no segment survived the crash", l.dir)
	}
	load := &CrashLoad{RecoveryPoint: rp, Segments: slices.Clone(l.bases)}
	u := firstUnflushed(l.bases, rp)
	for _, base := range l.bases[:u] {
		rebuilt, err := l.loadFlushedSegment(base)
		if err != nil {
			return load, nil, err
		}
		if rebuilt {
			load.Rebuilt = append(load.Rebuilt, base)
		}
	}
	for i := u; i < len(l.bases); i++ {
		base := l.bases[i]
		s, err := l.openForRecovery(base)
		if err != nil {
			return load, nil, err
		}
		res, err := l.rebuild(s)
		if err != nil {
			s.closeFiles()
			return load, nil, err
		}
		load.Recovered = append(load.Recovered, base)
		load.Truncated = append(load.Truncated, res.truncated)
		if res.full != nil {
			s.closeFiles()
			l.failed = true
			ev := l.addEvent(Event{Kind: res.full.kind, Step: step, Message: res.full.msg})
			load.Overflow = ev
			// The log did not load; Close has nothing left to finish.
			l.closed = true
			return load, ev, nil
		}
		if res.truncated > 0 {
			for _, b := range l.bases[i+1:] {
				if err := l.removeSegmentFiles(b); err != nil {
					s.closeFiles()
					return load, nil, err
				}
				load.Deleted = append(load.Deleted, b)
			}
			l.bases = l.bases[:i+1]
		}
		if i < len(l.bases)-1 {
			if err := s.closeFiles(); err != nil {
				return load, nil, err
			}
			continue
		}
		l.active = s
		l.nextOffset = res.nextOffset
	}
	l.recoveryPoint = min(rp, l.nextOffset)
	if err := l.writeCheckpoint(); err != nil {
		return load, nil, err
	}
	return load, nil, l.active.resizeIndexes()
}

// loadFlushedSegment is LogLoader.loadSegmentFiles on a segment below the recovery point: a
// missing .index fails LogSegment.sanityCheck (NoSuchFileException) and the segment is
// recovered (LogLoader.recoverSegment: LogSegment.recover, whose truncation loadSegmentFiles
// ignores); a missing .timeindex beside an .index is created empty (sanityCheck resizes a
// newly created time index to 0). Anything else is left as it is: no sanity check since
// KAFKA-7283. It reports whether the segment was recovered.
func (l *Log) loadFlushedSegment(base int64) (bool, error) {
	_, idxPath, tPath := l.paths(base)
	if _, err := l.fs.Stat(idxPath); errors.Is(err, fs.ErrNotExist) {
		s, err := l.openForRecovery(base)
		if err != nil {
			return false, err
		}
		res, err := l.rebuild(s)
		if err == nil && res.full != nil {
			err = fmt.Errorf("%s: rebuilding the missing index fills it: %s", idxPath, res.full.msg)
		}
		return true, errors.Join(err, s.closeFiles())
	} else if err != nil {
		return false, err
	}
	if _, err := l.fs.Stat(tPath); errors.Is(err, fs.ErrNotExist) {
		f, err := l.fs.Create(tPath)
		if err != nil {
			return false, err
		}
		return false, f.Close()
	} else if err != nil {
		return false, err
	}
	return false, nil
}

// openForRecovery opens a segment's files read-write; a missing index is created
// (LogSegment.open on a segment whose .index or .timeindex is gone).
func (l *Log) openForRecovery(base int64) (*writeSegment, error) {
	s := &writeSegment{base: base, cfg: l.cfg}
	s.logPath, s.idxPath, s.tPath = l.paths(base)
	var err error
	if s.logF, err = l.fs.OpenReadWrite(s.logPath); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		path string
		dst  *vfs.File
	}{{s.idxPath, &s.idxF}, {s.tPath, &s.tF}} {
		*f.dst, err = l.fs.OpenReadWrite(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			*f.dst, err = l.fs.Create(f.path)
		}
		if err != nil {
			s.closeFiles()
			return nil, err
		}
	}
	return s, nil
}
