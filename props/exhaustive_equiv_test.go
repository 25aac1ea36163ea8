package props

import (
	"reflect"
	"testing"

	"kidx/model"
)

// The optimized walk (prefix logs extended by Clone, shared variant runs, parallel jobs)
// visits the same states and gives the same results as the reference walk, which replays
// every workload from scratch: states, outcomes and counterexamples (workload, explanation,
// compared configs), for both rules and a mutant that several invariants catch. Elapsed is
// the only field that may differ.
func TestExhaustiveMatchesReference(t *testing.T) {
	maxLen := 4
	if testing.Short() {
		maxLen = 3
	}
	cases := []struct {
		name string
		o    ExhaustiveOptions
	}{
		{"per-batch", ExhaustiveOptions{Rule: model.PerBatch}},
		{"per-append", ExhaustiveOptions{Rule: model.PerAppend}},
		{"mutant-ge", ExhaustiveOptions{Rule: model.PerBatch, Mutant: model.MutantGreaterOrEqual}},
		// Segments that reject joined appends (events) and roll at most appends, and an
		// interval whose comparison partner (101) is not in the space.
		{"small-segment", ExhaustiveOptions{Rule: model.PerBatch, Alphabet: []int64{68, 100, 4096}, Intervals: []int64{0, 60, 100},
			Segments: []int64{4300}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			exhaustiveMatches(t, tc.o, maxLen)
		})
	}
}

// exhaustiveMatches compares both walks for every MaxLen up to maxLen (a shorter bound moves
// the first counterexample and the state counts), and reports how many properties failed,
// so that a vacuous comparison shows.
func exhaustiveMatches(t *testing.T, o ExhaustiveOptions, maxLen int) {
	for n := 1; n <= maxLen; n++ {
		o.MaxLen = n
		want := exhaustiveReference(All(), o)
		got := Exhaustive(All(), o)
		failed := 0
		for i := range want {
			want[i].Elapsed, got[i].Elapsed = 0, 0
			if want[i].Counterexample != nil {
				failed++
			}
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("L=%d %s:\n got %+v\nwant %+v", n, want[i].Property, got[i], want[i])
				if got[i].Counterexample != nil && want[i].Counterexample != nil {
					t.Errorf(" got %s\nwant %s", got[i].Counterexample.Explanation, want[i].Counterexample.Explanation)
				}
			}
		}
		t.Logf("L=%d: %d properties with a counterexample, identical", n, failed)
	}
}
