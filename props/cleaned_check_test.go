package props

import (
	"strings"
	"testing"

	"kidx/model"
)

// CheckClean (kidx check --clean) reports each property by its declared kind: an invariant
// that holds, the same invariant violated when the rule it rests on is broken (the counter
// incremented before the check gives a cleaned segment's first batch an entry at position 0),
// and the question CleanedIndexNeverOverflows as a finding with a workload ending in the clean
// step.
func TestCheckCleanOutcomes(t *testing.T) {
	res, err := CheckClean(CleanedFirstBatchNeverIndexed, CleanOptions{Checks: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != Invariant || res.Outcome != Holds || res.Cases != 100 || res.Counterexample != nil {
		t.Errorf("exact rules: %+v", res)
	}
	res, err = CheckClean(CleanedFirstBatchNeverIndexed, CleanOptions{Checks: 100, Seed: 1, Mutant: model.MutantIncrementBeforeCheck})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != Violated || res.Counterexample == nil || !strings.Contains(res.Counterexample.Explanation, "indexes its first batch") {
		t.Errorf("under MutantIncrementBeforeCheck: %+v", res)
	}
	res, err = CheckClean(CleanedIndexNeverOverflows, CleanOptions{Checks: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != Question || res.Outcome != Finding || res.Counterexample == nil {
		t.Fatalf("the question: %+v", res)
	}
	steps := res.Counterexample.Workload.Steps
	if len(steps) == 0 || steps[len(steps)-1].Clean == nil {
		t.Errorf("the counterexample does not end in the clean step: %+v", steps)
	}
}
