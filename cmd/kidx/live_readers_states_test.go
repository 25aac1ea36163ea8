package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"kidx/dump"
	"kidx/explain"
	"kidx/logdir"
	"kidx/reports"
	"kidx/segment"
	"kidx/segment/vfs"
)

// Issue 13, item 4 ("Readers under a live broker"), deterministic: TestReadersUnderLiveBroker
// leaves it to the scheduler which states the readers meet, so its rules rarely bite. Here the
// directory is frozen in every state a running broker shows a reader between the steps of its
// operations, and every reader runs on each, in-process: no panic, every error names a segment
// file of the directory and a byte (checkErr's rule, with its exception for a file that
// vanished between the listing and the open), every finding names a file and, for a check
// about a place in a file, its byte (checkFindings), and the directory is byte-identical
// afterwards. docs/logdirs.md ("Readers under a live broker") lists the states.

// hookedFS is vfs.OS that calls after once each change it makes is done: the states test freezes
// the directory there, between the steps of segment.Log's append (LogSegment.append: the .log,
// then the index entries) and roll (LocalLog.roll: onBecomeInactiveSegment's final time-index
// entry and trims, then LogSegment.open of the new segment's files).
type hookedFS struct {
	vfs.FS
	after func(op string)
}

func (h *hookedFS) Create(name string) (vfs.File, error) {
	f, err := h.FS.Create(name)
	if err != nil {
		return nil, err
	}
	h.after("create " + filepath.Base(name))
	return &hookedFile{File: f, fs: h, name: filepath.Base(name)}, nil
}

func (h *hookedFS) OpenReadWrite(name string) (vfs.File, error) {
	f, err := h.FS.OpenReadWrite(name)
	if err != nil {
		return nil, err
	}
	return &hookedFile{File: f, fs: h, name: filepath.Base(name)}, nil
}

func (h *hookedFS) Rename(from, to string) error {
	if err := h.FS.Rename(from, to); err != nil {
		return err
	}
	h.after("rename " + filepath.Base(from) + " to " + filepath.Base(to))
	return nil
}

func (h *hookedFS) Remove(name string) error {
	if err := h.FS.Remove(name); err != nil {
		return err
	}
	h.after("remove " + filepath.Base(name))
	return nil
}

type hookedFile struct {
	vfs.File
	fs   *hookedFS
	name string
}

func (f *hookedFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	if err == nil {
		f.fs.after(fmt.Sprintf("write %s [%d, %d)", f.name, off, off+int64(n)))
	}
	return n, err
}

func (f *hookedFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	if err == nil {
		f.fs.after(fmt.Sprintf("write %s (%d bytes)", f.name, n))
	}
	return n, err
}

func (f *hookedFile) Truncate(size int64) error {
	if err := f.File.Truncate(size); err != nil {
		return err
	}
	f.fs.after(fmt.Sprintf("truncate %s to %d", f.name, size))
	return nil
}

// frozenStates runs the readers on each state of one partition directory and keeps the tally.
type frozenStates struct {
	t      *testing.T
	dir    string // the partition directory (absolute)
	phase  string // the broker operation in progress, for the state's name
	ops    []string
	states int
	// stale: the readers also read the scan taken at the previous state, so that every file
	// it lists and the broker then renamed or removed is one that vanished between the listing
	// and the open.
	stale    bool
	lastScan *logdir.DirScan
	errs     map[string]int
	inFile   int
	findings int
	failures int
	met      map[string]bool // the states of the brief met, by name
}

func newFrozenStates(t *testing.T, dir string) *frozenStates {
	return &frozenStates{t: t, dir: dir, errs: map[string]int{}, met: map[string]bool{}}
}

// op is the hook of hookedFS and the liveWriter's pause: the broker's step is done, the
// directory is frozen, the readers read it.
func (fz *frozenStates) op(what string) {
	fz.ops = append(fz.ops, fz.phase+": "+what)
	fz.freeze(what)
}

// freeze runs every reader on the directory as it is, and checks them.
func (fz *frozenStates) freeze(what string) {
	t := fz.t
	t.Helper()
	fz.states++
	name := fz.phase + ": " + what
	before := treeOf(t, fz.dir)
	o := &readerOutcome{calls: map[string]int{}, errs: map[string]int{}, sample: map[string]string{}}
	for _, r := range stateReaders(fz.dir, o) {
		runGuarded(o, r.name, r.run)
	}
	if fz.stale && fz.lastScan != nil {
		scan := fz.lastScan
		runGuarded(o, "stale-scan", func() {
			if readScan(o, scan, fz.dir) > 0 {
				fz.met["a listed file vanished before its open"] = true
			}
		})
	}
	after := treeOf(t, fz.dir)
	fz.compareTrees(name, before, after)
	for _, b := range o.bad {
		fz.fail("state %q: %s", name, b)
	}
	for k, v := range o.errs {
		fz.errs[k] += v
	}
	fz.inFile += o.inFile
	fz.findings += o.findings
	if fz.stale {
		scan, err := logdir.ScanDir(fz.dir)
		if err != nil {
			t.Fatal(err)
		}
		fz.lastScan = scan
	}
}

func (fz *frozenStates) fail(format string, args ...any) {
	fz.t.Helper()
	fz.failures++
	if fz.failures > 40 {
		fz.t.Fatalf("more than 40 violations; stopping")
	}
	fz.t.Errorf(format, args...)
}

// compareTrees: nothing written, created or removed by the readers (names, modes, contents).
func (fz *frozenStates) compareTrees(state string, before, after map[string]string) {
	for _, d := range treeDiff(before, after) {
		fz.fail("state %q, while the readers read: %s", state, d)
	}
}

func runGuarded(o *readerOutcome, name string, run func()) {
	defer func() {
		if r := recover(); r != nil {
			o.violation("%s panicked: %v\n%s", name, r, debug.Stack())
		}
	}()
	run()
}

type namedReader struct {
	name string
	run  func()
}

// stateReaders are the readers as kidx's commands call them, each once, deterministically:
// verify plain and --deep, analyze, explain, and per segment the lookups and dumps.
func stateReaders(dir string, o *readerOutcome) []namedReader {
	verify := func(deep bool) func() {
		return func() {
			rep, err := logdir.Verify([]string{dir}, logdir.VerifyOptions{Deep: deep})
			if err != nil {
				o.checkErr("verify", err, dir)
				return
			}
			o.checkFindings("verify", rep.Findings, dir)
		}
	}
	return []namedReader{
		{"verify", verify(false)},
		{"verify --deep", verify(true)},
		{"analyze", func() {
			a, err := reports.AnalyzeDirs([]string{dir}, reports.AnalyzeOptions{})
			if err != nil {
				o.checkErr("analyze", err, dir)
				return
			}
			o.checkFindings("analyze", a.Findings, dir)
			for _, p := range a.Partitions {
				o.checkFindings("analyze", p.Findings, dir)
			}
			_ = a.WriteJSON(io.Discard)
		}},
		{"explain", func() {
			parts, err := explain.Dirs([]string{dir}, explain.Options{Interval: -1})
			if err != nil {
				o.checkErr("explain", err, dir)
				return
			}
			checkExplanations(o, parts, dir)
		}},
		{"lookup", func() {
			scan, err := logdir.ScanDir(dir)
			if err != nil {
				o.checkErr("lookup", err, dir)
				return
			}
			readScan(o, scan, dir)
		}},
	}
}

// checkExplanations: a disagreement names a file of the directory and a byte.
func checkExplanations(o *readerOutcome, parts []explain.PartitionExplanation, dir string) {
	for _, p := range parts {
		for _, s := range p.Segments {
			if d := s.FirstDisagreement; d != nil && (!strings.HasPrefix(d.File, dir) || d.Byte < 0) {
				o.violation("explain: disagreement names no file of the directory or no byte: %s", d)
			}
		}
	}
}

// readScan runs the readers that take a scan's listing on it: logdir.VerifyPartition and
// explain.Partition (verify's and explain's per-partition work) and, per segment, the
// lookups and dumps. Given an older scan, every file it lists that is gone now vanished between
// the listing and the open.
//
// A vanished file costs its segment only: verify names it in a finding, explain in a note on
// that segment and goes on with the others (docs/logdirs.md, "Readers under a live broker").
func readScan(o *readerOutcome, scan *logdir.DirScan, dir string) (vanished int) {
	for i := range scan.Partitions {
		pd := &scan.Partitions[i]
		gone := map[int64][]string{} // by base offset: the listed files that are gone
		for _, sf := range pd.LogSegments() {
			for _, p := range []string{sf.Log, sf.Index, sf.TimeIndex} {
				if _, err := os.Stat(p); p != "" && errors.Is(err, fs.ErrNotExist) {
					gone[sf.BaseOffset] = append(gone[sf.BaseOffset], p)
					vanished++
				}
			}
		}
		for _, deep := range []bool{false, true} {
			rep := logdir.VerifyPartition(pd, nil, logdir.VerifyOptions{Deep: deep})
			o.checkFindings("verify (scanned)", rep.Findings, dir)
			for base, paths := range gone {
				named := false
				for _, f := range rep.Findings {
					named = named || slices.Contains(paths, f.File)
				}
				if !named {
					o.violation("verify (scanned): no finding names the vanished file(s) %v of segment %d", paths, base)
				}
			}
		}
		pe, err := explain.Partition(pd, explain.Options{Interval: -1})
		if err != nil {
			o.checkErr("explain (scanned)", err, dir)
			if errors.Is(err, fs.ErrNotExist) {
				o.violation("explain (scanned): stopped at a vanished file instead of going on: %v", err)
			}
		} else {
			checkExplanations(o, []explain.PartitionExplanation{pe}, dir)
			if len(pe.Segments) != len(pd.LogSegments()) {
				o.violation("explain (scanned): %d segments explained of the %d listed", len(pe.Segments), len(pd.LogSegments()))
			}
			for _, se := range pe.Segments {
				paths := gone[se.BaseOffset]
				named := len(paths) == 0
				for _, p := range paths {
					named = named || strings.Contains(strings.Join(se.Notes, "\n"), p+": vanished")
				}
				if !named {
					o.violation("explain (scanned): segment %d lost %v, its notes name none: %q", se.BaseOffset, paths, se.Notes)
				}
			}
		}
		for _, sf := range pd.LogSegments() {
			lookupSpread(o, sf, dir)
		}
	}
	return vanished
}

// The script's offsets and timestamps (liveWriter: batches of 2-5 records, timestamps from
// 1_700_000_000_000 up by less than 50 a batch): a segment of liveCfg holds fewer than 200
// offsets, the directory's timestamps span less than 20 000 ms.
const (
	stateOffsetSpan = 200
	stateTsStart    = 1_700_000_000_000
	stateTsSpan     = 20_000
)

// lookupSpread is kidx dump's and explain's reads of one segment: Segment.Lookup
// (LogSegment.translateOffset) of every 4th offset from below the base to past the end,
// LookupTimestamp (findOffsetByTimestamp) of timestamps before, across and after the
// segment's, and dump.File of each file (an index's DumpLogSegments checks look every entry
// up in the .log), plain and --deep.
func lookupSpread(o *readerOutcome, sf segment.SegmentFiles, dir string) {
	seg, err := segment.OpenSegment(sf.Log)
	if err != nil {
		o.checkErr("lookup", err, dir)
	} else {
		for off := sf.BaseOffset - 1; off <= sf.BaseOffset+stateOffsetSpan; off += 4 {
			if _, err := seg.Lookup(off); err != nil {
				o.checkErr("lookup", err, dir)
			}
		}
		for ts := int64(stateTsStart - 1); ts <= stateTsStart+stateTsSpan; ts += 1999 {
			if _, err := seg.LookupTimestamp(ts); err != nil {
				o.checkErr("lookup", err, dir)
			}
		}
		_ = seg.Close()
	}
	dumps := []struct {
		path string
		deep bool
	}{{sf.Index, false}, {sf.TimeIndex, false}, {sf.Log, false}, {sf.Log, true}} // --deep-iteration is about a .log's records
	for _, d := range dumps {
		if d.path == "" {
			continue
		}
		if err := dump.File(io.Discard, d.path, dump.Options{VerifyOnly: true, Deep: d.deep}); err != nil {
			o.checkErr("dump", err, dir)
		}
	}
}

// Independent reads of the frozen files, to show a state is the one claimed (not through
// package segment: its readers are what is under test).

// indexEntries are an index file's leading non-zero slots (the preallocated tail reads as
// zeros; no entry of this script is all zeros, see trimIndex).
func indexEntries(t *testing.T, path string, size int) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for i := 0; (i+1)*size <= len(data); i++ {
		slot := data[i*size : (i+1)*size]
		if strings.Count(string(slot), "\x00") == size {
			break
		}
		out = append(out, slot)
	}
	return out
}

// logBatches are a .log's whole batches: position and last offset (base offset + the
// lastOffsetDelta at byte 23 of a v2 batch).
func logBatches(t *testing.T, path string) (pos, last []int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for p := 0; p+segment.RecordBatchOverhead <= len(data); {
		n := segment.LogOverhead + int(binary.BigEndian.Uint32(data[p+8:]))
		if p+n > len(data) {
			break
		}
		pos = append(pos, int64(p))
		last = append(last, int64(binary.BigEndian.Uint64(data[p:]))+int64(int32(binary.BigEndian.Uint32(data[p+23:]))))
		p += n
	}
	return pos, last
}

// pastLog reports, for the segment at stem, whether its .index has an entry at or past the
// .log's size (and one strictly past), and its .timeindex one naming an offset past the .log's
// last.
func pastLog(t *testing.T, stem string) (idxAt, idxPast, timePast bool) {
	t.Helper()
	st, err := os.Stat(stem + segment.LogSuffix)
	if err != nil {
		t.Fatal(err)
	}
	_, last := logBatches(t, stem+segment.LogSuffix)
	lastOff := int64(-1)
	if len(last) > 0 {
		lastOff = last[len(last)-1]
	}
	base, _ := segment.OffsetFromFileName(filepath.Base(stem) + segment.LogSuffix)
	for _, e := range indexEntries(t, stem+segment.IndexSuffix, segment.OffsetIndexEntrySize) {
		p := int64(binary.BigEndian.Uint32(e[4:]))
		idxAt = idxAt || p == st.Size()
		idxPast = idxPast || p > st.Size()
	}
	for _, e := range indexEntries(t, stem+segment.TimeIndexSuffix, segment.TimeIndexEntrySize) {
		timePast = timePast || base+int64(binary.BigEndian.Uint32(e[8:])) > lastOff
	}
	return idxAt, idxPast, timePast
}

// sizeOf is a file's size; -1 when it does not exist.
func sizeOf(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return -1
	}
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// The seed of the writer's script (appendBatches' sizes, truncateActive's cut): fixed, so the
// states are the same on every run; the test checks each state is the one it claims.
const statesSeed = 7

func TestReadersOnFrozenBrokerStates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "orders-0")
	dir, _ = filepath.Abs(dir)
	fz := newFrozenStates(t, dir)
	hfs := &hookedFS{FS: vfs.OS, after: func(string) {}}
	fz.phase = "create (LocalLog: LogSegment.open of the first segment)"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The writer's changes are read while armed: always but in the middle of the later
	// segments, whose appends repeat the first segment's (time: the test must stay short).
	armed := true
	hfs.after = func(op string) {
		if armed {
			fz.op(op)
		}
	}
	w := newLiveWriterFS(t, dir, statesSeed, hfs, func() { fz.op("step done") })
	stem := func(i int) string { return w.stem(w.bases[i]) }

	// Appends until three segments: every state between the .log write and the index writes
	// (LogSegment.append), and every state of two rolls.
	for rolls := 0; len(w.bases) < 3; {
		fz.phase = "append (LogSegment.append: the batches into the .log, then the index entries)"
		n := len(w.bases)
		// An append of at most 3 batches of under 900 bytes can roll only when the active
		// segment is within 2700 bytes of segment.bytes.
		armed = n == 1 || sizeOf(t, stem(n-1)+segment.LogSuffix) > liveCfg.SegmentBytes-2700
		// The roll of an append happens inside it (UnifiedLog.maybeRoll before
		// LogSegment.append): the ops say which.
		w.appendBatches()
		armed = true
		if len(w.bases) == n {
			continue
		}
		rolls++
		// The older segment beside the new one, untrimmed: its indexes at their preallocated
		// length, entries then zeros, as before onBecomeInactiveSegment's trimToValidSize.
		// LocalLog.roll trims before LogSegment.open creates the new files, so no instant of
		// the roll shows both; a crash that keeps the new names but loses the trims' size
		// changes (unsynced, docs/vfs.md) leaves it, and recovery reads it.
		fz.phase = "roll (the new segment beside an untrimmed predecessor)"
		old := stem(len(w.bases) - 2)
		idxSize, timeSize := sizeOf(t, old+segment.IndexSuffix), sizeOf(t, old+segment.TimeIndexSuffix)
		idxLen := liveCfg.SegmentIndexBytes / segment.OffsetIndexEntrySize * segment.OffsetIndexEntrySize
		timeLen := liveCfg.SegmentIndexBytes / segment.TimeIndexEntrySize * segment.TimeIndexEntrySize
		if idxSize >= idxLen || timeSize >= timeLen {
			t.Fatalf("roll %d: the old segment's indexes (%d, %d bytes) are not trimmed", rolls, idxSize, timeSize)
		}
		mustTruncate(t, old+segment.IndexSuffix, idxLen)
		mustTruncate(t, old+segment.TimeIndexSuffix, timeLen)
		fz.freeze("indexes regrown to segment.index.bytes")
		fz.met["roll: new segment beside an untrimmed one"] = true
		mustTruncate(t, old+segment.IndexSuffix, idxSize)
		mustTruncate(t, old+segment.TimeIndexSuffix, timeSize)
	}
	fz.met["roll: old segment trimmed, then the new files created one by one"] = rollSeen(fz.ops)
	fz.met["append: batch in the .log, its index entry not yet"] = logThenIndex(fz.ops)

	// The reader's .log size taken before the entries it read were written: the active .log cut
	// back to where the last .index entry points (the entry at the .log's end), into the batch
	// before (past it; the batch half written, as a reader can see a write in progress), and at
	// the last .timeindex entry's batch (its offset past the log).
	active := stem(len(w.bases) - 1)
	for len(indexEntries(t, active+segment.IndexSuffix, segment.OffsetIndexEntrySize)) < 2 && len(w.bases) == 3 {
		w.appendBatches()
	}
	fz.phase = "append seen with an older .log size"
	entries := indexEntries(t, active+segment.IndexSuffix, segment.OffsetIndexEntrySize)
	if len(entries) < 2 || len(w.bases) != 3 {
		t.Fatal("the active segment has fewer than two index entries: no state to build")
	}
	saved, err := os.ReadFile(active + segment.LogSuffix)
	if err != nil {
		t.Fatal(err)
	}
	lastEntryPos := int64(binary.BigEndian.Uint32(entries[len(entries)-1][4:]))
	for _, cut := range []int64{lastEntryPos, lastEntryPos - 1, lastEntryPos - 40, lastEntryPos / 2} {
		mustTruncate(t, active+segment.LogSuffix, cut)
		at, past, timePast := pastLog(t, active)
		if !(at || past) || !timePast {
			t.Fatalf(".log cut at %d: index entry at/past the end %v/%v, time entry past the log %v; the state was not built", cut, at, past, timePast)
		}
		fz.met["index entry at the .log end"] = fz.met["index entry at the .log end"] || at
		fz.met["index entry past the .log end"] = fz.met["index entry past the .log end"] || past
		fz.met["time-index entry past the log"] = true
		fz.freeze(fmt.Sprintf(".log cut at byte %d", cut))
	}
	if err := os.WriteFile(active+segment.LogSuffix, saved, 0o644); err != nil {
		t.Fatal(err)
	}

	// The readers hold a segment open while the broker cuts its .log (follower truncation): the
	// mapped or read bytes past the new end are gone.
	shrinkUnderOpenSegment(t, fz)

	// Follower truncation inside the active segment, step by step (truncateActive: the .log cut
	// at a batch start, the indexes resized back to segment.index.bytes with entries past the
	// cut, then the trims of the roll at the truncation offset, then the new segment).
	fz.phase = "follower truncation (LogSegment.truncateTo)"
	truncBase := w.bases[len(w.bases)-1]
	checked := false
	w.pause = func() {
		if !checked {
			checked = true
			at, past, timePast := pastLog(t, w.stem(truncBase))
			fz.met["truncation: entries past the cut"] = at || past || timePast
		}
		fz.op("step done")
	}
	w.truncateActive()

	// More appends, then retention of the oldest segment: its files renamed to .deleted one
	// by one (LocalLog.deleteSegmentFiles → LogSegment.changeFileSuffixes: the .log, then the
	// offset index, then the time index), then removed (LogSegment.deleteIfExists, the same
	// order). Each state is read fresh, and through the scan of the state before (the
	// listing that still names the files).
	fz.phase = "append"
	armed = false
	for len(w.bases) < 6 {
		w.appendBatches()
	}
	armed = true
	fz.phase = "retention (UnifiedLog.deleteSegment)"
	fz.stale = true
	fz.lastScan = nil
	fz.freeze("before")
	oldest := stem(0)
	w.pause = func() {
		if sizeOf(t, oldest+segment.LogSuffix) < 0 && sizeOf(t, oldest+segment.IndexSuffix) >= 0 {
			fz.met["retention: .log gone, its indexes remain"] = true
		}
		if sizeOf(t, oldest+segment.LogSuffix+".deleted") < 0 && sizeOf(t, oldest+segment.IndexSuffix+".deleted") >= 0 {
			fz.met["retention: .log.deleted removed, its indexes remain"] = true
		}
		fz.op("step done")
	}
	w.retainDelete()
	w.finishDeletes()

	// The reverse: a segment's indexes gone while its .log stays. Not an order Kafka deletes in
	// (the .log goes first); it is what an operator leaves who removes index files to have the
	// broker rebuild them (LogLoader: a missing index is rebuilt by LogSegment.recover).
	fz.phase = "indexes removed, .log left"
	next := stem(0)
	for _, suf := range []string{segment.TimeIndexSuffix, segment.IndexSuffix} {
		if err := os.Remove(next + suf); err != nil {
			t.Fatal(err)
		}
		fz.freeze("removed " + filepath.Base(next+suf))
	}
	fz.met["a .log without its indexes"] = true
	fz.stale = false

	fz.phase = "close (LogSegment.close: final time-index entry, trims)"
	w.pause = func() {}
	if err := w.log.Close(); err != nil {
		t.Fatal(err)
	}

	for _, want := range []string{
		"append: batch in the .log, its index entry not yet",
		"index entry at the .log end", "index entry past the .log end", "time-index entry past the log",
		"roll: new segment beside an untrimmed one", "roll: old segment trimmed, then the new files created one by one",
		"truncation: entries past the cut",
		"retention: .log gone, its indexes remain", "retention: .log.deleted removed, its indexes remain",
		"a .log without its indexes", "shrank under an open segment (mmap)", "shrank under an open segment (pread)",
		"shrank under verify --deep", "a listed file vanished before its open",
	} {
		if !fz.met[want] {
			t.Errorf("state %q was never built: the script changed, the test no longer covers it", want)
		}
	}
	if fz.inFile == 0 {
		t.Error("no reader returned an error about a place in a file: the byte rule was never checked")
	}
	t.Logf("%d frozen states, %d broker steps; errors returned %v (%d about a place in a file), findings %d", fz.states, len(fz.ops), fz.errs, fz.inFile, fz.findings)
}

func mustTruncate(t *testing.T, path string, n int64) {
	t.Helper()
	if err := os.Truncate(path, n); err != nil {
		t.Fatal(err)
	}
}

// rollSeen: among the frozen states of the appends, a roll's, in LocalLog.roll's order:
// onBecomeInactiveSegment's trims (an .index cut below segment.index.bytes), then the new
// segment's .log, .index and .timeindex created one by one (LogSegment.open).
func rollSeen(ops []string) bool {
	full := liveCfg.SegmentIndexBytes / segment.OffsetIndexEntrySize * segment.OffsetIndexEntrySize
	want := []string{"trim", segment.LogSuffix, segment.IndexSuffix, segment.TimeIndexSuffix}
	for _, op := range ops {
		_, what, _ := strings.Cut(op, "): ")
		var name string
		var n int64
		switch {
		case want[0] == "trim":
			if _, err := fmt.Sscanf(what, "truncate %s to %d", &name, &n); err == nil && strings.HasSuffix(name, segment.IndexSuffix) && n < full {
				want = want[1:]
			}
		case strings.HasPrefix(what, "create ") && strings.HasSuffix(what, want[0]):
			if want = want[1:]; len(want) == 0 {
				return true
			}
		}
	}
	return false
}

// logThenIndex: some .index write came right after a .log write (the state between the two
// was frozen: LogSegment.append's batch in the .log, its entry not yet).
func logThenIndex(ops []string) bool {
	for i := 1; i < len(ops); i++ {
		if strings.Contains(ops[i-1], ": write ") && strings.Contains(ops[i-1], ".log ") &&
			strings.Contains(ops[i], ": write ") && strings.Contains(ops[i], ".index ") {
			return true
		}
	}
	return false
}

// shrinkUnderOpenSegment makes "the .log shrank between the reader's stat and its read"
// deterministic: a segment opened (mapped, then read with pread), its .log cut to a batch start
// inside its first page, then looked up; and verify --deep whose segment visitor (called once
// the segment is open) cuts the .log. The mapped reads fault (SIGBUS on pages past the new end):
// the fault guard must turn that into an error naming file and byte, and every lookup error
// must name them too.
func shrinkUnderOpenSegment(t *testing.T, main *frozenStates) {
	t.Helper()
	// A segment of several pages (liveCfg's are under two): segment.bytes 64 KiB, 40 appends.
	dir := filepath.Join(filepath.Dir(main.dir), "shrink-0")
	fz := newFrozenStates(t, dir)
	defer func() {
		for k, v := range fz.met {
			main.met[k] = main.met[k] || v
		}
		main.inFile += fz.inFile
		for k, v := range fz.errs {
			main.errs[k] += v
		}
		main.states += fz.states
		main.failures += fz.failures
	}()
	cfg := liveCfg
	cfg.SegmentBytes = 64 << 10
	l, err := segment.CreateLog(dir, cfg, segment.PerBatch, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Batches of 500 bytes after a first of 596: one starts at byte 4096, the second page.
	for i := 0; i < 40; i++ {
		size := 500
		if i == 0 {
			size = 596
		}
		if _, err := l.AppendSpecs([]segment.BatchSpec{{Records: 3, Bytes: size, MaxTimestamp: stateTsStart + int64(10*i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.LogSuffix)
	saved, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	// The cut (a batch start, as LogSegment.truncateTo cuts) keeps the first page: a mapped read
	// past it touches pages wholly past the end, which fault (inside the last page, the bytes
	// past the end read as zeros).
	pos, _ := logBatches(t, logPath)
	const cut = 4096
	if !slices.Contains(pos, cut) || int64(len(saved)) < cut+2*4096 {
		t.Fatalf("%s (%d bytes) has no batch at byte %d: the state was not built", logPath, len(saved), cut)
	}
	base, _ := segment.OffsetFromFileName(filepath.Base(logPath))
	for _, c := range []struct {
		name   string
		access segment.Access
	}{{"mmap", segment.AccessMmap}, {"pread", segment.AccessPread}} {
		fz.phase = "follower truncation under an open segment (" + c.name + ")"
		if err := os.WriteFile(logPath, saved, 0o644); err != nil {
			t.Fatal(err)
		}
		seg, err := segment.OpenSegmentWith(logPath, c.access)
		if err != nil {
			t.Fatal(err)
		}
		mustTruncate(t, logPath, cut)
		before := treeOf(t, fz.dir)
		o := &readerOutcome{calls: map[string]int{}, errs: map[string]int{}, sample: map[string]string{}}
		faulted := 0
		runGuarded(o, "lookup", func() {
			for off := base; off <= base+stateOffsetSpan; off += 3 {
				if _, err := seg.Lookup(off); err != nil {
					o.checkErr("lookup", err, fz.dir)
					if strings.Contains(err.Error(), "shrank") {
						faulted++
					}
				}
			}
			for ts := int64(stateTsStart - 1); ts <= stateTsStart+stateTsSpan; ts += 997 {
				if _, err := seg.LookupTimestamp(ts); err != nil {
					o.checkErr("lookup", err, fz.dir)
				}
			}
		})
		_ = seg.Close()
		fz.compareTrees(fz.phase, before, treeOf(t, fz.dir))
		for _, b := range o.bad {
			fz.fail("%s: %s", fz.phase, b)
		}
		switch {
		case o.errs["lookup"] == 0:
			fz.fail("%s: no lookup failed after the .log lost every byte past %d", fz.phase, cut)
		case c.access == segment.AccessMmap && faulted == 0:
			// The lookups from an index entry past the cut read unmapped pages: SIGBUS, which
			// the fault guard turns into "the file shrank".
			fz.fail("%s: no lookup error came from the fault guard", fz.phase)
		default:
			fz.met["shrank under an open segment ("+c.name+")"] = true
			t.Logf("%s: %d lookup errors, first: %s", c.name, o.errs["lookup"], o.sample["lookup"])
		}
		fz.inFile += o.inFile
		for k, v := range o.errs {
			fz.errs[k] += v
		}
		fz.states++
	}

	// verify --deep maps the .log; the visitor runs once the segment is open, before its walk.
	fz.phase = "follower truncation under verify --deep"
	if err := os.WriteFile(logPath, saved, 0o644); err != nil {
		t.Fatal(err)
	}
	want := treeOf(t, fz.dir)
	rel, _ := filepath.Rel(fz.dir, logPath)
	want[rel] = want[rel][:len(want[rel])-len(saved)+int(cut)]
	o := &readerOutcome{calls: map[string]int{}, errs: map[string]int{}, sample: map[string]string{}}
	var rep *logdir.VerifyReport
	runGuarded(o, "verify --deep", func() {
		rep, err = logdir.Verify([]string{fz.dir}, logdir.VerifyOptions{Deep: true, Visit: func(sf segment.SegmentFiles, _ *segment.Segment) logdir.SegmentVisitor {
			if sf.Log == logPath {
				mustTruncate(t, logPath, cut)
			}
			return nil
		}})
		if err != nil {
			o.checkErr("verify", err, fz.dir)
			return
		}
		o.checkFindings("verify", rep.Findings, fz.dir)
	})
	fz.compareTrees(fz.phase, want, treeOf(t, fz.dir))
	for _, b := range o.bad {
		fz.fail("%s: %s", fz.phase, b)
	}
	shrank := false
	if rep != nil {
		for _, f := range rep.Findings {
			if f.File == logPath && f.Pos >= cut && f.Severity == logdir.SeverityError && strings.Contains(f.Message, "shrank") {
				shrank = true
				t.Logf("verify --deep: %s", f)
			}
		}
	}
	if !shrank {
		if rep != nil {
			for _, f := range rep.Findings {
				t.Logf("verify --deep: %s (pos %d, %s)", f, f.Pos, f.Severity)
			}
		}
		fz.fail("%s: no error finding at or past byte %d of %s", fz.phase, cut, logPath)
	} else {
		fz.met["shrank under verify --deep"] = true
	}
	fz.states++
}
