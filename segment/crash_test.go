package segment_test

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/segment"
	"kidx/segment/vfs"
)

// The seed workload (writedir_test.go): 79-record batches of 16350 bytes, index.interval.bytes
// 4096, 65536-byte segments, so four batches per segment (a fifth would pass 65536) and bases
// 0, 316, 632, ...; batch i's max timestamp is 1700000000000 + 79*i. Per batch, the index check
// 'bytes since the last entry > 4096' is first true at the second batch of a segment, so a full
// segment's entries are (base+157, 16350), (base+236, 32700), (base+315, 49050).

func writeOnMem(t *testing.T, w *segment.Workload, dir string, steps int) (*vfs.MemFS, *segment.Log) {
	t.Helper()
	mem := vfs.NewMemFS()
	l, err := segment.CreateLogFS(mem, dir, w.Config, w.Rule, w.StartOffset)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.KeepRecoveryCheckpoint(); err != nil {
		t.Fatal(err)
	}
	for i, s := range w.Steps[:steps] {
		if _, err := l.Apply(s); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	return mem, l
}

// LocalLog.markFlushed after the flush UnifiedLog.roll schedules, and the clean shutdown's
// checkpoint of the log end: the recovery point is 0 (a new log, UnifiedLog's
// recoveryPoint = 0) through the first segment, 316 after the fifth batch rolls, 632 after
// the ninth, and 790 = 10 * 79 once Close flushed everything; the file is CheckpointFile's
// text "0", "1", "<topic> <partition> <offset>".
func TestRecoveryCheckpointFollowsFlushes(t *testing.T) {
	w := segmenttest.SeedWorkload(10)
	mem, l := writeOnMem(t, w, "/logs/t-0", 0)
	cp := "/logs/" + segment.RecoveryPointCheckpointName
	want := map[int]string{0: "0\n1\nt 0 0\n", 3: "0\n1\nt 0 0\n", 4: "0\n1\nt 0 316\n", 7: "0\n1\nt 0 316\n", 8: "0\n1\nt 0 632\n", 9: "0\n1\nt 0 632\n"}
	for i, s := range w.Steps {
		if _, err := l.Apply(s); err != nil {
			t.Fatal(err)
		}
		if wantText, ok := want[i]; ok {
			got, err := vfs.ReadFile(mem, cp)
			if err != nil || string(got) != wantText {
				t.Errorf("after step %d: checkpoint %q (%v), want %q", i, got, err, wantText)
			}
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := vfs.ReadFile(mem, cp); string(got) != "0\n1\nt 0 790\n" {
		t.Errorf("after Close: checkpoint %q, want the log end 790", got)
	}
	if rp := segment.ReadRecoveryPoint(mem, "/logs/t-0"); rp != 790 {
		t.Errorf("ReadRecoveryPoint = %d, want 790", rp)
	}
	// LogManager: no checkpoint, or no entry for the partition, is recovery point 0.
	if rp := segment.ReadRecoveryPoint(mem, "/logs/other-3"); rp != 0 {
		t.Errorf("ReadRecoveryPoint of a partition without an entry = %d, want 0", rp)
	}
}

// A crash step cutting the active segment inside its second batch (docs/crash.md): R = 316,
// the flushed first segment is kept as it is; segment 316 keeps 16350 + 100 bytes, so
// LogSegment.recover keeps batch 4 (offsets 316..394) and truncates the torn 100 bytes. Its
// rebuild makes no offset-index entry (the first batch never is: the counter starts at 0) and
// one time-index entry, the final one (1700000000316, 394). The next append (the workload's
// step 6, max timestamp 1700000000474) gets offsets 395..473 at position 16350, no entry
// (counter 0 after the reload), and Close adds the final time entry (1700000000474, 473).
func TestCrashStepTornTail(t *testing.T) {
	w := segmenttest.SeedWorkload(7)
	w.Steps = slices.Insert(w.Steps, 6, segment.Step{Crash: &segment.CrashSpec{RecoveryPoint: 316, Segments: []segment.CrashSegment{{BaseOffset: 316, LogBytes: 16350 + 100, IndexBytes: 10485760, TimeIndexBytes: 10485756}}}})
	mem := vfs.NewMemFS()
	res, err := segment.WriteWorkloadFS(mem, "/logs/t-0", w)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Segments, []int64{0, 316}) || res.NextOffset != 474 || len(res.Events) != 0 {
		t.Fatalf("result %+v, want segments [0 316], next offset 474, no events", res)
	}
	tree := readTree(t, mem, "/logs/t-0")
	s0, s1 := "00000000000000000000", "00000000000000000316"
	if n := len(tree[s0+segment.LogSuffix]); n != 65400 {
		t.Errorf("flushed segment 0: %d log bytes, want 65400", n)
	}
	wantIdx0 := entriesOf(0, segment.IndexEntry{157, 16350}, segment.IndexEntry{236, 32700}, segment.IndexEntry{315, 49050})
	if got := tree[s0+segment.IndexSuffix]; string(got) != string(wantIdx0) {
		t.Errorf("segment 0 .index changed: %x", got)
	}
	if n := len(tree[s1+segment.LogSuffix]); n != 32700 {
		t.Errorf("segment 316: %d log bytes, want 16350 kept + 16350 appended", n)
	}
	if n := len(tree[s1+segment.IndexSuffix]); n != 0 {
		t.Errorf("segment 316: .index %d bytes, want none (no entry)", n)
	}
	wantTime := append(segment.EncodeTimeIndexEntry(nil, 316, segment.TimeIndexEntry{1700000000316, 394}), segment.EncodeTimeIndexEntry(nil, 316, segment.TimeIndexEntry{1700000000474, 473})...)
	if got := tree[s1+segment.TimeIndexSuffix]; string(got) != string(wantTime) {
		t.Errorf("segment 316 .timeindex %x, want %x", got, wantTime)
	}
}

func entriesOf(base int64, es ...segment.IndexEntry) []byte {
	var b []byte
	for _, e := range es {
		b = segment.EncodeIndexEntry(b, base, e)
	}
	return b
}

// LogLoader.recoverLog: "if (truncatedBytes > 0) ... delete all remaining log". Six batches
// (segments 0 and 316), then the files cut as a crash inside the roll would leave them, the
// recovery point still 0: segment 0's .log cut one byte short of its end tears batch 3
// (49050..65400), so the rebuild keeps 49050 bytes, truncates 16349, and deletes segment 316.
// Cut at exactly 49050 instead, nothing is truncated and segment 316 stays (recovered too),
// though offsets 237..315 are then gone: Kafka's rule.
func TestLoadAfterCrashTornSegmentDeletesLater(t *testing.T) {
	for _, c := range []struct {
		name       string
		cut        int64
		truncated  []int64
		deleted    []int64
		segments   []int64
		nextOffset int64
	}{
		{"torn", 65399, []int64{16349}, []int64{316}, []int64{0}, 237},
		{"boundary", 49050, []int64{0, 0}, nil, []int64{0, 316}, 474},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := segmenttest.SeedWorkload(6)
			mem, l := writeOnMem(t, w, "/logs/t-0", 6)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			f, err := mem.OpenReadWrite("/logs/t-0/00000000000000000000.log")
			if err != nil {
				t.Fatal(err)
			}
			f.Truncate(c.cut)
			f.Close()
			l2, load, err := segment.LoadAfterCrash(mem, "/logs/t-0", w.Config, w.Rule, 0, 6)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(load.Truncated, c.truncated) || !slices.Equal(load.Deleted, c.deleted) || !slices.Equal(l2.SegmentBaseOffsets(), c.segments) || l2.NextOffset() != c.nextOffset {
				t.Errorf("load %+v, segments %v, next %d; want truncated %v deleted %v segments %v next %d",
					load, l2.SegmentBaseOffsets(), l2.NextOffset(), c.truncated, c.deleted, c.segments, c.nextOffset)
			}
			if _, err := mem.Stat("/logs/t-0/00000000000000000316.log"); (err == nil) != (c.deleted == nil) {
				t.Errorf("segment 316's .log: stat error %v, deleted %v", err, c.deleted)
			}
			// The rebuilt segment 0 (active when 316 was deleted): entries for batches 1 and 2.
			idx, _ := vfs.ReadFile(mem, "/logs/t-0/00000000000000000000.index")
			if want := entriesOf(0, segment.IndexEntry{157, 16350}, segment.IndexEntry{236, 32700}); string(idx[:16]) != string(want) {
				t.Errorf("segment 0 .index starts %x, want %x", idx[:16], want)
			}
			l2.Close()
		})
	}
}

// A crash step is refused, with a clear error, when it does not fit the log: more bytes than
// were written, a base offset that is not the segment's, more segments than exist.
func TestCrashStepRefusesImpossibleSpecs(t *testing.T) {
	for name, c := range map[string]segment.CrashSpec{
		"bytes never written": {RecoveryPoint: 316, Segments: []segment.CrashSegment{{BaseOffset: 316, LogBytes: 16351}}},
		"wrong base":          {RecoveryPoint: 316, Segments: []segment.CrashSegment{{BaseOffset: 317}}},
		"too many":            {RecoveryPoint: 316, Segments: []segment.CrashSegment{{BaseOffset: 316}, {BaseOffset: 400}}},
	} {
		w := segmenttest.SeedWorkload(6)
		_, l := writeOnMem(t, w, filepath.Join("/logs", "t-0"), 5)
		if _, err := l.Crash(c); err == nil {
			t.Errorf("%s: crash %+v accepted", name, c)
		}
		// Refused before anything changed: the log goes on.
		if _, err := l.Apply(w.Steps[5]); err != nil || l.NextOffset() != 6*79 {
			t.Errorf("%s: the append after a refused crash: %v, log end %d", name, err, l.NextOffset())
		}
	}
	_, l := writeOnMem(t, segmenttest.SeedWorkload(5), "/logs/t-0", 5)
	l.Close()
	if _, err := l.Crash(segment.CrashSpec{Segments: []segment.CrashSegment{{}}}); err == nil || errors.Is(err, nil) {
		t.Error("crash of a closed log accepted")
	}
}

// flush.messages (UnifiedLog.append: flush once log end - recovery point >= flush.messages):
// with 100, the seed workload's 79-record appends flush at every second append: after step 1
// (158 unflushed), step 3 (316 - 158), and so on, so the recovery point is 0, 158, 158, 316,
// ... and the active segment's .log is synced each time; with flush.messages unset it stays
// at the last roll's base.
func TestFlushMessagesMovesRecoveryPoint(t *testing.T) {
	w := segmenttest.SeedWorkload(6)
	w.Config.FlushMessages = 100
	var logSyncs int
	mem := vfs.NewMemFS()
	ffs := vfs.NewFaultFS(mem, vfs.InjectorFunc(func(op vfs.Op) *vfs.Fault {
		if op.Kind == vfs.OpSync && filepath.Ext(op.Path) == segment.LogSuffix {
			logSyncs++
		}
		return nil
	}))
	l, err := segment.CreateLogFS(ffs, "/logs/t-0", w.Config, w.Rule, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{0, 158, 158, 316, 316, 474}
	for i, s := range w.Steps {
		if _, err := l.Apply(s); err != nil {
			t.Fatal(err)
		}
		if got := l.RecoveryPoint(); got != want[i] {
			t.Errorf("after step %d: recovery point %d, want %d", i, got, want[i])
		}
	}
	// Flushes after steps 1, 3 and 5. The roll at step 4 finds the recovery point at its new
	// base (316) already, so UnifiedLog.flush does nothing there: three .log syncs.
	if logSyncs != 3 {
		t.Errorf("%d .log syncs, want 3", logSyncs)
	}
	w.Config.FlushMessages = 0
	_, l2 := writeOnMem(t, w, "/logs/t-0", 6)
	if rp := l2.RecoveryPoint(); rp != 316 {
		t.Errorf("without flush.messages: recovery point %d, want 316 (the roll)", rp)
	}
}

// LogLoader.loadSegmentFiles deletes an index file whose .log is missing ("Found an orphaned
// index file"): a crash leaves one when the index's name became durable and the .log's did not.
func TestLoadAfterCrashDeletesOrphanedIndexes(t *testing.T) {
	w := segmenttest.SeedWorkload(6)
	mem, l := writeOnMem(t, w, "/logs/t-0", 6)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := mem.Remove("/logs/t-0/00000000000000000316.log"); err != nil {
		t.Fatal(err)
	}
	l2, load, err := segment.LoadAfterCrash(mem, "/logs/t-0", w.Config, w.Rule, 316, 6)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	want := []string{"00000000000000000316.index", "00000000000000000316.timeindex"}
	if !slices.Equal(load.Orphans, want) || !slices.Equal(l2.SegmentBaseOffsets(), []int64{0}) {
		t.Errorf("orphans %v, segments %v; want %v and [0]", load.Orphans, l2.SegmentBaseOffsets(), want)
	}
	for _, name := range want {
		if _, err := mem.Stat("/logs/t-0/" + name); err == nil {
			t.Errorf("%s is still there", name)
		}
	}
}

// A crash step that skips a segment: its files are removed (a filesystem made a later
// segment's names durable before its own). Nine seed batches give segments 0, 316 and 632
// (one batch); the crash at recovery point 0 lists 0 (whole) and 632 (whole): the reload
// recovers 0 (nothing torn, so 632 stays), 316 is gone, 632 is recovered and active, and the
// log end is 632 + 79 = 711.
func TestCrashStepSkippedSegmentIsRemoved(t *testing.T) {
	mem, l := writeOnMem(t, segmenttest.SeedWorkload(9), "/logs/t-0", 9)
	if _, err := l.Crash(segment.CrashSpec{RecoveryPoint: 0, Segments: []segment.CrashSegment{{BaseOffset: 0, LogBytes: 65400, IndexBytes: 24, TimeIndexBytes: 36}, {BaseOffset: 632, LogBytes: 16350}}}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.SegmentBaseOffsets(), []int64{0, 632}) || l.NextOffset() != 711 {
		t.Errorf("segments %v, next %d; want [0 632], 711", l.SegmentBaseOffsets(), l.NextOffset())
	}
	if _, err := mem.Stat("/logs/t-0/00000000000000000316.log"); err == nil {
		t.Error("segment 316's .log survived a crash that did not list it")
	}
	l.Close()
}
