package props

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"kidx/model"
)

// docs/contract.md §6: "invariants must hold for Kafka's rules". Every invariant on every case, under
// each rule; the depth comes from RAPID_CHECKS (10000 in CI, through the Makefile).
func TestInvariantsHold(t *testing.T) {
	for _, rule := range []model.AppendRule{model.PerBatch, model.PerAppend} {
		t.Run(rule.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				c := CaseGen(GenOptions{Rule: rule, Restarts: true, Recovers: true}).Draw(t, "case")
				for _, p := range All() {
					if p.KindFor(rule) != Invariant {
						continue
					}
					if v := evaluate(p, c); v != nil {
						t.Fatalf("%s: %s", p.Name, v.Explanation)
					}
				}
			})
		})
	}
}

// The mutation teeth: each broken rule of model.Mutants is caught by at least one
// invariant (not by a model error), and the test names which.
func TestMutantsAreCaught(t *testing.T) {
	for _, m := range model.Mutants {
		var caught []string
		for _, p := range All() {
			if p.KindFor(model.PerBatch) != Invariant {
				continue
			}
			r, err := Check(p, Options{Rule: model.PerBatch, Checks: 3000, Seed: 7, Gen: GenOptions{Mutant: m}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome == Violated && !strings.HasPrefix(r.Counterexample.Explanation, "the model refused") {
				caught = append(caught, p.Name)
			}
		}
		if len(caught) == 0 {
			t.Errorf("mutant %q is caught by no invariant", m)
		}
		t.Logf("mutant %q caught by %v", m, caught)
	}
}

// Issue 4: with default settings the two known questions are answered "no", with shrunk
// counterexamples; the expected shapes come from docs/kafka.md, not the checker:
// §2.3 (a clean restart resets the live counter) and §2.4 (a multi-batch append overflows a
// small index under per-batch).
func TestQuestionsAreFound(t *testing.T) {
	r, err := Check(RecoveryRebuildsSameIndex, Options{Rule: model.PerBatch, Checks: 10000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Finding {
		t.Fatalf("RecoveryRebuildsSameIndex: %s", r.Outcome)
	}
	hasRestart := false
	for _, s := range r.Counterexample.Workload.Steps {
		hasRestart = hasRestart || s.Restart
	}
	if !hasRestart {
		t.Errorf("per-batch counterexample without a restart: %+v", r.Counterexample.Workload.Steps)
	}
	r, err = Check(NoIndexOverflowMidAppend, Options{Rule: model.PerBatch, Checks: 10000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Finding {
		t.Fatalf("NoIndexOverflowMidAppend: %s", r.Outcome)
	}
	multi := false
	for _, s := range r.Counterexample.Workload.Steps {
		multi = multi || len(s.Append) > 1
	}
	if !multi || !strings.Contains(r.Counterexample.Explanation, "Attempt to append to a full") {
		t.Errorf("unexpected counterexample: %s %+v", r.Counterexample.Explanation, r.Counterexample.Workload)
	}
}

// A counterexample written as a workload file and parsed back reproduces its failure.
func TestReplayedCounterexampleReproduces(t *testing.T) {
	r, err := Check(NoIndexOverflowMidAppend, Options{Rule: model.PerBatch, Checks: 10000, Seed: 3})
	if err != nil || r.Counterexample == nil {
		t.Fatalf("no counterexample: %v", err)
	}
	data, err := r.Counterexample.Workload.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	w, err := model.ParseWorkload(data)
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.DefaultConfig()
	if err := w.ApplyTo(&cfg); err != nil {
		t.Fatal(err)
	}
	rule, _ := model.ParseRule(w.Rule)
	l, err := model.Simulate(cfg, rule, w.StartOffset, w.Steps, false)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Stopped() {
		t.Fatalf("replayed workload does not overflow: %s", data)
	}
}

// docs/kafka.md §2.3's restart example, by hand: 78-byte batches, interval 100, eleven batches
// appended one by one, a clean restart, three more: the live index ends with (13, 1014),
// recover() would give (12, 936). The question must report it.
func TestRecoveryQuestionOnWorkedExample(t *testing.T) {
	var steps []model.Step
	for range 11 {
		steps = append(steps, model.AppendStep(model.Batch{Records: 1, Bytes: 78, MaxTimestamp: -1}))
	}
	steps = append(steps, model.Step{Restart: true})
	for range 3 {
		steps = append(steps, model.AppendStep(model.Batch{Records: 1, Bytes: 78, MaxTimestamp: -1}))
	}
	cfg := model.DefaultConfig()
	cfg.IndexIntervalBytes = 100
	c := &Case{Steps: steps, Config: cfg, Rule: model.PerBatch}
	v := RecoveryRebuildsSameIndex.Check(c)
	if v == nil || !strings.Contains(v.Explanation, "{13 1014}") || !strings.Contains(v.Explanation, "{12 936}") {
		t.Fatalf("got %v", v)
	}
}

// The exhaustive checker proves the invariants on a small space and counts its states:
// alphabet of 2, length 3, 2 intervals, 1 segment: sequences 2+4+8, groupings 1, 2, 4 per
// length: 2*1 + 4*2 + 8*4 = 42 workloads, times 2 configs = 84 states.
func TestExhaustiveSmall(t *testing.T) {
	res := Exhaustive(All(), ExhaustiveOptions{Rule: model.PerBatch, Alphabet: []int64{68, 100}, MaxLen: 3,
		Intervals: []int64{0, 100}, Segments: []int64{300}})
	for _, r := range res {
		if r.Kind == Invariant && r.Outcome != Holds {
			t.Errorf("%s: %s", r.Property, r.Counterexample.Explanation)
		}
		if r.Outcome == Holds && r.States != 84 {
			t.Errorf("%s: %d states, want 84", r.Property, r.States)
		}
	}
}

func BenchmarkCheckedCases(b *testing.B) {
	var steps []model.Step
	for i := range 1000 {
		steps = append(steps, model.AppendStep(model.Batch{Records: 79, Bytes: 16350 - int64(i%7)*1000, MaxTimestamp: int64(i)}))
	}
	cfg := model.DefaultConfig()
	cfg.SegmentBytes = 1 << 20
	b.ResetTimer()
	for range b.N {
		c := &Case{Steps: steps, Config: cfg, Rule: model.PerBatch}
		CheckCase(All(), c)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cases/s")
}

func BenchmarkExhaustiveStates(b *testing.B) {
	var states int64
	for range b.N {
		for _, r := range Exhaustive(All(), ExhaustiveOptions{Rule: model.PerBatch, MaxLen: 3}) {
			states = max(states, r.States)
		}
	}
	b.ReportMetric(float64(states)*float64(b.N)/b.Elapsed().Seconds()/float64(b.N), "states/s")
}
