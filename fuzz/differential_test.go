package fuzz

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"

	"kidx/fuzz/internal/parsecheck"
	"kidx/model"
	"kidx/segment"
)

// realFilesShare: one case in realFilesShare of the differential tests also runs on real
// files (issue 13, item 2: "a real-file mode stays in CI"); the rest run in memory only.
const realFilesShare = 8

// inMemory and onRealFiles are the harness's two modes.
var (
	inMemory    = &Options{}
	onRealFiles = &Options{RealFiles: true}
)

// checkOrFail runs the harness in memory and fails t on a divergence, printing the
// reproduction.
func checkOrFail(t interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}, w model.Workload) {
	t.Helper()
	checkOrFailOn(t, w, inMemory)
}

// checkOrFailOn is checkOrFail in the mode o.
func checkOrFailOn(t interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}, w model.Workload, o *Options) {
	t.Helper()
	d, err := Check(w, o)
	if errors.Is(err, ErrSkip) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if d != nil {
		d = Shrink(d, o, 300)
		repro, _ := MarshalReproduction(d)
		t.Fatalf("model and files diverge: %s: %s\nreproduction (docs/contract.md §3 workload):\n%s", d.Kind, d.What, repro)
	}
}

// FuzzDifferential: fuzz bytes -> a valid, edge-heavy workload (gofuzz adapter) -> model and
// files must agree on everything Check compares (docs/contract.md §4, §5, §7; docs/kafka.md §2, §3, §8).
// The files are in memory (issue 13, item 2: the fuzz targets use the in-memory filesystem).
func FuzzDifferential(f *testing.F) {
	for i := range 16 {
		seed := make([]byte, 64)
		for j := range seed {
			seed[j] = byte(i*31 + j*7)
		}
		f.Add(seed)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		checkOrFail(t, FromGoFuzz(data, GenOptions{MaxSteps: 24, Clean: true}))
	})
}

// FuzzRapidDifferential is the same property on rapid's generator (rapid.MakeFuzz), so that a
// failure shrinks choice by choice.
func FuzzRapidDifferential(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		checkOrFail(t, WorkloadGen(GenOptions{MaxSteps: 16}).Draw(t, "workload"))
	}))
}

// The rapid generator of single batches and configs: model and files agree on leader-style
// workloads (one batch per append) of any valid config; every realFilesShare-th case on real
// files too.
func TestRapidLeaderWorkloads(t *testing.T) {
	defer capRapidChecks(t, 1000)()
	compared, cases := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		w := model.Workload{Config: ConfigGen().Draw(t, "config"), Rule: rapid.SampledFrom([]string{"per-batch", "per-append"}).Draw(t, "rule")}
		for _, b := range rapid.SliceOfN(BatchGen(), 1, 30).Draw(t, "batches") {
			w.Steps = append(w.Steps, model.AppendStep(b))
		}
		if _, err := Resolve(w); err == nil {
			compared++
		}
		checkOrFail(t, w)
		if cases++; cases%realFilesShare == 1 {
			checkOrFailOn(t, w, onRealFiles)
		}
	})
	if compared == 0 {
		t.Fatal("every generated workload was skipped")
	}
}

// Every generator produces workloads the harness can compare: gofuzz from arbitrary bytes,
// the campaign's generator, rapid. (A generator that only produced skipped cases would make
// every differential test pass vacuously.)
func TestGeneratorsProduceComparableWorkloads(t *testing.T) {
	skips := 0
	for i := range 200 {
		data := make([]byte, 96)
		r := rand.New(rand.NewPCG(uint64(i), 9))
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		for _, w := range []model.Workload{FromGoFuzz(data, GenOptions{}), CaseWorkload(3, int64(i), GenOptions{})} {
			if len(w.Steps) == 0 {
				t.Fatalf("empty workload from case %d", i)
			}
			if _, err := Resolve(w); err != nil {
				skips++
			}
		}
	}
	if skips > 10 {
		t.Fatalf("%d of 400 generated workloads are not comparable", skips)
	}
}

// The golden Kafka workloads (testdata/kafka-golden, written by Kafka itself) pass the
// harness: the model reproduces them and so do the files, in memory and on real files.
func TestGoldenWorkloadsAgree(t *testing.T) {
	n := 0
	for _, g := range parsecheck.GoldenDirs(t) {
		data, err := os.ReadFile(filepath.Join(g, "workload.json"))
		if err != nil {
			continue
		}
		w, err := model.ParseWorkload(data)
		if err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		for _, o := range []*Options{inMemory, onRealFiles} {
			d, err := Check(w, o)
			if err != nil {
				t.Fatalf("%s (real files %v): %v", g, o.RealFiles, err)
			}
			if d != nil {
				t.Fatalf("%s (real files %v): %s: %s", g, o.RealFiles, d.Kind, d.What)
			}
		}
		n++
	}
	if n < 16 {
		t.Fatalf("only %d golden workloads", n)
	}
}

// docs/kafka.md §2.4 / docs/contract.md §4: under the per-batch rule with segment.index.bytes = 24 (3
// offset slots, 2 time slots, the last reserved) an append of many batches overflows the
// time index mid-append. Both sides must report the same event at the same step, and the
// harness must compare the state before it (the model stops, the files keep the bytes).
func TestOverflowCompared(t *testing.T) {
	w := model.Workload{Config: map[string]int64{"index.interval.bytes": 0, "segment.index.bytes": 24}, Rule: "per-batch"}
	w.Steps = append(w.Steps, model.AppendStep(model.Batch{Records: 1, Bytes: 100, MaxTimestamp: 5}))
	w.Steps = append(w.Steps, model.AppendStep(
		model.Batch{Records: 1, Bytes: 100, MaxTimestamp: 6}, model.Batch{Records: 1, Bytes: 100, MaxTimestamp: 7},
		model.Batch{Records: 1, Bytes: 100, MaxTimestamp: 8}))
	r, err := Resolve(w)
	if err != nil {
		t.Fatal(err)
	}
	ml, _ := model.Simulate(r.Model, r.Rule, 0, w.Steps, true)
	if !ml.Stopped() || len(ml.Events()) != 1 || ml.Events()[0].Step != 1 {
		t.Fatalf("model events %+v: want one overflow at step 1", ml.Events())
	}
	for _, o := range []*Options{inMemory, onRealFiles} {
		if d, err := Check(w, o); err != nil || d != nil {
			t.Fatalf("overflow workload (real files %v): %v %+v", o.RealFiles, err, d)
		}
	}
}

// Check skips what is not comparable instead of reporting it: a 1-record batch of 126 bytes
// cannot be built (docs/segment.md). Time-based rolls are compared (both sides roll on the
// batches' timestamps, LogSegment.timeWaitedForRoll).
func TestCheckSkips(t *testing.T) {
	for _, o := range []*Options{inMemory, onRealFiles} {
		if _, err := Check(model.BatchesWorkload([]model.Batch{{Records: 1, Bytes: 126, MaxTimestamp: -1}}), o); !errors.Is(err, ErrSkip) {
			t.Errorf("unbuildable (real files %v): err %v, want ErrSkip", o.RealFiles, err)
		}
		timeRoll := model.BatchesWorkload([]model.Batch{{Records: 1, Bytes: 100, MaxTimestamp: 0}, {Records: 1, Bytes: 100, MaxTimestamp: model.DefaultSegmentMs + 1}})
		if d, err := Check(timeRoll, o); err != nil || d != nil {
			t.Errorf("time roll (real files %v): %v %+v, want both sides to roll alike", o.RealFiles, err, d)
		}
	}
	// And the builder really refuses that size (if it stops refusing, Encodable can allow it).
	if _, err := segment.BuildSizedBatch(0, 1, 126, -1); err == nil {
		t.Errorf("BuildSizedBatch(1 record, 126 bytes) succeeded; Encodable refuses it")
	}
}
