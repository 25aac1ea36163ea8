package smt

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kidx/model"
)

// Issue 26, prove --parametric --out: a refuted claim's files are named by the property and
// the obligation's variant (as EmitSMT names its script), only results with a counterexample
// are written, each file whole (no temporary file left), the workload one that
// model.ParseWorkload reads back to the same steps; a DIR that cannot be made is an error.
func TestWriteWorkloadsNamesAndFiles(t *testing.T) {
	two := Result{Name: "NoIndexOverflowMidAppend", ob: &obligation{variant: "per-batch-two-batch"}}
	if got, want := two.WorkloadFile(), "NoIndexOverflowMidAppend.per-batch-two-batch.parametric.json"; got != want {
		t.Errorf("WorkloadFile %q, want %q", got, want)
	}
	if got, want := two.CounterexampleFile(), "NoIndexOverflowMidAppend.per-batch-two-batch.parametric.counterexample.json"; got != want {
		t.Errorf("CounterexampleFile %q, want %q", got, want)
	}
	one := Result{Name: "ScanBoundAcrossRestarts", ob: &obligation{}}
	if got, want := one.WorkloadFile(), "ScanBoundAcrossRestarts.parametric.json"; got != want {
		t.Errorf("WorkloadFile %q, want %q", got, want)
	}

	steps := []model.Step{model.AppendStep(model.Batch{Records: 2, Bytes: 127}), {Restart: true}, model.AppendStep(model.Batch{Records: 2, Bytes: 75})}
	cfg := model.DefaultConfig()
	cfg.IndexIntervalBytes, cfg.SegmentBytes = 0, 299
	one.Counterexample = &Counterexample{Workload: model.Workload{Config: cfg.Map(), Rule: "per-batch", Steps: steps}, Confirmed: true, Length: 3}
	proved := Result{Name: "ScanBound", Result: Proved, ob: &obligation{}}
	dir := filepath.Join(t.TempDir(), "made")
	paths, err := WriteWorkloads(dir, Report{Properties: []Result{proved, one}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "ScanBoundAcrossRestarts.parametric.json"), filepath.Join(dir, "ScanBoundAcrossRestarts.parametric.counterexample.json")}
	if !slices.Equal(paths, want) {
		t.Errorf("paths %v, want %v", paths, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d entries in DIR, want the 2 files (no temporary file left)", len(entries))
	}
	data, err := os.ReadFile(want[0])
	if err != nil {
		t.Fatal(err)
	}
	w, err := model.ParseWorkload(data)
	if err != nil {
		t.Fatalf("the written workload does not parse: %v\n%s", err, data)
	}
	if len(w.Steps) != 3 || !w.Steps[1].Restart || w.Steps[2].Append[0].Bytes != 75 || w.Config["segment.bytes"] != 299 {
		t.Errorf("read back %+v from %s", w, data)
	}
	side, _ := os.ReadFile(want[1])
	if !strings.Contains(string(side), `"confirmed": true`) || !strings.Contains(string(side), `"length": 3`) {
		t.Errorf("the counterexample file: %s", side)
	}

	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteWorkloads(filepath.Join(file, "sub"), Report{Properties: []Result{one}}); err == nil {
		t.Error("WriteWorkloads under a regular file: no error")
	}
}
