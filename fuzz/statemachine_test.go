package fuzz

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"kidx/logdir"
	"kidx/model"
	"kidx/segment"
	"kidx/segment/vfs"
)

// machine drives a model.Log and a segment.Log side by side.
type machine struct {
	dir     string
	ml      *model.Log
	fl      *segment.Log
	readers map[int64]*segment.Segment // rolled segments, opened from a directory scan
	snap    int
	checked map[int64]int64 // rolled segments fully compared once: base -> .log size
}

func (m *machine) closeReaders() {
	for _, r := range m.readers {
		r.Close()
	}
	m.readers = map[int64]*segment.Segment{}
}

// reader opens the files of segment ms: a rolled segment's own files (closed and trimmed, as
// Kafka leaves them), or for the active segment a snapshot of its files holding the entries
// the active index has (Kafka keeps that count in memory; the invariant checks the bytes
// beyond it are the zero tail).
func (m *machine) reader(t *rapid.T, ms *model.Segment, active bool) *segment.Segment {
	stem := segment.FilenamePrefixFromOffset(ms.BaseOffset())
	if !active {
		if r := m.readers[ms.BaseOffset()]; r != nil {
			return r
		}
		r, err := segment.OpenSegment(filepath.Join(m.dir, stem+segment.LogSuffix))
		if err != nil {
			t.Fatal(err)
		}
		m.readers[ms.BaseOffset()] = r
		return r
	}
	m.snap++
	snap := filepath.Join(m.dir, fmt.Sprintf("snap%d", m.snap))
	if err := os.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		suffix string
		n      int
	}{{segment.LogSuffix, -1}, {segment.IndexSuffix, 8 * ms.OffsetIndex().Entries()}, {segment.TimeIndexSuffix, 12 * ms.TimeIndex().Entries()}} {
		b, err := os.ReadFile(filepath.Join(m.dir, stem+f.suffix))
		if err != nil {
			t.Fatal(err)
		}
		if f.n >= 0 {
			b = b[:min(f.n, len(b))]
		}
		if err := os.WriteFile(filepath.Join(snap, stem+f.suffix), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := segment.OpenSegment(filepath.Join(snap, stem+segment.LogSuffix))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// check is the invariant after every action (model against files): events equal; every
// rolled segment equal in everything Check compares; the active segment's .log equal and its
// preallocated indexes holding exactly the model's entries followed by zeros (docs/kafka.md §4:
// "setLength ... sparse, zero-filled").
func (m *machine) check(t *rapid.T) {
	if what := compareEvents(m.ml.Events(), m.fl.Events()); what != "" {
		t.Fatal(what)
	}
	segs := m.ml.Segments()
	if got, want := m.fl.SegmentBaseOffsets(), modelBases(segs); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("segments: files %v, model %v", got, want)
	}
	c := comparer{fs: vfs.OS}
	for _, ms := range segs[:len(segs)-1] {
		stem := filepath.Join(m.dir, segment.FilenamePrefixFromOffset(ms.BaseOffset()))
		if size, ok := m.checked[ms.BaseOffset()]; ok {
			// Compared in full when it rolled; a rolled segment's files never change again.
			if st, err := os.Stat(stem + segment.LogSuffix); err != nil || st.Size() != size {
				t.Fatalf("rolled segment %d changed: %v", ms.BaseOffset(), err)
			}
			continue
		}
		m.checked[ms.BaseOffset()] = ms.Size()
		k, what, err := c.segment(ms, segment.SegmentFiles{BaseOffset: ms.BaseOffset(), Log: stem + segment.LogSuffix, Index: stem + segment.IndexSuffix, TimeIndex: stem + segment.TimeIndexSuffix})
		if err != nil || k != "" {
			t.Fatalf("rolled segment %d: %s %s %v", ms.BaseOffset(), k, what, err)
		}
	}
	act := segs[len(segs)-1]
	stem := filepath.Join(m.dir, segment.FilenamePrefixFromOffset(act.BaseOffset()))
	base := act.BaseOffset()
	for _, f := range []struct {
		suffix string
		want   []byte
	}{{segment.IndexSuffix, EncodeOffsetIndex(nil, base, act.OffsetIndex().All())}, {segment.TimeIndexSuffix, EncodeTimeIndex(nil, base, act.TimeIndex().All())}} {
		b, err := os.ReadFile(stem + f.suffix)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, f.want) || len(bytes.TrimRight(b[len(f.want):], "\x00")) != 0 {
			t.Fatalf("active %s: %d bytes, model entries %d bytes, first difference at %d", f.suffix, len(b), len(f.want), firstDiff(b, f.want))
		}
	}
	logBytes, err := os.ReadFile(stem + segment.LogSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(logBytes)) != act.Size() {
		t.Fatalf("active .log %d bytes, model %d", len(logBytes), act.Size())
	}
}

// The rapid state machine of issue 5: append (1-4 batches per append), restart, recover,
// lookup offset, lookup timestamp, and close/reopen of the readers, with the model checked
// against the files after every action.
func TestStateMachine(t *testing.T) {
	defer capRapidChecks(t, 500)()
	rapid.Check(t, func(t *rapid.T) {
		cfg := model.DefaultConfig()
		w := model.Workload{Config: ConfigGen().Draw(t, "config")}
		w.Config["segment.index.bytes"] = 64 << 10 // 8192 slots: no overflow (the differential covers overflows), small zero tails
		if err := w.ApplyTo(&cfg); err != nil {
			t.Fatal(err)
		}
		rule := rapid.SampledFrom([]model.AppendRule{model.PerBatch, model.PerAppend}).Draw(t, "rule")
		start := rapid.SampledFrom([]int64{0, 7, 1 << 31}).Draw(t, "start")
		ml, err := model.NewLog(cfg, rule, model.LogOptions{StartOffset: start, KeepSegments: true})
		if err != nil {
			t.Fatal(err)
		}
		dir, err := os.MkdirTemp(TempRoot(), "kidx-sm-*")
		if err != nil {
			t.Fatal(err)
		}
		srule := segment.PerBatch
		if rule == model.PerAppend {
			srule = segment.PerAppend
		}
		fl, err := segment.CreateLog(dir, segment.Config{IndexIntervalBytes: cfg.IndexIntervalBytes, SegmentBytes: cfg.SegmentBytes, SegmentIndexBytes: cfg.SegmentIndexBytes, SegmentMs: cfg.SegmentMs}, srule, start)
		if err != nil {
			t.Fatal(err)
		}
		m := &machine{dir: dir, ml: ml, fl: fl, readers: map[int64]*segment.Segment{}, checked: map[int64]int64{}}
		defer func() { m.closeReaders(); fl.Close(); os.RemoveAll(dir) }()
		t.Repeat(map[string]func(*rapid.T){
			"append": func(t *rapid.T) {
				bs := rapid.SliceOfN(BatchGen(), 1, 4).Draw(t, "batches")
				specs := make([]segment.BatchSpec, len(bs))
				for i, b := range bs {
					specs[i] = segment.BatchSpec{Records: int(b.Records), Bytes: int(b.Bytes), MaxTimestamp: b.MaxTimestamp}
				}
				if err := m.ml.Append(bs...); err != nil {
					t.Fatal(err)
				}
				if _, err := m.fl.AppendSpecs(specs); err != nil {
					t.Fatal(err)
				}
			},
			"restart": func(t *rapid.T) {
				if err := errorsJoin(m.ml.Restart(), m.fl.Restart()); err != nil {
					t.Fatal(err)
				}
			},
			"recover": func(t *rapid.T) {
				_, ferr := m.fl.Recover()
				if err := errorsJoin(m.ml.Recover(), ferr); err != nil {
					t.Fatal(err)
				}
			},
			"lookupOffset": func(t *rapid.T) {
				o := rapid.Int64Range(start, m.ml.NextOffset()+1).Draw(t, "offset")
				segs := m.ml.Segments()
				i := len(segs) - 1
				for i > 0 && segs[i].BaseOffset() > o {
					i--
				}
				mr, mok := segs[i].Lookup(o)
				fr, err := m.reader(t, segs[i], i == len(segs)-1).Lookup(o)
				if err != nil || fr.Found != mok || fr.IndexOffset != mr.Index.Offset || fr.IndexPosition != mr.Index.Position ||
					(mok && (fr.HitPosition != mr.Hit.Position || int64(fr.Hops) != mr.Hops)) {
					t.Fatalf("lookup(%d) in segment %d: model %+v %v, files %+v %v", o, segs[i].BaseOffset(), mr, mok, fr, err)
				}
			},
			"lookupTimestamp": func(t *rapid.T) {
				segs := m.ml.Segments()
				i := rapid.IntRange(0, len(segs)-1).Draw(t, "segment")
				ts := rapid.OneOf(rapid.Int64Range(-1, 12), rapid.Int64Range(tsBase-1, tsBase+1001)).Draw(t, "ts")
				mr, mok := segs[i].LookupTimestamp(ts)
				fr, err := m.reader(t, segs[i], i == len(segs)-1).LookupTimestamp(ts)
				if err != nil || fr.Found != mok || fr.IndexTimestamp != mr.TimeEntry.Timestamp || fr.IndexOffset != mr.TimeEntry.Offset ||
					fr.StartPosition != mr.Index.Position || (mok && (fr.FoundOffset < mr.Hit.BaseOffset || fr.FoundOffset > mr.Hit.LastOffset)) {
					t.Fatalf("lookupTimestamp(%d) in segment %d: model %+v %v, files %+v %v", ts, segs[i].BaseOffset(), mr, mok, fr, err)
				}
			},
			"reopenReaders": func(t *rapid.T) {
				m.closeReaders()
				scan, err := logdir.ScanDir(m.dir)
				if err != nil {
					t.Fatal(err)
				}
				var bases []int64
				for _, p := range scan.Partitions {
					for _, s := range p.Segments {
						bases = append(bases, s.BaseOffset)
					}
				}
				if fmt.Sprint(bases) != fmt.Sprint(modelBases(m.ml.Segments())) {
					t.Fatalf("ScanDir after reopen: %v, model %v", bases, modelBases(m.ml.Segments()))
				}
			},
			"": m.check,
		})
	})
}

func errorsJoin(a, b error) error {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return fmt.Errorf("model: %v; files: %v", a, b)
}

// capRapidChecks lowers rapid's -rapid.checks (RAPID_CHECKS, 10000 in `make test`) to at most
// n for one expensive file-backed property, and returns the restore function. Tests of this
// package do not run in parallel.
func capRapidChecks(t *testing.T, n int) func() {
	f := flag.Lookup("rapid.checks")
	if f == nil {
		return func() {}
	}
	old := f.Value.String()
	if cur, err := strconv.Atoi(old); err == nil && cur > n {
		if err := flag.Set("rapid.checks", strconv.Itoa(n)); err != nil {
			t.Fatal(err)
		}
	}
	return func() { _ = flag.Set("rapid.checks", old) }
}
