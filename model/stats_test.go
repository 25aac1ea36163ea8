package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomSteps draws a workload that exercises every path of the model: batch sizes around
// the interval and the segment size, multi-batch appends, timestamps that go back, restarts,
// recoveries, and (sometimes) an index small enough to fill.
func randomSteps(r *rand.Rand) (Config, []Step) {
	cfg := DefaultConfig()
	sizes := []int64{61, 78, 100, 200, 1000, 4095, 4096, 4097, 16350}
	cfg.IndexIntervalBytes = []int64{0, 1, 77, 100, 500, 4096, 20000, 1 << 20}[r.IntN(8)]
	cfg.SegmentBytes = []int64{200, 1000, 5000, 65536, 1 << 20}[r.IntN(5)]
	if r.IntN(4) == 0 {
		cfg.SegmentIndexBytes = int64(12 + r.IntN(100))
	}
	n := 1 + r.IntN(60)
	var steps []Step
	ts := int64(1000)
	for range n {
		switch k := r.IntN(20); {
		case k == 0:
			steps = append(steps, Step{Restart: true})
		case k == 1:
			steps = append(steps, Step{Recover: true})
		default:
			nb := 1
			if r.IntN(3) == 0 {
				nb = 1 + r.IntN(5)
			}
			var bs []Batch
			for range nb {
				ts += int64(r.IntN(7)) - 2
				b := Batch{Records: 1 + int64(r.IntN(20)), Bytes: sizes[r.IntN(len(sizes))], MaxTimestamp: ts}
				if r.IntN(10) == 0 {
					b.MaxTimestamp = NoTimestamp
				}
				bs = append(bs, b)
			}
			steps = append(steps, AppendStep(bs...))
		}
	}
	return cfg, steps
}

// docs/contract.md §5: the one-pass statistics must equal a per-offset lookup (phase 1 with Kafka's
// warm-section search, phase 2 by walking headers) on every segment.
func TestScanStatsMatchBruteForce(t *testing.T) {
	const seeds = 2500
	for _, rule := range []AppendRule{PerBatch, PerAppend} {
		for seed := uint64(1); seed <= seeds; seed++ {
			r := rand.New(rand.NewPCG(seed, uint64(rule)))
			cfg, steps := randomSteps(r)
			l, err := Simulate(cfg, rule, int64(r.IntN(1000)), steps, true)
			if err != nil {
				t.Fatalf("rule %s seed %d: %v", rule, seed, err)
			}
			var total ScanStats
			for _, s := range l.Segments() {
				bf := BruteForceScan(s)
				if s.Scan() != bf {
					t.Fatalf("rule %s seed %d segment %d: one-pass %+v, brute force %+v",
						rule, seed, s.BaseOffset(), s.Scan(), bf)
				}
				total.Merge(bf)
			}
			if l.Scan() != total {
				t.Fatalf("rule %s seed %d: log total %+v, sum of segments %+v", rule, seed, l.Scan(), total)
			}
		}
	}
}

// The streaming log (segments not kept) must report the same per-segment figures.
func TestStreamingSummariesMatchKeptSegments(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		cfg, steps := randomSteps(r)
		kept, err := Simulate(cfg, PerBatch, 0, steps, true)
		if err != nil {
			t.Fatal(err)
		}
		streamed, err := Simulate(cfg, PerBatch, 0, steps, false)
		if err != nil {
			t.Fatal(err)
		}
		a, b := kept.Summaries(), streamed.Summaries()
		if !slices.Equal(a, b) {
			t.Fatalf("seed %d: kept %+v\nstreamed %+v", seed, a, b)
		}
	}
}

// Segment.Runs replays the runs behind Scan(): they add up to it, and OnSegmentDone sees
// every segment of a streamed log once.
func TestSegmentRunsAddUp(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 31))
		cfg, steps := randomSteps(r)
		var seen int
		var total ScanStats
		l, err := NewLog(cfg, PerAppend, LogOptions{OnSegmentDone: func(s *Segment) {
			seen++
			var fromRuns ScanStats
			s.Runs(func(c, sc, h int64) { fromRuns.Add(c, sc, h) })
			if fromRuns != s.Scan().WithoutHeaderReads() {
				t.Fatalf("seed %d segment %d: runs %+v, scan %+v", seed, s.BaseOffset(), fromRuns, s.Scan())
			}
			total.Merge(fromRuns)
		}})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range steps {
			if l.Stopped() {
				break
			}
			if err := l.Apply(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if seen != l.SegmentCount() || total != l.Scan().WithoutHeaderReads() {
			t.Fatalf("seed %d: saw %d of %d segments, total %+v vs %+v", seed, seen, l.SegmentCount(), total, l.Scan())
		}
	}
}
