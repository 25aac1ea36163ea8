package props

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"kidx/model"
)

// The fast path's stepper is a fourth writing of Kafka's append rule (docs/proofs.md, "The
// fast path"); it is trusted only as far as it agrees with the model. Random workloads of the
// exactness test's space (indexes of 3 and 5 offset slots that fill, appends of up to three
// batches that overflow them mid-append, oversize appends that Kafka rejects, segments that
// roll every few batches, clean restarts one step in eight): after every step the stepper's
// state must be abstractOfWith of the model's log, and the properties it says the step violates
// or witnesses must be exactly those whose own Check newly fails on the concrete workload.
func TestStepperAgreesWithModel(t *testing.T) {
	workloads := 600
	if testing.Short() {
		workloads = 150
	}
	for _, rule := range []model.AppendRule{model.PerBatch, model.PerAppend} {
		t.Run(rule.String(), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(14, uint64(rule)))
			o := exactSpace
			o.Rule = rule
			o.defaults()
			ps := provedProperties(o)
			steps := proofSteps(o)
			fails := make([]int, len(ps))
			for range workloads {
				cfg := model.DefaultConfig()
				cfg.SegmentBytes = o.Segments[rng.IntN(len(o.Segments))]
				cfg.IndexIntervalBytes = o.Intervals[rng.IntN(len(o.Intervals))]
				cfg.SegmentIndexBytes = o.IndexBytes[rng.IntN(len(o.IndexBytes))]
				slotCap := slotCapFor(cfg, o.Alphabet)
				st := newAbstractStepper(cfg, rule, o.Alphabet, slotCap, o.Recovers)
				a := st.fresh
				var w exactWorkload
				before := exactVerdicts(ps, o, cfg, w)
				for range 1 + rng.IntN(40) {
					si := rng.IntN(len(steps))
					switch r := rng.IntN(8); {
					case r == 0:
						sp := specialStep(rng, o, steps)
						si = slices.IndexFunc(steps, func(x []int) bool { return slices.Equal(x, sp) })
					case r > 2:
						si = rng.IntN(len(o.Alphabet))
					}
					var so stepOutcome
					switch steps[si][0] {
					case restartStep:
						so = st.restart(a)
					case recoverStep:
						so = st.recover(a)
					default:
						so = st.appendLetters(a, steps[si])
					}
					w = append(w, steps[si])
					if got, want := so.next, exactState(o, cfg, slotCap, w); got != want {
						t.Fatalf("%s: after %v: stepper %+v, model %+v", exactConfig(cfg), w, got, want)
					}
					after := exactVerdicts(ps, o, cfg, w)
					for i, p := range ps {
						if p == Plateau {
							continue // the product's business, on the model path
						}
						newly := before[i] == nil && after[i] != nil
						if said := so.fails&(1<<i) != 0; said != newly && before[i] == nil {
							t.Fatalf("%s: %s after %v: stepper says fails=%v, the model's Check %v", exactConfig(cfg), p.Name, w, said, after[i])
						}
						if newly {
							fails[i]++
						}
					}
					before, a = after, so.next
				}
			}
			// The comparison has teeth only where the properties do fail: every sometimes
			// property and question of the space must have been seen failing.
			var seen []string
			for i, p := range ps {
				if k := p.KindFor(rule); k != Invariant && fails[i] > 0 {
					seen = append(seen, fmt.Sprintf("%s %d", p.Name, fails[i]))
				}
			}
			t.Logf("failures seen: %v", seen)
			for i, p := range ps {
				k := p.KindFor(rule)
				if k == Invariant || (rule == model.PerAppend && p == MidAppendOverflow) || (rule == model.PerAppend && p == NoIndexOverflowMidAppend) {
					continue // invariants hold; per-append never overflows mid-append (one entry per append)
				}
				if fails[i] == 0 {
					t.Errorf("%s never failed: the comparison says nothing about its verdict", p.Name)
				}
			}
		})
	}
}

// The fast path and the model path are one search: on spaces with restarts, small indexes,
// appends of three batches and rejected appends, under each rule, they give the same
// figures and the same results, counterexample for counterexample.
func TestFastPathEqualsModelPath(t *testing.T) {
	spaces := []ProveOptions{
		smallProofSpace,
		{Alphabet: []int64{68, 100, 168}, MaxAppend: 3, Intervals: []int64{0, 67, 168, 300}, Segments: []int64{600},
			IndexBytes: []int64{24, 40, model.DefaultSegmentIndexBytes}},
		{Alphabet: []int64{68, 100, 700}, MaxAppend: 2, Intervals: []int64{0, 100, 700, 1000}, Segments: []int64{600},
			IndexBytes: []int64{24, 64}, Restarts: true},
		{Alphabet: []int64{68, 100, 700}, MaxAppend: 2, Intervals: []int64{0, 100, 700, 1000}, Segments: []int64{600, 1000},
			IndexBytes: []int64{24, 64, model.DefaultSegmentIndexBytes}, Recovers: true},
	}
	for si, sp := range spaces {
		for _, rule := range []model.AppendRule{model.PerBatch, model.PerAppend} {
			t.Run(fmt.Sprintf("%d/%s", si, rule), func(t *testing.T) {
				t.Parallel()
				o := sp
				o.Rule = rule
				fast, err := Prove(o)
				if err != nil {
					t.Fatal(err)
				}
				o.ModelPath = true
				ref, err := Prove(o)
				if err != nil {
					t.Fatal(err)
				}
				if fast.States != ref.States || fast.Visits != ref.Visits || fast.Transitions != ref.Transitions ||
					fast.Diameter != ref.Diameter || fast.Complete != ref.Complete {
					t.Fatalf("figures: fast %d states, %d visits, %d transitions, diameter %d; model %d, %d, %d, %d",
						fast.States, fast.Visits, fast.Transitions, fast.Diameter, ref.States, ref.Visits, ref.Transitions, ref.Diameter)
				}
				t.Logf("%d states, %d transitions: fast %s, model %s", fast.States, fast.Transitions, fast.Elapsed, ref.Elapsed)
				for i := range fast.Results {
					f, r := fast.Results[i], ref.Results[i]
					if f.Result != r.Result || (f.Counterexample == nil) != (r.Counterexample == nil) {
						t.Fatalf("%s: fast %s, model %s", f.Property.Name, f.Result, r.Result)
					}
					if f.Counterexample == nil {
						continue
					}
					fw, rw := mustWorkloadJSON(f.Counterexample.Workload), mustWorkloadJSON(r.Counterexample.Workload)
					if fw != rw || f.Counterexample.Explanation != r.Counterexample.Explanation {
						t.Fatalf("%s: counterexamples differ:\nfast  %s\n  %s\nmodel %s\n  %s", f.Property.Name, fw, f.Counterexample.Explanation, rw, r.Counterexample.Explanation)
					}
				}
				if !slices.ContainsFunc(fast.Results, func(r ProofResult) bool { return r.Counterexample != nil }) {
					t.Fatal("no counterexample or witness to compare")
				}
			})
		}
	}
}
