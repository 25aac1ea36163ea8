package smt

import (
	"strings"
	"testing"

	"kidx/model"
)

// The text report says each proof in words, with its assumptions, its method and its
// figures, and a finding with its workload and replay (expected lines written by hand).
func TestWriteText(t *testing.T) {
	rep := Report{Method: "k-induction", Solver: "Z3 version 4.8.12 - 64 bit", Seconds: 1.5,
		Ranges: map[string][2]int64{"segment.bytes": {14, 2147483647}, "index.interval.bytes": {0, 2147483647}},
		Properties: []Result{
			{Name: "ScanBound", Kind: "invariant", Rules: []string{"per-batch", "per-append"}, Appends: "one batch",
				Result: Proved, K: 1, Seconds: 0.04, Says: "scans at most min(I + previous batch, S)",
				Assumptions: []string{"one process lifetime"}, Strengthening: []string{"counter <= I + last batch"}},
			{Name: "MaxScanMonotoneInInterval", Kind: "question", Rules: []string{"per-batch", "per-append"}, Appends: "one batch",
				Result: Violated, K: 4, Seconds: 0.8, Says: "raising I never lowers the max scan",
				Counterexample: &Counterexample{
					Workload: model.Workload{Config: map[string]int64{"index.interval.bytes": 86, "segment.bytes": 5000},
						Steps: []model.Step{model.AppendStep(model.Batch{Records: 2, Bytes: 127}), {Restart: true}}},
					Compare:   map[string][2]int64{"index.interval.bytes": {86, 212}},
					Confirmed: true, Replay: "max scanBytes falls from 300 B to 214 B", Length: 2}},
		}}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Parametric proofs by k-induction with Z3 version 4.8.12 - 64 bit: 2 obligations in 1.50 s\n",
		"for every index.interval.bytes 0..2147483647, segment.bytes 14..2147483647\n",
		"ScanBound (invariant; per-batch, per-append; one batch): PROVED by k-induction, k = 1, 0.04 s\n",
		"  says: scans at most min(I + previous batch, S)\n",
		"  assuming: one process lifetime\n",
		"  strengthened by: counter <= I + last batch\n",
		"MaxScanMonotoneInInterval (question; per-batch, per-append; one batch): FINDING, counterexample of 2 steps, 0.80 s\n",
		"  counterexample: index.interval.bytes=86 segment.bytes=5000 (compared with index.interval.bytes=212), 2 steps: [127 B/2] restart\n",
		"  replayed, confirmed by model: max scanBytes falls from 300 B to 214 B\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
}
