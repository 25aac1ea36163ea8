package sim

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/model"
	"kidx/segment"
)

// cleanedBesideSource builds, by hand, the two-points-in-time directory of issue 25 (lestfeed's
// __consumer_offsets-25 in small): a log directory whose partition t-0 holds segment 63 (five
// one-record batches of 100 bytes, offsets 63-67, timestamps ts0..ts0+4) and a segment 0 written
// as the cleaner writes it from 63: the given batches, its .index empty and its .timeindex the
// one entry onBecomeInactiveSegment appends, and cleaner-offset-checkpoint at 68 (the cleaner
// has cleaned below it). It returns the partition directory.
func cleanedBesideSource(t *testing.T, cleaned []byte, closeEntry segment.TimeIndexEntry) string {
	t.Helper()
	logDir := t.TempDir()
	part := filepath.Join(logDir, "t-0")
	l, err := segment.CreateLog(part, segment.DefaultConfig(), segment.PerBatch, 63)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 5; i++ {
		segmenttest.AppendSized(t, l, 63+i, 1, 100, ts0+i)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	stem := filepath.Join(part, segment.FilenamePrefixFromOffset(0))
	testfiles.MustWrite(t, stem+segment.LogSuffix, cleaned)
	testfiles.MustWrite(t, stem+segment.IndexSuffix, nil)
	testfiles.MustWrite(t, stem+segment.TimeIndexSuffix, segment.EncodeTimeIndexEntry(nil, 0, closeEntry))
	testfiles.MustWrite(t, filepath.Join(logDir, segment.CleanerOffsetCheckpointName), []byte("0\n1\nt 0 68\n"))
	return part
}

const ts0 = 1700000000000

func sourceBytes(t *testing.T, part string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(part, segment.FilenamePrefixFromOffset(63)+segment.LogSuffix))
	if err != nil || len(src) != 500 {
		t.Fatalf("source segment: %d bytes, %v", len(src), err)
	}
	return src
}

// Issue 25, "Replay and what-if of compacted topics": a cleaned segment beside its stale source
// (the swap's deletion not in the copy) replays: the source is left out with a note naming it,
// the cleaned segment is replayed as the cleaner writes it and gives back its files. The
// cleaned segment keeps byte-for-byte copies of the source's batches 64 and 66 (positions 0 and
// 100 of its .log); its close entry is (ts0+3, 66), the max timestamp and the batch holding it.
func TestReplayLeavesOutTheCleanedSegmentsSource(t *testing.T) {
	part := cleanedBesideSource(t, nil, segment.TimeIndexEntry{Timestamp: ts0 + 3, Offset: 66})
	src := sourceBytes(t, part)
	stem := filepath.Join(part, segment.FilenamePrefixFromOffset(0))
	testfiles.MustWrite(t, stem+segment.LogSuffix, append(append([]byte(nil), src[100:200]...), src[300:400]...))

	r, err := ReplayLogDir(part, "", -1, ReplayOptions{Interval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.LeftOut, []int64{63}) || !slices.Equal(r.Cleaned, []int64{0}) {
		t.Fatalf("left out %v, cleaned %v; want [63] and [0]", r.LeftOut, r.Cleaned)
	}
	note := filepath.Join(part, "00000000000000000063.log") + " is left out of the replay: it is a source of the cleaned segment"
	if !slices.ContainsFunc(r.Notes, func(n string) bool {
		return strings.HasPrefix(n, note) && strings.Contains(n, "2 of its batches survive")
	}) {
		t.Errorf("no note %q...: %q", note, r.Notes)
	}
	ok, diff, err := r.Check()
	if err != nil || !ok || r.Compared != 1 {
		t.Fatalf("the replay does not give back segment 0: ok %v, %s, %v, compared %d", ok, diff, err, r.Compared)
	}

	// What index.interval.bytes does to the cleaned segment, worked by hand under the
	// per-batch rule (LogSegment.append checks bytesSinceLastIndexEntry > interval before each
	// batch and then adds its size): at 4096 neither batch is indexed, a lookup of 66 walks
	// over batch 64 (100 B), and only close() writes a time entry; at 1, batch 66 (counter 100)
	// is indexed with the time entry (ts0+3, 66), and close() adds none (no newer timestamp).
	figs, err := r.CleanedFigures([]int64{4096, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		interval              int64
		entries, timeEntries  int
		maxScan, batches, siz int64
	}{{4096, 0, 1, 100, 2, 200}, {1, 1, 1, 0, 2, 200}}
	if len(figs) != len(want) {
		t.Fatalf("%d figures, want %d", len(figs), len(want))
	}
	for i, w := range want {
		f := figs[i]
		if f.BaseOffset != 0 || f.Interval != w.interval || f.Entries != w.entries || f.TimeEntries != w.timeEntries || f.Scan.MaxScanBytes != w.maxScan || f.Batches != w.batches || f.Bytes != w.siz {
			t.Errorf("interval %d: %+v, want %+v", w.interval, f, w)
		}
	}
}

// Issue 25 (and issue 27, item 7): an overlap that is not a cleaned segment beside its source is
// still refused, naming both files.
func TestReplayRefusesATrueOverlap(t *testing.T) {
	// A cleaned segment 0 whose batch 64-65 is no batch of segment 63 (whose batches hold one
	// offset each): the cleaner keeps a batch's offsets, so 63 is not its source.
	t.Run("cleaned-beside-another-log", func(t *testing.T) {
		part := cleanedBesideSource(t, nil, segment.TimeIndexEntry{Timestamp: ts0 + 3, Offset: 66})
		src := sourceBytes(t, part)
		other, err := segment.BuildSizedBatch(64, 2, 100, ts0+1)
		if err != nil {
			t.Fatal(err)
		}
		stem := filepath.Join(part, segment.FilenamePrefixFromOffset(0))
		testfiles.MustWrite(t, stem+segment.LogSuffix, append(other, src[300:400]...))
		_, err = ReplayLogDir(part, "", -1, ReplayOptions{Interval: -1})
		want := filepath.Join(part, "00000000000000000000.log") + " holds offsets 64 to 66, and the next segment " + filepath.Join(part, "00000000000000000063.log") + " starts at offset 63"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "the two segments overlap") {
			t.Fatalf("got %v, want %q ... the two segments overlap", err, want)
		}
	})
	// Decision (docs/explain.md): the replay trusts explain's history. With the checkpoint gone,
	// the copies of 64 and 66 show offset gaps alone, which a follower's copy of cleaned data
	// shows too: explain answers "appends" (no restart needed), so the overlap stays refused.
	t.Run("gaps-alone", func(t *testing.T) {
		part := cleanedBesideSource(t, nil, segment.TimeIndexEntry{Timestamp: ts0 + 3, Offset: 66})
		src := sourceBytes(t, part)
		stem := filepath.Join(part, segment.FilenamePrefixFromOffset(0))
		testfiles.MustWrite(t, stem+segment.LogSuffix, append(append([]byte(nil), src[100:200]...), src[300:400]...))
		if err := os.Remove(filepath.Join(filepath.Dir(part), segment.CleanerOffsetCheckpointName)); err != nil {
			t.Fatal(err)
		}
		_, err := ReplayLogDir(part, "", -1, ReplayOptions{Interval: -1})
		if err == nil || !strings.Contains(err.Error(), "the two segments overlap") {
			t.Fatalf("got %v, want the overlap refused", err)
		}
	})
	// Two segments written by appends (no gap, no checkpoint): segment 0 holds offsets 0-9,
	// segment 5 starts inside them.
	t.Run("appends-beside-appends", func(t *testing.T) {
		part := filepath.Join(t.TempDir(), "t-0")
		for _, seg := range []struct{ base, n int64 }{{0, 10}, {5, 3}} {
			l, err := segment.CreateLog(part, segment.DefaultConfig(), segment.PerBatch, seg.base)
			if err != nil {
				t.Fatal(err)
			}
			for i := int64(0); i < seg.n; i++ {
				segmenttest.AppendSized(t, l, seg.base+i, 1, 100, ts0+i)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		}
		_, err := ReplayLogDir(part, "", -1, ReplayOptions{Interval: -1})
		want := filepath.Join(part, "00000000000000000000.log") + " holds offsets 0 to 9, and the next segment " + filepath.Join(part, "00000000000000000005.log") + " starts at offset 5"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, want %q", err, want)
		}
	})
}

// Issue 25, decision "not the model's clean step" (docs/explain.md): where the model's clean
// step can express the replay of a cleaned segment (the first segment of the log, cleaned
// alone, under the per-batch rule, where the cleaner's chunking changes no entry), it writes
// the same indexes as the replay's appends. The other route: the cleaned segment's batches
// appended as a plain segment, rolled, then {"clean": {"uncleanableOffset": next base}} with
// nothing dropped (helper A's model.Clean: cleanInto's chunks, onBecomeInactiveSegment).
func TestReplayedCleanedSegmentEqualsTheModelsCleaner(t *testing.T) {
	part := cleanedBesideSource(t, nil, segment.TimeIndexEntry{Timestamp: ts0 + 3, Offset: 66})
	src := sourceBytes(t, part)
	stem := filepath.Join(part, segment.FilenamePrefixFromOffset(0))
	testfiles.MustWrite(t, stem+segment.LogSuffix, append(append([]byte(nil), src[100:200]...), src[300:400]...))
	// An active segment after the cleaned one, as a broker's log has: offsets 68-69.
	active := filepath.Join(t.TempDir(), "t-0")
	l, err := segment.CreateLog(active, segment.DefaultConfig(), segment.PerBatch, 68)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 2; i++ {
		segmenttest.AppendSized(t, l, 68+i, 1, 100, ts0+5+i)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{segment.LogSuffix, segment.IndexSuffix, segment.TimeIndexSuffix} {
		name := segment.FilenamePrefixFromOffset(68) + suffix
		data, err := os.ReadFile(filepath.Join(active, name))
		if err != nil {
			t.Fatal(err)
		}
		testfiles.MustWrite(t, filepath.Join(part, name), data)
	}
	r, err := ReplayLogDir(part, "", -1, ReplayOptions{Interval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if ok, diff, err := r.Check(); err != nil || !ok {
		t.Fatalf("the replay does not give back the files: %s %v", diff, err)
	}
	for _, interval := range []int64{r.Interval, 99, 100} { // batch 66 indexed at 99, not at 100
		cfg := model.DefaultConfig()
		if err := r.Workload.ApplyTo(&cfg); err != nil {
			t.Fatal(err)
		}
		cfg.IndexIntervalBytes = interval
		steps := heldSteps(t, r.Source())
		replayed, err := model.SimulateEra(cfg, r.Era, r.Workload.StartOffset, steps, true)
		if err != nil {
			t.Fatal(err)
		}
		var viaClean []model.Step
		for _, s := range steps {
			viaClean = append(viaClean, s)
			if s.Roll && s.RollBaseOffset == 68 {
				viaClean = append(viaClean, model.Step{Clean: &model.Clean{UncleanableOffset: 68, HasUncleanableOffset: true}})
			}
		}
		cleaned, err := model.SimulateEra(cfg, r.Era, r.Workload.StartOffset, viaClean, true)
		if err != nil {
			t.Fatal(err)
		}
		a, b := replayed.Segments()[0], cleaned.Segments()[0]
		if !b.Cleaned() || a.BaseOffset() != 0 || b.BaseOffset() != 0 {
			t.Fatalf("interval %d: the clean step did not clean segment 0 (cleaned %v)", interval, b.Cleaned())
		}
		if !slices.Equal(a.OffsetIndex().All(), b.OffsetIndex().All()) || !slices.Equal(a.TimeIndex().All(), b.TimeIndex().All()) {
			t.Errorf("interval %d (%s): the replay writes %v %v, the model's cleaner %v %v", interval, r.Era, a.OffsetIndex().All(), a.TimeIndex().All(), b.OffsetIndex().All(), b.TimeIndex().All())
		}
	}
}
