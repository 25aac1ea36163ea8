package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kidx/dump"
	"kidx/explain"
	"kidx/logdir"
	"kidx/reports"
	"kidx/segment"
	"kidx/segment/vfs"
)

// Issue 13, item 4 ("Readers under a live broker"): a writer does Kafka's operations on a
// partition directory (append, roll, trim, truncate, delete a segment) while verify, analyze
// and lookups read it, over and over: no crash, every error names file and byte, nothing
// written. docs/logdirs.md ("Readers under a live broker") says what is checked.
//
// The writer's script is a pure function of the printed seed (KIDX_LIVE_SEED replays one); the
// interleaving of writer and readers is up to the scheduler and is not reproducible, so a
// failure is replayed by running the seed again (with KIDX_LIVE_DURATION longer) until it
// recurs. KIDX_LIVE_DURATION (a Go duration, default 2s) bounds the writer's run.

// liveCfg keeps segments small (a roll every ~10 appends) and indexes far from full, so the
// writer never overflows an index (an overflow would stop the log: Kafka's partition offline).
var liveCfg = segment.Config{IndexIntervalBytes: 300, SegmentBytes: 6000, SegmentIndexBytes: 1200}

// The writer runs for KIDX_LIVE_DURATION, and at least liveMinOps operations (a loaded machine
// starves it) unless that takes five times as long; at most liveMaxOps.
const (
	liveMinOps = 200
	liveMaxOps = 4000
)

// liveWriter plays the script on dir. Appends and size rolls go through segment.Log (whose roll
// is UnifiedLog.roll + LogSegment.onBecomeInactiveSegment, docs/kafka.md §8.5); truncation, the
// trim that the roll after it needs, and retention are plain os operations on the files, as the
// broker's LogSegment methods do them on disk.
type liveWriter struct {
	t     *testing.T
	dir   string
	rng   *rand.Rand
	rule  segment.Rule
	log   *segment.Log
	fsys  vfs.FS  // what the segment.Log writes through (vfs.OS; a hooked one in the states test)
	bases []int64 // segments on disk, oldest first; the last is the active one
	ts    int64
	pause func()
	// deleted are files renamed to .deleted, waiting for the asynchronous delete.
	deleted []string
}

func newLiveWriter(t *testing.T, dir string, seed int64, pause func()) *liveWriter {
	return newLiveWriterFS(t, dir, seed, vfs.OS, pause)
}

// newLiveWriterFS is newLiveWriter whose segment.Log writes through fsys (the hand-made steps
// of truncation and retention stay plain os calls).
func newLiveWriterFS(t *testing.T, dir string, seed int64, fsys vfs.FS, pause func()) *liveWriter {
	w := &liveWriter{t: t, dir: dir, rng: rand.New(rand.NewSource(seed)), ts: 1_700_000_000_000, pause: pause, fsys: fsys}
	w.rule = segment.PerBatch
	if w.rng.Intn(2) == 1 {
		w.rule = segment.PerAppend
	}
	w.startLog(0)
	return w
}

func (w *liveWriter) startLog(base int64) {
	l, err := segment.CreateLogFS(w.fsys, w.dir, liveCfg, w.rule, base)
	if err != nil {
		w.t.Fatal(err)
	}
	w.log = l
	if n := len(w.bases); n > 0 && w.bases[n-1] == base {
		return // the empty active segment recreated (LocalLog.roll's KAFKA-6388 path)
	}
	w.bases = append(w.bases, base)
}

func (w *liveWriter) stem(base int64) string {
	return filepath.Join(w.dir, segment.FilenamePrefixFromOffset(base))
}

// step runs one operation of the script.
func (w *liveWriter) step() {
	switch r := w.rng.Intn(100); {
	case r < 8 && len(w.deleted) > 0:
		w.finishDeletes()
	case r < 20 && len(w.bases) > 4:
		w.retainDelete()
	case r < 28:
		w.truncateActive()
	default:
		w.appendBatches()
	}
}

// appendBatches is one UnifiedLog.append of 1-3 batches; segment.Log rolls first when the
// append does not fit (docs/kafka.md §8.1), trimming the old segment's indexes (§8.5).
func (w *liveWriter) appendBatches() {
	specs := make([]segment.BatchSpec, 1+w.rng.Intn(3))
	for i := range specs {
		w.ts += int64(w.rng.Intn(50))
		// Two records or more: some sizes have no one-record layout (a 65-byte record cannot exist).
		specs[i] = segment.BatchSpec{Records: 2 + w.rng.Intn(4), Bytes: 160 + w.rng.Intn(700), MaxTimestamp: w.ts}
	}
	ev, err := w.log.AppendSpecs(specs)
	if err != nil || ev != nil {
		w.t.Fatalf("the writer's script failed (a bug in the test): %v %+v", err, ev)
	}
	if bs := w.log.SegmentBaseOffsets(); bs[len(bs)-1] != w.bases[len(w.bases)-1] {
		w.bases = append(w.bases, bs[len(bs)-1])
	}
}

// activeBatches lists the active .log's batches as (position, base offset), read by the writer
// (the broker knows its own log).
func (w *liveWriter) activeBatches() (pos, first []int64) {
	data, err := os.ReadFile(w.stem(w.bases[len(w.bases)-1]) + segment.LogSuffix)
	if err != nil {
		w.t.Fatal(err)
	}
	for p := 0; p+segment.LogOverhead <= len(data); {
		pos = append(pos, int64(p))
		first = append(first, int64(binary.BigEndian.Uint64(data[p:])))
		p += segment.LogOverhead + int(binary.BigEndian.Uint32(data[p+8:]))
	}
	return pos, first
}

// truncateActive is a follower truncation, UnifiedLog.truncateTo to an offset inside the
// active segment, then a roll at that offset.
//
// LogSegment.truncateTo (docs/kafka.md §8.5, §4, §6): the .log is cut at the start of the
// first batch holding the offset; the offset and time indexes drop their entries at or after
// it, but only the entry count moves ("the old bytes remain in the file", §4) and both are
// resized back to segment.index.bytes, which on the preallocated active segment leaves the
// files' bytes as they were. Then, because segment.Log cannot reopen a segment it did not
// leave itself, the script rolls at the truncation offset (a new segment.Log whose first
// segment is the next one) and trims the truncated segment by hand as
// LogSegment.onBecomeInactiveSegment does (§8.5): offsetIndex.trimToValidSize() and
// timeIndex.trimToValidSize() cut each index to its valid entries; log.trim() changes nothing
// on a .log without preallocation. Its final time-index entry (timeIndex.maybeAppend with
// skipFullCheck) is left out: readers see a time index one entry shorter than Kafka's, which
// is a file the readers must read as well. The abandoned segment.Log is never closed: its
// Close would trim the files to sizes it remembers from before the truncation.
func (w *liveWriter) truncateActive() {
	pos, first := w.activeBatches()
	if len(pos) == 0 {
		return
	}
	k := w.rng.Intn(len(pos))
	base := w.bases[len(w.bases)-1]
	cut, target := pos[k], first[k]
	stem := w.stem(base)
	if err := os.Truncate(stem+segment.LogSuffix, cut); err != nil {
		w.t.Fatal(err)
	}
	w.pause()
	// AbstractIndex.resize(maxIndexSize): the preallocated length, stale entries kept.
	idxLen := liveCfg.SegmentIndexBytes / segment.OffsetIndexEntrySize * segment.OffsetIndexEntrySize
	timeLen := liveCfg.SegmentIndexBytes / segment.TimeIndexEntrySize * segment.TimeIndexEntrySize
	for _, f := range []struct {
		path string
		n    int64
	}{{stem + segment.IndexSuffix, idxLen}, {stem + segment.TimeIndexSuffix, timeLen}} {
		if err := os.Truncate(f.path, f.n); err != nil {
			w.t.Fatal(err)
		}
	}
	w.pause()
	// The roll: trimToValidSize on both indexes (the entries below target), then the new
	// segment.
	w.trimIndex(stem+segment.IndexSuffix, base, target, segment.OffsetIndexEntrySize, 0)
	w.pause()
	w.trimIndex(stem+segment.TimeIndexSuffix, base, target, segment.TimeIndexEntrySize, 8)
	w.pause()
	w.startLog(target)
}

// trimIndex cuts an index file to its entries whose offset is below target: OffsetIndex and
// TimeIndex.truncateTo's count (docs/kafka.md §4, §6), then trimToValidSize. The valid entries
// are the leading non-zero slots with rising relative offsets: the preallocated tail reads as
// zeros, and in this script no entry is all zeros (the first batch is never indexed, and
// timestamps are far from 0). relOff is where an entry holds its 4-byte relative offset.
func (w *liveWriter) trimIndex(path string, base, target int64, size, relOff int) {
	data, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	n := 0
	for prev := int64(-1); (n+1)*size <= len(data); n++ {
		slot := data[n*size : (n+1)*size]
		rel := int64(int32(binary.BigEndian.Uint32(slot[relOff:])))
		if bytes.Count(slot, []byte{0}) == size || rel <= prev || base+rel >= target {
			break
		}
		prev = rel
	}
	if err := os.Truncate(path, int64(n*size)); err != nil {
		w.t.Fatal(err)
	}
}

// retainDelete deletes the oldest segment as retention does: UnifiedLog.deleteSegments →
// LocalLog.deleteSegmentFiles renames its files to .deleted (changeFileSuffixes) and deletes
// them later (file.delete.delay.ms), in finishDeletes (docs/kafka.md §1.1, §13.4).
func (w *liveWriter) retainDelete() {
	stem := w.stem(w.bases[0])
	w.bases = w.bases[1:]
	for _, suf := range []string{segment.LogSuffix, segment.IndexSuffix, segment.TimeIndexSuffix} {
		if err := os.Rename(stem+suf, stem+suf+".deleted"); err != nil {
			w.t.Fatal(err)
		}
		w.deleted = append(w.deleted, stem+suf+".deleted")
		w.pause()
	}
}

func (w *liveWriter) finishDeletes() {
	for _, p := range w.deleted {
		if err := os.Remove(p); err != nil {
			w.t.Fatal(err)
		}
		w.pause()
	}
	w.deleted = nil
}

// liveSeed is KIDX_LIVE_SEED, else the clock.
func liveSeed(t *testing.T) int64 {
	if s := os.Getenv("KIDX_LIVE_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("KIDX_LIVE_SEED=%q: %v", s, err)
		}
		return n
	}
	return time.Now().UnixNano()
}

func liveDuration(t *testing.T) time.Duration {
	if s := os.Getenv("KIDX_LIVE_DURATION"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("KIDX_LIVE_DURATION=%q: %v", s, err)
		}
		return d
	}
	return 2 * time.Second
}

// readerOutcome is what the readers did, for the checks after the run.
type readerOutcome struct {
	mu       sync.Mutex
	calls    map[string]int
	errs     map[string]int // returned errors, by reader (all checked)
	inFile   int            // of them, errors about a place inside a file (with a byte)
	findings int
	sample   map[string]string // the first error of each reader, for the log
	bad      []string          // violations
}

func (o *readerOutcome) violation(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.bad) < 20 {
		o.bad = append(o.bad, fmt.Sprintf(format, args...))
	}
}

// segmentFileName is a file of a segment set, live or transitional: 20 digits, a suffix.
var segmentFileName = regexp.MustCompile(`\d{20}\.(log|index|timeindex|txnindex|snapshot)(\.deleted)?`)

// bytePosition is how kidx's errors give a position: FormatError's "file: byte N", a
// finding's "file:N", or a message's "at byte N"/"position N".
var bytePosition = regexp.MustCompile(`(: byte \d+|\.(log|index|timeindex|deleted):\d+|byte \d+|position \d+)`)

// checkErr checks one returned error: it names a file of the directory (a segment file's base
// name, or the partition directory when the directory itself could not be listed), and gives
// a byte position unless it is about a whole file: a file that vanished between the listing
// and the open (fs.ErrNotExist), which is no byte's fault.
func (o *readerOutcome) checkErr(reader string, err error, dir string) {
	o.mu.Lock()
	o.errs[reader]++
	msg := err.Error()
	if _, ok := o.sample[reader]; !ok {
		o.sample[reader] = msg
	}
	o.mu.Unlock()
	if !segmentFileName.MatchString(msg) {
		if strings.Contains(msg, dir) && errors.Is(err, fs.ErrNotExist) {
			return
		}
		o.violation("%s: error names no file of the directory: %q", reader, msg)
		return
	}
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if !bytePosition.MatchString(msg) {
		o.violation("%s: error names a file but no byte position: %q", reader, msg)
		return
	}
	o.mu.Lock()
	o.inFile++
	o.mu.Unlock()
}

// byteChecks are the verify checks about a place inside a file (a batch, an entry, a tail):
// as problems they must give the byte (Finding.Pos >= 0). The others are about a whole file
// (unreadable: it vanished between the listing and the open; missing-log, live-segment, ...).
var byteChecks = map[string]bool{
	logdir.CheckLogCorrupt: true, logdir.CheckCRC: true, logdir.CheckTrailingBytes: true,
	logdir.CheckMagic: true, logdir.CheckOffsetOrder: true, logdir.CheckSegmentOverlap: true,
	logdir.CheckIndexMismatch: true, logdir.CheckIndexPastLog: true, logdir.CheckIndexOrder: true,
	logdir.CheckIndexBoundary: true, logdir.CheckFirstBatchIndexed: true, logdir.CheckZeroTailGarbage: true,
	logdir.CheckZeroedEntry: true, logdir.CheckPreallocatedLog: true, logdir.CheckIntervalRule: true,
	logdir.CheckTimeIndexMismatch: true, logdir.CheckTimeIndexOutOfOrder: true, logdir.CheckTimeIndexNotFound: true,
}

// checkFindings checks that every finding names a file (or the directory) inside dir, and that
// every problem (error, warning) of a byte-level check gives its byte.
func (o *readerOutcome) checkFindings(reader string, findings []logdir.Finding, dir string) {
	o.mu.Lock()
	o.findings += len(findings)
	o.mu.Unlock()
	for _, f := range findings {
		abs, _ := filepath.Abs(f.File)
		if f.File == "" || !strings.HasPrefix(abs, dir) {
			o.violation("%s: finding names no file of the directory: %s", reader, f)
		}
		if f.Severity != logdir.SeverityInfo && byteChecks[f.Check] && f.Pos < 0 {
			o.violation("%s: finding about a place in a file gives no byte: %s", reader, f)
		}
	}
}

// liveReaders are the readers of the test, as kidx's commands call them.
func liveReaders(dir string, o *readerOutcome, rng *rand.Rand) map[string]func() {
	return map[string]func(){
		// kidx verify (cmd/kidx/verify.go): logdir.Verify; --deep on every other call.
		"verify": func() {
			rep, err := logdir.Verify([]string{dir}, logdir.VerifyOptions{Deep: rng.Intn(2) == 0})
			if err != nil {
				o.checkErr("verify", err, dir)
				return
			}
			o.checkFindings("verify", rep.Findings, dir)
		},
		// kidx analyze (cmd/kidx/analyze.go): reports.AnalyzeDirs.
		"analyze": func() {
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
		},
		// Lookups as kidx dump and explain make them: segment.OpenSegment, Segment.Lookup
		// (LogSegment.translateOffset) and LookupTimestamp, and kidx dump of each index, whose
		// checks look every entry up in the .log.
		"lookup": func() {
			ds, err := logdir.ScanDir(dir)
			if err != nil {
				o.checkErr("lookup", err, dir)
				return
			}
			for _, pd := range ds.Partitions {
				for _, sf := range pd.LogSegments() {
					lookupSegment(o, sf, rng)
				}
			}
		},
		"explain": func() {
			parts, err := explain.Dirs([]string{dir}, explain.Options{Interval: -1})
			if err != nil {
				o.checkErr("explain", err, dir)
				return
			}
			_ = parts
		},
	}
}

func lookupSegment(o *readerOutcome, sf segment.SegmentFiles, rng *rand.Rand) {
	seg, err := segment.OpenSegment(sf.Log)
	if err != nil {
		o.checkErr("lookup", err, filepath.Dir(sf.Log))
		return
	}
	defer seg.Close()
	for i := 0; i < 8; i++ {
		if _, err := seg.Lookup(sf.BaseOffset + int64(rng.Intn(60))); err != nil {
			o.checkErr("lookup", err, filepath.Dir(sf.Log))
		}
	}
	if _, err := seg.LookupTimestamp(1_700_000_000_000 + int64(rng.Intn(20000))); err != nil {
		o.checkErr("lookup", err, filepath.Dir(sf.Log))
	}
	for _, p := range []string{sf.Index, sf.TimeIndex, sf.Log} {
		if p == "" {
			continue
		}
		// kidx dump: of an index, DumpLogSegments' checks (each entry looked up in the .log);
		// of the .log, every batch, and every record on half the calls (--deep-iteration).
		if err := dump.File(io.Discard, p, dump.Options{VerifyOnly: true, Deep: rng.Intn(2) == 0}); err != nil {
			o.checkErr("dump", err, filepath.Dir(sf.Log))
		}
	}
}

// treeOf is every entry under dir: relative name → mode and contents.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		st, err := d.Info()
		if err != nil {
			return err
		}
		v := st.Mode().String()
		if st.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		tree[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func TestReadersUnderLiveBroker(t *testing.T) {
	seed := liveSeed(t)
	budget := liveDuration(t)
	t.Logf("seed %d (replay: KIDX_LIVE_SEED=%d; the interleaving with the readers is not replayed)", seed, seed)

	root := t.TempDir()
	dir := filepath.Join(root, "live", "orders-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, _ = filepath.Abs(dir)

	o := &readerOutcome{calls: map[string]int{}, errs: map[string]int{}, sample: map[string]string{}}
	var stop atomic.Bool
	var wg sync.WaitGroup
	names := keys(liveReaders(dir, o, nil))
	for i, name := range names {
		// Each reader gets its own generator (rand.Rand is not safe for concurrent use).
		fn := liveReaders(dir, o, rand.New(rand.NewSource(seed+int64(i)+1)))[name]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				func() {
					defer func() {
						if r := recover(); r != nil {
							o.violation("%s panicked: %v\n%s", name, r, debug.Stack())
						}
					}()
					fn()
				}()
				o.mu.Lock()
				o.calls[name]++
				o.mu.Unlock()
			}
		}()
	}

	// The writer yields between the steps of an operation so readers see the files in between.
	w := newLiveWriter(t, dir, seed, runtime.Gosched)
	ops := 0
	for start := time.Now(); ops < liveMaxOps; ops++ {
		if el := time.Since(start); el > budget && (ops >= liveMinOps || el > 5*budget) {
			break
		}
		w.step()
		w.pause()
	}
	stop.Store(true)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("seed %d: a reader did not return within 30 s of the writer's end (hung):\n%s", seed, buf)
	}
	if err := w.log.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("rule %v; %d writer operations, %d segments at the end; reader calls %v, errors returned %v (%d about a place in a file), findings %d",
		w.rule, ops, len(w.bases), o.calls, o.errs, o.inFile, o.findings)
	for _, name := range keys(o.sample) {
		t.Logf("first %s error: %s", name, o.sample[name])
	}
	for _, b := range o.bad {
		t.Errorf("seed %d: %s", seed, b)
	}
	for _, name := range names {
		if o.calls[name] == 0 {
			t.Errorf("reader %s never ran", name)
		}
	}

	// Nothing written: the same script alone, in a second directory, gives the same tree.
	ref := filepath.Join(root, "alone", "orders-0")
	if err := os.MkdirAll(ref, 0o755); err != nil {
		t.Fatal(err)
	}
	rw := newLiveWriter(t, ref, seed, func() {})
	for i := 0; i < ops; i++ {
		rw.step()
	}
	if err := rw.log.Close(); err != nil {
		t.Fatal(err)
	}
	// The script is Kafka's life, not damage: at rest, what it leaves is healthy to verify, so
	// the findings during the run come from reading files mid-change.
	rep, err := logdir.Verify([]string{ref}, logdir.VerifyOptions{Deep: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Problems() > 0 {
		for _, f := range rep.Findings {
			t.Log(f)
		}
		t.Errorf("seed %d: the writer alone left a directory verify finds %d problems in", seed, rep.Problems())
	}
	got, want := treeOf(t, filepath.Dir(dir)), treeOf(t, filepath.Dir(ref))
	for _, d := range treeDiff(want, got) {
		t.Errorf("seed %d: %s", seed, d)
	}
	if !strings.Contains(strings.Join(keys(want), " "), segment.LogSuffix) {
		t.Fatalf("seed %d: the writer left no segment: %v", seed, keys(want))
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// treeDiff says how tree got differs from tree want (treeOf's maps): each name missing,
// changed or added.
func treeDiff(want, got map[string]string) []string {
	var out []string
	for name, v := range want {
		if g, ok := got[name]; !ok {
			out = append(out, name+" is missing (a reader removed it)")
		} else if g != v {
			out = append(out, fmt.Sprintf("%s changed (%d vs %d bytes)", name, len(g), len(v)))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			out = append(out, name+" appeared (a reader created it)")
		}
	}
	sort.Strings(out)
	return out
}
