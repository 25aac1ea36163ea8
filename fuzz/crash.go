package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"kidx/model"
	"kidx/segment"
	"kidx/segment/vfs"
)

// Crash exploration (docs/crash.md): a workload is written on an in-memory filesystem and
// crashed at its write and sync points; each crashed directory is reloaded as Kafka 2.3+ does
// after an unclean shutdown, the rest of the workload runs on the reloaded log, and the result
// is compared with the model given the same crash (the workload's crash step: the recovery
// point and the surviving files' sizes, read off the crashed directory).

// Finding kinds: Kafka's own behaviour under a crash, reported, not divergences.
const (
	// FindingRecoverOverflow: the reload's per-batch rebuild fills a small index; Kafka throws
	// and the log does not load.
	FindingRecoverOverflow = "recover-overflow"
	// FindingZeroTailSanity: a rolled segment's .index kept its preallocated zero tail (the
	// roll's trim was not durable): Kafka 0.8.0's sanity requirement would refuse the log.
	FindingZeroTailSanity = "sanity-check-zero-tail"
	// FindingEntryPastLog: an .index entry survived whose batch did not: it points past the
	// truncated .log until the reload rebuilds the index.
	FindingEntryPastLog = "entry-past-log"
	// FindingUnsyncedRewrite: a segment below the recovery point has an index the crash left
	// half rewritten: an unclean restart's recovery rewrote it and flushed nothing.
	FindingUnsyncedRewrite = "unsynced-index-rewrite"
)

// ReopenFunc reloads a crashed partition directory: segment.LoadAfterCrash, or in the tests a
// deliberately broken reload.
type ReopenFunc func(fsys vfs.FS, dir string, cfg segment.Config, rule segment.Rule, recoveryPoint int64, step int) (*segment.Log, *segment.CrashLoad, error)

// CrashOptions tune ExploreCrashes. The zero value is ready to use.
type CrashOptions struct {
	// MaxPoints bounds the crash points explored per workload; a run with more is sampled
	// with Seed (<= 0: 64).
	MaxPoints int
	// Seed draws the sample and what each crash keeps of the unsynced writes.
	Seed uint64
	// Reopen is the file side's reload; nil means segment.LoadAfterCrash.
	Reopen ReopenFunc
	// StopAt, when set, ends the exploration at the first finding of that kind (shrinking
	// needs only to know that one is met).
	StopAt string
}

// CrashFinding is one of Kafka's hazards met by a crash, with the workload (crash step
// included) that replays it.
type CrashFinding struct {
	Kind     string         `json:"kind"`
	Message  string         `json:"message"`
	Workload model.Workload `json:"workload"`
}

// CrashResult is what ExploreCrashes saw for one workload.
type CrashResult struct {
	// Points is the number of write and sync points of the run (plus one after Close);
	// Explored how many of them were crashed.
	Points, Explored int
	Divergences      []*Divergence
	Findings         []CrashFinding
}

// crashPartition is where the explorer writes: a partition directory under a log dir, so that
// the recovery-point-offset-checkpoint has its place and its entry.
const crashPartition = "/logs/crash-0"

// crashPoint is one crashed state: the directory a crash left at one instant, the durable part
// alone (what no crash can lose), and the step that was running.
type crashPoint struct {
	index   int
	step    int
	crashed *vfs.MemFS
	durable *vfs.MemFS
	// sizes are the partition's files' sizes at the crash instant, as the running broker saw
	// them (a crashed index larger than that lost a trim), and indexes the bytes of its small
	// index files.
	sizes   map[string]int64
	indexes map[string][]byte
	// clean is set for a crash inside a clean step: the segments before and after it.
	clean *cleanStates
}

// snapshotMax bounds the index files whose bytes a crash point keeps: closed segments'
// indexes are trimmed and small; the active one's is preallocated and is always recovered.
const snapshotMax = 1 << 20

// fileSizes lists the sizes of the files in the partition directory of m, and the bytes of
// its index files up to snapshotMax.
func fileSizes(m *vfs.MemFS) (map[string]int64, map[string][]byte) {
	sizes, indexes := map[string]int64{}, map[string][]byte{}
	ents, err := m.ReadDir(crashPartition)
	if err != nil {
		return sizes, indexes
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		sizes[e.Name()] = fi.Size()
		if ext := filepath.Ext(e.Name()); (ext == segment.IndexSuffix || ext == segment.TimeIndexSuffix) && fi.Size() <= snapshotMax {
			if b, err := vfs.ReadFile(m, filepath.Join(crashPartition, e.Name())); err == nil {
				indexes[e.Name()] = b
			}
		}
	}
	return sizes, indexes
}

// ExploreCrashes crashes w (a workload without crash steps) at its write and sync points and
// checks each reload (docs/crash.md). It returns an error wrapping ErrSkip when w is not
// comparable (as for Check), any other error when the harness itself failed.
func ExploreCrashes(w model.Workload, o *CrashOptions) (*CrashResult, error) {
	if o == nil {
		o = &CrashOptions{}
	}
	maxPoints := o.MaxPoints
	if maxPoints <= 0 {
		maxPoints = 64
	}
	for i, s := range w.Steps {
		if s.Crash != nil {
			return nil, fmt.Errorf("%w: step %d is a crash step: the explorer places its own", ErrSkip, i)
		}
	}
	r, err := Resolve(w)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSkip, err)
	}
	if _, err := model.Simulate(r.Model, r.Rule, w.StartOffset, w.Steps, true); err != nil {
		return nil, fmt.Errorf("%w: model: %v", ErrSkip, err)
	}
	total, _, _, err := runToCrash(r, nil, o.Seed)
	if err != nil {
		return nil, err
	}
	chosen := make(map[int]bool)
	if total <= maxPoints {
		for i := range total {
			chosen[i] = true
		}
	} else {
		rng := rand.New(rand.NewPCG(o.Seed, uint64(total)))
		for _, i := range rng.Perm(total)[:maxPoints] {
			chosen[i] = true
		}
	}
	_, points, fileEvents, err := runToCrash(r, chosen, o.Seed)
	if err != nil {
		return nil, err
	}
	reopen := o.Reopen
	if reopen == nil {
		reopen = segment.LoadAfterCrash
	}
	res := &CrashResult{Points: total}
	seen := map[string]bool{}
	for _, p := range points {
		div, findings, err := checkCrashPoint(r, w, p, fileEvents, reopen)
		if errors.Is(err, errNoSegment) {
			continue
		}
		if errors.Is(err, errNotComparable) {
			// Findings still count; the point is not compared with the model.
			for _, f := range findings {
				if !seen[f.Kind] {
					seen[f.Kind] = true
					res.Findings = append(res.Findings, f)
				}
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("crash point %d (step %d): %w", p.index, p.step, err)
		}
		res.Explored++
		if div != nil {
			res.Divergences = append(res.Divergences, div)
		}
		for _, f := range findings {
			if !seen[f.Kind] {
				seen[f.Kind] = true
				res.Findings = append(res.Findings, f)
			}
		}
		if o.StopAt != "" && seen[o.StopAt] {
			break
		}
	}
	return res, nil
}

// errNoSegment marks a crash before the first segment's names were durable: there is no log
// to reload yet.
var errNoSegment = errors.New("no segment survived")

// crashOps are the operations a crash can fall between: every one that changes a file or a
// directory.
func crashOp(k vfs.OpKind) bool {
	switch k {
	case vfs.OpCreate, vfs.OpWrite, vfs.OpTruncate, vfs.OpSync, vfs.OpSyncDir, vfs.OpRename, vfs.OpRemove:
		return true
	}
	return false
}

// runToCrash writes r on a fresh MemFS, numbering the crash points: before each changing
// operation, and once after Close. For the points in chosen it keeps a crash clone (what the
// crash leaves, drawn from seed and the point's number) and the durable state. It returns the
// number of points, the clones, and the events of the uncrashed run. A run that fails (an
// index overflow) ends there: the partition is offline, and later points are not taken.
func runToCrash(r *Resolved, chosen map[int]bool, seed uint64) (int, []crashPoint, []segment.Event, error) {
	mem := vfs.NewMemFS()
	if err := mem.MkdirAll(filepath.Dir(crashPartition), 0o755); err != nil {
		return 0, nil, nil, err
	}
	if err := mem.SyncDir("/"); err != nil {
		return 0, nil, nil, err
	}
	n, step := 0, -1
	var points []crashPoint
	var cleaning *cleanStates // the clean step running, filled in when it ends
	failed := false
	take := func() {
		if chosen[n] && !failed {
			rng := rand.New(rand.NewPCG(seed, uint64(n)))
			// Half the crashes keep only synced names (Pebble's rule); the other half may also
			// keep names no one synced (CrashCloneEager), as ext4's journal can.
			clone := mem.CrashClone
			if rng.IntN(2) == 0 {
				clone = mem.CrashCloneEager
			}
			sizes, indexes := fileSizes(mem)
			points = append(points, crashPoint{index: n, step: step, crashed: clone(rng),
				durable: mem.CrashCloneFunc(func(string, []vfs.Change) vfs.CrashPoint { return vfs.CrashPoint{} }),
				sizes:   sizes, indexes: indexes, clean: cleaning})
		}
		n++
	}
	ffs := vfs.NewFaultFS(mem, vfs.InjectorFunc(func(op vfs.Op) *vfs.Fault {
		if crashOp(op.Kind) {
			take()
		}
		return nil
	}))
	sw := r.File
	l, err := segment.CreateLogFS(ffs, crashPartition, sw.Config, sw.Rule, sw.StartOffset)
	if err != nil {
		return 0, nil, nil, err
	}
	if err := l.KeepRecoveryCheckpoint(); err != nil {
		return 0, nil, nil, err
	}
	for i, s := range sw.Steps {
		step = i
		if s.Clean != nil && chosen != nil {
			before, err := snapshotSegments(mem)
			if err != nil {
				return 0, nil, nil, err
			}
			cleaning = &cleanStates{before: before, activeBase: before.bases[len(before.bases)-1]}
		}
		_, err := l.Apply(s)
		if cleaning != nil {
			after, serr := snapshotSegments(mem)
			if serr != nil {
				return 0, nil, nil, serr
			}
			cleaning.after, cleaning = after, nil
		}
		if err != nil {
			l.Close()
			if isBuilderRefusal(err) {
				return 0, nil, nil, fmt.Errorf("%w: step %d: %v", ErrSkip, i, err)
			}
			return 0, nil, nil, fmt.Errorf("file side: step %d: %w", i, err)
		}
		if l.Failed() {
			// Points inside the failing step are dropped too (the model stops before it), and
			// none is taken in the Close that follows.
			failed = true
			points = slices.DeleteFunc(points, func(p crashPoint) bool { return p.step >= i })
			l.Close()
			return n, points, l.Events(), nil
		}
	}
	step = len(sw.Steps) - 1
	if err := l.Close(); err != nil {
		return 0, nil, nil, fmt.Errorf("file side: close: %w", err)
	}
	take()
	return n, points, l.Events(), nil
}

// crashedSegment is one segment as the crash left it, before the reload.
type crashedSegment struct {
	base                int64
	logPath             string
	log                 []byte
	indexSize, timeSize int64
	// index and timeIndex are the indexes up to their zero tails (nil when missing).
	index     *segment.OffsetIndex
	timeIndex *segment.TimeIndex
}

// untrimmed reports whether either index of the segment is larger after the crash than the
// running broker had it: the crash lost a trim, and the index has a zero tail past its entries.
func (c crashedSegment) untrimmed(sizes map[string]int64) bool {
	stem := strings.TrimSuffix(filepath.Base(c.logPath), segment.LogSuffix)
	return (c.index != nil && c.indexSize > sizes[stem+segment.IndexSuffix]) ||
		(c.timeIndex != nil && c.timeSize > sizes[stem+segment.TimeIndexSuffix])
}

// indexChunk is how much of an index readIndexHead reads at a time.
const indexChunk = 64 << 10

// readIndexHead reads an index file up to the first all-zero chunk after its start: a crashed
// index is preallocated to segment.index.bytes (10 MiB by default) with its entries at the
// front, and past slot 0 a real entry is never all zeros (docs/segment.md, "Valid entries").
// It returns what was read and the file's size; a missing file is nil, -1.
func readIndexHead(fsys vfs.FS, path string) ([]byte, int64, error) {
	f, err := fsys.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, -1, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	head := []byte{}
	buf := make([]byte, indexChunk)
	for off := int64(0); off < st.Size(); off += indexChunk {
		n, err := f.ReadAt(buf[:min(indexChunk, st.Size()-off)], off)
		if err != nil && n == 0 {
			return nil, 0, err
		}
		if off > 0 && !slices.ContainsFunc(buf[:n], func(b byte) bool { return b != 0 }) {
			break
		}
		head = append(head, buf[:n]...)
	}
	return head, st.Size(), nil
}

// readCrashed reads every segment of the crashed partition directory.
func readCrashed(fsys vfs.FS) ([]crashedSegment, error) {
	ents, err := fsys.ReadDir(crashPartition)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // the directory's name was not durable yet
	}
	if err != nil {
		return nil, err
	}
	var out []crashedSegment
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), segment.LogSuffix) {
			continue
		}
		p := filepath.Join(crashPartition, e.Name())
		base, err := segment.OffsetFromFileName(e.Name())
		if err != nil {
			continue
		}
		cs := crashedSegment{base: base, logPath: p}
		if cs.log, err = vfs.ReadFile(fsys, p); err != nil {
			return nil, err
		}
		stem := strings.TrimSuffix(p, segment.LogSuffix)
		head, size, err := readIndexHead(fsys, stem+segment.IndexSuffix)
		if err != nil {
			return nil, err
		}
		if head != nil {
			cs.indexSize = size
			if cs.index, err = segment.OffsetIndexFromBytes(stem+segment.IndexSuffix, base, head); err != nil {
				return nil, err
			}
		}
		if head, size, err = readIndexHead(fsys, stem+segment.TimeIndexSuffix); err != nil {
			return nil, err
		}
		if head != nil {
			cs.timeSize = size
			if cs.timeIndex, err = segment.TimeIndexFromBytes(stem+segment.TimeIndexSuffix, base, head); err != nil {
				return nil, err
			}
		}
		out = append(out, cs)
	}
	return out, nil
}

// checkCrashPoint reloads one crashed directory, runs the rest of the workload on it, and
// compares with the model given the same crash step.
//
// A crash inside a recover step from a recovery point n (segment.Log.RecoverFrom writes the
// checkpoint n before it recovers) that finds a checkpoint above n is one of two states: before
// that write landed, when nothing of the step had happened, or after the step, when a later
// flush (the close at the end) had moved the checkpoint on. The model is given the step whole
// first; if that diverges, the step as a recovery from the checkpoint found (which the crash's
// own load repeats, so the steps keep their numbers), and either answer is Kafka's.
func checkCrashPoint(r *Resolved, w model.Workload, p crashPoint, runEvents []segment.Event, reopen ReopenFunc) (*Divergence, []CrashFinding, error) {
	if p.step < 0 || !w.Steps[p.step].Recover || !w.Steps[p.step].HasRecoveryPoint ||
		segment.ReadRecoveryPoint(p.crashed, crashPartition) <= w.Steps[p.step].RecoveryPoint {
		return checkCrashPointAs(r, w, p, runEvents, reopen, false)
	}
	// The first run reloads the crashed directory in place: the second gets a copy of it (a
	// crash clone of a crash clone keeps every byte: nothing in it is unsynced).
	alt := p
	alt.crashed = p.crashed.CrashCloneFunc(func(string, []vfs.Change) vfs.CrashPoint { return vfs.CrashPoint{} })
	d, findings, err := checkCrashPointAs(r, w, p, runEvents, reopen, false)
	if d == nil || err != nil {
		return d, findings, err
	}
	if d2, f2, err2 := checkCrashPointAs(r, w, alt, runEvents, reopen, true); err2 == nil && d2 == nil {
		return nil, f2, nil
	}
	return d, findings, err
}

// checkCrashPointAs is checkCrashPoint's run; notStarted gives the model a recover step from a
// recovery point as a recovery from the checkpoint the crash left (see checkCrashPoint).
func checkCrashPointAs(r *Resolved, w model.Workload, p crashPoint, runEvents []segment.Event, reopen ReopenFunc, notStarted bool) (*Divergence, []CrashFinding, error) {
	crashed, err := readCrashed(p.crashed)
	if err != nil {
		return nil, nil, err
	}
	if len(crashed) == 0 {
		return nil, nil, errNoSegment
	}
	rp := segment.ReadRecoveryPoint(p.crashed, crashPartition)
	bases := make([]int64, len(crashed))
	for i, c := range crashed {
		bases[i] = c.base
	}
	u := 0
	for i, b := range bases {
		if b <= rp {
			u = i
		}
	}
	crash := &model.Crash{RecoveryPoint: rp}
	for _, c := range crashed[u:] {
		crash.Segments = append(crash.Segments, model.CrashSegment{BaseOffset: c.base, LogBytes: int64(len(c.log)), IndexBytes: c.indexSize, TimeIndexBytes: c.timeSize})
	}
	// The model's workload: the step that was running, whole (the crash step's sizes say how
	// much of it survived), then the crash, then the rest.
	mw := cloneWorkload(w)
	k := p.step + 1
	if notStarted {
		mw.Steps[p.step].RecoveryPoint = rp
	}
	mw.Steps = slices.Concat(mw.Steps[:k], []model.Step{{Crash: crash}}, mw.Steps[k:])
	div := func(kind, format string, args ...any) *Divergence {
		return &Divergence{Kind: kind, What: fmt.Sprintf("crash point %d, in step %d: ", p.index, p.step) + fmt.Sprintf(format, args...), Workload: mw}
	}
	findings := crashFindings(crashed, u, rp, p.sizes, mw)

	sw := r.File
	l, load, err := reopen(p.crashed, crashPartition, sw.Config, sw.Rule, rp, k)
	if err != nil {
		return nil, nil, fmt.Errorf("reload: %w", err)
	}
	if load.Overflow != nil {
		findings = append(findings, CrashFinding{Kind: FindingRecoverOverflow, Workload: mw,
			Message: fmt.Sprintf("the reload after the crash rebuilds segment %s per batch and fills its index: %q. Kafka throws from LogSegment.recover and the log does not load (docs/crash.md).",
				lastRecovered(load), load.Overflow.Message)})
	} else if p.clean == nil {
		if what := checkDurable(p, crashed, load); what != "" {
			l.Close()
			return div("crash-durability", "%s", what), findings, nil
		}
	}
	if p.clean != nil {
		// The segments below the active one are the clean's sources or outputs: held to
		// those, not to the running broker's files at the crash instant (crash_clean.go).
		cmw, cf, what, err := settleCleanCrash(w, p, crash, sw.Config.SegmentIndexBytes)
		findings = append(findings, cf...)
		if errors.Is(err, errNotComparable) {
			l.Close()
			return nil, findings, nil
		}
		if err != nil {
			l.Close()
			return nil, nil, err
		}
		mw = cmw
		if what != "" {
			l.Close()
			return div("crash-clean", "%s", what), findings, nil
		}
	} else {
		// Segments below the first unflushed one keep what the crash left: no reload touches
		// them. Where their indexes differ from what the running broker had (findings), the
		// model, whose segments are as the broker had them, is compared with those indexes put
		// back -- before the rest of the workload runs, since a clean step reads them (its
		// grouping) and replaces the segments.
		below, what, err := checkBelowRecoveryPoint(p, crashed[:u], rp, mw)
		if err != nil {
			l.Close()
			return nil, nil, err
		}
		findings = append(findings, below...)
		if what != "" {
			l.Close()
			return div("crash-below-recovery-point", "%s", what), findings, nil
		}
	}
	if !l.Failed() {
		for i, s := range sw.Steps[k:] {
			if _, err := l.Apply(s); err != nil {
				l.Close()
				if s.Clean != nil {
					// The crash left a log this clean no longer fits (it names a batch the
					// crash lost, or the active segment moved below its uncleanable offset).
					return nil, findings, errNotComparable
				}
				return nil, nil, fmt.Errorf("step %d after the reload: %w", k+1+i, err)
			}
			if l.Failed() {
				break
			}
		}
	}
	if err := l.Close(); err != nil {
		return nil, nil, fmt.Errorf("close after the reload: %w", err)
	}
	ml, err := model.Simulate(r.Model, r.Rule, w.StartOffset, mw.Steps, true)
	if err != nil {
		return div("crash-step", "the model refuses the crash the files had: %v", err), findings, nil
	}
	var fev []segment.Event
	for _, e := range runEvents {
		if e.Step <= p.step {
			fev = append(fev, e)
		}
	}
	fev = append(fev, l.Events()...)
	if what := compareEvents(ml.Events(), fev); what != "" {
		return div("events", "%s", what), findings, nil
	}
	if ml.Stopped() {
		// An overflow stopped both sides (events equal); the model shows the state before the
		// failing step, the files that step's bytes: Check's prefix comparison is not repeated.
		return nil, findings, nil
	}
	kind, what, err := compareDir(p.crashed, ml.Segments(), crashPartition)
	if err != nil {
		return nil, nil, err
	}
	if what != "" {
		return div(kind, "%s", what), findings, nil
	}
	return nil, findings, nil
}

// checkBelowRecoveryPoint compares the segments below the first unflushed one, as the crash
// left them, with the running broker's: their .log must be whole (it was flushed); an index
// that differs is one of Kafka's hazards, since no reload recovers these segments:
//   - an index longer than the broker's, its own bytes then zeros: a trim never synced (the roll
//     that found the recovery point at its new base flushed nothing);
//   - other bytes: a rewrite never synced (the recovery at an unclean restart rewrites the
//     indexes of the segments from the recovery point and flushes nothing), so the crash left a
//     mix of the old and the new entries.
//
// Each such index is then put back as the broker had it. It returns the findings, and what is
// wrong when a .log below the recovery point lost bytes.
func checkBelowRecoveryPoint(p crashPoint, below []crashedSegment, rp int64, mw model.Workload) ([]CrashFinding, string, error) {
	var out []CrashFinding
	for _, c := range below {
		name := filepath.Base(c.logPath)
		if want := p.sizes[name]; int64(len(c.log)) != want {
			return out, fmt.Sprintf("%s: a segment below the recovery point %d has %d bytes after the crash, the broker had %d (flushed)", name, rp, len(c.log), want), nil
		}
		stem := strings.TrimSuffix(name, segment.LogSuffix)
		for _, suf := range []string{segment.IndexSuffix, segment.TimeIndexSuffix} {
			want, ok := p.indexes[stem+suf]
			if !ok {
				continue
			}
			path := filepath.Join(crashPartition, stem+suf)
			got, err := vfs.ReadFile(p.crashed, path)
			if errors.Is(err, fs.ErrNotExist) {
				return out, fmt.Sprintf("%s: the index of a segment below the recovery point %d is gone after the crash", stem+suf, rp), nil
			}
			if err != nil {
				return out, "", err
			}
			if bytes.Equal(got, want) {
				continue
			}
			if len(got) > len(want) && bytes.Equal(got[:len(want)], want) && !slices.ContainsFunc(got[len(want):], func(b byte) bool { return b != 0 }) {
				out = append(out, CrashFinding{Kind: FindingZeroTailSanity, Workload: mw, Message: fmt.Sprintf(
					"%s: a segment below the recovery point (%d) kept its index untrimmed (%d bytes, the broker's %d, then zeros): its trim was never synced (a roll that finds the recovery point at its new base, after a clean restart or a flush.messages flush, flushes nothing: UnifiedLog.flush). "+
						"No reload recovers it. Kafka 2.3+ reopen it with the zero tail read as entries, so its lookups start from the zero entry (no sanity check since KAFKA-7283); 0.8.1-0.8.2 require every index's last offset above its base after recovery (KAFKA-1112): the log does not load; 0.9-1.1 fail the sanity check and rebuild it (KAFKA-2012).",
					stem+suf, rp, len(got), len(want))})
			} else {
				out = append(out, CrashFinding{Kind: FindingUnsyncedRewrite, Workload: mw, Message: fmt.Sprintf(
					"%s: a segment below the recovery point (%d) has an index that differs from the broker's (%d bytes, the broker's %d, first difference at byte %d): an unclean restart's recovery rewrote it and flushed nothing (LogLoader keeps the recovery point), so the crash kept part of the old entries and part of the new. "+
						"No reload recovers it again: Kafka serves lookups from that index as it is.",
					stem+suf, rp, len(got), len(want), firstDiff(got, want))})
			}
			f, err := p.crashed.Create(path)
			if err != nil {
				return out, "", err
			}
			if _, err := f.WriteAt(want, 0); err != nil {
				f.Close()
				return out, "", err
			}
			if err := f.Close(); err != nil {
				return out, "", err
			}
		}
	}
	return out, "", nil
}

func lastRecovered(load *segment.CrashLoad) string {
	if n := len(load.Recovered); n > 0 {
		return segment.FilenamePrefixFromOffset(load.Recovered[n-1]) + segment.LogSuffix
	}
	return "?"
}

// checkDurable checks the file side's reload against the crash alone, without the model
// (issue 13): no batch synced before the crash is lost (each durable .log is a prefix of the
// reloaded one), and nothing after the first invalid byte survives (each recovered .log walks
// to its end and is a prefix of what the crash left).
func checkDurable(p crashPoint, crashed []crashedSegment, load *segment.CrashLoad) string {
	ents, err := p.durable.ReadDir(crashPartition)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err.Error()
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), segment.LogSuffix) {
			continue
		}
		path := filepath.Join(crashPartition, e.Name())
		want, err1 := vfs.ReadFile(p.durable, path)
		got, err2 := vfs.ReadFile(p.crashed, path)
		if errors.Is(err2, fs.ErrNotExist) && len(want) > 0 {
			return fmt.Sprintf("%s: %d synced bytes, and the reload deleted the segment", e.Name(), len(want))
		}
		if err := errors.Join(err1, err2); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err.Error()
		}
		if !bytes.HasPrefix(got, want) {
			return fmt.Sprintf("%s: the reload kept %d bytes, which do not start with the %d bytes synced before the crash", e.Name(), len(got), len(want))
		}
	}
	for _, base := range load.Recovered {
		i := slices.IndexFunc(crashed, func(c crashedSegment) bool { return c.base == base })
		if i < 0 || slices.Contains(load.Deleted, base) {
			continue
		}
		got, err := vfs.ReadFile(p.crashed, crashed[i].logPath)
		if err != nil {
			return err.Error()
		}
		if !bytes.HasPrefix(crashed[i].log, got) {
			return fmt.Sprintf("%s: the recovered %d bytes are not a prefix of the %d the crash left", filepath.Base(crashed[i].logPath), len(got), len(crashed[i].log))
		}
		lf := segment.LogFileFromBytes(crashed[i].logPath, got)
		var bad error
		walk := lf.Walk(0, 0, func(b segment.BatchInfo) bool {
			bad = lf.CheckBatch(b)
			return bad == nil
		})
		if bad != nil || walk.Err != nil || walk.TrailingBytes() != 0 {
			return fmt.Sprintf("%s: after the reload an invalid byte survives at %d of %d (%v)", filepath.Base(crashed[i].logPath), walk.ValidBytes, len(got), errors.Join(bad, walk.Err))
		}
	}
	return ""
}

// crashFindings reads Kafka's hazards off the crashed files, before any reload: a rolled
// segment whose .index kept its zero tail, and index entries past the surviving .log.
func crashFindings(crashed []crashedSegment, u int, rp int64, sizes map[string]int64, mw model.Workload) []CrashFinding {
	var out []CrashFinding
	for i, c := range crashed {
		name := filepath.Base(c.logPath)
		x := c.index
		if x == nil {
			continue
		}
		switch {
		case i >= u && i < len(crashed)-1 && c.untrimmed(sizes):
			out = append(out, CrashFinding{Kind: FindingZeroTailSanity, Workload: mw, Message: fmt.Sprintf(
				"%s: the crash left a rolled segment's .index untrimmed (%d bytes, %d real entries, then the preallocated zeros): the roll's trim was not yet durable. "+
					"Kafka 0.8.0 recovers only the active segment and then requires every index's last offset above its base offset (KAFKA-1112): the log would not load. "+
					"Kafka 0.9-1.1 fail its sanity check and rebuild it (KAFKA-2012); 2.3+ recover it from the recovery point (%d), as kidx's reload does.",
				strings.TrimSuffix(name, segment.LogSuffix)+segment.IndexSuffix, c.indexSize, x.ValidLen(), rp)})
		}
		for j := range x.ValidLen() {
			e, err := x.Entry(j)
			if err != nil || e.Position < int64(len(c.log)) {
				continue
			}
			where := "past the recovery point, so every release since 0.8.1 rebuilds the index at the reload (KAFKA-615)"
			if i < u {
				where = "below the recovery point, which no reload rebuilds"
			}
			out = append(out, CrashFinding{Kind: FindingEntryPastLog, Workload: mw, Message: fmt.Sprintf(
				"%s: index entry %d (offset %d, position %d) survived the crash but the .log kept only %d bytes: the entry's batch was lost. The segment is %s; "+
					"a reader of the crashed files before the reload (kafka-dump-log, kidx verify) meets an entry past the end of the log.",
				strings.TrimSuffix(name, segment.LogSuffix)+segment.IndexSuffix, j, e.Offset, e.Position, len(c.log), where)})
			break
		}
	}
	return out
}

// ShrinkFinding reduces the workload (without its crash step) that led to f while crash
// exploration with o still meets a finding of the same kind, and returns that finding, whose
// workload then carries the crash step again. budget bounds the explorations (<= 0: 200).
func ShrinkFinding(base model.Workload, f CrashFinding, o *CrashOptions, budget int) CrashFinding {
	if budget <= 0 {
		budget = 200
	}
	best := f
	so := *o
	so.StopAt = f.Kind
	ShrinkWorkload(base, budget, func(w model.Workload) bool {
		res, err := ExploreCrashes(w, &so)
		if err != nil {
			return false
		}
		for _, nf := range res.Findings {
			if nf.Kind == f.Kind {
				best = nf
				return true
			}
		}
		return false
	})
	return best
}

// WithoutCrash is w without the crash step a finding's workload carries: the workload the
// explorer started from.
func WithoutCrash(w model.Workload) model.Workload {
	c := cloneWorkload(w)
	c.Steps = slices.DeleteFunc(c.Steps, func(s model.Step) bool { return s.Crash != nil })
	return c
}

// ReplayCrash runs a workload that carries its crash steps (a finding's or a divergence's
// workload) through the harness: the file side applies each crash step with segment.Log.Crash
// on the files the previous step left, so it replays what the crash kept of the logs, not the
// exact unsynced index bytes. A rebuild that overflows at a crash step is reported as the
// recover-overflow finding; the other findings need the crashed files before the reload, which
// only exploration sees.
func ReplayCrash(w model.Workload) (*CrashResult, error) {
	res := &CrashResult{Points: 1, Explored: 1}
	d, err := Check(w, nil)
	if err != nil {
		return nil, err
	}
	if d != nil {
		res.Divergences = append(res.Divergences, d)
		return res, nil
	}
	r, err := Resolve(w)
	if err != nil {
		return nil, err
	}
	ml, err := model.Simulate(r.Model, r.Rule, w.StartOffset, w.Steps, true)
	if err != nil {
		return nil, err
	}
	for _, e := range ml.Events() {
		if e.Step < len(w.Steps) && w.Steps[e.Step].Crash != nil && strings.HasSuffix(e.Kind, "overflow") {
			res.Findings = append(res.Findings, CrashFinding{Kind: FindingRecoverOverflow, Workload: w,
				Message: fmt.Sprintf("the reload at step %d rebuilds a segment per batch and fills its index: %q. Kafka throws from LogSegment.recover and the log does not load (docs/crash.md).", e.Step, e.Message)})
		}
	}
	return res, nil
}
