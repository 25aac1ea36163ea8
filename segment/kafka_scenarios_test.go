package segment_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/segment"
)

// OffsetIndexTest.lookupExtremeCases / randomLookupTest / testEntry on
// files: base 45, 30 slots.
func TestOffsetIndexTestScenarios(t *testing.T) {
	path := filepath.Join(t.TempDir(), segment.FilenamePrefixFromOffset(45)+segment.IndexSuffix)
	testfiles.MustWrite(t, path, nil)
	x, err := segment.OpenOffsetIndex(path, 45)
	if err != nil {
		t.Fatal(err)
	}
	if e, _, _ := x.Lookup(92); e != (segment.IndexEntry{45, 0}) { // empty lookup
		t.Fatalf("empty lookup %v", e)
	}
	if _, err := x.Entry(0); err == nil { // testEntryOverflow
		t.Fatal("entry(0) on empty index must fail")
	}
	x.Close()
	var img []byte
	for i := 0; i < 30; i++ {
		img = segment.EncodeIndexEntry(img, 45, segment.IndexEntry{Offset: 45 + int64(i) + 1, Position: int64(i)})
	}
	testfiles.MustWrite(t, path, img)
	x, _ = segment.OpenOffsetIndex(path, 45)
	defer x.Close()
	if e, _, _ := x.Lookup(45); e != (segment.IndexEntry{45, 0}) {
		t.Errorf("lookup(45) = %v, want (45,0)", e)
	}
	if e, _, _ := x.Lookup(45 + 30); e != (segment.IndexEntry{75, 29}) {
		t.Errorf("lookup(75) = %v, want (75,29)", e)
	}
	// testSanityLastOffsetEqualToBaseOffset: base 20, append(20, 0) passes.
	p2 := filepath.Join(t.TempDir(), segment.FilenamePrefixFromOffset(20)+segment.IndexSuffix)
	testfiles.MustWrite(t, p2, segment.EncodeIndexEntry(nil, 20, segment.IndexEntry{20, 0}))
	y, _ := segment.OpenOffsetIndex(p2, 20)
	if err := y.SanityCheck(); err != nil {
		t.Error(err)
	}
	y.Close()
}

// TimeIndexTest.testLookUp / testEntry: base 45, entries (10i, 45+10i).
func TestTimeIndexTestScenarios(t *testing.T) {
	var img []byte
	for i := 1; i <= 29; i++ {
		img = segment.EncodeTimeIndexEntry(img, 45, segment.TimeIndexEntry{Timestamp: int64(10 * i), Offset: 45 + int64(10*i)})
	}
	path := filepath.Join(t.TempDir(), segment.FilenamePrefixFromOffset(45)+segment.TimeIndexSuffix)
	testfiles.MustWrite(t, path, img)
	x, err := segment.OpenTimeIndex(path, 45)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for _, c := range []struct{ ts, wantTs, wantOff int64 }{{9, -1, 45}, {25, 20, 65}, {30, 30, 75}} {
		if e, _, _ := x.Lookup(c.ts); e.Timestamp != c.wantTs || e.Offset != c.wantOff {
			t.Errorf("lookup(%d) = %v", c.ts, e)
		}
	}
	for i, w := range []segment.TimeIndexEntry{{10, 55}, {20, 65}, {30, 75}, {40, 85}} {
		if e, _ := x.Entry(i); e != w {
			t.Errorf("entry(%d) = %v, want %v", i, e, w)
		}
	}
	if err := x.SanityCheck(); err != nil {
		t.Error(err)
	}
	// testSanityCheck: corrupt timestamp, offset, length each fail.
	corrupt := map[string]func([]byte) []byte{
		"timestamp": func(b []byte) []byte { binary.BigEndian.PutUint64(b[len(b)-12:], 0); return b },
		"offset":    func(b []byte) []byte { binary.BigEndian.PutUint32(b[len(b)-4:], uint32(0xffffffff)); return b },
		"length":    func(b []byte) []byte { return append(b, 1, 2, 3) },
	}
	for name, f := range corrupt {
		p := filepath.Join(t.TempDir(), segment.FilenamePrefixFromOffset(45)+segment.TimeIndexSuffix)
		testfiles.MustWrite(t, p, f(append([]byte(nil), img...)))
		y, _ := segment.OpenTimeIndex(p, 45)
		if err := y.SanityCheck(); err == nil {
			t.Errorf("corrupt %s passed sanity check", name)
		}
		y.Close()
	}
}

// FileRecordsTest.testIterationOverPartialAndTruncation (0/2/4/5/6
// trailing zero bytes are ignored) and testBatchIterationIncompleteBatch
// (file cut by 13 bytes: the last batch is not returned, no error).
func TestIterationOverPartialAndTruncation(t *testing.T) {
	full := append(segmenttest.Batch78(1), segmenttest.Batch78(2)...)
	binary.BigEndian.PutUint64(full[78:], 1)
	for _, c := range []struct {
		name    string
		data    []byte
		batches int
	}{
		{"zeros0", full, 2},
		{"zeros2", append(append([]byte{}, full...), make([]byte, 2)...), 2},
		{"zeros4", append(append([]byte{}, full...), make([]byte, 4)...), 2},
		{"zeros5", append(append([]byte{}, full...), make([]byte, 5)...), 2},
		{"zeros6", append(append([]byte{}, full...), make([]byte, 6)...), 2},
		{"incomplete-13", full[:len(full)-13], 1},
	} {
		path := filepath.Join(t.TempDir(), segment.FilenamePrefixFromOffset(0)+segment.LogSuffix)
		testfiles.MustWrite(t, path, c.data)
		lf, err := segment.OpenLog(path)
		if err != nil {
			t.Fatal(err)
		}
		res := lf.Walk(0, 0, func(segment.BatchInfo) bool { return true })
		lf.Close()
		if res.Err != nil || res.Batches != c.batches {
			t.Errorf("%s: %d batches, err %v; want %d", c.name, res.Batches, res.Err, c.batches)
		}
	}
}

// The oversize rule (UnifiedLog.append, docs/kafka.md §8): an append larger
// than segment.bytes is rejected and nothing is written; exactly
// segment.bytes into an empty segment is accepted without rolling.
func TestOversizeAppendRejected(t *testing.T) {
	dir := t.TempDir()
	l, err := segment.CreateLog(dir, segment.Config{IndexIntervalBytes: 0, SegmentBytes: 200, SegmentIndexBytes: 96}, segment.PerBatch, 0)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := l.Append(segmenttest.Batch78(0), segmenttest.Batch78(1), segmenttest.Batch78(2))
	if err != nil || ev == nil || ev.Kind != segment.EventRejected || ev.Step != 0 || ev.Bytes != 234 {
		t.Fatalf("event %+v err %v", ev, err)
	}
	b, err := segment.BuildSizedBatch(0, 3, 200, 5)
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := l.Append(b); ev != nil || err != nil {
		t.Fatalf("exact-size append: %+v %v", ev, err)
	}
	l.Close()
	if got := testfiles.ListFiles(t, dir); len(got) != 3 {
		t.Fatalf("files %v: exact fit must not roll", got)
	}
	if st, _ := os.Stat(filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.LogSuffix)); st.Size() != 200 {
		t.Fatalf("log size %d", st.Size())
	}
}

// Preallocation while active (AbstractIndex.createAndAssignMmap: length
// rounded down to the entry size) and trimming on close.
func TestIndexPreallocationAndTrim(t *testing.T) {
	dir := t.TempDir()
	l, _ := segment.CreateLog(dir, segment.Config{IndexIntervalBytes: 0, SegmentBytes: 1 << 20, SegmentIndexBytes: 85}, segment.PerBatch, 0)
	l.Append(segmenttest.Batch78(1))
	l.Append(segmenttest.Batch78(2))
	idx := filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.IndexSuffix)
	tidx := filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.TimeIndexSuffix)
	if a, b := fileSize(t, idx), fileSize(t, tidx); a != 80 || b != 84 {
		t.Fatalf("active sizes %d/%d, want 80/84", a, b)
	}
	// An active (untrimmed) index reads as Kafka reads it: 10 entries, the
	// zero tail included; DumpLogSegments stops after the real one.
	x, _ := segment.OpenOffsetIndex(idx, 0)
	if x.Len() != 10 || x.DumpLen() != 1 || x.SanityCheck() != nil {
		t.Fatalf("untrimmed index: len %d dumpLen %d", x.Len(), x.DumpLen())
	}
	x.Close()
	l.Close()
	if a, b := fileSize(t, idx), fileSize(t, tidx); a != 8 || b != 12 {
		// the close entry (2, 1) equals the last one: TimeIndex.maybeAppend ignores it
		t.Fatalf("closed sizes %d/%d, want 8/12", a, b)
	}
}

func fileSize(t *testing.T, p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// The size-targeting builder: exact sizes over a range that crosses the
// varint steps, and a clear error when the size is too small.
func TestBuildSizedBatch(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 64, 200} {
		lo := segment.MinBatchSize(n)
		for size := lo; size < lo+300; size++ {
			if n == 0 && size != 61 {
				continue
			}
			b, err := segment.BuildSizedBatch(10, n, size, 1234)
			if n == 1 && size-segment.RecordBatchOverhead == 65 {
				// No record is 65 bytes: body 63 -> 64, body 64 -> 66 (the
				// length varint grows). The builder must say so.
				if err == nil {
					t.Fatal("a 1-record batch of 126 bytes cannot exist")
				}
				continue
			}
			if err != nil {
				t.Fatalf("n=%d size=%d: %v", n, size, err)
			}
			h, recs, err := segment.DecodeRecords(b, "built", 0)
			if err != nil || len(b) != size || len(recs) != n || segment.CheckBatch(b, "built", 0) != nil {
				t.Fatalf("n=%d size=%d: len %d, %d records, %v", n, size, len(b), len(recs), err)
			}
			if n > 0 && (h.MaxTimestamp != 1234 || h.LastOffset() != int64(9+n)) {
				t.Fatalf("header %+v", h)
			}
		}
		if n > 0 {
			if _, err := segment.BuildSizedBatch(0, n, lo-1, 0); err == nil {
				t.Fatalf("n=%d size %d must fail", n, lo-1)
			}
		}
	}
	// 16 KiB batches of the benchmark and large sizes.
	for _, c := range [][2]int{{79, 16350}, {1, 1 << 20}, {1000, 1 << 16}} {
		if b, err := segment.BuildSizedBatch(0, c[0], c[1], 0); err != nil || len(b) != c[1] {
			t.Fatalf("%v: %v", c, err)
		}
	}
}

// docs/kafka.md §8.2, LogSegment.shouldRoll / timeWaitedForRoll: on files too, a segment rolls
// when an append's max timestamp is more than segment.ms past the first batch's.
func TestTimeBasedRollOnFiles(t *testing.T) {
	for _, rule := range []segment.Rule{segment.PerBatch, segment.PerAppend} {
		cfg := segment.DefaultConfig()
		cfg.SegmentMs = 150
		w := &segment.Workload{Config: cfg, Rule: rule}
		for _, ts := range []int64{1000, 1100, 1150, 1151, 1200} {
			w.Steps = append(w.Steps, segment.Step{Append: []segment.BatchSpec{{Records: 1, Bytes: 100, MaxTimestamp: ts}}})
		}
		dir := t.TempDir()
		res, err := segment.WriteWorkload(dir, w)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Segments) != 2 || res.Segments[1] != 3 {
			t.Fatalf("%s: segments %v, want [0 3]", rule, res.Segments)
		}
	}
}
