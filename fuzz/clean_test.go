package fuzz

import (
	"errors"
	"testing"
)

// TestCleanStepsAgree pins issue 25's differential: generated workloads with clean steps (drops,
// rewrites, delete horizons, small and growing buffers, uncleanable offsets) give the same
// segments, indexes and events on the model and on the files.
func TestCleanStepsAgree(t *testing.T) {
	cases := 600
	if testing.Short() {
		cases = 150
	}
	compared, cleans := 0, 0
	for i := range int64(cases) {
		w := CaseWorkload(25, i, GenOptions{MaxSteps: 24})
		n := 0
		for _, s := range w.Steps {
			if s.Clean != nil {
				n++
			}
		}
		if n == 0 {
			continue
		}
		d, err := Check(w, inMemory)
		if errors.Is(err, ErrSkip) {
			continue
		}
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if d != nil {
			d = Shrink(d, inMemory, 300)
			repro, _ := MarshalReproduction(d)
			t.Fatalf("case %d: model and files diverge: %s: %s\nreproduction:\n%s", i, d.Kind, d.What, repro)
		}
		compared++
		cleans += n
	}
	if compared < cases/4 {
		t.Fatalf("only %d of %d cases with clean steps were compared", compared, cases)
	}
	t.Logf("%d workloads with %d clean steps compared", compared, cleans)
}
