package props

import (
	"os"
	"slices"
	"strings"
	"testing"

	"kidx/model"
)

// candidateEras are the two fixes of the follower overflow as shipped in examples/eras
// (docs/kafka-hazards.md §6): (a) then (b).
func candidateEras(t testing.TB) []model.Era {
	t.Helper()
	var out []model.Era
	for _, f := range []string{"fix-a-roll-on-index-room.json", "fix-b-skip-entry-when-full.json"} {
		data, err := os.ReadFile("../examples/eras/" + f)
		if err != nil {
			t.Fatal(err)
		}
		e, err := model.ParseEraSpec(data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	if !out[0].RollWhenAppendLacksIndexRoom || out[0].SkipEntryWhenIndexFull || !out[1].SkipEntryWhenIndexFull || out[1].RollWhenAppendLacksIndexRoom {
		t.Fatalf("examples/eras: want (a) then (b), got %+v", out)
	}
	return out
}

// fixSpace is the small space where per-batch's NoIndexOverflowMidAppend fails: appends of up
// to maxAppend batches of 68 or 100 bytes, index.interval.bytes 0 or 100, 1000-byte segments,
// segment.index.bytes 24 (offset index 3 slots, time index 2, one reserved: one usable) or 36
// (4 and 3: two usable).
func fixSpace(era *model.Era, maxAppend int) ProveOptions {
	return ProveOptions{Rule: model.PerBatch, Era: era, Alphabet: []int64{68, 100}, MaxAppend: maxAppend,
		Intervals: []int64{0, 100}, Segments: []int64{1000}, IndexBytes: []int64{24, 36}}
}

// result is a proof's outcome for one property, with its counterexample's steps as batch
// sizes per append and the config it ran under.
func proofOutcome(t *testing.T, pf *Proof, name string) (string, [][]int64, model.Config) {
	t.Helper()
	for _, r := range pf.Results {
		if r.Property.Name != name {
			continue
		}
		if r.Counterexample == nil {
			return r.Result, nil, model.Config{}
		}
		var steps [][]int64
		for _, s := range r.Counterexample.Workload.Steps {
			var sizes []int64
			for _, b := range s.Append {
				sizes = append(sizes, b.Bytes)
			}
			steps = append(steps, sizes)
		}
		cfg := model.DefaultConfig()
		if err := r.Counterexample.Workload.ApplyTo(&cfg); err != nil {
			t.Fatal(err)
		}
		return r.Result, steps, cfg
	}
	t.Fatalf("%s not decided", name)
	return "", nil, model.Config{}
}

// Issue 23, "the fix proven": the fixpoint's verdicts on the two candidates over fixSpace,
// against per-batch (4.1-4.4) on the same space. The shortest counterexamples, by hand
// (I = 0, segment.index.bytes 24: one usable time slot; every batch after a segment's first
// is due; the first config and the first letter, 68, come first among equals):
//
//   - per-batch, appends of up to 2: one append cannot overflow (its first batch is never
//     indexed, so 2 batches add at most 1 entry); [68] then [68 68]: shouldRoll sees no full
//     index, batch 1 takes the usable slot, batch 2's time entry throws. 2 steps.
//   - fix (a), appends of up to 2 (within its assumption: 24/12 = 2 batches): the second append
//     finds 1 free time slot for 2 batches and rolls first; no overflow anywhere, every
//     invariant proved, and MidAppendOverflow unreachable.
//   - fix (a), appends of up to 3: still proved within the assumption; the 3-batch append
//     into an empty segment at 24 (2 entries due, 1 usable slot) is outside it and is
//     MidAppendOverflow's witness: 1 step, [68 68 68].
//   - fix (b), appends of up to 3: no overflow (MidAppendOverflow unreachable), but ScanBound
//     is a finding: [68] then [68 68 68]: batch 1 takes the slot, batches 2 and 3 are due and
//     skipped; the lookup of batch 3 starts at batch 1's entry (byte 68) and scans 136 B past
//     the bound I + the batch before = 68 B, by batch 1's 68 B. With appends of up to 2 no
//     append can skip two batches after an entry, so ScanBound holds there.
func TestProveCandidateFixes(t *testing.T) {
	eras := candidateEras(t)
	fixA, fixB := &eras[0], &eras[1]
	prove := func(era *model.Era, maxAppend int) *Proof {
		t.Helper()
		pf, err := Prove(fixSpace(era, maxAppend))
		if err != nil {
			t.Fatal(err)
		}
		if !pf.Complete {
			t.Fatal("no fixpoint")
		}
		return pf
	}
	allInvariantsProved := func(name string, pf *Proof) {
		t.Helper()
		for _, r := range pf.Results {
			if r.Kind == Invariant && r.Result != Proved {
				t.Errorf("%s: invariant %s: %s", name, r.Property.Name, r.Result)
			}
		}
	}
	want := func(name string, pf *Proof, property, result string, steps [][]int64, interval, indexBytes int64) {
		t.Helper()
		got, gotSteps, cfg := proofOutcome(t, pf, property)
		if got != result || !equalSteps(gotSteps, steps) || steps != nil && (cfg.IndexIntervalBytes != interval || cfg.SegmentIndexBytes != indexBytes) {
			t.Errorf("%s: %s: %s %v at I=%d, segment.index.bytes=%d; want %s %v at I=%d, %d",
				name, property, got, gotSteps, cfg.IndexIntervalBytes, cfg.SegmentIndexBytes, result, steps, interval, indexBytes)
		}
	}

	pb := prove(nil, 2)
	allInvariantsProved("per-batch", pb)
	want("per-batch", pb, "NoIndexOverflowMidAppend", Finding, [][]int64{{68}, {68, 68}}, 0, 24)
	want("per-batch", pb, "MidAppendOverflow", Witness, [][]int64{{68}, {68, 68}}, 0, 24)

	a2 := prove(fixA, 2)
	allInvariantsProved("(a), 2", a2)
	want("(a), 2", a2, "NoIndexOverflowMidAppend", Proved, nil, 0, 0)
	want("(a), 2", a2, "MidAppendOverflow", Violated, nil, 0, 0)
	if k := KindUnder(NoIndexOverflowMidAppend, model.PerBatch, fixA); k != Invariant {
		t.Errorf("(a): NoIndexOverflowMidAppend is a %s, want an invariant", k)
	}

	a3 := prove(fixA, 3)
	allInvariantsProved("(a), 3", a3)
	want("(a), 3", a3, "MidAppendOverflow", Witness, [][]int64{{68, 68, 68}}, 0, 24)

	b3 := prove(fixB, 3)
	allInvariantsProved("(b), 3", b3)
	want("(b), 3", b3, "NoIndexOverflowMidAppend", Proved, nil, 0, 0)
	want("(b), 3", b3, "MidAppendOverflow", Violated, nil, 0, 0)
	want("(b), 3", b3, "ScanBound", Finding, [][]int64{{68}, {68, 68, 68}}, 0, 24)
	for _, r := range b3.Results {
		if r.Property == ScanBound && !strings.Contains(r.Counterexample.Explanation, "scan 136 B > bound 68 B") {
			t.Errorf("(b): ScanBound: %s, want scan 136 B > bound 68 B", r.Counterexample.Explanation)
		}
	}
	b2 := prove(fixB, 2)
	allInvariantsProved("(b), 2", b2)
	want("(b), 2", b2, "NoIndexOverflowMidAppend", Proved, nil, 0, 0)
	want("(b), 2", b2, "MidAppendOverflow", Violated, nil, 0, 0)
	want("(b), 2", b2, "ScanBound", Proved, nil, 0, 0)
}

func equalSteps(a, b [][]int64) bool {
	return slices.EqualFunc(a, b, slices.Equal)
}

// An independent brute force for TestProveCandidateFixes' overflow verdicts: every workload
// of up to 3 appends over fixSpace, run from scratch through model.SimulateEra (no prover,
// no abstraction), and the fewest appends that make Kafka throw, counting only appends of at
// most limit batches (0: none such workload up to 3 appends).
func TestCandidateOverflowsBruteForce(t *testing.T) {
	eras := candidateEras(t)
	shortest := func(era model.Era, maxAppend, limit int) int {
		var appends [][]int64
		for n := 1; n <= maxAppend; n++ {
			for code := 0; code < 1<<n; code++ {
				var a []int64
				for j := range n {
					a = append(a, []int64{68, 100}[code>>j&1])
				}
				appends = append(appends, a)
			}
		}
		best := 0
		for _, I := range []int64{0, 100} {
			for _, ib := range []int64{24, 36} {
				cfg := model.DefaultConfig()
				cfg.SegmentBytes, cfg.IndexIntervalBytes, cfg.SegmentIndexBytes = 1000, I, ib
				var walk func(prefix [][]int64)
				walk = func(prefix [][]int64) {
					if len(prefix) > 0 {
						var steps []model.Step
						ts := int64(1_700_000_000_000)
						for _, a := range prefix {
							var bs []model.Batch
							for _, size := range a {
								bs = append(bs, model.Batch{Records: 1, Bytes: size, MaxTimestamp: ts})
								ts++
							}
							steps = append(steps, model.AppendStep(bs...))
						}
						l, err := model.SimulateEra(cfg, era, 0, steps, false)
						if err != nil {
							t.Fatal(err)
						}
						for _, e := range l.Events() {
							if (e.Kind == model.EventOffsetIndexFull || e.Kind == model.EventTimeIndexFull) && len(prefix[e.Step]) <= limit {
								if best == 0 || len(prefix) < best {
									best = len(prefix)
								}
							}
						}
					}
					if len(prefix) == 3 {
						return
					}
					for _, a := range appends {
						walk(append(prefix, a))
					}
				}
				walk(nil)
			}
		}
		return best
	}
	perBatch := model.EraForRule(model.PerBatch)
	for _, tc := range []struct {
		name             string
		era              model.Era
		maxAppend, limit int
		want             int
	}{
		{"per-batch, appends of up to 2", perBatch, 2, 3, 2},
		{"per-batch, appends of up to 3", perBatch, 3, 3, 1},
		{"(a), within its assumption (2 batches at 24, 3 at 36: 2 for both)", eras[0], 3, 2, 0},
		{"(a), outside it", eras[0], 3, 3, 1},
		{"(b)", eras[1], 3, 3, 0},
	} {
		if got := shortest(tc.era, tc.maxAppend, tc.limit); got != tc.want {
			t.Errorf("%s: the shortest overflow has %d appends, want %d (0: none up to 3)", tc.name, got, tc.want)
		}
	}
}

// Issue 23: rapid (kidx check) under the candidates: with fix (a) NoIndexOverflowMidAppend is
// an invariant (appends within its assumption) and holds; under per-batch the same cases find
// the overflow; under fix (b) ScanBound is a question and is found false.
func TestCheckCandidateFixes(t *testing.T) {
	eras := candidateEras(t)
	for _, tc := range []struct {
		name string
		p    *Property
		era  *model.Era
		kind Kind
		want string
	}{
		{"per-batch", NoIndexOverflowMidAppend, nil, Question, Finding},
		{"(a)", NoIndexOverflowMidAppend, &eras[0], Invariant, Holds},
		{"(b)", NoIndexOverflowMidAppend, &eras[1], Invariant, Holds},
		{"(b)", ScanBound, &eras[1], Question, Finding},
	} {
		res, err := Check(tc.p, Options{Rule: model.PerBatch, Era: tc.era, Checks: 3000, Seed: 23})
		if err != nil {
			t.Fatal(err)
		}
		if res.Kind != tc.kind || res.Outcome != tc.want {
			t.Errorf("%s: %s: %s %s, want %s %s", tc.name, tc.p.Name, res.Kind, res.Outcome, tc.kind, tc.want)
		}
		if res.Counterexample != nil {
			t.Logf("%s: %s: %d cases: %s", tc.name, tc.p.Name, res.Cases, res.Counterexample.Explanation)
		}
	}
}
