package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// StatStream must agree with the reference Log on every single-batch workload: same
// segments, same entry counts, same exact statistics.
func TestStatStreamMatchesLog(t *testing.T) {
	for seed := uint64(1); seed <= 3000; seed++ {
		r := rand.New(rand.NewPCG(seed, 17))
		cfg, steps := randomSteps(r)
		if r.IntN(5) == 0 {
			cfg.SegmentMs = int64(1 + r.IntN(20))
		}
		var batches []Batch
		for _, s := range steps {
			batches = append(batches, s.Append...) // every batch its own append; restarts dropped
		}
		ref, err := Simulate(cfg, PerBatch, 7, BatchesWorkload(batches).Steps, false)
		if err != nil {
			t.Fatal(err)
		}
		st, err := NewStatStream(cfg, 7, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range batches {
			st.Add(b.Bytes, b.Records, b.MaxTimestamp)
		}
		total := st.Close()
		if want := ref.Summaries(); !slices.Equal(st.Summaries(), want) {
			t.Fatalf("seed %d (cfg %+v):\nstream %+v\nlog    %+v", seed, cfg, st.Summaries(), want)
		}
		if total != ref.Scan() {
			t.Fatalf("seed %d: totals %+v vs %+v", seed, total, ref.Scan())
		}
		var rejected int64
		for _, e := range ref.Events() {
			if e.Kind == EventRejected {
				rejected++
			}
		}
		if st.Rejected() != rejected {
			t.Fatalf("seed %d: rejected %d vs %d", seed, st.Rejected(), rejected)
		}
	}
}

// The runs reported through OnRun add up to the stream's statistics.
func TestStatStreamRunsAddUp(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 23))
		cfg, steps := randomSteps(r)
		st, err := NewStatStream(cfg, 0, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		var fromRuns ScanStats
		st.OnRun(func(count, scan, hops int64) { fromRuns.Add(count, scan, hops) })
		for _, s := range steps {
			for _, b := range s.Append {
				st.Add(b.Bytes, b.Records, b.MaxTimestamp)
			}
		}
		if total := st.Close(); total.WithoutHeaderReads() != fromRuns {
			t.Fatalf("seed %d: stats %+v, runs %+v", seed, total, fromRuns)
		}
	}
}
