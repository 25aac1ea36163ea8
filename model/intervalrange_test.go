package model

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// runSignature is everything a run produces: each segment's batches, offset and time index,
// and the events.
func runSignature(t *testing.T, cfg Config, era Era, start int64, steps []Step) any {
	t.Helper()
	l, err := SimulateEra(cfg, era, start, steps, true)
	if err != nil {
		t.Fatal(err)
	}
	type seg struct {
		Base    int64
		Batches []BatchInfo
		Index   []OffsetPosition
		Time    []TimestampOffset
	}
	var out []seg
	for _, s := range l.Segments() {
		out = append(out, seg{s.BaseOffset(), append([]BatchInfo(nil), s.Batches()...), s.OffsetIndex().All(), s.TimeIndex().All()})
	}
	return struct {
		Segs   []seg
		Events []Event
	}{out, l.Events()}
}

// Log.IntervalRange is exact: a run at any value inside it is identical to the run it came
// from, and just outside each edge (when there is an outside) something differs. The check is
// the model itself rerun at those values, in every era, on workloads with multi-batch appends,
// restarts, recoveries, gaps and small indexes. A recovery rebuilds the index and so erases the
// decisions of the appends before it: with one, the range may be narrower than the values that
// give the same run (it is still true that every value inside gives the same run); so may an
// index overflow that stops the run (the checks of the failing append before the throw count
// even where another value throws just the same).
func TestIntervalRangeIsExact(t *testing.T) {
	for _, era := range Eras {
		for seed := uint64(1); seed <= 150; seed++ {
			r := rand.New(rand.NewPCG(seed, 53))
			start := int64(r.IntN(50))
			cfg, steps := randomEraSteps(r, start)
			if seed%2 == 0 {
				// Half the workloads without recoveries, where the range is exact both ways.
				kept := steps[:0:0]
				for _, st := range steps {
					if !st.Recover {
						kept = append(kept, st)
					}
				}
				steps = kept
			}
			l, err := SimulateEra(cfg, era, start, steps, false)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := l.IntervalRange()
			I := cfg.IndexIntervalBytes
			if lo > I || hi < I {
				t.Fatalf("era %s seed %d: range [%d, %d] misses the run's own %d", era.ID, seed, lo, hi, I)
			}
			want := runSignature(t, cfg, era, start, steps)
			same := func(v int64) bool {
				c := cfg
				c.IndexIntervalBytes = v
				return reflect.DeepEqual(runSignature(t, c, era, start, steps), want)
			}
			for _, v := range []int64{lo, hi, (lo + hi) / 2} {
				if !same(v) {
					t.Fatalf("era %s seed %d: the run at %d, inside [%d, %d], differs", era.ID, seed, v, lo, hi)
				}
			}
			recovers := false
			for _, st := range steps {
				recovers = recovers || st.Recover
			}
			if recovers || l.Stopped() {
				continue
			}
			if lo > 0 && same(lo-1) {
				t.Fatalf("era %s seed %d: the run at %d, below [%d, %d], is the same", era.ID, seed, lo-1, lo, hi)
			}
			if hi < 1<<31-1 && same(hi+1) {
				t.Fatalf("era %s seed %d: the run at %d, above [%d, %d], is the same", era.ID, seed, hi+1, lo, hi)
			}
		}
	}
}
