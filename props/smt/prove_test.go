package smt

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kidx/model"
)

// TestProveKafkaRule is issue 12's Build item 2: every invariant is proved by k-induction
// for every configuration, each in a few seconds at most (the target: 5 s), and
// the question MaxScanMonotoneInInterval comes back false as a counterexample that model
// confirms.
func TestProveKafkaRule(t *testing.T) {
	z := needZ3(t)
	rep, err := Prove(context.Background(), Options{Solver: z})
	if err != nil {
		t.Fatal(err)
	}
	// Under per-append with two-batch appends, EntriesAtBatchBoundaries is a question whose
	// answer is no (docs/kafka.md §2.3), and so is "I + the largest append" (docs/findings.md).
	want := map[string]string{
		"FirstBatchNeverIndexed/one batch": Proved, "EmptyAboveSegment/one batch": Proved,
		"StrictlyIncreasing/one batch": Proved, "EntriesAtBatchBoundaries/one batch": Proved,
		"ScanBound/one batch": Proved, "SegmentWithinBytes/one batch": Proved, "Plateau/one batch": Proved,
		"MaxScanMonotoneInInterval/one batch": Violated, "ScanBoundAcrossRestarts/one batch": Violated, "DensityMonotone/one batch": Proved,
		"DensityMonotone/one or two batches": Proved,
		"FirstBatchNeverIndexed/per-batch":   Proved, "EmptyAboveSegment/per-batch": Proved,
		"StrictlyIncreasing/per-batch": Proved, "EntriesAtBatchBoundaries/per-batch": Proved,
		"ScanBound/per-batch": Proved, "SegmentWithinBytes/per-batch": Proved, "Plateau/per-batch": Proved,
		"DensityMonotone/per-batch":                 Proved,
		"FirstBatchNeverIndexed/one or two batches": Proved, "EmptyAboveSegment/one or two batches": Proved,
		"StrictlyIncreasing/one or two batches": Proved, "EntriesAtBatchBoundaries/one or two batches": Violated,
		"ScanBound/one or two batches": Proved, "ScanBoundLargestAppend/one or two batches": Violated,
		"SegmentWithinBytes/one or two batches": Proved, "Plateau/one or two batches": Proved,
		"NoIndexOverflowMidAppend/per-batch": Violated,
	}
	if len(rep.Properties) != len(want) {
		t.Fatalf("%d results, want %d", len(rep.Properties), len(want))
	}
	for _, r := range rep.Properties {
		key := r.Name + "/" + r.Appends
		if r.Appends != "one batch" && r.Rules[0] == "per-batch" {
			key = r.Name + "/per-batch"
		}
		t.Logf("%s: %s (k = %d, %.2f s) %s", key, r.Result, r.K, r.Seconds, r.Note)
		if r.Result != want[key] {
			t.Errorf("%s: %s, want %s (%s)", key, r.Result, want[key], r.Note)
		}
		// The target is 5 s per proof (BenchmarkProve reports it; about 0.03-1.5 s
		// here); the test allows four times that, because CI's two cores are shared and a
		// wall-clock limit must not make the test flaky, and still catches a proof gone slow.
		if r.Seconds >= 20 {
			t.Errorf("%s took %.1f s, the issue allows 5 s per proof", key, r.Seconds)
		} else if r.Seconds >= 5 {
			t.Logf("%s took %.1f s, over the issue's 5 s target (a loaded machine?)", key, r.Seconds)
		}
		if r.Result == Violated && (r.Counterexample == nil || !r.Counterexample.Confirmed) {
			t.Errorf("%s: violated without a counterexample model confirms: %+v", key, r.Counterexample)
		}
		if r.Counterexample != nil {
			t.Logf("  replay: %s", r.Counterexample.Replay)
			// A finding is a workload Kafka could have written: batches a file can hold.
			for _, st := range r.Counterexample.Workload.Steps {
				for _, b := range st.Append {
					if err := b.Possible(); err != nil {
						t.Errorf("%s: counterexample batch %+v: %v", key, b, err)
					}
				}
			}
		}
	}
}

// TestMaxScanCounterexampleReplays replays the solver's counterexample of
// MaxScanMonotoneInInterval through model directly (not through props): the same workload
// at the two intervals, and the larger interval's max scan must be the smaller one.
func TestMaxScanCounterexampleReplays(t *testing.T) {
	z := needZ3(t)
	rep, err := Prove(context.Background(), Options{Solver: z, Properties: []string{"MaxScanMonotoneInInterval"}})
	if err != nil {
		t.Fatal(err)
	}
	cx := rep.Properties[0].Counterexample
	if cx == nil {
		t.Fatalf("no counterexample: %+v", rep.Properties[0])
	}
	pair := cx.Compare["index.interval.bytes"]
	if !(pair[0] < pair[1]) {
		t.Fatalf("compare %v: want I1 < I2", pair)
	}
	maxScan := func(interval int64) int64 {
		cfg := model.DefaultConfig()
		if err := cx.Workload.ApplyTo(&cfg); err != nil {
			t.Fatal(err)
		}
		cfg.IndexIntervalBytes = interval
		l, err := model.NewLog(cfg, model.PerBatch, model.LogOptions{StartOffset: cx.Workload.StartOffset})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range cx.Workload.Steps {
			if err := l.Apply(s); err != nil {
				t.Fatal(err)
			}
		}
		if len(l.Events()) > 0 || l.Stopped() {
			t.Fatalf("the counterexample's run has events %v", l.Events())
		}
		return l.Scan().MaxScanBytes
	}
	lo, hi := maxScan(pair[0]), maxScan(pair[1])
	if hi >= lo {
		t.Fatalf("I=%d: max scan %d B, I=%d: %d B: not a counterexample", pair[0], lo, pair[1], hi)
	}
	t.Logf("max scan %d B at I=%d, %d B at I=%d (%d steps)", lo, pair[0], hi, pair[1], len(cx.Workload.Steps))
}

// TestMutantsBreakProofs is issue 12's Build item 5 for the parametric proofs (teeth):
// each mutant of model/mutant.go the encoding knows makes at least one invariant's proof
// come back violated, with a counterexample that model, running the same mutant, confirms.
func TestMutantsBreakProofs(t *testing.T) {
	z := needZ3(t)
	for _, m := range model.Mutants {
		if (System{Mutant: m}).check() != nil {
			continue // not encoded: the time index
		}
		t.Run(m.String(), func(t *testing.T) {
			// The first invariant caught is enough; the questions are left out (slow, and
			// not invariants).
			var caught []string
			for _, o := range obligations(m) {
				if o.kind != "invariant" {
					continue
				}
				r, err := o.prove(context.Background(), z)
				if err != nil {
					t.Fatal(err)
				}
				if r.Result == Violated && r.Counterexample != nil && r.Counterexample.Confirmed {
					caught = append(caught, r.Name+" ("+r.Appends+")")
					break
				}
			}
			if len(caught) == 0 {
				t.Fatal("no proof fails under the mutant")
			}
			t.Logf("caught by %v", caught)
		})
	}
}

// TestEmitSMTRechecks: an emitted file, re-run through z3 as a plain script, gives the
// answers kidx's own session got, and for a proved property those are the answers the
// file's comments say mean "holds".
func TestEmitSMTRechecks(t *testing.T) {
	z := needZ3(t)
	rep, err := Prove(context.Background(), Options{Solver: z, Properties: []string{"ScanBound", "MaxScanMonotoneInInterval"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := EmitSMT(dir, rep)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "ScanBound.smt2"), filepath.Join(dir, "ScanBound.per-append-two-batch.smt2"),
		filepath.Join(dir, "ScanBound.per-batch-two-batch.smt2"),
		filepath.Join(dir, "MaxScanMonotoneInInterval.smt2")}
	if !slices.Equal(paths, want) {
		t.Fatalf("wrote %v, want %v", paths, want)
	}
	for i, p := range paths {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(text), "check-sat-using") {
			t.Fatalf("%s uses a z3-only command", p)
		}
		got, err := z.run(context.Background(), string(text))
		if err != nil {
			t.Fatal(err)
		}
		var answers []string
		for _, a := range got {
			answers = append(answers, a.Atom)
		}
		session := rep.Properties[i].answers
		if len(answers) < len(session) || !slices.Equal(answers[:len(session)], session) {
			t.Fatalf("%s: z3 answers %v, kidx's session got %v", p, answers, session)
		}
		if rep.Properties[i].Result == Proved && !slices.Equal(answers, ExpectedAnswers(string(text))) {
			t.Fatalf("%s: proved, but the file answers %v, its comments expect %v", p, answers, ExpectedAnswers(string(text)))
		}
	}
}
