package props

import (
	"testing"

	"pgregory.net/rapid"

	"kidx/model"
)

// Issue 11, defect 10: check's counterexamples could not be written with kidx write, because
// CaseGen drew 1-record batches of 61 bytes (and 3 records in 62 bytes, ...). Every batch it
// draws now can exist.
func TestCaseGenDrawsOnlyPossibleBatches(t *testing.T) {
	for _, o := range []GenOptions{{Rule: model.PerBatch}, {Rule: model.PerAppend, MaxGroup: 4, Restarts: true}} {
		rapid.Check(t, func(t *rapid.T) {
			c := CaseGen(o).Draw(t, "case")
			var tally model.ImpossibleBatches
			tally.Add(c.Steps)
			if tally.Count > 0 {
				t.Fatalf("%s", tally.String())
			}
		})
	}
}

// The exhaustive walk's batches can exist, for the default alphabet and for one whose k-th
// size cannot hold k+1 records (68 bytes holds 1); AlphabetError refuses 61, which holds none.
func TestExhaustiveBatchesArePossible(t *testing.T) {
	for _, alphabet := range [][]int64{DefaultAlphabet, {68, 68, 68, 126}} {
		for k := range alphabet {
			if b := exhaustiveBatch(alphabet, k, 0); b.Possible() != nil {
				t.Errorf("alphabet %v, size %d: %+v: %v", alphabet, k, b, b.Possible())
			}
		}
	}
	if AlphabetError([]int64{61, 100}) == nil || AlphabetError(DefaultAlphabet) != nil {
		t.Error("AlphabetError")
	}
}
