package reports

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"kidx/model"
	"kidx/sim"
)

// stepsOnly hides a source's BatchStream, so RunWhatIf takes the slow path: every point
// through sim.Run (the reference model.Log), each with its own distributions.
type stepsOnly struct{ sim.Source }

func (s stepsOnly) Open() (sim.Stream, error) {
	st, err := s.Source.Open()
	return stepOnlyStream{st}, err
}

type stepOnlyStream struct{ sim.Stream }

// A sweep whose points share streams while they are the same run (runClass) gives every point
// exactly the figures of the reference path, where each point runs alone through model.Log:
// segments, entries, the exact ScanStats, exact quantiles (mixed batch sizes need refinement
// passes), regimes and the plateau's reference. Sweeps put several values inside one piece,
// values on both sides of batch sizes, and ties with the reference run's 0.
func TestWhatIfSharedStreamsMatchReference(t *testing.T) {
	refined := 0
	for seed := uint64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		var batches []model.Batch
		sizes := []int64{200 + r.Int64N(4000), 200 + r.Int64N(4000), 200 + r.Int64N(20000)}
		for i := range 300 + r.IntN(2000) {
			b := sizes[r.IntN(len(sizes))]
			if r.IntN(3) == 0 {
				b = 100 + r.Int64N(30000)
			}
			batches = append(batches, model.Batch{Records: 1 + r.Int64N(5), Bytes: b, MaxTimestamp: 1_700_000_000_000 + int64(i)})
		}
		w := model.BatchesWorkload(batches)
		cfg := model.DefaultConfig()
		cfg.SegmentBytes = 1 << (16 + r.IntN(5))
		if r.IntN(4) == 0 {
			cfg.SegmentIndexBytes = 64 * (1 + r.Int64N(8)) // index-full rolls
		}
		values := []int64{0, 1}
		for range 6 + r.IntN(10) {
			s := sizes[r.IntN(len(sizes))]
			values = append(values, max(0, s+r.Int64N(3)-1), r.Int64N(2*s+1), r.Int64N(cfg.SegmentBytes))
		}
		era := model.EraForRule(model.PerBatch)
		if r.IntN(2) == 0 {
			era = model.EraForRule(model.PerAppend)
		}
		opts := func(src sim.Source) WhatIfOptions {
			return WhatIfOptions{Source: src, Base: cfg, Eras: []model.Era{era}, Workers: 1 + r.IntN(3),
				Sweeps: []Sweep{{Key: "index.interval.bytes", Values: uniqueSorted(values)}}}
		}
		src := &sim.WorkloadSource{Name: "w", Workload: w}
		fast, err := RunWhatIf(opts(src))
		if err != nil {
			t.Fatal(err)
		}
		slow, err := RunWhatIf(opts(stepsOnly{src}))
		if err != nil {
			t.Fatal(err)
		}
		if fast.Passes > 1 {
			refined++
		}
		if len(fast.Points) != len(slow.Points) {
			t.Fatalf("seed %d: %d points vs %d", seed, len(fast.Points), len(slow.Points))
		}
		for i, p := range fast.Points {
			q := slow.Points[i]
			got, want := pointFigures(p), pointFigures(q)
			if got != want {
				t.Fatalf("seed %d, index.interval.bytes=%d:\nshared    %s\nreference %s", seed, p.Config.IndexIntervalBytes, got, want)
			}
		}
	}
	if refined < 10 {
		t.Fatalf("only %d of 60 sweeps needed refinement passes: the shared distributions' refinement is not exercised", refined)
	}
}

func pointFigures(p *Point) string {
	return fmt.Sprint(p.Segments, p.Batches, p.OffsetIndexEntries, p.TimeIndexEntries, p.DensestEntries, p.MaxEntriesPerSegment,
		p.IndexBytes, p.LogBytes, p.IndexFullRolls, p.Rejected, p.Scan, p.ScanQ, p.HopsQ, p.Regime, p.BoundSlack)
}

func uniqueSorted(v []int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, x := range v {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
