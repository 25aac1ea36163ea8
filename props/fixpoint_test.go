package props

import (
	"runtime"
	"testing"

	"kidx/model"
)

// smallProofSpace is proved in well under a second per rule: segments of a few batches (one
// that a 700-byte batch fills alone, one that rejects it), an index that fills after one
// entry (segment.index.bytes=24: 3 offset slots, 2 time slots, isFull at 1) and Kafka's
// default, intervals below, at and above the batch sizes and one at segment.bytes, appends of
// up to two batches.
var smallProofSpace = ProveOptions{Alphabet: []int64{68, 100, 700}, MaxAppend: 2,
	Intervals: []int64{0, 100, 700, 1000}, Segments: []int64{600, 1000},
	IndexBytes: []int64{24, model.DefaultSegmentIndexBytes}}

// Issue 12, item 1: a small space proved for workloads of any length, under each rule. The
// expected results are Kafka's rules read by hand (docs/kafka.md §2.2, §2.4), not the
// prover's: every invariant holds; per-append names the append's last offset at its start,
// so a two-batch append breaks EntriesAtBatchBoundaries (a finding); per-batch adds an entry
// per batch, so a two-batch append overflows a 2-slot time index after shouldRoll's single
// isFull check (one entry, then a second step of two indexed batches: 2 steps); per-append
// adds at most one entry per append, so it never overflows mid-append, and its first
// mismatched entry needs a second, two-batch append (a segment's first append is never
// indexed: 2 steps); an empty index under two 68-byte batches in one append (I >= 68) is
// the cliff at depth 1 per-batch (the second batch is checked); per-append one append is one
// check, never indexed (the first unit), so the cliff takes a second append: depth 2.
func TestProveSmallSpace(t *testing.T) {
	for _, tc := range []struct {
		rule model.AppendRule
		want map[string]string
		// depth is the expected length of the shortest counterexample or witness.
		depth map[string]int
	}{
		{model.PerBatch, map[string]string{"EntriesAtBatchBoundaries": Proved, "NoIndexOverflowMidAppend": Finding,
			"IndexFullRoll": Witness, "MidAppendOverflow": Witness, "Cliff": Witness},
			map[string]int{"MidAppendOverflow": 2, "NoIndexOverflowMidAppend": 2, "Cliff": 1}},
		{model.PerAppend, map[string]string{"EntriesAtBatchBoundaries": Finding, "NoIndexOverflowMidAppend": Proved,
			"IndexFullRoll": Witness, "MidAppendOverflow": Violated, "Cliff": Witness},
			map[string]int{"EntriesAtBatchBoundaries": 2, "Cliff": 2}},
	} {
		t.Run(tc.rule.String(), func(t *testing.T) {
			o := smallProofSpace
			o.Rule = tc.rule
			pf, err := Prove(o)
			if err != nil {
				t.Fatal(err)
			}
			if !pf.Complete || pf.States == 0 || pf.Transitions < pf.States || pf.Diameter < 2 {
				t.Fatalf("exploration: complete %v, %d states, %d transitions, diameter %d", pf.Complete, pf.States, pf.Transitions, pf.Diameter)
			}
			t.Logf("%d states, %d transitions, diameter %d, %s", pf.States, pf.Transitions, pf.Diameter, pf.Elapsed)
			for _, r := range pf.Results {
				want, ok := tc.want[r.Property.Name]
				if !ok {
					want = Proved // every other property here is an invariant
					if r.Kind != Invariant {
						t.Fatalf("%s: no expected result for a %s", r.Property.Name, r.Kind)
					}
				}
				if r.Result != want {
					t.Errorf("%s: %s, want %s (%+v)", r.Property.Name, r.Result, want, r.Counterexample)
					continue
				}
				if (r.Counterexample != nil) != (want == Finding || want == Witness) {
					t.Errorf("%s: %s with counterexample %+v", r.Property.Name, r.Result, r.Counterexample)
					continue
				}
				if r.Counterexample == nil {
					continue
				}
				if d, ok := tc.depth[r.Property.Name]; ok && len(r.Counterexample.Workload.Steps) != d {
					t.Errorf("%s: shortest counterexample has %d steps, want %d: %+v", r.Property.Name, len(r.Counterexample.Workload.Steps), d, r.Counterexample.Workload.Steps)
				}
				replaysFailing(t, r.Property, r.Counterexample, model.Exact)
			}
		})
	}
}

// With restarts between any two appends the invariants still hold (a restart closes and
// reopens the active segment with a counter of 0, docs/kafka.md §2.3: its next batch is not
// indexed, and ScanBound's premise leaves a restarted segment out), and the space has more
// states: a restart makes the counter fall behind the bytes since the last entry. (One
// segment size: restarts multiply the states.)
func TestProveWithRestarts(t *testing.T) {
	for _, rule := range []model.AppendRule{model.PerBatch, model.PerAppend} {
		o := smallProofSpace
		o.Rule, o.Segments = rule, []int64{600}
		plain, err := Prove(o)
		if err != nil {
			t.Fatal(err)
		}
		o.Restarts = true
		pf, err := Prove(o)
		if err != nil {
			t.Fatal(err)
		}
		if !pf.Complete || pf.States <= plain.States {
			t.Errorf("%s: complete %v, %d states with restarts, %d without", rule, pf.Complete, pf.States, plain.States)
		}
		for _, r := range pf.Results {
			if r.Kind == Invariant && r.Result != Proved {
				t.Errorf("%s with restarts: %s %s: %+v", rule, r.Property.Name, r.Result, r.Counterexample)
			}
		}
		t.Logf("%s: %d states with restarts, %d without", rule, pf.States, plain.States)
	}
}

// replaysFailing replays a counterexample's workload from its JSON, as kidx sim --workload
// does, and checks the property fails on it again.
func replaysFailing(t *testing.T, p *Property, cx *Counterexample, m model.Mutant) {
	t.Helper()
	data, err := cx.Workload.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	wl, err := model.ParseWorkload(data)
	if err != nil {
		t.Fatalf("%s: the counterexample does not parse back: %v\n%s", p.Name, err, data)
	}
	cfg := model.DefaultConfig()
	if err := wl.ApplyTo(&cfg); err != nil {
		t.Fatal(err)
	}
	rule, err := model.ParseRule(wl.Rule)
	if err != nil {
		t.Fatal(err)
	}
	if v := evaluate(p, &Case{Steps: wl.Steps, StartOffset: wl.StartOffset, Config: cfg, Rule: rule, Mutant: m}); v == nil {
		t.Errorf("%s: the counterexample replays without failing: %s", p.Name, data)
	}
}

// Issue 12, item 5: the proofs have teeth. Every mutant of model/mutant.go makes at least
// one invariant's proof fail, under each rule, with a counterexample that fails again when
// replayed under the mutant and holds under Kafka's rules (the mutant is at fault, not the
// workload). The space adds an interval equal to a batch size (68, for >=). Under
// per-append one mutant is exempt: an entry naming the append's base offset breaks only
// EntriesAtBatchBoundaries, which per-append already breaks (a question there).
func TestProveMutantsFail(t *testing.T) {
	o := smallProofSpace
	o.Intervals = []int64{0, 68, 100, 1000}
	for _, rule := range []model.AppendRule{model.PerBatch, model.PerAppend} {
		for _, m := range model.Mutants {
			if rule == model.PerAppend && m == model.MutantEntryNamesBaseOffset {
				continue
			}
			o.Rule, o.Mutant = rule, m
			pf, err := Prove(o)
			if err != nil {
				t.Fatal(err)
			}
			var caught []string
			for _, r := range pf.Results {
				if r.Kind != Invariant || r.Result != Violated {
					continue
				}
				caught = append(caught, r.Property.Name)
				replaysFailing(t, r.Property, r.Counterexample, m)
				data, _ := r.Counterexample.Workload.MarshalJSON()
				wl, _ := model.ParseWorkload(data)
				cfg := model.DefaultConfig()
				if err := wl.ApplyTo(&cfg); err != nil {
					t.Fatal(err)
				}
				if v := evaluate(r.Property, &Case{Steps: wl.Steps, Config: cfg, Rule: rule}); v != nil {
					t.Errorf("%s %q: %s's counterexample fails under Kafka's rules too: %s", rule, m, r.Property.Name, v.Explanation)
				}
			}
			if len(caught) == 0 {
				t.Errorf("%s: mutant %q makes no proof fail", rule, m)
			}
			t.Logf("%s: mutant %q fails %v", rule, m, caught)
		}
	}
}

// An exploration cut short by MaxStates proves nothing: the undecided properties are Unknown.
func TestProveCutShortIsUnknown(t *testing.T) {
	o := smallProofSpace
	o.Rule, o.MaxStates = model.PerBatch, 10
	pf, err := Prove(o)
	if err != nil {
		t.Fatal(err)
	}
	if pf.Complete {
		t.Fatal("complete with MaxStates 10")
	}
	for _, r := range pf.Results {
		if r.Counterexample == nil && r.Result != Unknown {
			t.Errorf("%s: %s after an incomplete exploration", r.Property.Name, r.Result)
		}
	}
}

// A space whose segments could span segment.ms (time-based rolls, which the abstract state
// leaves out) is refused, not proved.
func TestProveRefusesSpacesBeyondTheAbstraction(t *testing.T) {
	o := ProveOptions{Rule: model.PerBatch, Alphabet: []int64{68}, Segments: []int64{68 * model.DefaultSegmentMs}, Intervals: []int64{0}}
	if _, err := Prove(o); err == nil {
		t.Fatal("a space reaching time-based rolls was accepted")
	}
}

// BenchmarkProve reports the exploration's speed in abstract states per second.
func BenchmarkProve(b *testing.B) {
	o := smallProofSpace
	o.Rule = model.PerBatch
	var states int64
	for b.Loop() {
		pf, err := Prove(o)
		if err != nil {
			b.Fatal(err)
		}
		states += pf.States
	}
	b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
}

// BenchmarkProveDefaultExhaustive proves check --exhaustive's default space (DefaultAlphabet,
// DefaultIntervals, DefaultSegments, single-batch appends, Kafka's segment.index.bytes) for
// every length under per-batch, on the fast path. Issue 12's target: under 60 s on 2 cores,
// at 2 M states/s per core, counting states as TLC's "states generated" (every successor
// computed: transitions); distinct states per second are reported too.
func BenchmarkProveDefaultExhaustive(b *testing.B) {
	o := ProveOptions{Rule: model.PerBatch, MaxAppend: 1}
	var pf *Proof
	for b.Loop() {
		var err error
		if pf, err = Prove(o); err != nil {
			b.Fatal(err)
		}
		if !pf.Complete {
			b.Fatal("no fixpoint")
		}
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(sec, "s/proof")
	b.ReportMetric(float64(pf.Transitions)/sec/float64(runtime.GOMAXPROCS(0)), "generated/s/core")
	b.ReportMetric(float64(pf.States)/sec, "distinct/s")
}

// Issue 12, item 1, recover steps: the small space with an unclean restart between any two
// appends. Expected by hand from LogSegment.recover (docs/kafka.md §3: it rebuilds per batch
// with its own counter from byte 0) and the isFull rules (segment.index.bytes=24: 3 offset
// slots, the time index full at 1 entry, its second slot reserved for the closing entry):
//   - per-append, one append of two 68-byte batches at I=0 is never indexed live (a
//     segment's first unit), and the rebuild indexes its second batch: a finding in 1 step;
//   - per-batch, live and rebuild agree until a recover resets the live counter: 68, a
//     recover, 68 (the live counter is 0, the rebuild's 68 > 0): 3 steps;
//   - a rebuild overflows when it needs a second time entry where the live index had one:
//     per-append 68+68, 68 (the live index has 1 entry), then a recover (2 rebuilt
//     entries, the second one's time entry throws): 3 steps. Per-batch it cannot: before
//     any recover the rebuild is the live index, which fit; after a recover of a non-empty
//     segment its 24-byte time index holds at least the closing entry, so it is full and
//     the next append rolls (and 10 MiB never fills).
func TestProveRecovers(t *testing.T) {
	for _, tc := range []struct {
		rule model.AppendRule
		// depth: the shortest counterexample's steps; 0: unreachable in the space.
		depth map[string]int
	}{
		{model.PerBatch, map[string]int{"RecoveryRebuildsSameIndex": 3, "RecoverOverflow": 0}},
		{model.PerAppend, map[string]int{"RecoveryRebuildsSameIndex": 1, "RecoverOverflow": 3}},
	} {
		t.Run(tc.rule.String(), func(t *testing.T) {
			o := smallProofSpace
			o.Rule, o.Recovers = tc.rule, true
			pf, err := Prove(o)
			if err != nil {
				t.Fatal(err)
			}
			if !pf.Complete {
				t.Fatal("no fixpoint")
			}
			t.Logf("%d states, %d transitions, diameter %d, %s", pf.States, pf.Transitions, pf.Diameter, pf.Elapsed)
			for _, r := range pf.Results {
				want, ok := tc.depth[r.Property.Name]
				if r.Kind == Invariant && r.Result != Proved {
					t.Errorf("%s: %s, want proved: %v", r.Property.Name, r.Result, r.Counterexample)
				}
				if !ok {
					continue
				}
				if want == 0 {
					if r.Result != Violated || r.Counterexample != nil {
						t.Errorf("%s: %s, want unreachable (violated, no witness)", r.Property.Name, r.Result)
					}
					continue
				}
				if r.Counterexample == nil {
					t.Errorf("%s: %s, no counterexample", r.Property.Name, r.Result)
					continue
				}
				if got := len(r.Counterexample.Workload.Steps); got != want {
					b, _ := r.Counterexample.Workload.MarshalJSON()
					t.Errorf("%s: shortest counterexample of %d steps, want %d: %s", r.Property.Name, got, want, b)
				}
			}
		})
	}
}
