package segment

import (
	"encoding/binary"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// batch78 is docs/kafka.md §1.3's example: one record, key "key1", value
// "value1", deltas 0: 78 bytes.
func batch78(ts int64) []byte {
	return AppendBatch(nil, 0, []RecordSpec{{Key: []byte("key1"), Value: []byte("value1"), Timestamp: ts}}, BatchDefaults)
}

func indexPairs(t *testing.T, path string, base int64) [][2]int64 {
	t.Helper()
	var out [][2]int64
	for _, e := range ParseOffsetIndex(mustRead(t, path), base) {
		out = append(out, [2]int64{e.Offset, e.Position})
	}
	return out
}

// TestWorkedExample23 is docs/kafka.md §2.3 on files: 78-byte batches, interval
// 100, appends A1 = batches 0-4, A2 = 5-9, A3 = 10.
func TestWorkedExample23(t *testing.T) {
	if n := len(batch78(0)); n != 78 {
		t.Fatalf("example batch is %d bytes, docs/kafka.md §1.3 says 78", n)
	}
	cfg := Config{IndexIntervalBytes: 100, SegmentBytes: 1 << 20, SegmentIndexBytes: 10485760}
	appends := func(l *Log, sizes ...int) {
		for _, n := range sizes {
			var bs [][]byte
			for i := 0; i < n; i++ {
				bs = append(bs, batch78(0))
			}
			if ev, err := l.Append(bs...); err != nil || ev != nil {
				t.Fatal(ev, err)
			}
		}
	}
	idx := func(dir string) string { return filepath.Join(dir, FilenamePrefixFromOffset(0)+IndexSuffix) }
	cases := []struct {
		name string
		rule Rule
		run  func(l *Log)
		want [][2]int64
	}{
		{"OLD", PerAppend, func(l *Log) { appends(l, 5, 5, 1) }, [][2]int64{{9, 390}, {10, 780}}},
		{"NEW", PerBatch, func(l *Log) { appends(l, 5, 5, 1) }, [][2]int64{{2, 156}, {4, 312}, {6, 468}, {8, 624}, {10, 780}}},
		{"OLD then recover", PerAppend, func(l *Log) {
			appends(l, 5, 5, 1)
			if _, err := l.Recover(); err != nil {
				t.Fatal(err)
			}
		}, [][2]int64{{2, 156}, {4, 312}, {6, 468}, {8, 624}, {10, 780}}},
		// "After a clean restart with NEW rule and three more batches 11,12,13
		// ... counter restarts at 0 → entry (13,1014)".
		{"NEW restart", PerBatch, func(l *Log) {
			appends(l, 5, 5, 1)
			if err := l.Restart(); err != nil {
				t.Fatal(err)
			}
			appends(l, 1, 1, 1)
		}, [][2]int64{{2, 156}, {4, 312}, {6, 468}, {8, 624}, {10, 780}, {13, 1014}}},
		// "recover() of the same file instead yields (12,936)".
		{"NEW restart then recover", PerBatch, func(l *Log) {
			appends(l, 5, 5, 1)
			if err := l.Restart(); err != nil {
				t.Fatal(err)
			}
			appends(l, 1, 1, 1)
			if _, err := l.Recover(); err != nil {
				t.Fatal(err)
			}
		}, [][2]int64{{2, 156}, {4, 312}, {6, 468}, {8, 624}, {10, 780}, {12, 936}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			l, err := CreateLog(dir, cfg, c.rule, 0)
			if err != nil {
				t.Fatal(err)
			}
			c.run(l)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if got := indexPairs(t, idx(dir), 0); !slices.Equal(got, c.want) {
				t.Fatalf("index %v, want %v", got, c.want)
			}
		})
	}
	// "Lookup of offset 7: OLD → no entry ≤ 7 → start at byte 0 (8 hops);
	// NEW → (6,468) → hop 6, 7." and "DumpLogSegments on the OLD index
	// reports Index offset: 9, log offset: 5".
	for _, c := range []struct {
		rule            Rule
		start, hops     int64
		mismatchMessage string
	}{{PerAppend, 0, 8, "Index offset: 9, log offset: 5"}, {PerBatch, 468, 2, ""}} {
		dir := t.TempDir()
		l, _ := CreateLog(dir, cfg, c.rule, 0)
		appends(l, 5, 5, 1)
		l.Close()
		seg, err := OpenSegment(filepath.Join(dir, FilenamePrefixFromOffset(0)+LogSuffix))
		if err != nil {
			t.Fatal(err)
		}
		r, _ := seg.Lookup(7)
		seg.Close()
		if r.IndexPosition != c.start || int64(r.Hops) != c.hops || r.HitBaseOffset != 7 {
			t.Errorf("%v lookup(7) = %+v", c.rule, r)
		}
		rep, _ := Verify([]string{dir}, VerifyOptions{Deep: true})
		var msgs []string
		for _, f := range rep.Findings {
			msgs = append(msgs, f.Message)
		}
		if c.mismatchMessage == "" && len(msgs) != 0 || c.mismatchMessage != "" && (len(msgs) != 1 || msgs[0] != c.mismatchMessage) {
			t.Errorf("%v verify: %q", c.rule, msgs)
		}
	}
}

// OffsetIndexTest.lookupExtremeCases / randomLookupTest / testEntry on
// files: base 45, 30 slots.
func TestOffsetIndexTestScenarios(t *testing.T) {
	path := filepath.Join(t.TempDir(), FilenamePrefixFromOffset(45)+IndexSuffix)
	mustWrite(t, path, nil)
	x, err := OpenOffsetIndex(path, 45)
	if err != nil {
		t.Fatal(err)
	}
	if e, _, _ := x.Lookup(92); e != (IndexEntry{45, 0}) { // empty lookup
		t.Fatalf("empty lookup %v", e)
	}
	if _, err := x.Entry(0); err == nil { // testEntryOverflow
		t.Fatal("entry(0) on empty index must fail")
	}
	x.Close()
	var img []byte
	for i := 0; i < 30; i++ {
		img = EncodeIndexEntry(img, 45, IndexEntry{Offset: 45 + int64(i) + 1, Position: int64(i)})
	}
	mustWrite(t, path, img)
	x, _ = OpenOffsetIndex(path, 45)
	defer x.Close()
	if e, _, _ := x.Lookup(45); e != (IndexEntry{45, 0}) {
		t.Errorf("lookup(45) = %v, want (45,0)", e)
	}
	if e, _, _ := x.Lookup(45 + 30); e != (IndexEntry{75, 29}) {
		t.Errorf("lookup(75) = %v, want (75,29)", e)
	}
	// testSanityLastOffsetEqualToBaseOffset: base 20, append(20, 0) passes.
	p2 := filepath.Join(t.TempDir(), FilenamePrefixFromOffset(20)+IndexSuffix)
	mustWrite(t, p2, EncodeIndexEntry(nil, 20, IndexEntry{20, 0}))
	y, _ := OpenOffsetIndex(p2, 20)
	if err := y.SanityCheck(); err != nil {
		t.Error(err)
	}
	y.Close()
}

// TimeIndexTest.testLookUp / testEntry: base 45, entries (10i, 45+10i).
func TestTimeIndexTestScenarios(t *testing.T) {
	var img []byte
	for i := 1; i <= 29; i++ {
		img = EncodeTimeIndexEntry(img, 45, TimeIndexEntry{Timestamp: int64(10 * i), Offset: 45 + int64(10*i)})
	}
	path := filepath.Join(t.TempDir(), FilenamePrefixFromOffset(45)+TimeIndexSuffix)
	mustWrite(t, path, img)
	x, err := OpenTimeIndex(path, 45)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for _, c := range []struct{ ts, wantTs, wantOff int64 }{{9, -1, 45}, {25, 20, 65}, {30, 30, 75}} {
		if e, _, _ := x.Lookup(c.ts); e.Timestamp != c.wantTs || e.Offset != c.wantOff {
			t.Errorf("lookup(%d) = %v", c.ts, e)
		}
	}
	for i, w := range []TimeIndexEntry{{10, 55}, {20, 65}, {30, 75}, {40, 85}} {
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
		p := filepath.Join(t.TempDir(), FilenamePrefixFromOffset(45)+TimeIndexSuffix)
		mustWrite(t, p, f(append([]byte(nil), img...)))
		y, _ := OpenTimeIndex(p, 45)
		if err := y.SanityCheck(); err == nil {
			t.Errorf("corrupt %s passed sanity check", name)
		}
		y.Close()
	}
}

// WarmSearchAgrees (docs/contract.md §6) and AbstractIndex.indexSlotRangeFor: the warm
// section search returns the same slot as a plain binary search, on
// indexes larger and smaller than the 1024-entry warm section.
func TestWarmSearchAgreesWithBinarySearch(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 2, 1024, 1025, 1026, 5000} {
		var img []byte
		var offs []int64
		o := int64(1000)
		for i := 0; i < n; i++ {
			o += 1 + rng.Int63n(5)
			offs = append(offs, o)
			img = EncodeIndexEntry(img, 1000, IndexEntry{Offset: o, Position: int64(i)})
		}
		x := OffsetIndex{indexFile: indexFile{BaseOffset: 1000, data: img}, n: n, valid: n}
		for k := 0; k < 2000; k++ {
			target := 990 + rng.Int63n(o-980+1)
			want := sort.Search(len(offs), func(i int) bool { return offs[i] > target }) - 1
			_, slot, st := x.Lookup(target)
			if slot != want {
				t.Fatalf("n=%d target %d: slot %d, want %d", n, target, slot, want)
			}
			if n > 0 && st.SlotsCompared == 0 {
				t.Fatal("no slot compared")
			}
		}
	}
}

// LogSegmentTest.testRecoveryWithCorruptMessage: garbage from inside a
// random message to the end; recover keeps exactly the preceding messages,
// and (testRecoveryFixesCorruptIndex) every kept offset is then found.
func TestRecoveryWithCorruptMessage(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for iter := 0; iter < 5; iter++ {
		dir := t.TempDir()
		l, err := CreateLog(dir, Config{IndexIntervalBytes: 1, SegmentBytes: 1 << 30, SegmentIndexBytes: 1500}, PerBatch, 40)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			l.Append(batch78(int64(i) * 10))
		}
		logPath := filepath.Join(dir, FilenamePrefixFromOffset(40)+LogSuffix)
		victim := rng.Intn(100)
		cut := int64(victim*78) + 1 + rng.Int63n(76)
		f, _ := os.OpenFile(logPath, os.O_WRONLY, 0)
		garbage := make([]byte, 100*78-cut)
		rng.Read(garbage)
		f.WriteAt(garbage, cut)
		f.Close()
		if ev, err := l.Recover(); err != nil || ev != nil {
			t.Fatal(ev, err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(logPath); st.Size() != int64(victim*78) {
			t.Fatalf("victim %d: log size %d, want %d", victim, st.Size(), victim*78)
		}
		seg, err := OpenSegment(logPath)
		if err != nil {
			t.Fatal(err)
		}
		for o := int64(40); o < int64(40+victim); o++ {
			r, err := seg.Lookup(o)
			if err != nil || !r.Found || r.HitBaseOffset != o || r.Hops != 1 {
				t.Fatalf("lookup(%d) after recover: %+v %v", o, r, err)
			}
		}
		seg.Close()
		rep, _ := Verify([]string{dir}, VerifyOptions{Deep: true})
		if rep.Problems() != 0 {
			t.Fatalf("recovered segment does not verify: %v", rep.Findings)
		}
	}
}

// FileRecordsTest.testIterationOverPartialAndTruncation (0/2/4/5/6
// trailing zero bytes are ignored) and testBatchIterationIncompleteBatch
// (file cut by 13 bytes: the last batch is not returned, no error).
func TestIterationOverPartialAndTruncation(t *testing.T) {
	full := append(batch78(1), batch78(2)...)
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
		path := filepath.Join(t.TempDir(), FilenamePrefixFromOffset(0)+LogSuffix)
		mustWrite(t, path, c.data)
		lf, err := OpenLog(path)
		if err != nil {
			t.Fatal(err)
		}
		res := lf.Walk(0, 0, func(BatchInfo) bool { return true })
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
	l, err := CreateLog(dir, Config{IndexIntervalBytes: 0, SegmentBytes: 200, SegmentIndexBytes: 96}, PerBatch, 0)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := l.Append(batch78(0), batch78(1), batch78(2))
	if err != nil || ev == nil || ev.Kind != EventRejected || ev.Step != 0 || ev.Bytes != 234 {
		t.Fatalf("event %+v err %v", ev, err)
	}
	b, err := BuildSizedBatch(0, 3, 200, 5)
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := l.Append(b); ev != nil || err != nil {
		t.Fatalf("exact-size append: %+v %v", ev, err)
	}
	l.Close()
	if got := listFiles(t, dir); len(got) != 3 {
		t.Fatalf("files %v: exact fit must not roll", got)
	}
	if st, _ := os.Stat(filepath.Join(dir, FilenamePrefixFromOffset(0)+LogSuffix)); st.Size() != 200 {
		t.Fatalf("log size %d", st.Size())
	}
}

// Preallocation while active (AbstractIndex.createAndAssignMmap: length
// rounded down to the entry size) and trimming on close.
func TestIndexPreallocationAndTrim(t *testing.T) {
	dir := t.TempDir()
	l, _ := CreateLog(dir, Config{IndexIntervalBytes: 0, SegmentBytes: 1 << 20, SegmentIndexBytes: 85}, PerBatch, 0)
	l.Append(batch78(1))
	l.Append(batch78(2))
	idx := filepath.Join(dir, FilenamePrefixFromOffset(0)+IndexSuffix)
	tidx := filepath.Join(dir, FilenamePrefixFromOffset(0)+TimeIndexSuffix)
	if a, b := fileSize(t, idx), fileSize(t, tidx); a != 80 || b != 84 {
		t.Fatalf("active sizes %d/%d, want 80/84", a, b)
	}
	// An active (untrimmed) index reads as Kafka reads it: 10 entries, the
	// zero tail included; DumpLogSegments stops after the real one.
	x, _ := OpenOffsetIndex(idx, 0)
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
		lo := MinBatchSize(n)
		for size := lo; size < lo+300; size++ {
			if n == 0 && size != 61 {
				continue
			}
			b, err := BuildSizedBatch(10, n, size, 1234)
			if n == 1 && size-RecordBatchOverhead == 65 {
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
			h, recs, err := DecodeRecords(b, "built", 0)
			if err != nil || len(b) != size || len(recs) != n || CheckBatch(b, "built", 0) != nil {
				t.Fatalf("n=%d size=%d: len %d, %d records, %v", n, size, len(b), len(recs), err)
			}
			if n > 0 && (h.MaxTimestamp != 1234 || h.LastOffset() != int64(9+n)) {
				t.Fatalf("header %+v", h)
			}
		}
		if n > 0 {
			if _, err := BuildSizedBatch(0, n, lo-1, 0); err == nil {
				t.Fatalf("n=%d size %d must fail", n, lo-1)
			}
		}
	}
	// 16 KiB batches of the benchmark and large sizes.
	for _, c := range [][2]int{{79, 16350}, {1, 1 << 20}, {1000, 1 << 16}} {
		if b, err := BuildSizedBatch(0, c[0], c[1], 0); err != nil || len(b) != c[1] {
			t.Fatalf("%v: %v", c, err)
		}
	}
}

// docs/kafka.md §8.2, LogSegment.shouldRoll / timeWaitedForRoll: on files too, a segment rolls
// when an append's max timestamp is more than segment.ms past the first batch's.
func TestTimeBasedRollOnFiles(t *testing.T) {
	for _, rule := range []Rule{PerBatch, PerAppend} {
		cfg := DefaultConfig()
		cfg.SegmentMs = 150
		w := &Workload{Config: cfg, Rule: rule}
		for _, ts := range []int64{1000, 1100, 1150, 1151, 1200} {
			w.Steps = append(w.Steps, Step{Append: []BatchSpec{{Records: 1, Bytes: 100, MaxTimestamp: ts}}})
		}
		dir := t.TempDir()
		res, err := WriteWorkload(dir, w)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Segments) != 2 || res.Segments[1] != 3 {
			t.Fatalf("%s: segments %v, want [0 3]", rule, res.Segments)
		}
	}
}
