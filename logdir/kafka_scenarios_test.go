package logdir

import (
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/segment"
)

// TestWorkedExample23 is docs/kafka.md §2.3 on files: 78-byte batches, interval
// 100, appends A1 = batches 0-4, A2 = 5-9, A3 = 10.
func TestWorkedExample23(t *testing.T) {
	if n := len(segmenttest.Batch78(0)); n != 78 {
		t.Fatalf("example batch is %d bytes, docs/kafka.md §1.3 says 78", n)
	}
	cfg := segment.Config{IndexIntervalBytes: 100, SegmentBytes: 1 << 20, SegmentIndexBytes: 10485760}
	appends := func(l *segment.Log, sizes ...int) {
		for _, n := range sizes {
			var bs [][]byte
			for i := 0; i < n; i++ {
				bs = append(bs, segmenttest.Batch78(0))
			}
			if ev, err := l.Append(bs...); err != nil || ev != nil {
				t.Fatal(ev, err)
			}
		}
	}
	idx := func(dir string) string {
		return filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.IndexSuffix)
	}
	cases := []struct {
		name string
		rule segment.Rule
		run  func(l *segment.Log)
		want [][2]int64
	}{
		{"OLD", segment.PerAppend, func(l *segment.Log) { appends(l, 5, 5, 1) }, [][2]int64{{9, 390}, {10, 780}}},
		{"NEW", segment.PerBatch, func(l *segment.Log) { appends(l, 5, 5, 1) }, [][2]int64{{2, 156}, {4, 312}, {6, 468}, {8, 624}, {10, 780}}},
		{"OLD then recover", segment.PerAppend, func(l *segment.Log) {
			appends(l, 5, 5, 1)
			if _, err := l.Recover(); err != nil {
				t.Fatal(err)
			}
		}, [][2]int64{{2, 156}, {4, 312}, {6, 468}, {8, 624}, {10, 780}}},
		// "After a clean restart with NEW rule and three more batches 11,12,13
		// ... counter restarts at 0 → entry (13,1014)".
		{"NEW restart", segment.PerBatch, func(l *segment.Log) {
			appends(l, 5, 5, 1)
			if err := l.Restart(); err != nil {
				t.Fatal(err)
			}
			appends(l, 1, 1, 1)
		}, [][2]int64{{2, 156}, {4, 312}, {6, 468}, {8, 624}, {10, 780}, {13, 1014}}},
		// "recover() of the same file instead yields (12,936)".
		{"NEW restart then recover", segment.PerBatch, func(l *segment.Log) {
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
			l, err := segment.CreateLog(dir, cfg, c.rule, 0)
			if err != nil {
				t.Fatal(err)
			}
			c.run(l)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if got := segmenttest.IndexPairs(t, idx(dir), 0); !slices.Equal(got, c.want) {
				t.Fatalf("index %v, want %v", got, c.want)
			}
		})
	}
	// "Lookup of offset 7: OLD → no entry ≤ 7 → start at byte 0 (8 hops);
	// NEW → (6,468) → hop 6, 7." and "DumpLogSegments on the OLD index
	// reports Index offset: 9, log offset: 5".
	for _, c := range []struct {
		rule            segment.Rule
		start, hops     int64
		mismatchMessage string
	}{{segment.PerAppend, 0, 8, "Index offset: 9, log offset: 5"}, {segment.PerBatch, 468, 2, ""}} {
		dir := t.TempDir()
		l, _ := segment.CreateLog(dir, cfg, c.rule, 0)
		appends(l, 5, 5, 1)
		l.Close()
		seg, err := segment.OpenSegment(filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.LogSuffix))
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

// LogSegmentTest.testRecoveryWithCorruptMessage: garbage from inside a
// random message to the end; recover keeps exactly the preceding messages,
// and (testRecoveryFixesCorruptIndex) every kept offset is then found.
func TestRecoveryWithCorruptMessage(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for iter := 0; iter < 5; iter++ {
		dir := t.TempDir()
		l, err := segment.CreateLog(dir, segment.Config{IndexIntervalBytes: 1, SegmentBytes: 1 << 30, SegmentIndexBytes: 1500}, segment.PerBatch, 40)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			l.Append(segmenttest.Batch78(int64(i) * 10))
		}
		logPath := filepath.Join(dir, segment.FilenamePrefixFromOffset(40)+segment.LogSuffix)
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
		seg, err := segment.OpenSegment(logPath)
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
