package smt

import (
	"context"
	"testing"

	"kidx/model"
	"kidx/props"
)

// Issue 23, "the fix proven", for every configuration: under candidate fix (a) no append of
// at most segment.index.bytes/12 batches (here one or two) meets a full index, proved by
// k-induction for every index.interval.bytes, segment.bytes, segment.index.bytes and batch
// size; under Kafka 4.1-4.4 the same claim comes back false, as a workload that model
// confirms (an overflow event on replay). The proof has teeth: without the fix's roll, or
// without its assumption, the same obligation is refuted, each time with a counterexample
// model confirms under the candidate era.
func TestProveFixANeverOverflows(t *testing.T) {
	z := needZ3(t)
	ctx := context.Background()
	for _, fix := range []bool{false, true} {
		rep, err := Prove(ctx, Options{Solver: z, Properties: []string{"NoIndexOverflowMidAppend"}, RollOnIndexRoom: fix})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Properties) != 1 {
			t.Fatalf("%d results", len(rep.Properties))
		}
		r := rep.Properties[0]
		t.Logf("fix (a) %v: %s %s (k = %d, %.2f s) %s", fix, r.Kind, r.Result, r.K, r.Seconds, r.Note)
		switch {
		case fix && (r.Kind != "invariant" || r.Result != Proved):
			t.Errorf("fix (a): %s %s, want a proved invariant: %s", r.Kind, r.Result, r.Note)
		case !fix && (r.Kind != "question" || r.Result != Violated || r.Counterexample == nil || !r.Counterexample.Confirmed):
			t.Errorf("per-batch: %s %s %+v, want a question refuted with a confirmed counterexample", r.Kind, r.Result, r.Counterexample)
		}
	}

	// Without the roll the system is Kafka 4.1-4.4's: replayed there. Without the assumption
	// it is still the candidate's: replayed under it, counting every overflow
	// (props.MidAppendOverflow; NoIndexOverflowMidAppend's claim leaves out larger appends).
	noRoll := fixANeverOverflows(model.Exact)
	noRoll.sys.RollOnIndexRoom, noRoll.era = false, nil
	noAssumption := fixANeverOverflows(model.Exact)
	noAssumption.assume, noAssumption.replay = nil, replayWith(props.MidAppendOverflow)
	for name, o := range map[string]*obligation{"without the roll": noRoll, "without the assumption": noAssumption} {
		r, err := o.prove(ctx, z)
		if err != nil {
			t.Fatal(err)
		}
		if r.Result != Violated || r.Counterexample == nil || !r.Counterexample.Confirmed {
			t.Errorf("%s: %s, want violated with a counterexample model confirms: %s %+v", name, r.Result, r.Note, r.Counterexample)
			continue
		}
		t.Logf("%s: violated in %d steps: %s", name, r.Counterexample.Length, r.Counterexample.Replay)
	}
}
