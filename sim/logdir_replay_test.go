package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kidx/internal/realdata"
	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/model"
	"kidx/segment"
)

// Issue: "On Kafka's golden cases, explain then whatif --from-logdir at the inferred settings
// gives back the golden index bytes." Each case's files were written by Kafka's classes; the
// replay built from what explain inferred runs through the model, and every segment's offset
// and time index, encoded as Kafka stores them, must equal the files' bytes.
func TestReplayGivesBackGoldenIndexBytes(t *testing.T) {
	cases, err := filepath.Glob("../testdata/kafka-golden/*/files")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, dir := range cases {
		t.Run(filepath.Base(filepath.Dir(dir)), func(t *testing.T) {
			r, err := ReplayLogDir(dir, "", -1, ReplayOptions{Interval: -1})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Reproducible {
				t.Fatal("explain did not reproduce the case")
			}
			compareReplayBytes(t, r, dir)
			// Told the case's own interval (kafka-input.json), the replay uses it.
			var in struct {
				IndexIntervalBytes int64 `json:"indexIntervalBytes"`
			}
			data, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "kafka-input.json"))
			if err != nil || json.Unmarshal(data, &in) != nil {
				t.Fatal(err)
			}
			r, err = ReplayLogDir(dir, "", -1, ReplayOptions{Interval: in.IndexIntervalBytes})
			if err != nil {
				t.Fatal(err)
			}
			if r.Interval != in.IndexIntervalBytes {
				t.Fatalf("replay interval %d, told %d", r.Interval, in.IndexIntervalBytes)
			}
			compareReplayBytes(t, r, dir)
		})
	}
}

// compareReplayBytes runs the replay keeping every segment and compares the encoded indexes
// with the files'.
func compareReplayBytes(t *testing.T, r *LogDirReplay, dir string) {
	t.Helper()
	cfg := model.DefaultConfig()
	if err := r.Workload.ApplyTo(&cfg); err != nil {
		t.Fatal(err)
	}
	l, err := model.SimulateEra(cfg, r.Era, r.Workload.StartOffset, heldSteps(t, r.Source()), true)
	if err != nil {
		t.Fatal(err)
	}
	segs := l.Segments()
	files, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(segs) != len(files) {
		t.Fatalf("%d model segments, %d .log files", len(segs), len(files))
	}
	for _, s := range segs {
		base := s.BaseOffset()
		var idx, tidx []byte
		for _, e := range s.OffsetIndex().All() {
			idx = segment.EncodeIndexEntry(idx, base, segment.IndexEntry{Offset: e.Offset, Position: e.Position})
		}
		for _, e := range s.TimeIndex().All() {
			tidx = segment.EncodeTimeIndexEntry(tidx, base, segment.TimeIndexEntry{Timestamp: e.Timestamp, Offset: e.Offset})
		}
		prefix := filepath.Join(dir, segment.FilenamePrefixFromOffset(base))
		for _, f := range []struct {
			path string
			got  []byte
		}{{prefix + segment.IndexSuffix, idx}, {prefix + segment.TimeIndexSuffix, tidx}} {
			want, err := os.ReadFile(f.path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(f.got, want) {
				t.Fatalf("%s: the replay (%s, index.interval.bytes=%d) writes %d bytes that differ from the file's %d", f.path, r.Era, r.Interval, len(f.got), len(want))
			}
		}
	}
}

// Every real partition directory (../shared/realdata) replays to its own indexes: the
// baseline a what-if starts from reproduces the real files. Issue 25: so do the former gaps,
// lestfeed's two cleaned segments beside their stale sources (each source left out, with a
// note naming it) and cart-product-request-0's segment that recovery rebuilt (replayed with
// one recover step); where the index files were never fetched there is nothing to compare,
// and the replay says so (issue 22, item 1). The known gaps (realdata.GapReplay) still fail.
func TestReplayRealDataReproduces(t *testing.T) {
	root := realdata.Restore(t)
	dirs := realdata.PartitionDirs(root)
	if len(dirs) != realdata.PartitionCount {
		t.Fatalf("%d partition directories, want %d", len(dirs), realdata.PartitionCount)
	}
	for _, dir := range dirs {
		name := realdata.Name(root, dir)
		gap, known := realdata.KnownGap(name, realdata.GapReplay)
		r, err := ReplayLogDir(dir, "", -1, ReplayOptions{Interval: -1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Issue 25: the stale source is left out, the cleaned segment 0 is replayed as the
		// cleaner wrote it; no other partition loses a segment.
		var wantLeftOut, wantCleaned []int64
		if source, ok := realdata.CleanedBesideSource[name]; ok {
			wantLeftOut, wantCleaned = []int64{source}, []int64{0}
			note := filepath.Join(dir, segment.FilenamePrefixFromOffset(source)+".log") + " is left out of the replay"
			if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, note) }) {
				t.Errorf("%s: no note %q: %q", name, note, r.Notes)
			}
		}
		if !slices.Equal(r.LeftOut, wantLeftOut) {
			t.Errorf("%s: left out %v, want %v", name, r.LeftOut, wantLeftOut)
		}
		if wantCleaned != nil && !slices.Equal(r.Cleaned, wantCleaned) {
			t.Errorf("%s: cleaned %v, want %v", name, r.Cleaned, wantCleaned)
		}
		// Issue 25: the segment recovery rebuilt is replayed with one recover step (at the
		// restart before offset 26), and no other partition's replay recovers.
		if wantRecovers := map[bool]int{true: 1}[name == realdata.RecoveredDir]; r.Recovers != wantRecovers {
			t.Errorf("%s: %d recover steps, want %d", name, r.Recovers, wantRecovers)
		}
		ok, diff, err := r.Check()
		if realdata.IndexNotFetched(name) {
			// Nothing to compare: the replay says so, and compares no segment.
			if err != nil || !ok || r.Compared != 0 || len(r.Unindexed) != len(realdata.LogFiles(dir)) {
				t.Errorf("%s (index files never fetched): ok %v, %s %v, compared %d, unindexed %v", name, ok, diff, err, r.Compared, r.Unindexed)
			}
			continue
		}
		switch reproduced := err == nil && ok; {
		case known && reproduced:
			t.Errorf("%s: the replay reproduces the files; the known gap (issue %d: %s) is gone: remove it from realdata.Gaps", name, gap.Issue, gap.What)
		case !known && !reproduced:
			t.Errorf("%s: the replay (%s, %d) does not reproduce the files: %s %v", name, r.Era, r.Interval, diff, err)
		}
	}
}

// heldSteps reads every step of a source.
func heldSteps(t *testing.T, src Source) []model.Step {
	t.Helper()
	st, err := src.Open()
	if err != nil {
		t.Fatal(err)
	}
	var out []model.Step
	buf := make([]model.Step, 7) // a small buffer: appends cross the calls
	for {
		n, err := st.Next(buf)
		for _, s := range buf[:n] {
			s.Append = append([]model.Batch(nil), s.Append...)
			out = append(out, s)
		}
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Issue 27, item 3: the replay refuses a .log over 2^31-1 bytes, naming it in FileRecords'
// words, before explain or the replay walks it.
func TestReplayRefusesOversizeLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "big-0")
	log := filepath.Join(dir, "00000000000000000000.log")
	testfiles.Sparse(t, log, 1<<31+5)
	_, err := ReplayLogDir(dir, "", -1, ReplayOptions{Interval: -1})
	want := "The size of segment " + log + " (2147483653) is larger than the maximum allowed segment size of 2147483647"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// Issue 27: an index with more entries than its .log has room for batches is refused before
// anything loads it, naming the file. The four-batch partition's .log is 20000 bytes: room for
// 20000/26+1 = 770 entries; 771 is one too many (docs/explain.md).
func TestReplayRefusesIndexOverCapacity(t *testing.T) {
	for _, suffix := range []string{segment.IndexSuffix, segment.TimeIndexSuffix} {
		part := segmenttest.FourBatchPartition(t, t.TempDir())
		path := filepath.Join(part, segment.FilenamePrefixFromOffset(0)+suffix)
		b := segmenttest.RisingOffsetIndex(771)
		if suffix == segment.TimeIndexSuffix {
			b = segmenttest.RisingTimeIndex(771)
		}
		testfiles.MustWrite(t, path, b)
		_, err := ReplayLogDir(part, "", -1, ReplayOptions{Interval: -1})
		want := path + ": 771 entries before the zero tail, more than the 770 a .log of 20000 bytes has room for"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("%s: got %v, want %q...", suffix, err, want)
		}
	}
}
